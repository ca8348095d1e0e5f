//! What redaction costs, for the numbers in bench notes: building the redactor, the first pass
//! over the corpus (which compiles the rules it needs), and a steady-state pass:
//! `cargo bench --bench redaction_cost`.

use std::collections::BTreeMap;
use std::time::Instant;

use denials_exporter::redact::Redactor;

fn corpus() -> Vec<String> {
    ["positives.txt", "negatives.txt"]
        .iter()
        .flat_map(|name| {
            let path = format!("{}/tests/data/redaction/{name}", env!("CARGO_MANIFEST_DIR"));
            std::fs::read_to_string(path)
                .expect("corpus file")
                .lines()
                .filter(|l| !l.is_empty() && !l.starts_with('#'))
                .map(|l| l.split_once('\t').map_or(l, |(_, text)| text).to_string())
                .collect::<Vec<_>>()
        })
        .collect()
}

fn main() {
    let texts = corpus();
    let bytes: usize = texts.iter().map(String::len).sum();
    let start = Instant::now();
    let redactor = Redactor::new();
    let built = start.elapsed();
    let mut tally = BTreeMap::new();
    let start = Instant::now();
    for text in &texts {
        let _ = redactor.redact(text, &mut tally);
    }
    let first = start.elapsed();
    let rounds = 20;
    let start = Instant::now();
    for _ in 0..rounds {
        for text in &texts {
            let _ = redactor.redact(text, &mut tally);
        }
    }
    let steady = start.elapsed() / rounds;
    println!(
        "Redactor::new {built:?}; first pass over {} texts ({bytes} bytes, compiling rules) {first:?}; \
         steady pass {steady:?} = {:.2} µs/text, {:.0} MB/s",
        texts.len(),
        steady.as_secs_f64() * 1e6 / texts.len() as f64,
        bytes as f64 / 1e6 / steady.as_secs_f64()
    );
}
