//! The only writer of counting state: turns decoded events into counter increments and audit
//! records, each denial exactly once.
//!
//! Owns [`AccountState`] — the counters ([`Metrics`]), per-execution reconciliation
//! ([`reconcile`]) and the admitted label values ([`labels`]) — which is serialisable whole, so
//! that the state file can store it beside the file offsets that produced it. The invariant that
//! makes counting exactly once: state is changed only by [`Accountant::apply`], one line at a time,
//! on the reading thread, so a snapshot taken between two lines describes exactly the lines before.
//!
//! Counting rules (docs/formats.md, "How denials are counted"): a mid-stream denial counts at once; a record adds only what was
//! not yet counted for its execution, as `reason="unknown"`; a tool use id counts once per
//! execution; records carry running totals, so cost, tokens and histograms see increases only.
//! Spend by model comes from `modelUsage`, increase by increase per session ([`spend`]); tokens by
//! kind are its sum. Every record is one execution in `agent_executions_total` (in a
//! streaming-input session: one per result, i.e. per prompt).
//! Lines without a correlation key count their own events and reconcile nothing.
//!
//! Bounded whatever a line says: a record reveals at most `--max-denials-per-record` as counts;
//! the clock that evicts idle executions is log time only, a time too far ahead is no time;
//! sums saturate; label values pass validation, then the redaction policy (a value holding a
//! secret is `redacted`), then their cap, and `--max-series` caps the denial series. What audit
//! records and exemplars show of a field is bounded too: past its bound, only its length
//! ([`shown`]), so a 1 MB tool name costs no scan.
//!
//! The [`Accountant`] decides what counts and counts it, a denial in this file, a record in
//! [`record`]; what each denial attempted is classified by a [`RiskBook`] ([`risk_book`]), and
//! what a counted denial shows outside the process (its audit record, the exemplars of the
//! counters it went into) is built by an [`AuditBuilder`] ([`audit_builder`]), which shows each
//! id once per line whatever shows it.
//!
//! **Not here:** parsing (decode), reading files (input), writing audit lines (`crate::audit`),
//! rendering (`crate::exposition`), serving (`crate::web`).
//!
//! Cold: per denial or record line.

mod answers;
mod audit_builder;
pub mod deferred;
pub mod enforcement;
pub mod labels;
mod path_sets;
pub mod reconcile;
mod record;
mod risk_book;
pub mod shown;
mod small_map;
pub mod spend;
mod totals;

/// The digest ids and inputs are kept as, by its former path here.
pub use crate::vocab::digest;

use std::collections::BTreeMap;
use std::sync::Arc;
use std::time::{SystemTime, UNIX_EPOCH};

use serde::{Deserialize, Serialize};

use crate::config::Config;
use crate::decode::{Attempted, Denial, Event, Format, RecordedDenial, RecordedDenials};
use crate::redact::{holds_secret, label_value};
#[cfg(test)]
use crate::risk::RiskRules;
use crate::vocab::counters::{DenialKey, LineOutcome, Metrics, RiskKey};
use crate::vocab::{AuditRecord, Origin, PathLabels, RISK_PENDING};
use audit_builder::{AuditBuilder, CountedDenial, DecidedRisk, Ids};
use digest::Digest;
use labels::{Admission, AdmittedSet, LabelName, Reason};
use reconcile::{Executions, PendingRisk};
use risk_book::{Decision, RiskBook};

/// Display length of summaries and reasons in audit records, after redaction.
pub const AUDIT_TEXT_CHARS: usize = 240;

/// Everything counting remembers. Serialised whole into the state file.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct AccountState {
    pub metrics: Metrics,
    pub executions: Executions,
    pub tools: AdmittedSet,
    pub workflows: AdmittedSet,
    #[serde(default)]
    pub models: AdmittedSet,
    /// The admitted values of each label `--labels-from-path` gives (`namespace`, `pod`, …).
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub path_values: BTreeMap<LabelName, AdmittedSet>,
    /// The accounting clock: the latest log time seen (seconds), for idle eviction.
    pub clock: f64,
}

/// Where a line came from, as account needs it.
#[derive(Debug, Clone, Copy)]
pub struct LineSource<'a> {
    pub path: &'a str,
    /// The workflow captured from the path by `--labels-from-path`, if any.
    pub path_workflow: Option<&'a str>,
    /// The other labels captured from the path, admitted ([`Accountant::path_labels`]).
    pub path_labels: &'a PathLabels,
}

/// Applies events to the counting state: decides what counts, counts it, and has its class
/// decided ([`RiskBook`]) and what it shows built ([`AuditBuilder`]).
pub struct Accountant {
    config: Config,
    state: AccountState,
    /// What each denial attempted is classified with.
    risks: RiskBook,
    /// Audit records and exemplars: what a counted denial shows outside the process.
    shows: AuditBuilder,
    /// Which path label sets still have files, and since when the others have none.
    paths: path_sets::PathSets,
}

/// A mid-stream denial as counted: a frame's or a hook's [`Denial`], or a refused call's answer,
/// borrowed from the event that told it.
struct Heard<'a> {
    format: Format,
    /// The log time as taken ([`Accountant::advance_clock`]), once per line.
    time: Option<f64>,
    execution_id: Option<&'a str>,
    workflow: Option<&'a str>,
    tool: &'a str,
    tool_use_id: Option<&'a str>,
    /// The digest of `tool_use_id`, computed once by whoever heard the denial.
    tool_use_digest: Option<Digest>,
    reason: Reason,
    reason_text: Option<&'a str>,
    input_summary: Option<&'a str>,
    attempted: Option<&'a Attempted>,
    /// A refused call's answer: the call it answers waits no more.
    answers_call: bool,
}

/// Where a class decided after its denial was counted came from, for its audit record.
struct Decided<'a> {
    time: Option<f64>,
    execution_id: Option<&'a str>,
    /// The record's entry for the denial, when it listed one.
    entry: Option<&'a RecordedDenial>,
    source: &'a str,
    format: &'static str,
}

impl Accountant {
    pub fn new(config: Config) -> Accountant {
        Accountant::with_state(config, AccountState::default())
    }

    /// An accountant continuing from restored state.
    pub fn with_state(config: Config, state: AccountState) -> Accountant {
        Accountant {
            risks: RiskBook::new(config.risk_rules.clone()),
            config,
            state,
            shows: AuditBuilder::new(),
            paths: path_sets::PathSets::default(),
        }
    }

    pub fn config(&self) -> &Config {
        &self.config
    }

    /// The state to save. The fallback classes of denials still waiting for their input are
    /// decided first: the state file holds classes, never the reason texts that decide them.
    pub fn state(&self) -> &AccountState {
        for waiting in self.state.executions.waiting() {
            self.risks.fallback(waiting);
        }
        &self.state
    }

    pub fn metrics(&self) -> &Metrics {
        &self.state.metrics
    }

    /// Redacts `text` and then cuts it to `max_chars`, tallying what was replaced into the
    /// redaction self-metric (the pipeline's excerpt of a bad line goes through here).
    pub fn excerpt(&mut self, text: &str, max_chars: usize) -> String {
        self.shows
            .excerpt(text, max_chars, &mut self.state.metrics.redactions)
    }

    /// Adds a batch of bytes and lines read (once per chunk, not per line).
    pub fn add_read(&mut self, bytes: u64, lines: u64) {
        self.state.metrics.read_bytes += bytes;
        self.state.metrics.lines_read += lines;
    }

    /// Counts one classified line. `Ignored` is never counted here: it is derived from the
    /// lines read.
    pub fn add_outcome(&mut self, outcome: LineOutcome) {
        if outcome == LineOutcome::Ignored {
            return; // a line that only told of calls: derived like every other ignored line
        }
        *self.state.metrics.lines.entry(outcome).or_default() += 1;
    }

    /// Applies one decoded event; returns what the line amounted to (`Counted` or `Duplicate`),
    /// which the caller records with [`Accountant::add_outcome`].
    pub fn apply(&mut self, event: Event, source: LineSource<'_>) -> LineOutcome {
        let outcome = match event {
            Event::Denial(mut denial) => {
                clip_label(&mut denial.workflow);
                self.on_denial(denial, source)
            }
            Event::Record(mut record) => {
                clip_label(&mut record.workflow);
                self.on_record(record, source)
            }
            Event::Calls(mut calls) => {
                clip_label(&mut calls.workflow);
                self.on_calls(calls, source)
            }
        };
        self.sweep();
        self.decide_ended();
        outcome
    }

    /// Turns building audit records on or off (on by default). Off when nothing consumes them,
    /// which also spares redacting every denial's texts.
    pub fn set_auditing(&mut self, on: bool) {
        self.shows.set_auditing(on);
    }

    /// Hands every audit record from now on to `handover` with its texts bounded but not yet
    /// redacted, for a writer thread to finish ([`deferred`]), instead of keeping it for
    /// [`Accountant::take_audit`]. Only for an audit stream nothing else reads: the records
    /// never come back. Audit records are then built whatever [`Accountant::set_auditing`] says.
    pub fn hand_audit_to(&mut self, handover: deferred::Handover) {
        self.shows.hand_to(handover);
    }

    /// Turns keeping exemplars (execution and tool use ids, redacted) on or off (off by default).
    pub fn set_exemplars(&mut self, on: bool) {
        self.shows.set_exemplars(on);
    }

    /// Uses `rules` for every denial classified from now on, instead of the configuration's
    /// (`--risk-rule`, `--risk-allow-host`).
    #[cfg(test)]
    pub fn set_risk_rules(&mut self, rules: RiskRules) {
        self.risks.set_rules(rules);
    }

    /// Drains the audit records produced so far.
    pub fn take_audit(&mut self) -> Vec<AuditRecord> {
        self.shows.take()
    }

    /// Consumes the accountant, returning the state to save.
    #[cfg(test)]
    pub fn into_state(self) -> AccountState {
        self.state();
        self.state
    }

    fn sweep(&mut self) {
        let idle = self.config.limits.execution_idle_timeout_secs as f64;
        self.state.metrics.evicted_idle += self.state.executions.sweep(self.state.clock, idle);
    }

    /// Moves the accounting clock to a line's log time, and returns that time if it is taken.
    ///
    /// The clock is log time only (it decides idle evictions): a line without a time does not
    /// move it, and neither does a time further than `--max-clock-skew` ahead of the wall clock
    /// (a microsecond epoch read as milliseconds, a forged year), which is counted and then
    /// treated as no time, so one line cannot evict every execution in flight. The last-event
    /// gauge takes the line's time, or the read time (the wall clock now) for a line without one.
    fn advance_clock(&mut self, time: Option<f64>) -> Option<f64> {
        let accepted = match time {
            Some(t) if t > wall_now() + self.config.limits.max_clock_skew_secs as f64 => {
                self.state.metrics.times_rejected += 1;
                None
            }
            Some(t) => {
                self.state.clock = self.state.clock.max(t);
                Some(t)
            }
            None => None,
        };
        let stamp = accepted.unwrap_or_else(wall_now);
        self.state.metrics.last_event_timestamp =
            self.state.metrics.last_event_timestamp.max(stamp);
        accepted
    }

    fn on_denial(&mut self, denial: Denial, source: LineSource<'_>) -> LineOutcome {
        let time = self.advance_clock(denial.time);
        let reason = match (&denial.reason_type, &denial.reason_text) {
            (Some(kind), _) => Reason::from_type(kind).unwrap_or(Reason::Other),
            (None, Some(text)) => self.config.reason_rules.classify(text),
            (None, None) => Reason::Other,
        };
        let heard = Heard {
            format: denial.format,
            time,
            execution_id: denial.execution_id.as_deref(),
            workflow: denial.workflow.as_deref(),
            tool: &denial.tool,
            tool_use_id: denial.tool_use_id.as_deref(),
            tool_use_digest: denial.tool_use_id.as_deref().map(Digest::of),
            reason,
            reason_text: denial.reason_text.as_deref(),
            input_summary: denial.input_summary.as_deref(),
            attempted: denial.attempted.as_ref(),
            answers_call: false,
        };
        self.count_heard(heard, source)
    }

    /// Counts a mid-stream denial once per tool use id (`Duplicate` if already counted), with
    /// the execution visited once for all it keeps of it.
    fn count_heard(&mut self, heard: Heard<'_>, source: LineSource<'_>) -> LineOutcome {
        let (time, reason, tool_use_id) = (heard.time, heard.reason, heard.tool_use_digest);
        let tool = self.label(LabelName::Tool, heard.tool);
        let mut finding = enforcement::Finding::default();
        let mut kept_workflow = None;
        if let Some(id) = heard.execution_id {
            let (clock, cap) = (self.state.clock, self.config.limits.max_executions);
            let input = heard.attempted.map(answers::input_digest);
            let (new, evicted) = self.state.executions.with(id, clock, cap, |execution| {
                let new = execution.note_denial_digest(&tool, tool_use_id);
                match heard.workflow {
                    // Kept in the state file: never a value that holds a secret.
                    Some(w) => execution.workflow = Some(label_value(w).to_string()),
                    None => kept_workflow.clone_from(&execution.workflow),
                }
                if new {
                    finding = execution.calls.denied(&tool, reason, tool_use_id, input, 1);
                }
                if let (true, Some(digest)) = (heard.answers_call, tool_use_id) {
                    execution.calls.answered(digest);
                }
                new
            });
            self.state.metrics.evicted_cap += evicted;
            if !new {
                return LineOutcome::Duplicate;
            }
        }
        let workflow = self.workflow_label(heard.workflow.or(kept_workflow.as_deref()), source);
        let reason_text = heard.reason_text;
        let decision = match heard.attempted {
            Some(input) => Decision::Now(self.risks.classify(heard.tool, Some(input), None)),
            None => match (heard.execution_id, tool_use_id) {
                (Some(_), Some(tool_use)) => Decision::Wait {
                    tool_use,
                    reason_text,
                },
                _ => Decision::Now(self.risks.classify(heard.tool, None, reason_text)),
            },
        };
        let mut ids = Ids::new(heard.execution_id, heard.tool_use_id);
        self.book(
            &tool,
            decision,
            &mut ids,
            CountedDenial {
                time,
                tool: heard.tool,
                workflow: &workflow,
                reason,
                reason_text,
                input_summary: heard.input_summary,
                source: source.path,
                path_labels: source.path_labels,
                origin: Origin::MidStream,
                format: heard.format,
                count: 1,
            },
        );
        let at = answers::FoundAt {
            time,
            execution_id: heard.execution_id,
            tool_use_id: heard.tool_use_id,
            workflow: &workflow,
            source,
            format: heard.format,
        };
        self.count_finding(finding, &tool, at);
        LineOutcome::Counted
    }

    /// Counts a denial under the `tool` label value, decides or defers its risk class, and
    /// writes its audit record; `ids` are shown (redacted) once for all three.
    fn book(
        &mut self,
        tool: &str,
        decision: Decision<'_>,
        ids: &mut Ids<'_>,
        denial: CountedDenial<'_>,
    ) {
        let key = denial_key(denial.path_labels, tool, denial.workflow, denial.reason);
        let key = self.count_denial(key, denial.count, ids, denial.time);
        let risk = self.decide(&key, denial.tool, decision, denial.count, ids, denial.time);
        let tally = &mut self.state.metrics.redactions;
        self.shows.denial(denial, ids, risk, tally);
    }

    /// Decides or defers the class of a denial just counted under `key`; returns the `risk`
    /// its audit record shows. A deferred class is held in the execution; where it cannot be
    /// (its id is not remembered), it is decided now from the reason text.
    fn decide(
        &mut self,
        key: &DenialKey,
        tool: &str,
        decision: Decision<'_>,
        n: u64,
        ids: &mut Ids<'_>,
        time: Option<f64>,
    ) -> String {
        let risk = match (decision, ids.execution_id(), ids.tool_use_id()) {
            (Decision::Now(risk), _, _) => risk,
            (
                Decision::Wait {
                    tool_use,
                    reason_text,
                },
                Some(execution),
                Some(_),
            ) => {
                let pending = self.risks.pending(key, tool, reason_text);
                if self
                    .state
                    .executions
                    .hold_pending(execution, tool_use, pending)
                {
                    return RISK_PENDING.to_string();
                }
                self.risks.classify(tool, None, reason_text)
            }
            (Decision::Wait { reason_text, .. }, _, _) => {
                self.risks.classify(tool, None, reason_text)
            }
        };
        let label = self.risks.label(risk);
        self.count_risk(&key.path, &key.tool, &key.workflow, &label, n, ids, time);
        label
    }

    /// Decides the classes `denials` (an execution's record) brings for the execution's
    /// `pending` denials: from the input of the entry with the same tool use id, else from the
    /// reason text's class.
    fn decide_pending(
        &mut self,
        pending: Vec<(Digest, Arc<PendingRisk>)>,
        denials: &RecordedDenials,
        at: Decided<'_>,
    ) {
        if pending.is_empty() {
            return;
        }
        let entries: Vec<(Digest, &RecordedDenial)> = match denials {
            RecordedDenials::List(items) => items
                .iter()
                .filter_map(|i| Some((i.tool_use_digest?, i)))
                .collect(),
            _ => Vec::new(),
        };
        for (digest, waiting) in pending {
            let entry = entries.iter().find(|(d, _)| *d == digest).map(|(_, e)| *e);
            let risk = match entry.and_then(|e| e.attempted.as_ref().map(|a| (e, a))) {
                Some((e, attempted)) => self.risks.class_label(&e.tool, Some(attempted), None),
                None => self.risks.fallback(&waiting).to_string(),
            };
            self.settle(waiting, risk, Decided { entry, ..at });
        }
    }

    /// Decides the classes of denials whose executions were evicted before their records came.
    fn decide_ended(&mut self) {
        for waiting in self.state.executions.take_ended() {
            let risk = self.risks.fallback(&waiting).to_string();
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
    fn settle(&mut self, waiting: Arc<PendingRisk>, risk: String, at: Decided<'_>) {
        let tool_use_id = at.entry.and_then(|e| e.tool_use_id.as_deref());
        let mut ids = Ids::new(at.execution_id, tool_use_id);
        let (tool, workflow) = (&waiting.tool, &waiting.workflow);
        self.count_risk(&waiting.path, tool, workflow, &risk, 1, &mut ids, at.time);
        // Summarised only for an audit record that shows it.
        let summary = at
            .entry
            .filter(|_| self.shows.builds())
            .and_then(RecordedDenial::input_summary);
        let decided = DecidedRisk {
            time: at.time,
            tool: waiting.tool.clone(),
            workflow: waiting.workflow.clone(),
            path: waiting.path.clone(),
            reason: waiting.reason,
            risk,
            input_summary: summary.as_deref(),
            source: at.source,
            format: at.format,
        };
        let tally = &mut self.state.metrics.redactions;
        self.shows.risk_decided(decided, &mut ids, tally);
    }

    /// Adds `n` to the risk series of `path`, `tool`, `workflow` (label values) and `risk`.
    #[allow(clippy::too_many_arguments)]
    fn count_risk(
        &mut self,
        path: &PathLabels,
        tool: &str,
        workflow: &str,
        risk: &str,
        n: u64,
        ids: &mut Ids<'_>,
        time: Option<f64>,
    ) {
        let key = RiskKey {
            path: path.clone(),
            tool: tool.to_string(),
            workflow: workflow.to_string(),
            risk: risk.to_string(),
        };
        let m = &mut self.state.metrics;
        if let Some(exemplar) = self.shows.exemplar(ids, n as f64, time, &mut m.redactions) {
            m.denial_risk_exemplars.insert(key.clone(), exemplar);
        }
        let count = m.denial_risks.entry(key).or_default();
        *count = count.saturating_add(n);
    }

    /// Counts `n` denials under `key`, or under tool and workflow `other` past `--max-series`;
    /// returns the key counted under.
    fn count_denial(
        &mut self,
        mut key: DenialKey,
        n: u64,
        ids: &mut Ids<'_>,
        time: Option<f64>,
    ) -> DenialKey {
        let m = &mut self.state.metrics;
        if m.denials.len() >= self.config.limits.max_series && !m.denials.contains_key(&key) {
            // Past the series cap: at most one more series per reason.
            key.tool = labels::OTHER.to_string();
            key.workflow = labels::OTHER.to_string();
            m.series_overflow = m.series_overflow.saturating_add(n);
        }
        if let Some(exemplar) = self.shows.exemplar(ids, n as f64, time, &mut m.redactions) {
            m.denial_exemplars.insert(key.clone(), exemplar);
        }
        let count = m.denials.entry(key.clone()).or_default();
        *count = count.saturating_add(n);
        key
    }

    /// The `label` value of `raw`, admitting it to its set if there is room.
    fn label(&mut self, label: LabelName, raw: &str) -> String {
        let limits = &self.config.limits;
        let (set, max) = match label {
            LabelName::Tool => (&mut self.state.tools, limits.max_tools),
            LabelName::Workflow => (&mut self.state.workflows, limits.max_workflows),
            LabelName::Model => (&mut self.state.models, limits.max_models),
            LabelName::Namespace | LabelName::Pod | LabelName::Container => (
                self.state.path_values.entry(label).or_default(),
                limits.max_path_values,
            ),
        };
        admit(set, &mut self.state.metrics, label, max, raw)
    }

    /// The workflow label: the line's, else the path's capture, else the default.
    fn workflow_label(&mut self, from_line: Option<&str>, source: LineSource<'_>) -> String {
        let raw = from_line
            .or(source.path_workflow)
            .unwrap_or(&self.config.workflow_default)
            .to_string();
        self.label(LabelName::Workflow, &raw)
    }

    /// Counts executions in the gauge and label-set sizes (for rendering).
    pub fn gauges(&self) -> Gauges {
        Gauges {
            executions_tracked: self.state.executions.len(),
            tools_admitted: self.state.tools.len(),
            workflows_admitted: self.state.workflows.len(),
            models_admitted: self.state.models.len(),
        }
    }

    /// Totals of `permission_denials_total` by label set, for tests and checks.
    #[cfg(test)]
    pub fn denial_counts(&self) -> std::collections::BTreeMap<(String, String, &'static str), u64> {
        self.state
            .metrics
            .denials
            .iter()
            .map(|(k, v)| ((k.tool.clone(), k.workflow.clone(), k.reason.as_str()), *v))
            .collect()
    }
}

/// Gauges derived from the state when rendering.
#[derive(Debug, Clone, Copy, Default)]
pub struct Gauges {
    pub executions_tracked: usize,
    pub tools_admitted: usize,
    pub workflows_admitted: usize,
    pub models_admitted: usize,
}

/// The label value of `raw` in `set`, admitting it if there is room, counted in `metrics`.
fn admit(
    set: &mut AdmittedSet,
    metrics: &mut Metrics,
    label: LabelName,
    max: usize,
    raw: &str,
) -> String {
    let (value, admission) = set.admit(raw, max, holds_secret);
    count_admission(metrics, label, admission);
    value
}

fn denial_key(path: &PathLabels, tool: &str, workflow: &str, reason: Reason) -> DenialKey {
    DenialKey {
        path: path.clone(),
        tool: tool.to_string(),
        workflow: workflow.to_string(),
        reason,
    }
}

fn count_admission(m: &mut Metrics, label: LabelName, admission: Admission) {
    match admission {
        Admission::Admitted => {}
        Admission::Overflow => *m.label_overflow.entry(label).or_default() += 1,
        Admission::Invalid => *m.label_invalid.entry(label).or_default() += 1,
        Admission::Redacted => *m.label_redacted.entry(label).or_default() += 1,
    }
}

/// Cuts a raw label value to one byte past [`labels::MAX_LABEL_BYTES`] (on a char boundary).
/// An execution keeps its raw workflow until its record comes, and a value that long is refused
/// as `invalid` whole or cut, so the cut changes no label while bounding what each execution
/// holds: uncut, every one of `--max-executions` executions could hold a 1 MB workflow name.
fn clip_label(value: &mut Option<String>) {
    if let Some(v) = value.as_mut().filter(|v| v.len() > labels::MAX_LABEL_BYTES) {
        let cut = (labels::MAX_LABEL_BYTES + 1..=v.len())
            .find(|i| v.is_char_boundary(*i))
            .unwrap_or(v.len());
        v.truncate(cut);
        v.shrink_to_fit();
    }
}

/// Wall-clock seconds since the epoch.
pub fn wall_now() -> f64 {
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map_or(0.0, |d| d.as_secs_f64())
}

#[cfg(test)]
mod tests;
