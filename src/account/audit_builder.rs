//! Builds what a counted denial shows outside the process: its [`AuditRecord`] and the
//! exemplars of the counters it went into, every text field redacted, then cut, or replaced whole
//! by its length when past its bound ([`super::shown`]).
//!
//! Owns [`AuditBuilder`] (the redactor, whether records and exemplars are wanted, where records
//! go: kept for [`AuditBuilder::take`], or handed raw to a writer thread, [`super::deferred`]) and
//! [`Ids`]: a denial's ids, each redacted at most once per line whatever shows it (the exemplar
//! of `permission_denials_total`, that of `permission_denial_risks_total`, a model's cost
//! exemplar, the audit record). Every redaction is tallied into the tally the caller passes (the
//! `denials_exporter_redactions_total` counter).
//!
//! **Not here:** deciding that a denial counts or its class ([`super::Accountant`],
//! [`super::risk_book`]), writing records (`crate::audit`), the record's schema
//! ([`crate::vocab::AuditRecord`]).
//!
//! Cold: per counted denial, and only when something reads audit records (an audit log or the
//! recent-denials ring) or exemplars (`run`).

use std::cell::OnceCell;
use std::collections::BTreeMap;

use super::deferred::{Handover, Pending, RawFields, Spare};
use super::shown::Field;
use super::{wall_now, AUDIT_TEXT_CHARS};
use crate::decode::{self, Format};
use crate::redact::{shared_redactor, Redactor};
use crate::vocab::counters::Exemplar;
use crate::vocab::{AuditKind, AuditRecord, LabelName, Origin, PathLabels, Reason};

/// What redactions are tallied into: replacements by kind.
pub(super) type Tally = BTreeMap<String, u64>;

/// One id of a denial as it leaves the process: shown (redacted and cut, or its length) the
/// first time something asks, then kept.
pub(super) struct Id<'a> {
    field: Field,
    raw: Option<&'a str>,
    shown: Option<String>,
}

impl<'a> Id<'a> {
    pub(super) fn new(field: Field, raw: Option<&'a str>) -> Id<'a> {
        Id {
            field,
            raw,
            shown: None,
        }
    }
}

/// A denial's ids, each shown at most once per line ([`Id`]).
pub(super) struct Ids<'a> {
    pub(super) execution: Id<'a>,
    pub(super) tool_use: Id<'a>,
}

impl<'a> Ids<'a> {
    pub(super) fn new(execution_id: Option<&'a str>, tool_use_id: Option<&'a str>) -> Ids<'a> {
        Ids {
            execution: Id::new(Field::ExecutionId, execution_id),
            tool_use: Id::new(Field::ToolUseId, tool_use_id),
        }
    }

    /// Another denial of the same line: the execution id (and what was shown of it) is kept,
    /// the tool use id is `tool_use_id`.
    pub(super) fn with_tool_use(&mut self, tool_use_id: Option<&'a str>) {
        self.tool_use = Id::new(Field::ToolUseId, tool_use_id);
    }

    pub(super) fn execution_id(&self) -> Option<&'a str> {
        self.execution.raw
    }

    pub(super) fn tool_use_id(&self) -> Option<&'a str> {
        self.tool_use.raw
    }
}

/// A denial being counted, as its line said it (the tool as logged), before redaction.
pub(super) struct CountedDenial<'a> {
    pub time: Option<f64>,
    pub tool: &'a str,
    pub workflow: &'a str,
    pub reason: Reason,
    pub reason_text: Option<&'a str>,
    pub input_summary: Option<&'a str>,
    pub source: &'a str,
    /// The labels its file's path gave its series.
    pub path_labels: &'a PathLabels,
    pub origin: Origin,
    pub format: Format,
    pub count: u64,
}

/// A class decided after its denial was counted, with what its `risk_decided` record shows.
pub(super) struct DecidedRisk<'a> {
    pub time: Option<f64>,
    /// The tool, workflow and reason label values its denial was counted under.
    pub tool: String,
    pub workflow: String,
    /// The path labels its denial was counted under.
    pub path: PathLabels,
    pub reason: Reason,
    pub risk: String,
    /// The input summary of the record's entry for the denial, when it listed one.
    pub input_summary: Option<&'a str>,
    pub source: &'a str,
    pub format: &'static str,
}

/// Builds audit records and exemplars ([module docs](self)).
pub(super) struct AuditBuilder {
    /// Taken on first use: a process that never redacts never compiles the rules.
    redactor: OnceCell<&'static Redactor>,
    /// Audit records produced since the last [`AuditBuilder::take`].
    records: Vec<AuditRecord>,
    /// Whether audit records are built at all (an audit log or the recent-denials ring wants
    /// them).
    auditing: bool,
    /// Where audit records go unredacted, to be finished on a writer thread, when set; else
    /// they are finished here and kept in `records`.
    handover: Option<Handover>,
    /// Whether exemplars are kept (only `/metrics` in OpenMetrics shows them; `replay` does not).
    exemplars: bool,
}

impl AuditBuilder {
    pub(super) fn new() -> AuditBuilder {
        AuditBuilder {
            redactor: OnceCell::new(),
            records: Vec::new(),
            auditing: true,
            handover: None,
            exemplars: false,
        }
    }

    fn redactor(&self) -> &'static Redactor {
        self.redactor.get_or_init(shared_redactor)
    }

    /// Redacts `text` and then cuts it to `max_chars`, tallying what was replaced into `tally`.
    pub(super) fn excerpt(&self, text: &str, max_chars: usize, tally: &mut Tally) -> String {
        self.redactor().excerpt(text, max_chars, tally)
    }

    pub(super) fn set_auditing(&mut self, on: bool) {
        self.auditing = on;
    }

    pub(super) fn hand_to(&mut self, handover: Handover) {
        self.handover = Some(handover);
    }

    pub(super) fn set_exemplars(&mut self, on: bool) {
        self.exemplars = on;
    }

    /// Whether audit records are built (for the audit stream here or on a writer thread).
    pub(super) fn builds(&self) -> bool {
        self.auditing || self.handover.is_some()
    }

    /// Drains the audit records produced so far.
    pub(super) fn take(&mut self) -> Vec<AuditRecord> {
        std::mem::take(&mut self.records)
    }

    /// What `id` shows: redacted and cut (or its length) on the first call, then as kept.
    fn show<'i>(&self, id: &'i mut Id<'_>, tally: &mut Tally) -> Option<&'i str> {
        let raw = id.raw?;
        let field = id.field;
        let shown = id.shown.get_or_insert_with(|| {
            field
                .oversized(raw)
                .unwrap_or_else(|| self.excerpt(raw, AUDIT_TEXT_CHARS, tally))
        });
        Some(shown)
    }

    /// An exemplar for an increase of `value` at `time`, its ids shown; `None` when exemplars
    /// are off or the denial has no id. The ids are those an audit record shows (cut to
    /// [`AUDIT_TEXT_CHARS`]); an exemplar keeps fewer characters of them still.
    pub(super) fn exemplar(
        &self,
        ids: &mut Ids<'_>,
        value: f64,
        time: Option<f64>,
        tally: &mut Tally,
    ) -> Option<Exemplar> {
        if !self.exemplars || (ids.execution.raw.is_none() && ids.tool_use.raw.is_none()) {
            return None;
        }
        let execution_id = self.show(&mut ids.execution, tally);
        let tool_use_id = self.show(&mut ids.tool_use, tally);
        let time = time.unwrap_or_else(wall_now);
        Some(Exemplar::new(execution_id, tool_use_id, value, time))
    }

    /// Builds the audit record of a counted denial, unless nothing reads audit records.
    pub(super) fn denial(
        &mut self,
        denial: CountedDenial<'_>,
        ids: &mut Ids<'_>,
        risk: String,
        tally: &mut Tally,
    ) {
        if !self.builds() {
            return; // nobody reads audit records: skip building (and redacting) them
        }
        let mut raw = RawFields::default();
        let source_file = self.source(denial.source, &mut raw, tally);
        let workflow = self.owned(denial.workflow);
        let record = AuditRecord {
            kind: AuditKind::Denial,
            time: decode::time::format_rfc3339(denial.time.unwrap_or_else(wall_now)),
            tool: self.text(Field::ToolName, denial.tool, &mut raw, tally),
            workflow,
            namespace: denial
                .path_labels
                .get(LabelName::Namespace)
                .map(str::to_string),
            pod: denial.path_labels.get(LabelName::Pod).map(str::to_string),
            reason: denial.reason,
            risk,
            execution_id: self.id(&mut ids.execution, &mut raw, tally),
            tool_use_id: self.id(&mut ids.tool_use, &mut raw, tally),
            decision_reason: denial
                .reason_text
                .map(|s| self.text(Field::DecisionReason, s, &mut raw, tally)),
            input_summary: denial
                .input_summary
                .map(|s| self.text(Field::InputSummary, s, &mut raw, tally)),
            source_file,
            origin: denial.origin,
            format: denial.format.as_str(),
            count: denial.count,
        };
        self.emit(record, raw);
    }

    /// Builds the `risk_decided` record of a class decided after its denial was counted,
    /// unless nothing reads audit records.
    pub(super) fn risk_decided(
        &mut self,
        decided: DecidedRisk<'_>,
        ids: &mut Ids<'_>,
        tally: &mut Tally,
    ) {
        self.follow_up(AuditKind::RiskDecided, decided, ids, tally);
    }

    /// Builds the `denial_unenforced` record of a denied call that ran anyway, unless nothing
    /// reads audit records: the keys of its denial, as a `risk_decided` record has them.
    pub(super) fn unenforced(
        &mut self,
        found: DecidedRisk<'_>,
        ids: &mut Ids<'_>,
        tally: &mut Tally,
    ) {
        self.follow_up(AuditKind::Unenforced, found, ids, tally);
    }

    /// A record about a denial counted earlier (`kind`: not [`AuditKind::Denial`]).
    fn follow_up(
        &mut self,
        kind: AuditKind,
        about: DecidedRisk<'_>,
        ids: &mut Ids<'_>,
        tally: &mut Tally,
    ) {
        if !self.builds() {
            return;
        }
        let mut raw = RawFields::default();
        let source_file = self.source(about.source, &mut raw, tally);
        let record = AuditRecord {
            kind,
            time: decode::time::format_rfc3339(about.time.unwrap_or_else(wall_now)),
            tool: about.tool,
            workflow: about.workflow,
            namespace: about.path.get(LabelName::Namespace).map(str::to_string),
            pod: about.path.get(LabelName::Pod).map(str::to_string),
            reason: about.reason,
            risk: about.risk,
            execution_id: self.id(&mut ids.execution, &mut raw, tally),
            tool_use_id: self.id(&mut ids.tool_use, &mut raw, tally),
            decision_reason: None,
            input_summary: about
                .input_summary
                .map(|s| self.text(Field::InputSummary, s, &mut raw, tally)),
            source_file,
            origin: Origin::MidStream,
            format: about.format,
            count: 1,
        };
        self.emit(record, raw);
    }

    /// Keeps a built audit record, or hands it to the writer thread with its raw fields.
    fn emit(&mut self, record: AuditRecord, raw: RawFields) {
        match &mut self.handover {
            Some(handover) => handover.push(Pending::new(record, raw)),
            None => self.records.push(record),
        }
    }

    /// What an audit record shows of a field: past its bound, its length, unscanned; else the
    /// text redacted whole, then cut — or, when a writer thread finishes records, the text as
    /// it is, marked in `raw` for that thread to redact and cut.
    fn text(&mut self, field: Field, s: &str, raw: &mut RawFields, tally: &mut Tally) -> String {
        if let Some(marker) = field.oversized(s) {
            return marker;
        }
        if let Some(handover) = &mut self.handover {
            raw.mark(field);
            return handover.text(Spare::of(field), s);
        }
        self.excerpt(s, AUDIT_TEXT_CHARS, tally)
    }

    /// What an audit record shows of an id: what an exemplar already showed of it, else as
    /// [`AuditBuilder::text`] (and then kept, for an exemplar asking later).
    fn id(&mut self, id: &mut Id<'_>, raw: &mut RawFields, tally: &mut Tally) -> Option<String> {
        let text = id.raw?;
        match (&id.shown, &mut self.handover) {
            (Some(shown), Some(handover)) => Some(handover.text(Spare::of(id.field), shown)),
            (Some(shown), None) => Some(shown.clone()),
            (None, Some(_)) => Some(self.text(id.field, text, raw, tally)),
            (None, None) => self.show(id, tally).map(str::to_string),
        }
    }

    /// `s` as a string of a record: one the writer thread sent back, when it finishes records.
    fn owned(&mut self, s: &str) -> String {
        match &mut self.handover {
            Some(handover) => handover.text(Spare::WORKFLOW, s),
            None => s.to_string(),
        }
    }

    /// What an audit record shows of the source file's path, like [`AuditBuilder::text`].
    fn source(&mut self, path: &str, raw: &mut RawFields, tally: &mut Tally) -> String {
        if let Some(handover) = &mut self.handover {
            raw.mark_source();
            return handover.text(Spare::SOURCE_FILE, path);
        }
        self.excerpt(path, AUDIT_TEXT_CHARS, tally)
    }
}
