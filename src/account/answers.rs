//! Applies what a line says of tool calls (asked for, refused, ran) and counts what the
//! execution's [`super::enforcement::CallBook`] finds: a denied call that ran anyway
//! (`permission_denials_unenforced_total`, a `denial_unenforced` audit record), a loop reaching a
//! step (`permission_denial_loops_total`).
//!
//! A refusal in the per-call record is a denial like a frame: counted at once with the reason
//! its record gives (docs/formats.md, "What the SDK's per-call record says"), once per tool use id
//! whichever of frame, record entry and per-call record comes first, under the tool its call was
//! asked for with. **Not here:** decoding the answers (`crate::decode::calls`), what is kept per
//! execution ([`super::enforcement`]).
//!
//! Cold: per tool call.

use super::audit_builder::{DecidedRisk, Ids};
use super::digest::Digest;
use super::enforcement::Finding;
use super::labels::OTHER;
use super::{label_value, Accountant, Heard, LineSource};
use crate::decode::{Attempted, Calls, Format, Outcome};
use crate::vocab::counters::{LoopKey, ToolKey};
use crate::vocab::{LineOutcome, Reason};

/// Where a finding was made, for its counters' labels and its audit record.
pub(super) struct FoundAt<'a> {
    pub time: Option<f64>,
    pub execution_id: Option<&'a str>,
    pub tool_use_id: Option<&'a str>,
    /// The `workflow` label value.
    pub workflow: &'a str,
    pub source: LineSource<'a>,
    pub format: Format,
}

/// The digest an input is known by (distinct inputs of a loop), as for an input an `assistant`
/// message asked with ([`Digest::of_input`]).
pub(super) fn input_digest(attempted: &Attempted) -> Digest {
    match attempted {
        Attempted::Json(text) | Attempted::Text(text) => Digest::of_input(text),
    }
}

impl Accountant {
    /// Applies one line's calls; `Counted` if it counted anything, `Duplicate` if it only
    /// repeated denials already counted, else `Ignored`. Each id is digested once; the execution
    /// is visited once for what its book says of every call, and once more per refused call to
    /// count it (and forget its ask).
    pub(super) fn on_calls(&mut self, calls: Calls, source: LineSource<'_>) -> LineOutcome {
        let time = self.advance_clock(calls.time);
        let digests: Vec<Digest> = calls
            .calls
            .iter()
            .map(|c| Digest::of(&c.tool_use_id))
            .collect();
        // Per call: the tool a refused one was asked with, and what an answer that ran found.
        let mut asked_tools: Vec<Option<String>> = vec![None; calls.calls.len()];
        let mut found: Vec<(usize, Finding)> = Vec::new();
        let mut execution_workflow = None;
        if let Some(execution) = &calls.execution_id {
            self.with_execution(execution, |e| {
                for (i, (call, digest)) in calls.calls.iter().zip(&digests).enumerate() {
                    match &call.outcome {
                        Outcome::Requested => {
                            let tool = label_value(call.tool.as_deref().unwrap_or("unknown"));
                            let input = call.input;
                            e.calls.ask(*digest, tool.to_string(), input);
                        }
                        Outcome::Rejected { .. } => {
                            asked_tools[i] = e.calls.asked(*digest).map(|a| a.tool.clone());
                        }
                        Outcome::Ran => {
                            let tool = call.tool.as_deref().map(|t| label_value(t).to_string());
                            let finding = e.calls.ran(*digest, tool, e.counted(*digest));
                            if !finding.is_empty() {
                                found.push((i, finding));
                            }
                        }
                        Outcome::Failed => {
                            e.calls.answered(*digest);
                        }
                    }
                }
                execution_workflow.clone_from(&e.workflow);
            });
        }
        let mut outcome = LineOutcome::Ignored;
        for (i, (call, digest)) in calls.calls.iter().zip(&digests).enumerate() {
            let Outcome::Rejected { reason, text } = &call.outcome else {
                continue;
            };
            let tool = call.tool.as_deref().or(asked_tools[i].as_deref());
            let heard = Heard {
                format: calls.format,
                time,
                execution_id: calls.execution_id.as_deref(),
                workflow: calls.workflow.as_deref(),
                tool: tool.unwrap_or("unknown"),
                tool_use_id: Some(&call.tool_use_id),
                tool_use_digest: Some(*digest),
                reason: *reason,
                reason_text: text.as_deref(),
                input_summary: None,
                attempted: None,
                answers_call: true,
            };
            match self.count_heard(heard, source) {
                LineOutcome::Counted => outcome = LineOutcome::Counted,
                other if outcome == LineOutcome::Ignored => outcome = other,
                _ => {}
            }
        }
        if found.is_empty() {
            return outcome;
        }
        let workflow = calls.workflow.clone().or(execution_workflow);
        let workflow = self.workflow_label(workflow.as_deref(), source);
        for (i, finding) in found {
            let at = FoundAt {
                time,
                execution_id: calls.execution_id.as_deref(),
                tool_use_id: Some(&calls.calls[i].tool_use_id),
                workflow: &workflow,
                source,
                format: calls.format,
            };
            self.count_finding(finding, "unknown", at);
        }
        LineOutcome::Counted
    }

    /// Runs `f` on the execution `id` (created if new), counting what the cap evicts.
    fn with_execution<R>(
        &mut self,
        id: &str,
        f: impl FnOnce(&mut super::reconcile::Execution) -> R,
    ) -> R {
        let (clock, cap) = (self.state.clock, self.config.limits.max_executions);
        let (result, evicted) = self.state.executions.with(id, clock, cap, f);
        self.state.metrics.evicted_cap += evicted;
        result
    }

    /// Counts what counting a denial of the `tool` label value (or an answer, which names its
    /// own) found: an unenforced denial (its counter and its `denial_unenforced` record) and the
    /// loop steps reached.
    pub(super) fn count_finding(&mut self, finding: Finding, tool: &str, at: FoundAt<'_>) {
        if finding.is_empty() {
            return;
        }
        let tool = finding.tool.as_deref().unwrap_or(tool).to_string();
        let path = at.source.path_labels;
        let max = self.config.limits.max_series;
        let m = &mut self.state.metrics;
        for (pattern, step) in finding.loops {
            let mut key = LoopKey {
                path: path.clone(),
                tool: tool.clone(),
                workflow: at.workflow.to_string(),
                pattern,
                at: step,
            };
            if m.loops.len() >= max && !m.loops.contains_key(&key) {
                // Past the series cap, like permission_denials_total: tool and workflow `other`.
                (key.tool, key.workflow) = (OTHER.to_string(), OTHER.to_string());
                m.series_overflow = m.series_overflow.saturating_add(1);
            }
            let count = m.loops.entry(key).or_default();
            *count = count.saturating_add(1);
        }
        if !finding.unenforced {
            return;
        }
        let mut key = ToolKey {
            path: path.clone(),
            tool: tool.clone(),
            workflow: at.workflow.to_string(),
        };
        if m.unenforced.len() >= max && !m.unenforced.contains_key(&key) {
            (key.tool, key.workflow) = (OTHER.to_string(), OTHER.to_string());
            m.series_overflow = m.series_overflow.saturating_add(1);
        }
        let count = m.unenforced.entry(key).or_default();
        *count = count.saturating_add(1);
        let mut ids = Ids::new(at.execution_id, at.tool_use_id);
        let record = DecidedRisk {
            time: at.time,
            tool,
            workflow: at.workflow.to_string(),
            path: path.clone(),
            reason: finding.reason.unwrap_or(Reason::Unknown),
            risk: UNKNOWN_RISK.to_string(),
            input_summary: None,
            source: at.source.path,
            format: at.format.as_str(),
        };
        let tally = &mut self.state.metrics.redactions;
        self.shows.unenforced(record, &mut ids, tally);
    }
}

/// The `risk` of a `denial_unenforced` record: its class is on its denial's own record.
const UNKNOWN_RISK: &str = "unknown";
