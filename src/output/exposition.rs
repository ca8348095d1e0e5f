//! Describes the counting state as metric families, for both encodings: the Prometheus text
//! exposition 0.0.4 ([`render`], written by [`super::text`]) and OpenMetrics ([`families`], the
//! `prometheus` protobuf families that [`super::openmetrics`] hands to its encoder).
//!
//! Owns the mapping from [`Metrics`] (and the live follower's [`RunStats`]) to families:
//! [`describe`] walks the state once and tells an [`Emit`] each family and sample, so the two
//! encodings cannot drift apart. `replay` prints exactly what `/metrics` serves. Known label sets
//! (outcomes, label names, eviction causes, redaction kinds) are always present, at 0 before
//! anything happened, so rates and alerts see a series from the first scrape.
//!
//! **Not here:** the metric names and buckets ([`crate::vocab::counters`]), counting, escaping
//! and number formats (the writers).
//!
//! Cold: per scrape; no I/O, no allocation per sample on the 0.0.4 path.

use prometheus::proto::{
    Bucket, Counter, Gauge, Histogram as ProtoHistogram, LabelPair, Metric, MetricFamily,
    MetricType,
};

use super::text::TextWriter;
use crate::account::Gauges;
use crate::input::follow::FollowStats;
use crate::vocab::counters::{self as metrics, Histogram, Metrics, TOKEN_KINDS};
use crate::vocab::LabelName;

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
}

/// The text exposition's content type.
pub const CONTENT_TYPE: &str = prometheus::TEXT_FORMAT;

/// A family's type.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Kind {
    Counter,
    Gauge,
    Histogram,
}

/// Where [`describe`] writes: a family, then its samples. A writer leaves out a family that got
/// no sample (no denial yet, say): the encoders reject empty families.
pub trait Emit {
    /// Starts a family; the samples that follow are its own.
    fn family(&mut self, name: &'static str, help: &'static str, kind: Kind);
    /// One counter or gauge sample.
    fn value(&mut self, labels: &[(&str, &str)], value: f64);
    /// One histogram, with the bucket bounds it was observed with.
    fn histogram(&mut self, labels: &[(&str, &str)], h: &Histogram, bounds: &[f64]);

    /// A family of one label over fixed values.
    fn by_label(
        &mut self,
        name: &'static str,
        help: &'static str,
        kind: Kind,
        label: &str,
        values: &[(&str, f64)],
    ) {
        self.family(name, help, kind);
        for (value, n) in values {
            self.value(&[(label, value)], *n);
        }
    }

    /// A family of one sample without labels.
    fn single(&mut self, name: &'static str, help: &'static str, kind: Kind, value: f64) {
        self.family(name, help, kind);
        self.value(&[], value);
    }
}

/// Renders everything as the text format 0.0.4. `run` is `None` for `replay`.
pub fn render(
    m: &Metrics,
    gauges: Gauges,
    redaction_kinds: &[&str],
    run: Option<&RunStats>,
) -> String {
    let mut writer = TextWriter::with_capacity(16 * 1024);
    describe(m, gauges, redaction_kinds, run, &mut writer);
    writer.finish()
}

/// Every metric family as `prometheus` protobuf families, for the OpenMetrics encoder.
pub fn families(
    m: &Metrics,
    gauges: Gauges,
    redaction_kinds: &[&str],
    run: Option<&RunStats>,
) -> Vec<MetricFamily> {
    let mut builder = FamilyBuilder::default();
    describe(m, gauges, redaction_kinds, run, &mut builder);
    builder.families.retain(|f| !f.get_metric().is_empty());
    builder.families
}

/// Tells `out` every family and sample, in exposition order.
pub fn describe(
    m: &Metrics,
    gauges: Gauges,
    redaction_kinds: &[&str],
    run: Option<&RunStats>,
    out: &mut impl Emit,
) {
    out.family(
        metrics::DENIALS,
        "Denied tool calls, each counted exactly once.",
        Kind::Counter,
    );
    for (k, v) in &m.denials {
        let labels = [
            ("reason", k.reason.as_str()),
            ("tool", k.tool.as_str()),
            ("workflow", k.workflow.as_str()),
        ];
        out.value(&labels, *v as f64);
    }

    let wf = &m.workflows;
    out.family(
        metrics::EXECUTIONS,
        "Agent executions completed, by SDK result subtype.",
        Kind::Counter,
    );
    for (w, s) in wf {
        for (o, n) in &s.executions {
            out.value(&[("outcome", o), ("workflow", w)], *n as f64);
        }
    }
    out.family(
        metrics::COST,
        "Cost of one agent execution in US dollars.",
        Kind::Histogram,
    );
    for (w, s) in wf {
        out.histogram(&[("workflow", w)], &s.cost_usd, metrics::COST_BUCKETS);
    }
    out.family(
        metrics::TOKENS,
        "Tokens used by agent executions, by kind.",
        Kind::Counter,
    );
    for (w, s) in wf {
        for (k, n) in TOKEN_KINDS.iter().zip(s.tokens) {
            out.value(&[("kind", k), ("workflow", w)], n);
        }
    }
    out.family(
        metrics::TOKENS_BY_MODEL,
        "Tokens used by agent executions, by kind and model (from the SDK's modelUsage).",
        Kind::Counter,
    );
    for (w, s) in wf {
        for (model, series) in &s.models {
            for (k, n) in TOKEN_KINDS.iter().zip(series.tokens) {
                out.value(&[("kind", k), ("model", model), ("workflow", w)], n);
            }
        }
    }
    out.family(
        metrics::COST_BY_MODEL,
        "Cost of agent executions in US dollars, by model (from the SDK's modelUsage).",
        Kind::Counter,
    );
    for (w, s) in wf {
        for (model, series) in &s.models {
            out.value(&[("model", model), ("workflow", w)], series.cost_usd);
        }
    }
    for (name, help, pick, bounds) in [
        (
            metrics::TURNS,
            "Turns of one agent execution.",
            (|s| &s.turns) as fn(&metrics::WorkflowSeries) -> &Histogram,
            metrics::TURN_BUCKETS,
        ),
        (
            metrics::DURATION,
            "Wall time of one agent execution in seconds.",
            |s| &s.duration_seconds,
            metrics::DURATION_BUCKETS,
        ),
        (
            metrics::DENIALS_PER_EXECUTION,
            "Permission denials recorded per agent execution.",
            |s| &s.denials,
            metrics::DENIAL_BUCKETS,
        ),
    ] {
        out.family(name, help, Kind::Histogram);
        for (w, s) in wf {
            out.histogram(&[("workflow", w)], pick(s), bounds);
        }
    }

    describe_self(m, gauges, redaction_kinds, out);
    if let Some(r) = run {
        describe_run(r, out);
    }
}

/// The exporter's own families, in `replay` and `run` alike.
fn describe_self(m: &Metrics, gauges: Gauges, redaction_kinds: &[&str], out: &mut impl Emit) {
    out.family(
        "denials_exporter_build_info",
        "Build information; always 1.",
        Kind::Gauge,
    );
    out.value(&[("version", env!("CARGO_PKG_VERSION"))], 1.0);
    out.single(
        "denials_exporter_read_bytes_total",
        "Bytes read from log files.",
        Kind::Counter,
        m.read_bytes as f64,
    );
    out.family(
        "denials_exporter_lines_total",
        "Lines read, by outcome.",
        Kind::Counter,
    );
    for (o, n) in m.lines_by_outcome() {
        out.value(&[("outcome", o.as_str())], n as f64);
    }
    let mut kinds: Vec<&str> = redaction_kinds.to_vec();
    kinds.extend(
        m.redactions
            .keys()
            .map(String::as_str)
            .filter(|k| !redaction_kinds.contains(k)),
    );
    kinds.sort_unstable();
    out.family(
        "denials_exporter_redactions_total",
        "Secrets replaced before leaving the exporter, by kind.",
        Kind::Counter,
    );
    for k in kinds {
        let n = m.redactions.get(k).copied().unwrap_or(0);
        out.value(&[("kind", k)], n as f64);
    }
    for (name, help, counts) in [
        (
            "denials_exporter_label_overflow_total",
            "Label values mapped to \"other\" because the label hit its cap.",
            &m.label_overflow,
        ),
        (
            "denials_exporter_label_invalid_total",
            "Label values mapped to \"invalid\" by the charset and length rule.",
            &m.label_invalid,
        ),
        (
            "denials_exporter_label_redacted_total",
            "Label values replaced by \"redacted\" because they held a secret.",
            &m.label_redacted,
        ),
    ] {
        out.family(name, help, Kind::Counter);
        for l in LabelName::ALL {
            let n = counts.get(&l).copied().unwrap_or(0);
            out.value(&[("label", l.as_str())], n as f64);
        }
    }
    out.by_label(
        "denials_exporter_label_values",
        "Distinct admitted label values.",
        Kind::Gauge,
        "label",
        &[
            ("tool", gauges.tools_admitted as f64),
            ("workflow", gauges.workflows_admitted as f64),
            ("model", gauges.models_admitted as f64),
        ],
    );
    out.single(
        "denials_exporter_executions_tracked",
        "Executions held for reconciliation.",
        Kind::Gauge,
        gauges.executions_tracked as f64,
    );
    out.by_label(
        "denials_exporter_executions_evicted_total",
        "Executions whose reconciliation state was dropped, by cause.",
        Kind::Counter,
        "cause",
        &[
            ("cap", m.evicted_cap as f64),
            ("idle", m.evicted_idle as f64),
        ],
    );
    for (name, help, kind, value) in [
        (
            "denials_exporter_series_overflow_total",
            "Denials counted under tool and workflow other because --max-series was reached.",
            Kind::Counter,
            m.series_overflow as f64,
        ),
        (
            "denials_exporter_record_denials_clamped_total",
            "Denials execution records claimed beyond --max-denials-per-record, not counted.",
            Kind::Counter,
            m.denials_clamped as f64,
        ),
        (
            "denials_exporter_times_rejected_total",
            "Log times further ahead of the wall clock than --max-clock-skew, taken as no time.",
            Kind::Counter,
            m.times_rejected as f64,
        ),
        (
            "denials_exporter_last_event_timestamp_seconds",
            "Log time of the last counted event; the read time for lines without one (stream-json).",
            Kind::Gauge,
            m.last_event_timestamp,
        ),
    ] {
        out.single(name, help, kind, value);
    }
}

/// The live follower's families (`run` only).
fn describe_run(r: &RunStats, out: &mut impl Emit) {
    out.single(
        "denials_exporter_files_followed",
        "Files currently followed.",
        Kind::Gauge,
        r.follow.files.len() as f64,
    );
    out.family(
        "denials_exporter_file_lag_bytes",
        "Bytes written to a followed file but not yet read.",
        Kind::Gauge,
    );
    for (p, lag) in &r.follow.files {
        out.value(&[("path", p)], *lag as f64);
    }
    for (name, help, kind, value) in [
        (
            "denials_exporter_rotations_total",
            "Rotations seen (rename, numbered roll, deletion).",
            Kind::Counter,
            r.follow.rotations as f64,
        ),
        (
            "denials_exporter_truncations_total",
            "Truncations seen (copytruncate).",
            Kind::Counter,
            r.follow.truncations as f64,
        ),
        (
            "denials_exporter_files_unopenable",
            "Paths the globs match that cannot be opened now (permissions, the fd limit).",
            Kind::Gauge,
            r.follow.unopenable as f64,
        ),
        (
            "denials_exporter_lines_rejoined_total",
            "Lines a writer cut across two rolled files, joined again.",
            Kind::Counter,
            r.follow.rejoined as f64,
        ),
    ] {
        out.single(name, help, kind, value);
    }
    // Compressed files and state entries dropped at a restart (the rotation-identity block).
    out.by_label(
        "denials_exporter_compressed_files_total",
        "Compressed files met: skipped (a glob matched a gzip file; never read as lines), or \
         finished (a saved file found only as its .gz at a restart, read from its saved offset).",
        Kind::Counter,
        "action",
        &[
            ("skipped", r.follow.compressed_skipped as f64),
            ("finished", r.follow.compressed_finished as f64),
        ],
    );
    out.single(
        "denials_exporter_state_entries_dropped_total",
        "State-file entries dropped at a restart: no file in their directory had their identity.",
        Kind::Counter,
        r.follow.state_entries_dropped as f64,
    );
    out.by_label(
        "denials_exporter_file_errors_total",
        "Errors on followed files, by kind.",
        Kind::Counter,
        "error",
        &[
            ("open", r.follow.file_errors_open as f64),
            ("read", r.follow.file_errors_read as f64),
            ("vanished", r.follow.file_errors_vanished as f64),
        ],
    );
    for (name, help, kind, value) in [
        (
            "denials_exporter_watcher_errors_total",
            "inotify errors and queue overflows.",
            Kind::Counter,
            r.watcher_errors as f64,
        ),
        (
            "denials_exporter_watcher_fallbacks_total",
            "Switches from inotify to polling.",
            Kind::Counter,
            r.watcher_fallbacks as f64,
        ),
        (
            "denials_exporter_watch_rearms_total",
            "inotify watches set up again because a watched directory was deleted or replaced.",
            Kind::Counter,
            r.watch_rearms as f64,
        ),
        (
            "denials_exporter_inotify_watching",
            "1 while inotify watches are armed; 0 while only the periodic stat finds changes.",
            Kind::Gauge,
            if r.inotify { 1.0 } else { 0.0 },
        ),
    ] {
        out.single(name, help, kind, value);
    }
    out.by_label(
        "denials_exporter_state_writes_total",
        "State-file writes, by result.",
        Kind::Counter,
        "result",
        &[
            ("ok", r.state_writes_ok as f64),
            ("error", r.state_writes_error as f64),
        ],
    );
    out.single(
        "denials_exporter_state_last_write_timestamp_seconds",
        "When the state file was last written.",
        Kind::Gauge,
        r.state_last_write,
    );
}

/// Builds `prometheus` protobuf families (the OpenMetrics path).
#[derive(Default)]
struct FamilyBuilder {
    families: Vec<MetricFamily>,
    kind: Option<Kind>,
}

impl FamilyBuilder {
    fn push(&mut self, metric: Metric) {
        if let Some(family) = self.families.last_mut() {
            family.mut_metric().push(metric);
        }
    }
}

impl Emit for FamilyBuilder {
    fn family(&mut self, name: &'static str, help: &'static str, kind: Kind) {
        let mut f = MetricFamily::default();
        f.set_name(name.to_string());
        f.set_help(help.to_string());
        f.set_field_type(match kind {
            Kind::Counter => MetricType::COUNTER,
            Kind::Gauge => MetricType::GAUGE,
            Kind::Histogram => MetricType::HISTOGRAM,
        });
        self.families.push(f);
        self.kind = Some(kind);
    }

    fn value(&mut self, pairs: &[(&str, &str)], value: f64) {
        let mut m = Metric::from_label(labels(pairs));
        if self.kind == Some(Kind::Counter) {
            let mut c = Counter::default();
            c.set_value(value);
            m.set_counter(c);
        } else {
            let mut g = Gauge::default();
            g.set_value(value);
            m.set_gauge(g);
        }
        self.push(m);
    }

    fn histogram(&mut self, pairs: &[(&str, &str)], h: &Histogram, bounds: &[f64]) {
        let mut p = ProtoHistogram::default();
        p.set_sample_count(h.count);
        p.set_sample_sum(h.sum);
        p.set_bucket(
            bounds
                .iter()
                .zip(h.cumulative(bounds))
                .map(|(bound, count)| {
                    let mut b = Bucket::default();
                    b.set_upper_bound(*bound);
                    b.set_cumulative_count(count);
                    b
                })
                .collect(),
        );
        let mut m = Metric::from_label(labels(pairs));
        m.set_histogram(p);
        self.push(m);
    }
}

fn labels(pairs: &[(&str, &str)]) -> Vec<LabelPair> {
    pairs
        .iter()
        .map(|(name, value)| {
            let mut l = LabelPair::default();
            l.set_name(name.to_string());
            l.set_value(value.to_string());
            l
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::vocab::counters::DenialKey;
    use crate::vocab::Reason;

    #[test]
    fn renders_denials_and_zeroed_self_metrics() {
        let mut m = Metrics::default();
        m.denials.insert(
            DenialKey {
                tool: "Bash".into(),
                workflow: "re\"view".into(),
                reason: Reason::Hook,
            },
            2,
        );
        m.workflows
            .entry("review".into())
            .or_default()
            .cost_usd
            .observe(metrics::COST_BUCKETS, 0.3);
        m.lines_read = 5;
        let text = render(
            &m,
            Gauges::default(),
            &["github_token"],
            Some(&RunStats::default()),
        );
        assert!(text.contains("permission_denials_total{reason=\"hook\",tool=\"Bash\",workflow=\"re\\\"view\"} 2\n"), "{text}");
        assert!(text.contains("denials_exporter_lines_total{outcome=\"ignored\"} 5\n"));
        assert!(text.contains("denials_exporter_redactions_total{kind=\"github_token\"} 0\n"));
        assert!(
            text.contains("agent_execution_cost_usd_bucket{workflow=\"review\",le=\"0.5\"} 1\n")
        );
        assert!(text.contains("agent_execution_cost_usd_count{workflow=\"review\"} 1\n"));
        assert!(text.contains("denials_exporter_state_writes_total{result=\"error\"} 0\n"));
    }
}
