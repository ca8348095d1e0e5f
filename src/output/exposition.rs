//! Renders the counting state as the Prometheus text exposition (format 0.0.4), and builds the
//! metric families the OpenMetrics encoding ([`super::openmetrics`]) writes too.
//!
//! Owns the mapping from [`Metrics`] (and the live follower's [`RunStats`]) to metric families,
//! built as `prometheus` protobuf families and encoded by its `TextEncoder`. `replay` prints
//! exactly what `/metrics` serves. Known label sets (outcomes, label names, eviction causes,
//! redaction kinds) are always present, at 0 before anything happened, so rates and alerts see
//! a series from the first scrape.
//!
//! **Not here:** the metric names and buckets ([`super::metrics`]), counting.
//!
//! Cold: per scrape; no I/O.

use prometheus::proto::{
    Bucket, Counter, Gauge, Histogram as ProtoHistogram, LabelPair, Metric, MetricFamily,
    MetricType,
};
use prometheus::{Encoder, TextEncoder};

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

/// Renders everything as the text format 0.0.4. `run` is `None` for `replay`.
pub fn render(
    m: &Metrics,
    gauges: Gauges,
    redaction_kinds: &[&str],
    run: Option<&RunStats>,
) -> String {
    let families = families(m, gauges, redaction_kinds, run);
    let mut out = Vec::with_capacity(16 * 1024);
    TextEncoder::new()
        .encode(&families, &mut out)
        .expect("families built here have names, types and matching values");
    String::from_utf8(out).expect("the text encoder writes UTF-8")
}

/// Every metric family, as both encodings ([`render`] and [`super::openmetrics::render`]) write
/// them. Families without a metric are left out.
pub fn families(
    m: &Metrics,
    gauges: Gauges,
    redaction_kinds: &[&str],
    run: Option<&RunStats>,
) -> Vec<MetricFamily> {
    let mut families = Vec::new();
    let mut push = |f: MetricFamily| families.push(f);

    push(family(
        metrics::DENIALS,
        "Denied tool calls, each counted exactly once.",
        MetricType::COUNTER,
        m.denials
            .iter()
            .map(|(k, v)| {
                counter(
                    &[
                        ("reason", k.reason.as_str()),
                        ("tool", &k.tool),
                        ("workflow", &k.workflow),
                    ],
                    *v as f64,
                )
            })
            .collect(),
    ));

    let wf = &m.workflows;
    push(family(
        metrics::EXECUTIONS,
        "Agent executions completed, by SDK result subtype.",
        MetricType::COUNTER,
        wf.iter()
            .flat_map(|(w, s)| {
                s.executions
                    .iter()
                    .map(move |(o, n)| counter(&[("outcome", o), ("workflow", w)], *n as f64))
            })
            .collect(),
    ));
    push(family(
        metrics::COST,
        "Cost of one agent execution in US dollars.",
        MetricType::HISTOGRAM,
        wf.iter()
            .map(|(w, s)| histogram(&[("workflow", w)], &s.cost_usd, metrics::COST_BUCKETS))
            .collect(),
    ));
    push(family(
        metrics::TOKENS,
        "Tokens used by agent executions, by kind.",
        MetricType::COUNTER,
        wf.iter()
            .flat_map(|(w, s)| {
                TOKEN_KINDS
                    .iter()
                    .zip(s.tokens)
                    .map(move |(k, n)| counter(&[("kind", k), ("workflow", w)], n))
            })
            .collect(),
    ));
    push(family(
        metrics::TOKENS_BY_MODEL,
        "Tokens used by agent executions, by kind and model (from the SDK's modelUsage).",
        MetricType::COUNTER,
        wf.iter()
            .flat_map(|(w, s)| {
                s.models.iter().flat_map(move |(model, m)| {
                    TOKEN_KINDS.iter().zip(m.tokens).map(move |(k, n)| {
                        counter(&[("kind", k), ("model", model), ("workflow", w)], n)
                    })
                })
            })
            .collect(),
    ));
    push(family(
        metrics::COST_BY_MODEL,
        "Cost of agent executions in US dollars, by model (from the SDK's modelUsage).",
        MetricType::COUNTER,
        wf.iter()
            .flat_map(|(w, s)| {
                s.models.iter().map(move |(model, m)| {
                    counter(&[("model", model), ("workflow", w)], m.cost_usd)
                })
            })
            .collect(),
    ));
    push(family(
        metrics::TURNS,
        "Turns of one agent execution.",
        MetricType::HISTOGRAM,
        wf.iter()
            .map(|(w, s)| histogram(&[("workflow", w)], &s.turns, metrics::TURN_BUCKETS))
            .collect(),
    ));
    push(family(
        metrics::DURATION,
        "Wall time of one agent execution in seconds.",
        MetricType::HISTOGRAM,
        wf.iter()
            .map(|(w, s)| {
                histogram(
                    &[("workflow", w)],
                    &s.duration_seconds,
                    metrics::DURATION_BUCKETS,
                )
            })
            .collect(),
    ));
    push(family(
        metrics::DENIALS_PER_EXECUTION,
        "Permission denials recorded per agent execution.",
        MetricType::HISTOGRAM,
        wf.iter()
            .map(|(w, s)| histogram(&[("workflow", w)], &s.denials, metrics::DENIAL_BUCKETS))
            .collect(),
    ));

    push(family(
        "denials_exporter_build_info",
        "Build information; always 1.",
        MetricType::GAUGE,
        vec![gauge(&[("version", env!("CARGO_PKG_VERSION"))], 1.0)],
    ));
    push(single(
        "denials_exporter_read_bytes_total",
        "Bytes read from log files.",
        MetricType::COUNTER,
        m.read_bytes as f64,
    ));
    push(family(
        "denials_exporter_lines_total",
        "Lines read, by outcome.",
        MetricType::COUNTER,
        m.lines_by_outcome()
            .into_iter()
            .map(|(o, n)| counter(&[("outcome", o.as_str())], n as f64))
            .collect(),
    ));
    let mut kinds: Vec<&str> = redaction_kinds.to_vec();
    kinds.extend(
        m.redactions
            .keys()
            .map(String::as_str)
            .filter(|k| !redaction_kinds.contains(k)),
    );
    kinds.sort_unstable();
    push(family(
        "denials_exporter_redactions_total",
        "Secrets replaced before leaving the exporter, by kind.",
        MetricType::COUNTER,
        kinds
            .iter()
            .map(|k| {
                counter(
                    &[("kind", k)],
                    m.redactions.get(*k).copied().unwrap_or(0) as f64,
                )
            })
            .collect(),
    ));
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
        push(family(
            name,
            help,
            MetricType::COUNTER,
            LabelName::ALL
                .iter()
                .map(|l| {
                    let n = counts.get(l).copied().unwrap_or(0);
                    counter(&[("label", l.as_str())], n as f64)
                })
                .collect(),
        ));
    }
    push(family(
        "denials_exporter_label_values",
        "Distinct admitted label values.",
        MetricType::GAUGE,
        vec![
            gauge(&[("label", "tool")], gauges.tools_admitted as f64),
            gauge(&[("label", "workflow")], gauges.workflows_admitted as f64),
            gauge(&[("label", "model")], gauges.models_admitted as f64),
        ],
    ));
    push(single(
        "denials_exporter_executions_tracked",
        "Executions held for reconciliation.",
        MetricType::GAUGE,
        gauges.executions_tracked as f64,
    ));
    push(family(
        "denials_exporter_executions_evicted_total",
        "Executions whose reconciliation state was dropped, by cause.",
        MetricType::COUNTER,
        vec![
            counter(&[("cause", "cap")], m.evicted_cap as f64),
            counter(&[("cause", "idle")], m.evicted_idle as f64),
        ],
    ));
    push(single(
        "denials_exporter_series_overflow_total",
        "Denials counted under tool and workflow other because --max-series was reached.",
        MetricType::COUNTER,
        m.series_overflow as f64,
    ));
    push(single(
        "denials_exporter_record_denials_clamped_total",
        "Denials execution records claimed beyond --max-denials-per-record, not counted.",
        MetricType::COUNTER,
        m.denials_clamped as f64,
    ));
    push(single(
        "denials_exporter_times_rejected_total",
        "Log times further ahead of the wall clock than --max-clock-skew, taken as no time.",
        MetricType::COUNTER,
        m.times_rejected as f64,
    ));
    push(single(
        "denials_exporter_last_event_timestamp_seconds",
        "Log time of the last counted event; the read time for lines without one (stream-json).",
        MetricType::GAUGE,
        m.last_event_timestamp,
    ));

    if let Some(r) = run {
        push(single(
            "denials_exporter_files_followed",
            "Files currently followed.",
            MetricType::GAUGE,
            r.follow.files.len() as f64,
        ));
        push(family(
            "denials_exporter_file_lag_bytes",
            "Bytes written to a followed file but not yet read.",
            MetricType::GAUGE,
            r.follow
                .files
                .iter()
                .map(|(p, lag)| gauge(&[("path", p)], *lag as f64))
                .collect(),
        ));
        push(single(
            "denials_exporter_rotations_total",
            "Rotations seen (rename, numbered roll, deletion).",
            MetricType::COUNTER,
            r.follow.rotations as f64,
        ));
        push(single(
            "denials_exporter_truncations_total",
            "Truncations seen (copytruncate).",
            MetricType::COUNTER,
            r.follow.truncations as f64,
        ));
        push(single(
            "denials_exporter_files_unopenable",
            "Paths the globs match that cannot be opened now (permissions, the fd limit).",
            MetricType::GAUGE,
            r.follow.unopenable as f64,
        ));
        push(single(
            "denials_exporter_lines_rejoined_total",
            "Lines a writer cut across two rolled files, joined again.",
            MetricType::COUNTER,
            r.follow.rejoined as f64,
        ));
        push(family(
            "denials_exporter_file_errors_total",
            "Errors on followed files, by kind.",
            MetricType::COUNTER,
            vec![
                counter(&[("error", "open")], r.follow.file_errors_open as f64),
                counter(&[("error", "read")], r.follow.file_errors_read as f64),
                counter(
                    &[("error", "vanished")],
                    r.follow.file_errors_vanished as f64,
                ),
            ],
        ));
        push(single(
            "denials_exporter_watcher_errors_total",
            "inotify errors and queue overflows.",
            MetricType::COUNTER,
            r.watcher_errors as f64,
        ));
        push(single(
            "denials_exporter_watcher_fallbacks_total",
            "Switches from inotify to polling.",
            MetricType::COUNTER,
            r.watcher_fallbacks as f64,
        ));
        push(single(
            "denials_exporter_watch_rearms_total",
            "inotify watches set up again because a watched directory was deleted or replaced.",
            MetricType::COUNTER,
            r.watch_rearms as f64,
        ));
        push(single(
            "denials_exporter_inotify_watching",
            "1 while inotify watches are armed; 0 while only the periodic stat finds changes.",
            MetricType::GAUGE,
            if r.inotify { 1.0 } else { 0.0 },
        ));
        push(family(
            "denials_exporter_state_writes_total",
            "State-file writes, by result.",
            MetricType::COUNTER,
            vec![
                counter(&[("result", "ok")], r.state_writes_ok as f64),
                counter(&[("result", "error")], r.state_writes_error as f64),
            ],
        ));
        push(single(
            "denials_exporter_state_last_write_timestamp_seconds",
            "When the state file was last written.",
            MetricType::GAUGE,
            r.state_last_write,
        ));
    }

    // The encoders reject empty families (e.g. no denial yet): leave them out.
    families.retain(|f| !f.get_metric().is_empty());
    families
}

fn family(name: &str, help: &str, kind: MetricType, metrics: Vec<Metric>) -> MetricFamily {
    let mut f = MetricFamily::default();
    f.set_name(name.to_string());
    f.set_help(help.to_string());
    f.set_field_type(kind);
    f.set_metric(metrics);
    f
}

fn single(name: &str, help: &str, kind: MetricType, value: f64) -> MetricFamily {
    let metric = match kind {
        MetricType::COUNTER => counter(&[], value),
        _ => gauge(&[], value),
    };
    family(name, help, kind, vec![metric])
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

fn counter(pairs: &[(&str, &str)], value: f64) -> Metric {
    let mut c = Counter::default();
    c.set_value(value);
    let mut m = Metric::from_label(labels(pairs));
    m.set_counter(c);
    m
}

fn gauge(pairs: &[(&str, &str)], value: f64) -> Metric {
    let mut g = Gauge::default();
    g.set_value(value);
    let mut m = Metric::from_label(labels(pairs));
    m.set_gauge(g);
    m
}

fn histogram(pairs: &[(&str, &str)], h: &Histogram, bounds: &[f64]) -> Metric {
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
    m
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
