//! Builds the [`AuditRecord`] of a counted denial: every text field redacted, then cut, or
//! replaced whole by its length when past its bound ([`super::shown`]).
//!
//! Owns the step from what a line said to what may leave the process. **Not here:** deciding
//! that a denial counts ([`super::Accountant`]), writing records (`crate::audit`), the record's
//! schema ([`crate::vocab::AuditRecord`]).
//!
//! Cold: per counted denial, and only when something reads audit records (an audit log or the
//! recent-denials ring).

use super::deferred::{RawFields, Spare};
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
        if !self.builds_audit() {
            return; // nobody reads audit records: skip building (and redacting) them
        }
        let mut raw = RawFields::default();
        let source_file = self.shown_source(input.source, &mut raw);
        let workflow = self.owned(input.workflow);
        let mut shown = |field: Field, s: &str| self.shown(field, s, &mut raw);
        let record = AuditRecord {
            kind: AuditKind::Denial,
            time: decode::time::format_rfc3339(input.time.unwrap_or_else(wall_now)),
            tool: shown(Field::ToolName, input.tool),
            workflow,
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
        self.emit_audit(record, raw);
    }

    /// What an audit record shows of a field: past its bound, its length, unscanned; else the
    /// text redacted whole, then cut — or, when a writer thread finishes records, the text as
    /// it is, marked in `raw` for that thread to redact and cut.
    pub(super) fn shown(&mut self, field: Field, s: &str, raw: &mut RawFields) -> String {
        if let Some(marker) = field.oversized(s) {
            return marker;
        }
        if let Some(handover) = &mut self.handover {
            raw.mark(field);
            return handover.text(Spare::of(field), s);
        }
        self.excerpt(s, AUDIT_TEXT_CHARS)
    }

    /// `s` as a string of a record: one the writer thread sent back, when it finishes records.
    fn owned(&mut self, s: &str) -> String {
        match &mut self.handover {
            Some(handover) => handover.text(Spare::WORKFLOW, s),
            None => s.to_string(),
        }
    }

    /// What an audit record shows of the source file's path, like [`Accountant::shown`].
    pub(super) fn shown_source(&mut self, path: &str, raw: &mut RawFields) -> String {
        if let Some(handover) = &mut self.handover {
            raw.mark_source();
            return handover.text(Spare::SOURCE_FILE, path);
        }
        self.excerpt(path, AUDIT_TEXT_CHARS)
    }
}
