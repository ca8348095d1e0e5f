//! Writes the Prometheus text exposition, format 0.0.4, straight into one string.
//!
//! Owns the format's bytes: `# HELP` and `# TYPE` lines, label escaping (`\`, `"` and newline in
//! values; `\` and newline in help texts), numbers as Rust prints an `f64` (shortest form that
//! reads back the same: `3`, `0.25`, `inf`), histogram `_bucket`/`_sum`/`_count` lines with
//! `le="+Inf"` added, and its Content-Type. The output is byte for byte what the `prometheus`
//! crate's `TextEncoder` writes for the same families, and the Content-Type its `TEXT_FORMAT`
//! (tests hold both to that, `tests/reference.rs`; the crate is a dev-dependency only), without
//! a protobuf message or a string per sample: a scrape is one pass and one buffer.
//!
//! **Not here:** which families exist ([`super::Counted`]), names and help texts
//! ([`crate::vocab::families`]), OpenMetrics ([`super::openmetrics`]).
//!
//! Hot: per render, per sample.

use std::fmt::Write as _;

use super::{escape_into, Emit};
use crate::vocab::counters::Histogram;
use crate::vocab::families::{Family, Kind};

/// The Content-Type of a body in this format.
pub const CONTENT_TYPE: &str = "text/plain; version=0.0.4";

/// A 0.0.4 text writer; a family's header is written with its first sample, so a family without
/// samples leaves no trace.
pub struct TextWriter {
    out: String,
    name: &'static str,
    /// The current family's header, not yet written.
    pending: Option<Family>,
}

impl TextWriter {
    /// A writer appending to `out`.
    pub fn new(out: String) -> TextWriter {
        TextWriter {
            out,
            name: "",
            pending: None,
        }
    }

    /// The exposition.
    pub fn finish(self) -> String {
        self.out
    }

    fn header(&mut self) {
        let Some(family) = self.pending.take() else {
            return;
        };
        let name = self.name;
        if !family.help.is_empty() {
            self.out.push_str("# HELP ");
            self.out.push_str(name);
            self.out.push(' ');
            escape_into(&mut self.out, family.help, false);
            self.out.push('\n');
        }
        self.out.push_str("# TYPE ");
        self.out.push_str(name);
        self.out.push_str(match family.kind {
            Kind::Counter => " counter\n",
            Kind::Gauge => " gauge\n",
            Kind::Histogram => " histogram\n",
        });
    }

    fn labels(&mut self, suffix: &str, labels: &[(&str, &str)], le: Option<&str>) {
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
    }

    fn sample(&mut self, suffix: &str, labels: &[(&str, &str)], le: Option<&str>, value: f64) {
        self.labels(suffix, labels, le);
        let _ = writeln!(self.out, " {value}");
    }
}

impl Emit for TextWriter {
    fn family(&mut self, family: Family) {
        self.name = family.name;
        self.pending = Some(family);
    }

    fn value(&mut self, labels: &[(&str, &str)], value: f64) {
        self.header();
        self.sample("", labels, None, value);
    }

    fn integer(&mut self, labels: &[(&str, &str)], value: u64) {
        self.header();
        self.labels("", labels, None);
        let _ = writeln!(self.out, " {value}");
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

#[cfg(test)]
mod tests {
    use crate::account::Gauges;
    use crate::exposition::{render_text, Counted};
    use crate::vocab::counters::Metrics;

    #[test]
    fn leaves_out_families_without_samples() {
        let text = render_text(&Counted {
            metrics: &Metrics::default(),
            gauges: Gauges::default(),
            run: None,
        });
        assert!(!text.contains("permission_denials_total"), "{text}");
        assert!(text.contains("# TYPE denials_exporter_lines_total counter\n"));
    }
}
