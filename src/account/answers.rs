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
use super::{label_value, Accountant, LineSource};
use crate::decode::{Attempted, Calls, Denial, Format, Outcome};
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

/// The digest an input is known by (distinct inputs of a loop).
pub(super) fn input_digest(attempted: &Attempted) -> Digest {
    match attempted {
        Attempted::Json(text) | Attempted::Text(text) => Digest::of(text),
    }
}

impl Accountant {
    /// Applies one line's calls; `Counted` if it counted anything, `Duplicate` if it only
    /// repeated denials already counted, else `Ignored`.
    pub(super) fn on_calls(&mut self, calls: Calls, source: LineSource<'_>) -> LineOutcome {
        let time = self.advance_clock(calls.time);
        let mut outcome = LineOutcome::Ignored;
        let mut more = |o: LineOutcome| {
            if o == LineOutcome::Counted || outcome == LineOutcome::Ignored {
                outcome = o;
            }
        };
        for call in calls.calls {
            let id = call.tool_use_id.as_str();
            match call.outcome {
                Outcome::Requested => {
                    if let Some(execution) = &calls.execution_id {
                        let tool = label_value(call.tool.as_deref().unwrap_or("unknown"));
                        let input = call.input.as_deref().map(Digest::of);
                        self.with_execution(execution, |e| {
                            e.calls.ask(id, tool.to_string(), input);
                        });
                    }
                }
                Outcome::Rejected { reason_type, text } => {
                    let asked = calls.execution_id.as_deref().and_then(|execution| {
                        self.with_execution(execution, |e| {
                            e.calls.asked(id).map(|a| a.tool.clone())
                        })
                    });
                    let denial = Denial {
                        format: calls.format,
                        time: calls.time,
                        execution_id: calls.execution_id.clone(),
                        workflow: calls.workflow.clone(),
                        tool: call.tool.or(asked).unwrap_or_else(|| "unknown".to_string()),
                        tool_use_id: Some(call.tool_use_id.clone()),
                        reason_type: Some(reason_type),
                        reason_text: text,
                        input_summary: None,
                        attempted: None,
                    };
                    more(self.on_denial(denial, source));
                    if let Some(execution) = &calls.execution_id {
                        self.with_execution(execution, |e| e.calls.answered(id));
                    }
                }
                Outcome::Ran => {
                    let Some(execution) = &calls.execution_id else {
                        continue;
                    };
                    let tool = call.tool.as_deref().map(|t| label_value(t).to_string());
                    let (finding, workflow) = self.with_execution(execution, |e| {
                        let denied = e.counted(id);
                        (e.calls.ran(id, tool, denied), e.workflow.clone())
                    });
                    if finding.is_empty() {
                        continue;
                    }
                    let workflow = calls.workflow.clone().or(workflow);
                    let workflow = self.workflow_label(workflow.as_deref(), source);
                    let at = FoundAt {
                        time,
                        execution_id: Some(execution),
                        tool_use_id: Some(id),
                        workflow: &workflow,
                        source,
                        format: calls.format,
                    };
                    self.count_finding(finding, at);
                    more(LineOutcome::Counted);
                }
                Outcome::Failed => {
                    if let Some(execution) = &calls.execution_id {
                        self.with_execution(execution, |e| e.calls.answered(id));
                    }
                }
            }
        }
        outcome
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

    /// Counts what counting a denial or an answer found: an unenforced denial (its counter and
    /// its `denial_unenforced` record) and the loop steps reached.
    pub(super) fn count_finding(&mut self, finding: Finding, at: FoundAt<'_>) {
        let path = at.source.path_labels;
        for (pattern, step) in finding.loops {
            let key = LoopKey {
                path: path.clone(),
                tool: finding.tool.clone(),
                workflow: at.workflow.to_string(),
                pattern,
                at: step,
            };
            let count = self.state.metrics.loops.entry(key).or_default();
            *count = count.saturating_add(1);
        }
        if !finding.unenforced {
            return;
        }
        let key = ToolKey {
            path: path.clone(),
            tool: finding.tool.clone(),
            workflow: at.workflow.to_string(),
        };
        let count = self.state.metrics.unenforced.entry(key).or_default();
        *count = count.saturating_add(1);
        let mut ids = Ids::new(at.execution_id, at.tool_use_id);
        let record = DecidedRisk {
            time: at.time,
            tool: finding.tool,
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
