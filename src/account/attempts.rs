//! What each denial attempted: its risk class, decided exactly once, when its input is first
//! known, and counted in `permission_denial_risks_total` under the tool and workflow label values
//! its denial was counted under.
//!
//! When a class is decided: a denial whose line carries its tool input (a record's list entry, a
//! hook input with `tool_input`, a frame with one) at once, from the input; a mid-stream denial
//! with a tool use id and a correlation key waits ([`PendingRisk`], in the execution's state)
//! for its execution's next record, which brings the input under the same tool use id; when
//! that record has no input for it, or the execution is evicted first, the class of its reason
//! text decides. Any other mid-stream denial at once, from its reason text. So once every
//! execution has had its record or been evicted, the risk counter's sum equals the denials'.
//!
//! Owns the step from an attempt to a counted class, and the `risk_decided` audit record of a
//! class decided after its denial was counted. **Not here:** the rules ([`crate::risk`]),
//! reconciliation ([`super::reconcile`]), the audit schema ([`crate::vocab::AuditRecord`]).
//!
//! Cost: per denial, never per line. Classification reads the unredacted input in memory and
//! keeps only the class; the state holds label values and classes, no text. A JSON input (at
//! most [`crate::decode::MAX_ATTEMPT_BYTES`] of it) reaches the classifier as its text, parsed
//! there only when the same tool and text were not classified before.

use std::sync::OnceLock;

use super::deferred::RawFields;
use super::reconcile::{PendingRisk, Undecided, DEFERRED_REASON_BYTES};
use super::shown::Field;
use super::{wall_now, Accountant};
use crate::decode::{self, Attempted, RecordedDenial, RecordedDenials};
#[cfg(test)]
use crate::risk::RiskRules;
use crate::risk::{Attempt, Input, Risk};
use crate::vocab::counters::{DenialKey, RiskKey};
use crate::vocab::{AuditKind, AuditRecord, Origin, RISK_PENDING};

/// When the class of a denial being counted is decided.
pub(super) enum Decision<'a> {
    /// Now: this class.
    Now(Risk),
    /// When its execution's record brings its input; the class of this reason text if none
    /// comes (decided only then).
    Wait(Option<&'a str>),
}

/// Where a class decided later came from, for its audit record.
pub(super) struct Decided<'a> {
    pub time: Option<f64>,
    pub execution_id: Option<&'a str>,
    /// The record's entry for the denial, when it listed one.
    pub entry: Option<&'a RecordedDenial>,
    pub source: &'a str,
    pub format: &'static str,
}

impl Accountant {
    /// Uses `rules` for every denial classified from now on, instead of the configuration's
    /// (`--risk-rule`, `--risk-allow-host`).
    #[cfg(test)]
    pub fn set_risk_rules(&mut self, rules: RiskRules) {
        self.risk = rules;
    }

    /// [`Accountant::classify`], as its label value.
    fn class_label(
        &self,
        tool: &str,
        attempted: Option<&Attempted>,
        reason: Option<&str>,
    ) -> String {
        let risk = self.classify(tool, attempted, reason);
        self.risk.label(risk).to_string()
    }

    /// The class of what `tool` attempted: from its input when known, else its reason text.
    pub(super) fn classify(
        &self,
        tool: &str,
        attempted: Option<&Attempted>,
        reason: Option<&str>,
    ) -> Risk {
        // The JSON text goes to the classifier unparsed: a repeated attempt (an agent retrying,
        // the same hook denial across executions) is known from its text, so most denials
        // never parse their input.
        let input = attempted.map(|attempted| match attempted {
            Attempted::Json(text) => Input::JsonText(text),
            Attempted::Text(text) => Input::Text(text),
        });
        self.risk.classify(&Attempt {
            tool,
            input,
            reason,
        })
    }

    /// Decides or defers the class of a denial just counted under `key`; returns the `risk`
    /// its audit record shows. A deferred class is held in the execution; where it cannot be
    /// (its id is not remembered), it is decided now from the reason text.
    pub(super) fn decide(
        &mut self,
        key: &DenialKey,
        tool: &str,
        decision: Decision<'_>,
        n: u64,
        ids: (Option<&str>, Option<&str>),
        time: Option<f64>,
    ) -> String {
        let risk = match (decision, ids) {
            (Decision::Now(risk), _) => risk,
            (Decision::Wait(reason_text), (Some(execution), Some(tool_use))) => {
                let pending = self.pending_risk(key, tool, reason_text);
                if self
                    .state
                    .executions
                    .hold_pending(execution, tool_use, pending)
                {
                    return RISK_PENDING.to_string();
                }
                self.classify(tool, None, reason_text)
            }
            (Decision::Wait(reason_text), _) => self.classify(tool, None, reason_text),
        };
        let label = self.risk.label(risk).to_string();
        self.count_risk(&key.tool, &key.workflow, &label, n, ids, time);
        label
    }

    /// A denial of `tool` (as logged) counted under `key`, waiting for its input. Its reason
    /// text's class is decided later, when needed, unless the text is too long to keep.
    fn pending_risk(&self, key: &DenialKey, tool: &str, reason_text: Option<&str>) -> PendingRisk {
        let fallback = OnceLock::new();
        let undecided = match reason_text {
            Some(text) if text.len() > DEFERRED_REASON_BYTES => {
                let _ = fallback.set(self.class_label(tool, None, Some(text)));
                None
            }
            _ => Some(Box::new(Undecided {
                tool: tool.into(),
                reason_text: reason_text.map(Into::into),
            })),
        };
        PendingRisk {
            tool: key.tool.clone(),
            workflow: key.workflow.clone(),
            reason: key.reason,
            fallback,
            undecided,
        }
    }

    /// The class of `waiting`'s reason text: its class if no input comes.
    pub(super) fn fallback<'p>(&self, waiting: &'p PendingRisk) -> &'p str {
        waiting.fallback.get_or_init(|| {
            let (tool, text) = match waiting.undecided.as_deref() {
                Some(u) => (&*u.tool, u.reason_text.as_deref()),
                // Loaded from a state file: decided before it was saved.
                None => (waiting.tool.as_str(), None),
            };
            self.class_label(tool, None, text)
        })
    }

    /// Decides the classes `record` brings for an execution's `pending` denials: from the input
    /// of the entry with the same tool use id, else from the reason text's class.
    pub(super) fn decide_pending(
        &mut self,
        pending: Vec<(super::digest::Digest, PendingRisk)>,
        denials: &RecordedDenials,
        at: Decided<'_>,
    ) {
        if pending.is_empty() {
            return;
        }
        let entries: Vec<(super::digest::Digest, &RecordedDenial)> = match denials {
            RecordedDenials::List(items) => items
                .iter()
                .filter_map(|i| Some((super::digest::Digest::of(i.tool_use_id.as_deref()?), i)))
                .collect(),
            _ => Vec::new(),
        };
        for (digest, waiting) in pending {
            let entry = entries.iter().find(|(d, _)| *d == digest).map(|(_, e)| *e);
            let risk = match entry.and_then(|e| e.attempted.as_ref().map(|a| (e, a))) {
                Some((e, attempted)) => self.class_label(&e.tool, Some(attempted), None),
                None => self.fallback(&waiting).to_string(),
            };
            self.settle(waiting, risk, Decided { entry, ..at });
        }
    }

    /// Decides the classes of denials whose executions were evicted before their records came.
    pub(super) fn decide_ended(&mut self) {
        for waiting in self.state.executions.take_ended() {
            let risk = self.fallback(&waiting).to_string();
            let at = Decided {
                time: None,
                execution_id: None,
                entry: None,
                source: "",
                format: "",
            };
            self.settle(waiting, risk, at);
        }
    }

    /// Counts a class decided after its denial was counted, and writes its audit record.
    fn settle(&mut self, waiting: PendingRisk, risk: String, at: Decided<'_>) {
        let tool_use_id = at.entry.and_then(|e| e.tool_use_id.as_deref());
        let ids = (at.execution_id, tool_use_id);
        self.count_risk(&waiting.tool, &waiting.workflow, &risk, 1, ids, at.time);
        if !self.builds_audit() {
            return;
        }
        let mut raw = RawFields::default();
        let source_file = self.shown_source(at.source, &mut raw);
        let mut shown = |field: Field, s: &str| self.shown(field, s, &mut raw);
        let record = AuditRecord {
            kind: AuditKind::RiskDecided,
            time: decode::time::format_rfc3339(at.time.unwrap_or_else(wall_now)),
            tool: waiting.tool,
            workflow: waiting.workflow,
            reason: waiting.reason,
            risk,
            execution_id: at.execution_id.map(|s| shown(Field::ExecutionId, s)),
            tool_use_id: tool_use_id.map(|s| shown(Field::ToolUseId, s)),
            decision_reason: None,
            input_summary: at
                .entry
                .and_then(|e| e.input_summary.as_deref())
                .map(|s| shown(Field::InputSummary, s)),
            source_file,
            origin: Origin::MidStream,
            format: at.format,
            count: 1,
        };
        self.emit_audit(record, raw);
    }

    /// Adds `n` to the risk series of `tool`, `workflow` (label values) and `risk`.
    fn count_risk(
        &mut self,
        tool: &str,
        workflow: &str,
        risk: &str,
        n: u64,
        ids: (Option<&str>, Option<&str>),
        time: Option<f64>,
    ) {
        let key = RiskKey {
            tool: tool.to_string(),
            workflow: workflow.to_string(),
            risk: risk.to_string(),
        };
        if let Some(exemplar) = self.exemplar(ids.0, ids.1, n as f64, time) {
            self.state
                .metrics
                .denial_risk_exemplars
                .insert(key.clone(), exemplar);
        }
        let count = self.state.metrics.denial_risks.entry(key).or_default();
        *count = count.saturating_add(n);
    }
}

#[cfg(test)]
#[path = "attempts_tests.rs"]
mod tests;
