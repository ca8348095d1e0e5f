//! The redaction corpus (`tests/data/redaction/`, written by its `generate.py`): every
//! positive's secret is gone after redaction, and at least 95% of the negatives come out
//! unchanged. Prints the exact rates; failures list the cases.

use std::collections::BTreeMap;

use denials_exporter::redact::Redactor;

fn lines(name: &str) -> Vec<String> {
    let path = format!("{}/tests/data/redaction/{name}", env!("CARGO_MANIFEST_DIR"));
    std::fs::read_to_string(&path)
        .unwrap_or_else(|e| panic!("cannot read {path}: {e}"))
        .lines()
        .filter(|l| !l.is_empty() && !l.starts_with('#'))
        .map(str::to_string)
        .collect()
}

#[test]
fn every_positive_is_caught() {
    let redactor = Redactor::new();
    let cases = lines("positives.txt");
    let mut missed = Vec::new();
    for case in &cases {
        let (secret, text) = case.split_once('\t').expect("SECRET<TAB>TEXT");
        let out = redactor.redact(text, &mut BTreeMap::new());
        if out.contains(secret) || !out.contains("[REDACTED:") {
            missed.push(format!("  in:  {text}\n  out: {out}"));
        }
    }
    let caught = cases.len() - missed.len();
    println!(
        "positives caught: {caught}/{} = {:.2}%",
        cases.len(),
        100.0 * caught as f64 / cases.len() as f64
    );
    assert!(
        missed.is_empty(),
        "{} positives missed:\n{}",
        missed.len(),
        missed.join("\n")
    );
}

#[test]
fn at_least_95_percent_of_negatives_survive() {
    let redactor = Redactor::new();
    let cases = lines("negatives.txt");
    let mut changed = Vec::new();
    for text in &cases {
        let out = redactor.redact(text, &mut BTreeMap::new());
        if out != text.as_str() {
            changed.push(format!("  in:  {text}\n  out: {out}"));
        }
    }
    let kept = cases.len() - changed.len();
    let rate = 100.0 * kept as f64 / cases.len() as f64;
    println!("negatives unchanged: {kept}/{} = {rate:.2}%", cases.len());
    if !changed.is_empty() {
        println!("changed:\n{}", changed.join("\n"));
    }
    assert!(rate >= 95.0, "only {rate:.2}% of negatives survived");
}
