//! The OpenMetrics 1.0 text exposition, with exemplars, for scrapers that ask for it
//! (`Accept: application/openmetrics-text`).
//!
//! Owns the content negotiation ([`wants_openmetrics`]) and the encoding: the same metric families
//! as the 0.0.4 text ([`super::exposition::families`]), written by the `prometheus-client` crate's
//! OpenMetrics encoder, with an exemplar on each `permission_denials_total` series (the execution
//! and tool use id of its latest denial) and each `agent_cost_usd_total` series (the execution of
//! its latest increase). Exemplar ids are redacted when counted ([`crate::account`]) and cut to the
//! OpenMetrics limit of 128 characters per label set.
//!
//! Two gaps of the crate (0.24) are closed here: it writes label values and help texts as they
//! are, so they are escaped before they are handed over; and its exemplar type has no public
//! constructor, so an exemplar is taken from a throw-away `CounterWithExemplar`.
//!
//! **Not here:** what the families contain ([`super::exposition`]), counting, HTTP.
//!
//! Cold: per scrape that asks for OpenMetrics.

use std::collections::HashMap;
use std::fmt;
use std::sync::atomic::AtomicU64;
use std::time::{Duration, UNIX_EPOCH};

use prometheus::proto::{Metric, MetricFamily, MetricType};
use prometheus_client::collector::Collector;
use prometheus_client::encoding::{DescriptorEncoder, MetricEncoder, NoLabelSet};
use prometheus_client::metrics::exemplar::CounterWithExemplar;
use prometheus_client::metrics::MetricType as OmType;
use prometheus_client::registry::Registry;

use crate::vocab::counters::{self as metrics, Exemplar, Metrics};

/// The OpenMetrics content type.
pub const CONTENT_TYPE: &str = "application/openmetrics-text; version=1.0.0; charset=utf-8";

/// Whether an `Accept` header prefers OpenMetrics to the 0.0.4 text: it names
/// `application/openmetrics-text` with a quality above 0 and at least that of `text/plain`
/// (Prometheus sends `application/openmetrics-text;version=1.0.0,…,text/plain;version=0.0.4;q=0.5`).
pub fn wants_openmetrics(accept: Option<&str>) -> bool {
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
    openmetrics > 0.0 && openmetrics >= text
}

/// Exemplars by metric family name and label pairs, in the order the families carry them.
type Exemplars = HashMap<(&'static str, Vec<(String, String)>), Exemplar>;

fn exemplars(m: &Metrics) -> Exemplars {
    let mut out = Exemplars::new();
    for (key, exemplar) in &m.denial_exemplars {
        let labels = pairs(&[
            ("reason", key.reason.as_str()),
            ("tool", &key.tool),
            ("workflow", &key.workflow),
        ]);
        out.insert((metrics::DENIALS, labels), exemplar.clone());
    }
    for (workflow, series) in &m.workflows {
        for (model, s) in &series.models {
            if let Some(exemplar) = &s.cost_exemplar {
                let labels = pairs(&[("model", model), ("workflow", workflow)]);
                out.insert((metrics::COST_BY_MODEL, labels), exemplar.clone());
            }
        }
    }
    out
}

fn pairs(labels: &[(&str, &str)]) -> Vec<(String, String)> {
    labels
        .iter()
        .map(|(k, v)| (k.to_string(), v.to_string()))
        .collect()
}

/// Encodes `families` (as [`super::exposition::families`] builds them) as OpenMetrics, with the
/// exemplars `m` holds.
pub fn render(families: Vec<MetricFamily>, m: &Metrics) -> String {
    let mut registry = Registry::default();
    registry.register_collector(Box::new(Snapshot {
        families,
        exemplars: exemplars(m),
    }));
    let mut out = String::with_capacity(16 * 1024);
    prometheus_client::encoding::text::encode(&mut out, &registry)
        .expect("writing to a String does not fail");
    out
}

/// One scrape's families, handed to the encoder as a collector.
#[derive(Debug)]
struct Snapshot {
    families: Vec<MetricFamily>,
    exemplars: Exemplars,
}

impl Collector for Snapshot {
    fn encode(&self, mut encoder: DescriptorEncoder) -> fmt::Result {
        for family in &self.families {
            let name = family.name();
            let (om_name, om_type) = match family.get_field_type() {
                // OpenMetrics counters are named without `_total`; the encoder appends it.
                MetricType::COUNTER => {
                    (name.strip_suffix("_total").unwrap_or(name), OmType::Counter)
                }
                MetricType::GAUGE => (name, OmType::Gauge),
                MetricType::HISTOGRAM => (name, OmType::Histogram),
                _ => continue, // the families built here have no other type
            };
            let help = escape(family.help());
            let mut descriptor = encoder.encode_descriptor(om_name, &help, None, om_type)?;
            for metric in family.get_metric() {
                let labels: Vec<(String, String)> = metric
                    .get_label()
                    .iter()
                    .map(|l| (l.name().to_string(), l.value().to_string()))
                    .collect();
                let exemplar = self.exemplars.get(&(name_key(name), labels.clone()));
                if labels.is_empty() {
                    encode_metric(&mut descriptor, family.get_field_type(), metric, exemplar)?;
                } else {
                    let escaped: Vec<(String, String)> =
                        labels.into_iter().map(|(k, v)| (k, escape(&v))).collect();
                    let mut one = descriptor.encode_family(&escaped)?;
                    encode_metric(&mut one, family.get_field_type(), metric, exemplar)?;
                }
            }
        }
        Ok(())
    }
}

/// The family names exemplars are kept for, as the static keys of [`Exemplars`].
fn name_key(name: &str) -> &'static str {
    match name {
        metrics::DENIALS => metrics::DENIALS,
        metrics::COST_BY_MODEL => metrics::COST_BY_MODEL,
        _ => "",
    }
}

fn encode_metric(
    encoder: &mut MetricEncoder<'_>,
    kind: MetricType,
    metric: &Metric,
    exemplar: Option<&Exemplar>,
) -> fmt::Result {
    match kind {
        MetricType::COUNTER => {
            let value = metric.get_counter().value();
            match exemplar {
                None => encoder.encode_counter::<NoLabelSet, f64, f64>(&value, None),
                Some(e) => {
                    // The crate builds exemplars only inside its own counter: take one from there.
                    let carrier: CounterWithExemplar<Vec<(String, String)>, f64, AtomicU64> =
                        CounterWithExemplar::default();
                    let labels = e
                        .labels()
                        .into_iter()
                        .map(|(k, v)| (k, escape(&v)))
                        .collect();
                    let at = UNIX_EPOCH + Duration::from_secs_f64(e.timestamp.max(0.0));
                    carrier.inc_by(e.value, Some(labels), Some(at));
                    let (_, held) = carrier.get();
                    encoder.encode_counter(&value, held.as_ref())
                }
            }
        }
        MetricType::GAUGE => encoder.encode_gauge(&metric.get_gauge().value()),
        _ => {
            let h = metric.get_histogram();
            // The crate wants per-bucket counts ending with +Inf (f64::MAX); protobuf holds
            // cumulative counts without +Inf.
            let mut buckets = Vec::with_capacity(h.get_bucket().len() + 1);
            let mut below = 0;
            for b in h.get_bucket() {
                let cumulative = b.cumulative_count();
                buckets.push((b.upper_bound(), cumulative.saturating_sub(below)));
                below = cumulative;
            }
            buckets.push((f64::MAX, h.sample_count().saturating_sub(below)));
            encoder.encode_histogram::<NoLabelSet>(h.sample_sum(), h.sample_count(), &buckets, None)
        }
    }
}

/// Escapes `\`, `"` and newlines, as OpenMetrics label values and help texts need.
fn escape(s: &str) -> String {
    s.replace('\\', "\\\\")
        .replace('"', "\\\"")
        .replace('\n', "\\n")
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::account::Gauges;
    use crate::output::exposition::{self, RunStats};
    use crate::vocab::counters::DenialKey;
    use crate::vocab::Reason;

    #[test]
    fn negotiation_follows_the_accept_header() {
        let prometheus = "application/openmetrics-text;version=1.0.0,application/openmetrics-text;version=0.0.1;q=0.75,text/plain;version=0.0.4;q=0.5,*/*;q=0.1";
        assert!(wants_openmetrics(Some(prometheus)));
        assert!(wants_openmetrics(Some("application/openmetrics-text")));
        assert!(!wants_openmetrics(None));
        assert!(!wants_openmetrics(Some("*/*")));
        assert!(!wants_openmetrics(Some("text/plain")));
        assert!(!wants_openmetrics(Some(
            "application/openmetrics-text;q=0.2,text/plain;q=0.9"
        )));
        assert!(!wants_openmetrics(Some("application/openmetrics-text;q=0")));
    }

    #[test]
    fn renders_openmetrics_with_exemplars() {
        let mut m = Metrics::default();
        let key = DenialKey {
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
        series.cost_usd.observe(metrics::COST_BUCKETS, 0.3);
        let model = series.models.entry("claude-sonnet-4-5".into()).or_default();
        model.cost_usd = 0.3;
        model.cost_exemplar = Some(Exemplar::new(Some("exec_1"), None, 0.25, 1781251200.0));
        let mut run = RunStats::default();
        run.follow.files.push(("/logs/we\"ird.log".into(), 7));
        let families = exposition::families(&m, Gauges::default(), &["github_token"], Some(&run));
        let text = render(families, &m);

        assert!(text.ends_with("# EOF\n"), "{text}");
        assert!(
            text.contains("# TYPE permission_denials counter\n"),
            "{text}"
        );
        assert!(
            text.contains("permission_denials_total{reason=\"unknown\",tool=\"Bash\",workflow=\"review\"} 3.0 # {execution_id=\"exec_1\",tool_use_id=\"toolu_01A\"} 1.0 1781251200.5\n"),
            "{text}"
        );
        assert!(
            text.contains("agent_cost_usd_total{model=\"claude-sonnet-4-5\",workflow=\"review\"} 0.3 # {execution_id=\"exec_1\"} 0.25 1781251200.0\n"),
            "{text}"
        );
        assert!(
            text.contains("agent_execution_cost_usd_bucket{le=\"+Inf\",workflow=\"review\"} 1\n"),
            "{text}"
        );
        assert!(
            text.contains("agent_execution_cost_usd_count{workflow=\"review\"} 1\n"),
            "{text}"
        );
        assert!(
            text.contains("denials_exporter_file_lag_bytes{path=\"/logs/we\\\"ird.log\"} 7"),
            "{text}"
        );
        assert!(
            text.contains("denials_exporter_read_bytes_total 0"),
            "{text}"
        );
        assert!(
            text.contains("mapped to \\\"other\\\""),
            "help texts are escaped: {text}"
        );
        // Every sample line of the 0.0.4 text has its counterpart.
        let plain = exposition::render(&m, Gauges::default(), &["github_token"], Some(&run));
        let names = |t: &str| -> std::collections::BTreeSet<String> {
            t.lines()
                .filter(|l| !l.starts_with('#'))
                .map(|l| l.split(['{', ' ']).next().unwrap().to_string())
                .collect()
        };
        assert_eq!(names(&plain), names(&text));
    }
}
