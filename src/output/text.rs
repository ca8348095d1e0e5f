//! Writes the Prometheus text exposition, format 0.0.4, straight into one string.
//!
//! Owns the format's bytes: `# HELP` and `# TYPE` lines, label escaping (`\`, `"` and newline in
//! values; `\` and newline in help texts), numbers as Rust prints an `f64` (shortest form that
//! reads back the same: `3`, `0.25`, `inf`), histogram `_bucket`/`_sum`/`_count` lines with
//! `le="+Inf"` added. The output is byte for byte what the `prometheus` crate's `TextEncoder`
//! writes for the same families (a test holds it to that), without a protobuf message or a
//! string per sample: a scrape is one pass and one buffer.
//!
//! **Not here:** which families exist ([`super::exposition::describe`]), OpenMetrics.
//!
//! Hot: per scrape, per sample.

use std::fmt::Write as _;

use super::exposition::{Emit, Kind};
use crate::vocab::counters::Histogram;

/// A 0.0.4 text writer; a family's header is written with its first sample, so a family without
/// samples leaves no trace.
pub struct TextWriter {
    out: String,
    name: &'static str,
    /// The current family's header, not yet written.
    pending: Option<(&'static str, Kind)>,
}

impl TextWriter {
    pub fn with_capacity(bytes: usize) -> TextWriter {
        TextWriter {
            out: String::with_capacity(bytes),
            name: "",
            pending: None,
        }
    }

    /// The exposition.
    pub fn finish(self) -> String {
        self.out
    }

    fn header(&mut self) {
        let Some((help, kind)) = self.pending.take() else {
            return;
        };
        let name = self.name;
        if !help.is_empty() {
            self.out.push_str("# HELP ");
            self.out.push_str(name);
            self.out.push(' ');
            escape_into(&mut self.out, help, false);
            self.out.push('\n');
        }
        self.out.push_str("# TYPE ");
        self.out.push_str(name);
        self.out.push_str(match kind {
            Kind::Counter => " counter\n",
            Kind::Gauge => " gauge\n",
            Kind::Histogram => " histogram\n",
        });
    }

    fn sample(&mut self, suffix: &str, labels: &[(&str, &str)], le: Option<&str>, value: f64) {
        self.out.push_str(self.name);
        self.out.push_str(suffix);
        if !labels.is_empty() || le.is_some() {
            let mut separator = '{';
            for (name, value) in labels.iter().chain(le.map(|le| ("le", le)).as_ref()) {
                self.out.push(separator);
                self.out.push_str(name);
                self.out.push_str("=\"");
                escape_into(&mut self.out, value, true);
                self.out.push('"');
                separator = ',';
            }
            self.out.push('}');
        }
        let _ = writeln!(self.out, " {value}");
    }
}

impl Emit for TextWriter {
    fn family(&mut self, name: &'static str, help: &'static str, kind: Kind) {
        self.name = name;
        self.pending = Some((help, kind));
    }

    fn value(&mut self, labels: &[(&str, &str)], value: f64) {
        self.header();
        self.sample("", labels, None, value);
    }

    fn histogram(&mut self, labels: &[(&str, &str)], h: &Histogram, bounds: &[f64]) {
        self.header();
        let mut le = String::new();
        let mut inf_seen = false;
        for (bound, count) in bounds.iter().zip(h.cumulative(bounds)) {
            le.clear();
            let _ = write!(le, "{bound}");
            self.sample("_bucket", labels, Some(&le), count as f64);
            inf_seen |= bound.is_infinite() && bound.is_sign_positive();
        }
        if !inf_seen {
            self.sample("_bucket", labels, Some("+Inf"), h.count as f64);
        }
        self.sample("_sum", labels, None, h.sum);
        self.sample("_count", labels, None, h.count as f64);
    }
}

/// Appends `s` with `\` and newline escaped, and `"` too for a label value.
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
mod tests {
    use prometheus::{Encoder, TextEncoder};

    use crate::account::Gauges;
    use crate::input::follow::FollowStats;
    use crate::output::exposition::{self, RunStats};
    use crate::vocab::counters::{self as metrics, DenialKey, Exemplar, Metrics};
    use crate::vocab::Reason;

    /// A state that exercises every family: escapes, histograms, models, run stats.
    fn rich() -> (Metrics, RunStats) {
        let mut m = Metrics::default();
        for (i, tool) in ["Bash", "mcp__x\\y", "we\"ird\nname"].iter().enumerate() {
            m.denials.insert(
                DenialKey {
                    tool: tool.to_string(),
                    workflow: format!("wf{i}"),
                    reason: Reason::Hook,
                },
                i as u64 + 1,
            );
        }
        let series = m.workflows.entry("review".into()).or_default();
        series.cost_usd.observe(metrics::COST_BUCKETS, 0.3);
        series.cost_usd.observe(metrics::COST_BUCKETS, 1e9);
        series.turns.observe(metrics::TURN_BUCKETS, 7.0);
        series
            .duration_seconds
            .observe(metrics::DURATION_BUCKETS, 0.125);
        series.executions.insert("success".into(), 3);
        series.tokens = [1.0, 2.5, 1e21, 0.0];
        let model = series.models.entry("claude-x".into()).or_default();
        model.cost_usd = 0.1 + 0.2;
        model.tokens = [5.0, 0.0, 7.0, 1.0];
        m.denial_exemplars.insert(
            m.denials.keys().next().unwrap().clone(),
            Exemplar::default(),
        );
        m.redactions.insert("aws_key".into(), 4);
        m.last_event_timestamp = 1_700_000_000.123;
        let run = RunStats {
            follow: FollowStats {
                files: vec![("/var/log/a.log".into(), 12), ("/x/\"q\".log".into(), 0)],
                rotations: 2,
                ..Default::default()
            },
            inotify: true,
            state_last_write: 1.5,
            ..Default::default()
        };
        (m, run)
    }

    #[test]
    fn writes_what_the_prometheus_text_encoder_writes() {
        let (m, run) = rich();
        for run in [None, Some(&run)] {
            let families = exposition::families(&m, Gauges::default(), &["github_token"], run);
            let mut want = Vec::new();
            TextEncoder::new().encode(&families, &mut want).unwrap();
            let got = exposition::render(&m, Gauges::default(), &["github_token"], run);
            assert_eq!(got, String::from_utf8(want).unwrap());
        }
    }

    #[test]
    fn leaves_out_families_without_samples() {
        let text = exposition::render(&Metrics::default(), Gauges::default(), &[], None);
        assert!(!text.contains(metrics::DENIALS), "{text}");
        assert!(text.contains("# TYPE denials_exporter_lines_total counter\n"));
    }
}
