//! Writes the OpenMetrics 1.0 text exposition, with exemplars, straight into one string.
//!
//! Owns the format's bytes: a counter family is named without `_total` in `# HELP`/`# TYPE` and
//! its samples with it; help texts and label values escape `\`, `"` and newline; floats are
//! written as the `dtoa` crate writes them (`1.0`, `0.25`, `1e21`), integers (histogram counts,
//! the connection counters) without a fraction; a histogram writes `_sum`, `_count`, then its
//! buckets with `le` first and `+Inf` last; an exemplar follows its counter sample as
//! ` # {execution_id="…",tool_use_id="…"} value timestamp`. The output is byte for byte what
//! the `prometheus-client` crate's encoder writes for the same families (a test holds it to
//! that, `reference.rs`), without a registry, a collector or a label vector per sample.
//!
//! Exemplar ids were redacted when counted (`crate::account`) and cut to the OpenMetrics limit
//! of 128 characters per label set ([`crate::vocab::counters::Exemplar::new`]).
//!
//! **Not here:** which families exist ([`super::Counted`]), names and help texts
//! ([`crate::vocab::families`]), `# EOF` (the body's end, [`super::Format::trailer`]),
//! negotiation ([`super::Format::from_accept`]).
//!
//! Hot: per render in OpenMetrics, per sample.

use std::fmt::Write as _;
use std::time::Duration;

use super::{escape_into, Emit};
use crate::vocab::counters::{Exemplar, Histogram};
use crate::vocab::families::{Family, Kind};

/// The OpenMetrics content type.
pub const CONTENT_TYPE: &str = "application/openmetrics-text; version=1.0.0; charset=utf-8";

/// An OpenMetrics writer; a family's header is written with its first sample, so a family
/// without samples leaves no trace. Writes no `# EOF`.
pub struct OpenMetricsWriter {
    out: String,
    /// The current family's name as its samples start (a counter's with `_total`).
    name: &'static str,
    kind: Kind,
    /// The current family, its header not yet written.
    pending: Option<Family>,
    floats: dtoa::Buffer,
}

impl OpenMetricsWriter {
    /// A writer appending to `out`.
    pub fn new(out: String) -> OpenMetricsWriter {
        OpenMetricsWriter {
            out,
            name: "",
            kind: Kind::Gauge,
            pending: None,
            floats: dtoa::Buffer::new(),
        }
    }

    /// The families written, without `# EOF`.
    pub fn finish(self) -> String {
        self.out
    }

    fn header(&mut self) {
        let Some(family) = self.pending.take() else {
            return;
        };
        let (name, kind) = match family.kind {
            // OpenMetrics counters are named without `_total`; their samples carry it.
            Kind::Counter => (
                family.name.strip_suffix("_total").unwrap_or(family.name),
                "counter",
            ),
            Kind::Gauge => (family.name, "gauge"),
            Kind::Histogram => (family.name, "histogram"),
        };
        self.out.push_str("# HELP ");
        self.out.push_str(name);
        self.out.push(' ');
        escape_into(&mut self.out, family.help, true);
        self.out.push_str("\n# TYPE ");
        self.out.push_str(name);
        self.out.push(' ');
        self.out.push_str(kind);
        self.out.push('\n');
    }

    /// The sample's name (with `suffix`) and labels, `le` first when given.
    fn labels(&mut self, suffix: &str, labels: &[(&str, &str)], le: Option<&str>) {
        self.out.push_str(self.name);
        self.out.push_str(suffix);
        if labels.is_empty() && le.is_none() {
            return;
        }
        self.out.push('{');
        self.pairs(
            le.map(|le| ("le", le))
                .into_iter()
                .chain(labels.iter().copied()),
        );
        self.out.push('}');
    }

    /// `name="value"` pairs, separated by commas.
    fn pairs<'n, 'v>(&mut self, pairs: impl Iterator<Item = (&'n str, &'v str)>) {
        for (i, (name, value)) in pairs.enumerate() {
            if i > 0 {
                self.out.push(',');
            }
            self.out.push_str(name);
            self.out.push_str("=\"");
            escape_into(&mut self.out, value, true);
            self.out.push('"');
        }
    }

    fn float(&mut self, value: f64) {
        self.out.push(' ');
        self.out.push_str(self.floats.format(value));
    }

    fn int(&mut self, value: u64) {
        let _ = write!(self.out, " {value}");
    }

    fn exemplar(&mut self, e: &Exemplar) {
        self.out.push_str(" # {");
        self.pairs(e.labels());
        self.out.push('}');
        self.float(e.value);
        // As a timestamp travels through `SystemTime` in the reference encoder: nanoseconds.
        let at = Duration::from_secs_f64(e.timestamp.max(0.0)).as_secs_f64();
        self.float(at);
    }
}

impl Emit for OpenMetricsWriter {
    fn family(&mut self, family: Family) {
        // Held by a test over every family in `crate::vocab::families`.
        debug_assert!(family.kind != Kind::Counter || family.name.ends_with("_total"));
        self.name = family.name;
        self.kind = family.kind;
        self.pending = Some(family);
    }

    fn value(&mut self, labels: &[(&str, &str)], value: f64) {
        self.exemplified(labels, value, None);
    }

    fn exemplified(&mut self, labels: &[(&str, &str)], value: f64, exemplar: Option<&Exemplar>) {
        self.header();
        self.labels("", labels, None);
        self.float(value);
        if let (Kind::Counter, Some(e)) = (self.kind, exemplar) {
            self.exemplar(e);
        }
        self.out.push('\n');
    }

    fn integer(&mut self, labels: &[(&str, &str)], value: u64) {
        self.header();
        self.labels("", labels, None);
        self.int(value);
        self.out.push('\n');
    }

    fn histogram(&mut self, labels: &[(&str, &str)], h: &Histogram, bounds: &[f64]) {
        self.header();
        self.labels("_sum", labels, None);
        self.float(h.sum);
        self.out.push('\n');
        self.labels("_count", labels, None);
        self.int(h.count);
        self.out.push('\n');
        let mut le = dtoa::Buffer::new();
        let mut below = 0;
        for (bound, cumulative) in bounds.iter().zip(h.cumulative(bounds)) {
            self.labels("_bucket", labels, Some(le.format(*bound)));
            self.int(cumulative);
            self.out.push('\n');
            below = cumulative;
        }
        // The +Inf bucket holds at least what the buckets below hold.
        self.labels("_bucket", labels, Some("+Inf"));
        self.int(below + h.count.saturating_sub(below));
        self.out.push('\n');
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::account::Gauges;
    use crate::exposition::{render_text, write, Counted, Format, RunStats};
    use crate::vocab::counters::{DenialKey, Metrics, COST_BUCKETS};
    use crate::vocab::Reason;

    #[test]
    fn renders_openmetrics_with_exemplars() {
        let mut m = Metrics::default();
        let key = DenialKey {
            path: Default::default(),
            tool: "Bash".into(),
            workflow: "review".into(),
            reason: Reason::Unknown,
        };
        m.denials.insert(key.clone(), 3);
        m.denial_exemplars.insert(
            key,
            Exemplar::new(Some("exec_1"), Some("toolu_01A"), 1.0, 1781251200.5),
        );
        let series = m.workflows.entry("review".into()).or_default();
        series.cost_usd.observe(COST_BUCKETS, 0.3);
        let model = series.models.entry("claude-sonnet-4-5".into()).or_default();
        model.cost_usd = 0.3;
        model.cost_exemplar = Some(Exemplar::new(Some("exec_1"), None, 0.25, 1781251200.0));
        let mut run = RunStats::default();
        run.follow.files = vec![("/logs/we\"ird.log".into(), 7)].into();
        let counted = Counted {
            metrics: &m,
            gauges: Gauges::default(),
            run: Some(&run),
        };
        let text = write(Format::OpenMetrics, &counted, String::new());

        assert!(
            !text.contains("# EOF"),
            "the body's end is not the writer's"
        );
        for want in [
            "# TYPE permission_denials counter\n",
            "permission_denials_total{reason=\"unknown\",tool=\"Bash\",workflow=\"review\"} 3.0 # {execution_id=\"exec_1\",tool_use_id=\"toolu_01A\"} 1.0 1781251200.5\n",
            "agent_cost_usd_total{model=\"claude-sonnet-4-5\",workflow=\"review\"} 0.3 # {execution_id=\"exec_1\"} 0.25 1781251200.0\n",
            "agent_execution_cost_usd_bucket{le=\"+Inf\",workflow=\"review\"} 1\n",
            "agent_execution_cost_usd_count{workflow=\"review\"} 1\n",
            "denials_exporter_file_lag_bytes{path=\"/logs/we\\\"ird.log\"} 7",
            "denials_exporter_read_bytes_total 0",
            "mapped to \\\"other\\\"",
        ] {
            assert!(text.contains(want), "{want} not in {text}");
        }
        // Every sample line of the 0.0.4 text has its counterpart.
        let plain = render_text(&counted);
        let names = |t: &str| -> std::collections::BTreeSet<String> {
            t.lines()
                .filter(|l| !l.starts_with('#'))
                .map(|l| l.split(['{', ' ']).next().unwrap().to_string())
                .collect()
        };
        assert_eq!(names(&plain), names(&text));
    }
}
