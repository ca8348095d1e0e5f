//! Turns the counted families into the bytes of an exposition: one writer per format, the
//! Prometheus text 0.0.4 ([`text`]) and OpenMetrics 1.0 with exemplars ([`openmetrics`]).
//!
//! Owns the mapping from [`Metrics`] (and the live follower's [`RunStats`]) to families:
//! [`Counted::describe`] walks the state once and tells an [`Emit`] each family and sample, so
//! the two formats cannot drift apart; exemplars are handed over with the sample they belong to,
//! straight from the counters. `replay` prints exactly what `/metrics` serves (before the HTTP
//! server's own families). Small closed label sets (outcomes, label names, eviction causes) are
//! always present, at 0 before anything happened, so rates and alerts see a series from the first
//! scrape; redaction kinds (about 140) are not: a kind appears once it replaced something. A
//! family without samples is left out.
//!
//! Also owns which format an `Accept` header asks for ([`Format::from_accept`]) and each
//! format's Content-Type and trailer.
//!
//! **Not here:** metric names, help texts and types ([`crate::vocab::families`]), buckets
//! ([`crate::vocab::counters`]), counting, the HTTP body and its other families (`crate::web`),
//! escaping and number formats (the writers).
//!
//! Cold: per publication and format (a scrape reuses the last render); no I/O, no allocation
//! per sample.

pub mod openmetrics;
pub mod text;

use std::collections::BTreeMap;

use crate::account::Gauges;
use crate::input::follow::FollowStats;
use crate::vocab::counters::{DenialKey, LoopKey, RiskKey, ToolKey};
use crate::vocab::counters::{Exemplar, Histogram, Metrics, WorkflowSeries, TOKEN_KINDS};
use crate::vocab::counters::{COST_BUCKETS, DENIAL_BUCKETS, DURATION_BUCKETS, TURN_BUCKETS};
use crate::vocab::families::{self as f, Family};
use crate::vocab::{LabelName, PathLabels};

use openmetrics::OpenMetricsWriter;
use text::TextWriter;

/// What only the live sidecar knows: the follower's counters and its own.
#[derive(Debug, Clone, Default)]
pub struct RunStats {
    pub follow: FollowStats,
    pub watcher_errors: u64,
    pub watcher_fallbacks: u64,
    /// Watches set up again because a watched directory was replaced.
    pub watch_rearms: u64,
    /// inotify watches are armed (false: polling only).
    pub inotify: bool,
    pub state_writes_ok: u64,
    pub state_writes_error: u64,
    /// Seconds since the epoch; 0 before the first write.
    pub state_last_write: f64,
    /// Data faults met at start-up, by `fault` label value (every value, zeros included).
    pub faults: Vec<(&'static str, u64)>,
}

/// An exposition format.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Format {
    /// The Prometheus text format 0.0.4: what `replay` prints, and `/metrics` by default.
    Text,
    /// OpenMetrics 1.0 with exemplars, for a scraper whose `Accept` prefers it.
    OpenMetrics,
}

impl Format {
    /// The Content-Type of a body in this format.
    pub fn content_type(self) -> &'static str {
        match self {
            Format::Text => text::CONTENT_TYPE,
            Format::OpenMetrics => openmetrics::CONTENT_TYPE,
        }
    }

    /// What ends a body in this format, after every family: `# EOF` in OpenMetrics.
    pub fn trailer(self) -> &'static str {
        match self {
            Format::Text => "",
            Format::OpenMetrics => "# EOF\n",
        }
    }

    /// 0 or 1, for a per-format slot.
    pub fn index(self) -> usize {
        match self {
            Format::Text => 0,
            Format::OpenMetrics => 1,
        }
    }

    /// The format an `Accept` header asks for: OpenMetrics when it names
    /// `application/openmetrics-text` with a quality above 0 and at least that of `text/plain`
    /// (Prometheus sends `application/openmetrics-text;version=1.0.0,…,text/plain;version=0.0.4;q=0.5`),
    /// else the text format.
    pub fn from_accept(accept: Option<&str>) -> Format {
        let (mut openmetrics, mut text) = (0.0_f64, 0.0_f64);
        for range in accept.unwrap_or("").split(',') {
            let mut parts = range.split(';').map(str::trim);
            let media = parts.next().unwrap_or("").to_ascii_lowercase();
            let q = parts
                .filter_map(|p| p.strip_prefix("q="))
                .find_map(|q| q.parse::<f64>().ok())
                .unwrap_or(1.0);
            match media.as_str() {
                "application/openmetrics-text" => openmetrics = openmetrics.max(q),
                "text/plain" => text = text.max(q),
                _ => {}
            }
        }
        if openmetrics > 0.0 && openmetrics >= text {
            Format::OpenMetrics
        } else {
            Format::Text
        }
    }
}

/// Where a [`Describe`] writes: a family, then its samples. A writer leaves out a family that got
/// no sample (no denial yet, say).
pub trait Emit {
    /// Starts a family; the samples that follow are its own.
    fn family(&mut self, family: Family);
    /// One counter or gauge sample.
    fn value(&mut self, labels: &[(&str, &str)], value: f64);
    /// One histogram, with the bucket bounds it was observed with.
    fn histogram(&mut self, labels: &[(&str, &str)], h: &Histogram, bounds: &[f64]);

    /// One counter sample with the exemplar of its latest increase, if it has one (OpenMetrics
    /// shows it; the 0.0.4 text has no exemplars).
    fn exemplified(&mut self, labels: &[(&str, &str)], value: f64, exemplar: Option<&Exemplar>) {
        let _ = exemplar;
        self.value(labels, value);
    }

    /// One sample of an integer counter or gauge, written as an integer in both formats.
    fn integer(&mut self, labels: &[(&str, &str)], value: u64);

    /// A family of one label over fixed values.
    fn by_label(&mut self, family: Family, label: &str, values: &[(&str, f64)]) {
        self.family(family);
        for (value, n) in values {
            self.value(&[(label, value)], *n);
        }
    }

    /// A family of one sample without labels.
    fn single(&mut self, family: Family, value: f64) {
        self.family(family);
        self.value(&[], value);
    }
}

/// Something that tells an [`Emit`] its families: the counted state ([`Counted`]), the HTTP
/// server's connection counters.
pub trait Describe {
    /// Tells `out` every family and sample, in exposition order.
    fn describe(&self, out: &mut impl Emit);
}

/// Appends what `what` describes to `out`, in `format`, without the format's trailer.
pub fn write(format: Format, what: &impl Describe, out: String) -> String {
    match format {
        Format::Text => {
            let mut writer = TextWriter::new(out);
            what.describe(&mut writer);
            writer.finish()
        }
        Format::OpenMetrics => {
            let mut writer = OpenMetricsWriter::new(out);
            what.describe(&mut writer);
            writer.finish()
        }
    }
}

/// The exposition of `what` alone in the text format 0.0.4: what `replay` prints.
pub fn render_text(what: &impl Describe) -> String {
    write(Format::Text, what, String::with_capacity(16 * 1024))
}

/// The counted state, as one exposition shows it.
#[derive(Debug, Clone, Copy)]
pub struct Counted<'a> {
    pub metrics: &'a Metrics,
    pub gauges: Gauges,
    /// `None` for `replay`.
    pub run: Option<&'a RunStats>,
}

impl Describe for Counted<'_> {
    fn describe(&self, out: &mut impl Emit) {
        describe_counted(self.metrics, out);
        describe_self(self.metrics, self.gauges, out);
        if let Some(r) = self.run {
            describe_run(r, out);
        }
    }
}

/// The counted families: denials, executions, spend. A series whose file's path gave it labels
/// (`--labels-from-path`) carries them first.
fn describe_counted(m: &Metrics, out: &mut impl Emit) {
    let (denials, risks) = (Some(&m.denial_exemplars), Some(&m.denial_risk_exemplars));
    counters(out, f::DENIALS, &m.denials, denials);
    counters(out, f::DENIAL_RISKS, &m.denial_risks, risks);
    counters(out, f::DENIALS_UNENFORCED, &m.unenforced, None);
    counters(out, f::DENIAL_LOOPS, &m.loops, None);

    out.family(f::EXECUTIONS);
    for (p, w, s) in workflow_series(m) {
        for (o, n) in &s.executions {
            out.value(&with_path(p, &[("outcome", o), ("workflow", w)]), *n as f64);
        }
    }
    out.family(f::COST);
    for (p, w, s) in workflow_series(m) {
        out.histogram(&with_path(p, &[("workflow", w)]), &s.cost_usd, COST_BUCKETS);
    }
    out.family(f::TOKENS);
    for (p, w, s) in workflow_series(m) {
        for (k, n) in TOKEN_KINDS.iter().zip(s.tokens) {
            out.value(&with_path(p, &[("kind", k), ("workflow", w)]), n);
        }
    }
    out.family(f::TOKENS_BY_MODEL);
    for (p, w, s) in workflow_series(m) {
        for (model, series) in &s.models {
            for (k, n) in TOKEN_KINDS.iter().zip(series.tokens) {
                let own = [("kind", *k), ("model", model.as_str()), ("workflow", w)];
                out.value(&with_path(p, &own), n);
            }
        }
    }
    out.family(f::COST_BY_MODEL);
    for (p, w, s) in workflow_series(m) {
        for (model, series) in &s.models {
            let labels = with_path(p, &[("model", model.as_str()), ("workflow", w)]);
            out.exemplified(&labels, series.cost_usd, series.cost_exemplar.as_ref());
        }
    }
    for (family, pick, bounds) in [
        (
            f::TURNS,
            (|s| &s.turns) as fn(&WorkflowSeries) -> &Histogram,
            TURN_BUCKETS,
        ),
        (f::DURATION, |s| &s.duration_seconds, DURATION_BUCKETS),
        (f::DENIALS_PER_EXECUTION, |s| &s.denials, DENIAL_BUCKETS),
    ] {
        out.family(family);
        for (p, w, s) in workflow_series(m) {
            out.histogram(&with_path(p, &[("workflow", w)]), pick(s), bounds);
        }
    }
}

/// A counter family of series keyed by their label sets, each sample with its exemplar when
/// `exemplars` has one.
fn counters<K: SeriesKey>(
    out: &mut impl Emit,
    family: Family,
    series: &BTreeMap<K, u64>,
    exemplars: Option<&BTreeMap<K, Exemplar>>,
) {
    out.family(family);
    for (k, v) in series {
        let exemplar = exemplars.and_then(|e| e.get(k));
        k.labelled(|labels| out.exemplified(labels, *v as f64, exemplar));
    }
}

/// The label set of one counter series.
trait SeriesKey: Ord {
    /// Calls `emit` with the series' labels: its path labels, then its own.
    fn labelled(&self, emit: impl FnOnce(&[(&str, &str)]));
}

impl SeriesKey for DenialKey {
    fn labelled(&self, emit: impl FnOnce(&[(&str, &str)])) {
        let own = [
            ("reason", self.reason.as_str()),
            ("tool", self.tool.as_str()),
            ("workflow", self.workflow.as_str()),
        ];
        emit(&with_path(&self.path, &own));
    }
}

impl SeriesKey for RiskKey {
    fn labelled(&self, emit: impl FnOnce(&[(&str, &str)])) {
        let own = [
            ("risk", self.risk.as_str()),
            ("tool", self.tool.as_str()),
            ("workflow", self.workflow.as_str()),
        ];
        emit(&with_path(&self.path, &own));
    }
}

impl SeriesKey for ToolKey {
    fn labelled(&self, emit: impl FnOnce(&[(&str, &str)])) {
        let own = [
            ("tool", self.tool.as_str()),
            ("workflow", self.workflow.as_str()),
        ];
        emit(&with_path(&self.path, &own));
    }
}

impl SeriesKey for LoopKey {
    fn labelled(&self, emit: impl FnOnce(&[(&str, &str)])) {
        let at = self.at.to_string();
        let own = [
            ("at", at.as_str()),
            ("pattern", self.pattern.as_str()),
            ("tool", self.tool.as_str()),
            ("workflow", self.workflow.as_str()),
        ];
        emit(&with_path(&self.path, &own));
    }
}

/// Every per-workflow series with the path labels it carries.
fn workflow_series(m: &Metrics) -> impl Iterator<Item = (&PathLabels, &str, &WorkflowSeries)> {
    m.workflow_maps()
        .flat_map(|(p, map)| map.iter().map(move |(w, s)| (p, w.as_str(), s)))
}

/// A series' labels: its path labels, then its own.
fn with_path<'a>(path: &'a PathLabels, own: &[(&'a str, &'a str)]) -> Vec<(&'a str, &'a str)> {
    let path = path
        .pairs()
        .map(|(name, value)| -> (&str, &str) { (name, value) });
    path.chain(own.iter().copied()).collect()
}

/// The exporter's own families, in `replay` and `run` alike.
fn describe_self(m: &Metrics, gauges: Gauges, out: &mut impl Emit) {
    out.family(f::BUILD_INFO);
    out.value(
        &[
            ("version", crate::build_info::VERSION),
            ("revision", crate::build_info::REVISION),
            ("target", crate::build_info::TARGET),
        ],
        1.0,
    );
    out.single(f::READ_BYTES, m.read_bytes as f64);
    out.family(f::LINES);
    for (o, n) in m.lines_by_outcome() {
        out.value(&[("outcome", o.as_str())], n as f64);
    }
    // Only kinds that replaced something: a state file written before this rule holds zeros.
    out.family(f::REDACTIONS);
    for (kind, n) in m.redactions.iter().filter(|(_, n)| **n > 0) {
        out.value(&[("kind", kind)], *n as f64);
    }
    for (family, counts) in [
        (f::LABEL_OVERFLOW, &m.label_overflow),
        (f::LABEL_INVALID, &m.label_invalid),
        (f::LABEL_REDACTED, &m.label_redacted),
    ] {
        out.family(family);
        for l in LabelName::ALL {
            let n = counts.get(&l).copied().unwrap_or(0);
            out.value(&[("label", l.as_str())], n as f64);
        }
    }
    out.by_label(
        f::LABEL_VALUES,
        "label",
        &[
            ("tool", gauges.tools_admitted as f64),
            ("workflow", gauges.workflows_admitted as f64),
            ("model", gauges.models_admitted as f64),
        ],
    );
    out.single(f::EXECUTIONS_TRACKED, gauges.executions_tracked as f64);
    out.by_label(
        f::EXECUTIONS_EVICTED,
        "cause",
        &[
            ("cap", m.evicted_cap as f64),
            ("idle", m.evicted_idle as f64),
        ],
    );
    out.single(f::SERIES_OVERFLOW, m.series_overflow as f64);
    out.single(f::RECORD_DENIALS_CLAMPED, m.denials_clamped as f64);
    out.single(f::PATH_LABELS_EXPIRED, m.path_labels_expired as f64);
    out.single(f::TIMES_REJECTED, m.times_rejected as f64);
    out.single(f::LAST_EVENT_TIMESTAMP, m.last_event_timestamp);
}

/// The live follower's families (`run` only).
fn describe_run(r: &RunStats, out: &mut impl Emit) {
    out.single(f::FILES_FOLLOWED, r.follow.followed as f64);
    out.family(f::FILE_LAG);
    for (p, lag) in r.follow.files.iter() {
        out.value(&[("path", p)], *lag as f64);
    }
    out.single(f::FILE_LAG_OTHERS, r.follow.lag_others as f64);
    out.single(f::ROTATIONS, r.follow.rotations as f64);
    out.single(f::TRUNCATIONS, r.follow.truncations as f64);
    out.single(f::FILES_UNOPENABLE, r.follow.unopenable as f64);
    out.single(f::FILES_OPEN, r.follow.open_files as f64);
    out.single(f::FILES_PARKED, r.follow.parked as f64);
    out.single(f::LINES_REJOINED, r.follow.rejoined as f64);
    out.by_label(
        f::FILE_ERRORS,
        "error",
        &[
            ("open", r.follow.file_errors_open as f64),
            ("read", r.follow.file_errors_read as f64),
            ("vanished", r.follow.file_errors_vanished as f64),
        ],
    );
    out.by_label(
        f::COMPRESSED_FILES,
        "action",
        &[
            ("skipped", r.follow.compressed_skipped as f64),
            ("finished", r.follow.compressed_finished as f64),
        ],
    );
    out.single(
        f::STATE_ENTRIES_DROPPED,
        r.follow.state_entries_dropped as f64,
    );
    out.single(f::LOST_FILES, r.follow.lost_files as f64);
    out.single(f::LOST_BYTES, r.follow.lost_bytes as f64);
    out.single(f::ROLLS_RECOVERED, r.follow.rolls_recovered as f64);
    out.single(f::WATCHER_ERRORS, r.watcher_errors as f64);
    out.single(f::WATCHER_FALLBACKS, r.watcher_fallbacks as f64);
    out.single(f::WATCH_REARMS, r.watch_rearms as f64);
    out.single(f::INOTIFY_WATCHING, if r.inotify { 1.0 } else { 0.0 });
    out.by_label(
        f::STATE_WRITES,
        "result",
        &[
            ("ok", r.state_writes_ok as f64),
            ("error", r.state_writes_error as f64),
        ],
    );
    out.single(f::STATE_LAST_WRITE, r.state_last_write);
    let faults: Vec<(&str, f64)> = r.faults.iter().map(|&(l, n)| (l, n as f64)).collect();
    out.by_label(f::FAULTS, "fault", &faults);
}

/// Appends `s` with `\` and newline escaped, and `"` too when `quote` (a label value in either
/// format; a help text in OpenMetrics).
fn escape_into(out: &mut String, s: &str, quote: bool) {
    let needs = |b: u8| b == b'\\' || b == b'\n' || (quote && b == b'"');
    if !s.bytes().any(needs) {
        out.push_str(s);
        return;
    }
    for c in s.chars() {
        match c {
            '\\' => out.push_str("\\\\"),
            '\n' => out.push_str("\\n"),
            '"' if quote => out.push_str("\\\""),
            c => out.push(c),
        }
    }
}

#[cfg(test)]
pub(crate) mod tests;
