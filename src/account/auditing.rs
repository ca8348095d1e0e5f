//! Builds the [`AuditRecord`] of a counted denial: every text field redacted, then cut, or
//! replaced whole by its length when past its bound ([`super::shown`]).
//!
//! Owns the step from what a line said to what may leave the process. **Not here:** deciding
//! that a denial counts ([`super::Accountant`]), writing records (`crate::audit`), the record's
//! schema ([`crate::vocab::AuditRecord`]).
//!
//! Cold: per counted denial, and only when something reads audit records (an audit log or the
//! recent-denials ring).

use super::shown::Field;
use super::{wall_now, Accountant, AUDIT_TEXT_CHARS};
use crate::decode::{self, Format};
use crate::vocab::{AuditKind, AuditRecord, Origin, Reason};

/// A denial being counted, as its line said it (the tool as logged), before redaction.
pub(super) struct CountedDenial<'a> {
    pub time: Option<f64>,
    pub tool: &'a str,
    pub workflow: &'a str,
    pub reason: Reason,
    pub execution_id: Option<&'a str>,
    pub tool_use_id: Option<&'a str>,
    pub reason_text: Option<&'a str>,
    pub input_summary: Option<&'a str>,
    pub source: &'a str,
    pub origin: Origin,
    pub format: Format,
    pub count: u64,
}

impl Accountant {
    /// Builds the audit record of a counted denial, unless nothing reads audit records.
    pub(super) fn audit_denial(&mut self, input: CountedDenial<'_>, risk: String) {
        if !self.auditing {
            return; // nobody reads audit records: skip building (and redacting) them
        }
        let source_file = self.excerpt(input.source, AUDIT_TEXT_CHARS);
        let mut shown = |field: Field, s: &str| self.shown(field, s);
        let record = AuditRecord {
            kind: AuditKind::Denial,
            time: decode::time::format_rfc3339(input.time.unwrap_or_else(wall_now)),
            tool: shown(Field::ToolName, input.tool),
            workflow: input.workflow.to_string(),
            reason: input.reason,
            risk,
            execution_id: input.execution_id.map(|s| shown(Field::ExecutionId, s)),
            tool_use_id: input.tool_use_id.map(|s| shown(Field::ToolUseId, s)),
            decision_reason: input.reason_text.map(|s| shown(Field::DecisionReason, s)),
            input_summary: input.input_summary.map(|s| shown(Field::InputSummary, s)),
            source_file,
            origin: input.origin,
            format: input.format.as_str(),
            count: input.count,
        };
        self.audit.push(record);
    }

    /// What an audit record shows of a field: past its bound, its length, unscanned; else the
    /// text redacted whole, then cut.
    pub(super) fn shown(&mut self, field: Field, s: &str) -> String {
        field
            .oversized(s)
            .unwrap_or_else(|| self.excerpt(s, AUDIT_TEXT_CHARS))
    }
}
