//! The writers held to the crates they replace: the 0.0.4 text byte for byte to the
//! `prometheus` crate's `TextEncoder`, OpenMetrics byte for byte to the `prometheus-client`
//! crate's encoder, over the same families. Also the benchmark that decided to keep the
//! OpenMetrics writer (`cargo test --release --lib reference::bench -- --ignored --nocapture`).
//!
//! A [`Recorder`] takes down what [`Describe`] emits; each crate then encodes that record.

use std::fmt;
use std::sync::atomic::AtomicU64;
use std::time::{Duration, Instant, UNIX_EPOCH};

use prometheus::proto::{self, MetricFamily, MetricType};
use prometheus::Encoder as _;
use prometheus_client::collector::Collector;
use prometheus_client::encoding::{DescriptorEncoder, MetricEncoder, NoLabelSet};
use prometheus_client::metrics::exemplar::CounterWithExemplar;
use prometheus_client::metrics::MetricType as OmType;
use prometheus_client::registry::Registry;

use super::golden::Golden;
use crate::exposition::{write, Counted, Describe, Emit, Format};
use crate::vocab::counters::{Exemplar, Histogram};
use crate::vocab::families::{Family, Kind};

#[derive(Debug)]
enum Value {
    Float(f64, Option<Exemplar>),
    Int(u64),
    /// Sum, count, cumulative counts by bound.
    Histogram(f64, u64, Vec<(f64, u64)>),
}

#[derive(Debug)]
struct Sample {
    labels: Vec<(String, String)>,
    value: Value,
}

/// What a [`Describe`] emitted, family by family.
#[derive(Debug, Default)]
struct Recorder(Vec<(Family, Vec<Sample>)>);

impl Recorder {
    fn of(what: &impl Describe) -> Recorder {
        let mut recorder = Recorder::default();
        what.describe(&mut recorder);
        recorder.0.retain(|(_, samples)| !samples.is_empty());
        recorder
    }

    fn push(&mut self, labels: &[(&str, &str)], value: Value) {
        let labels = labels
            .iter()
            .map(|(k, v)| (k.to_string(), v.to_string()))
            .collect();
        let (_, samples) = self.0.last_mut().expect("a family comes first");
        samples.push(Sample { labels, value });
    }
}

impl Emit for Recorder {
    fn family(&mut self, family: Family) {
        self.0.push((family, Vec::new()));
    }

    fn value(&mut self, labels: &[(&str, &str)], value: f64) {
        self.push(labels, Value::Float(value, None));
    }

    fn exemplified(&mut self, labels: &[(&str, &str)], value: f64, exemplar: Option<&Exemplar>) {
        self.push(labels, Value::Float(value, exemplar.cloned()));
    }

    fn integer(&mut self, labels: &[(&str, &str)], value: u64) {
        self.push(labels, Value::Int(value));
    }

    fn histogram(&mut self, labels: &[(&str, &str)], h: &Histogram, bounds: &[f64]) {
        let buckets = bounds.iter().copied().zip(h.cumulative(bounds)).collect();
        self.push(labels, Value::Histogram(h.sum, h.count, buckets));
    }
}

/// The record as `prometheus` protobuf families.
fn protobuf(recorded: &Recorder) -> Vec<MetricFamily> {
    let mut families = Vec::new();
    for (family, samples) in &recorded.0 {
        let mut f = MetricFamily::default();
        f.set_name(family.name.to_string());
        f.set_help(family.help.to_string());
        f.set_field_type(match family.kind {
            Kind::Counter => MetricType::COUNTER,
            Kind::Gauge => MetricType::GAUGE,
            Kind::Histogram => MetricType::HISTOGRAM,
        });
        for sample in samples {
            let labels = sample
                .labels
                .iter()
                .map(|(name, value)| {
                    let mut l = proto::LabelPair::default();
                    l.set_name(name.clone());
                    l.set_value(value.clone());
                    l
                })
                .collect();
            let mut m = proto::Metric::from_label(labels);
            let scalar = match sample.value {
                Value::Float(v, _) => Some(v),
                Value::Int(v) => Some(v as f64),
                Value::Histogram(sum, count, ref buckets) => {
                    let mut p = proto::Histogram::default();
                    p.set_sample_count(count);
                    p.set_sample_sum(sum);
                    p.set_bucket(
                        buckets
                            .iter()
                            .map(|(bound, count)| {
                                let mut b = proto::Bucket::default();
                                b.set_upper_bound(*bound);
                                b.set_cumulative_count(*count);
                                b
                            })
                            .collect(),
                    );
                    m.set_histogram(p);
                    None
                }
            };
            if let Some(v) = scalar {
                if family.kind == Kind::Counter {
                    let mut c = proto::Counter::default();
                    c.set_value(v);
                    m.set_counter(c);
                } else {
                    let mut g = proto::Gauge::default();
                    g.set_value(v);
                    m.set_gauge(g);
                }
            }
            f.mut_metric().push(m);
        }
        families.push(f);
    }
    families
}

/// What the `prometheus` crate's text encoder writes for `what`.
pub(crate) fn prometheus_text(what: &impl Describe) -> String {
    let mut out = Vec::new();
    prometheus::TextEncoder::new()
        .encode(&protobuf(&Recorder::of(what)), &mut out)
        .unwrap();
    String::from_utf8(out).unwrap()
}

/// What the `prometheus-client` crate's OpenMetrics encoder writes for `what` (with its `# EOF`).
pub(crate) fn prometheus_client_openmetrics(what: &impl Describe) -> String {
    let mut registry = Registry::default();
    registry.register_collector(Box::new(Recorder::of(what)));
    let mut out = String::with_capacity(16 * 1024);
    prometheus_client::encoding::text::encode(&mut out, &registry).unwrap();
    out
}

/// The crate writes label values and help texts as they are: escape them first.
fn escape(s: &str) -> String {
    s.replace('\\', "\\\\")
        .replace('"', "\\\"")
        .replace('\n', "\\n")
}

impl Collector for Recorder {
    fn encode(&self, mut encoder: DescriptorEncoder) -> fmt::Result {
        for (family, samples) in &self.0 {
            let (name, kind) = match family.kind {
                Kind::Counter => (
                    family.name.strip_suffix("_total").unwrap_or(family.name),
                    OmType::Counter,
                ),
                Kind::Gauge => (family.name, OmType::Gauge),
                Kind::Histogram => (family.name, OmType::Histogram),
            };
            let help = escape(family.help);
            let mut descriptor = encoder.encode_descriptor(name, &help, None, kind)?;
            for sample in samples {
                if sample.labels.is_empty() {
                    encode_sample(&mut descriptor, family.kind, &sample.value)?;
                } else {
                    let labels: Vec<(String, String)> = sample
                        .labels
                        .iter()
                        .map(|(k, v)| (k.clone(), escape(v)))
                        .collect();
                    let mut one = descriptor.encode_family(&labels)?;
                    encode_sample(&mut one, family.kind, &sample.value)?;
                }
            }
        }
        Ok(())
    }
}

fn encode_sample(encoder: &mut MetricEncoder<'_>, kind: Kind, value: &Value) -> fmt::Result {
    match (kind, value) {
        (Kind::Counter, Value::Float(v, None)) => {
            encoder.encode_counter::<NoLabelSet, f64, f64>(v, None)
        }
        (Kind::Counter, Value::Float(v, Some(e))) => {
            // The crate builds exemplars only inside its own counter: take one from there.
            let carrier: CounterWithExemplar<Vec<(String, String)>, f64, AtomicU64> =
                CounterWithExemplar::default();
            let labels = e
                .labels()
                .map(|(k, v)| (k.to_string(), escape(v)))
                .collect();
            let at = UNIX_EPOCH + Duration::from_secs_f64(e.timestamp.max(0.0));
            carrier.inc_by(e.value, Some(labels), Some(at));
            let (_, held) = carrier.get();
            encoder.encode_counter(v, held.as_ref())
        }
        (Kind::Counter, Value::Int(v)) => encoder.encode_counter::<NoLabelSet, u64, f64>(v, None),
        (_, Value::Float(v, _)) => encoder.encode_gauge(v),
        (_, Value::Int(v)) => encoder.encode_gauge(&(*v as i64)),
        (_, Value::Histogram(sum, count, cumulative)) => {
            // The crate wants per-bucket counts ending with +Inf (f64::MAX).
            let mut buckets = Vec::with_capacity(cumulative.len() + 1);
            let mut below = 0;
            for (bound, c) in cumulative {
                buckets.push((*bound, c.saturating_sub(below)));
                below = *c;
            }
            buckets.push((f64::MAX, count.saturating_sub(below)));
            encoder.encode_histogram::<NoLabelSet>(*sum, *count, &buckets, None)
        }
    }
}

/// Holds `format`'s writer to a reference encoder on the golden state, as `run` and `replay`
/// show it. (The HTTP server's own families are held the same way in `crate::web`'s tests.)
fn held_to(format: Format, reference: impl Fn(&Counted<'_>) -> String) {
    let golden = Golden::new();
    for live in [false, true] {
        let c = golden.counted(live);
        let mine = write(format, &c, String::new()) + format.trailer();
        assert_eq!(mine, reference(&c), "live: {live}");
    }
}

#[test]
fn the_text_writer_writes_what_the_prometheus_crate_writes() {
    held_to(Format::Text, |c| prometheus_text(c));
    assert_eq!(Format::Text.content_type(), prometheus::TEXT_FORMAT);
}

#[test]
fn the_openmetrics_writer_writes_what_prometheus_client_writes() {
    held_to(Format::OpenMetrics, |c| prometheus_client_openmetrics(c));
}

/// Microseconds per render of this writer and of `prometheus-client`'s encoder, interleaved
/// rounds in one run (the machine may be busy: compare medians, not one round). The crate is
/// timed twice: its encoder alone over families recorded once, and recording included (what
/// serving through it would cost).
#[test]
#[ignore = "a benchmark: run it in a release build"]
fn bench_openmetrics_writer_against_prometheus_client() {
    let golden = Golden::new();
    let counted = golden.counted(true);
    let rounds = std::env::var("BENCH_ROUNDS")
        .ok()
        .and_then(|r| r.parse().ok())
        .unwrap_or(9);
    let renders = 2000;
    let mut registry = Registry::default();
    registry.register_collector(Box::new(Recorder::of(&counted)));
    let time = |render: &dyn Fn() -> String| {
        let start = Instant::now();
        for _ in 0..renders {
            std::hint::black_box(render());
        }
        start.elapsed().as_secs_f64() * 1e6 / renders as f64
    };
    let mut rows: [Vec<f64>; 3] = Default::default();
    for _ in 0..rounds {
        rows[0].push(time(&|| {
            write(
                Format::OpenMetrics,
                &counted,
                String::with_capacity(16 * 1024),
            )
        }));
        rows[1].push(time(&|| {
            let mut out = String::with_capacity(16 * 1024);
            prometheus_client::encoding::text::encode(&mut out, &registry).unwrap();
            out
        }));
        rows[2].push(time(&|| prometheus_client_openmetrics(&counted)));
    }
    let bytes = write(Format::OpenMetrics, &counted, String::new()).len();
    println!("openmetrics render of {bytes} bytes, median of {rounds} rounds x {renders}:");
    for (name, row) in [
        "this writer",
        "prometheus-client encoder alone",
        "prometheus-client with recording",
    ]
    .iter()
    .zip(&mut rows)
    {
        let rounds = format!("{row:.1?}");
        row.sort_by(f64::total_cmp);
        println!("  {name}: {:.1} us (rounds: {rounds})", row[row.len() / 2]);
    }
}
