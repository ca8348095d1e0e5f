//! The scanner corpus (`tests/data/scanners/scanners.jsonl`, written by its `extract.py` from the
//! test strings gitleaks and trufflehog ship with their rules): at least 98% of the positives
//! are redacted and at least 85% of the false-positive cases come out unchanged. Each case is
//! redacted as it is (a decision reason) and as the `command` of a JSON tool input (escaped);
//! both must pass. Prints a table per source and the cases that fail.
//!
//! A positive is redacted when each secret the scanner reports for it (the part of it the text
//! holds, when the scanner joins several values) is gone from both outputs and a marker is
//! there; for a positive the test names no secret of, when a marker is there.

use std::collections::BTreeMap;

use denials_exporter::redact::Redactor;
use serde_json::Value;

struct Case {
    src: String,
    family: String,
    positive: bool,
    secrets: Vec<String>,
    text: String,
}

fn corpus() -> Vec<Case> {
    let path = format!(
        "{}/tests/data/scanners/scanners.jsonl",
        env!("CARGO_MANIFEST_DIR")
    );
    let data = std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("cannot read {path}: {e}"));
    data.lines()
        .map(|line| serde_json::from_str::<Value>(line).expect("one JSON object a line"))
        .filter(|row| row.get("meta").is_none())
        .map(|row| {
            let s = |key: &str| row[key].as_str().expect("string field").to_string();
            Case {
                src: s("src"),
                family: s("family"),
                positive: row["kind"] == "tp",
                secrets: row["secrets"]
                    .as_array()
                    .expect("secrets")
                    .iter()
                    .map(|v| v.as_str().expect("a secret").to_string())
                    .collect(),
                text: s("text"),
            }
        })
        .collect()
}

/// The pieces of `secret` that must be gone: itself when the text holds it whole, else the
/// longest of its `:`/`;`/`|`/`,`/space-separated parts that the text holds (a scanner may
/// report `id:secret` for an id and a secret found apart; the id may stay).
fn pieces(secret: &str, text: &str) -> Vec<String> {
    if text.contains(secret) {
        return vec![secret.to_string()];
    }
    secret
        .split([':', ';', '|', ',', ' ', '\n'])
        .filter(|p| p.len() >= 8 && text.contains(p))
        .max_by_key(|p| p.len())
        .map(|p| vec![p.to_string()])
        .unwrap_or_default()
}

fn json_command(text: &str) -> String {
    serde_json::json!({ "command": text }).to_string()
}

fn json_escaped(text: &str) -> String {
    let quoted = serde_json::to_string(text).expect("a string serialises");
    quoted[1..quoted.len() - 1].to_string()
}

/// Whether `case` passes: a positive is redacted, a false positive unchanged.
fn passes(redactor: &Redactor, case: &Case) -> bool {
    let plain = redactor.redact(&case.text, &mut BTreeMap::new());
    let wrapped = json_command(&case.text);
    let json = redactor.redact(&wrapped, &mut BTreeMap::new());
    if !case.positive {
        return plain == case.text.as_str() && json == wrapped.as_str();
    }
    let marked = plain.contains("[REDACTED:") && json.contains("[REDACTED:");
    marked
        && case
            .secrets
            .iter()
            .flat_map(|secret| pieces(secret, &case.text))
            .all(|piece| !plain.contains(&piece) && !json.contains(&json_escaped(&piece)))
}

#[test]
fn scanner_corpus_meets_its_targets() {
    let redactor = Redactor::new();
    let cases = corpus();
    // (src, positive) -> (passed, total)
    let mut table: BTreeMap<(String, bool), (usize, usize)> = BTreeMap::new();
    let mut failed: BTreeMap<bool, Vec<String>> = BTreeMap::new();
    for case in &cases {
        let ok = passes(&redactor, case);
        for src in [case.src.as_str(), "all"] {
            let row = table.entry((src.to_string(), case.positive)).or_default();
            row.0 += usize::from(ok);
            row.1 += 1;
        }
        if !ok {
            let out = redactor.redact(&case.text, &mut BTreeMap::new());
            failed.entry(case.positive).or_default().push(format!(
                "  [{} {}] {:?}\n    -> {:?}",
                case.src, case.family, case.text, out
            ));
        }
    }
    println!("| source | positives redacted | false positives left readable |");
    println!("| --- | ---: | ---: |");
    let rate = |(passed, total): (usize, usize)| 100.0 * passed as f64 / total.max(1) as f64;
    for src in ["gitleaks", "trufflehog", "all"] {
        let tp = table[&(src.to_string(), true)];
        let fp = table[&(src.to_string(), false)];
        println!(
            "| {src} | {}/{} = {:.1}% | {}/{} = {:.1}% |",
            tp.0,
            tp.1,
            rate(tp),
            fp.0,
            fp.1,
            rate(fp)
        );
    }
    for (positive, list) in &failed {
        let what = if *positive {
            "positives missed"
        } else {
            "false positives redacted"
        };
        println!("{} {what}:\n{}", list.len(), list.join("\n"));
    }
    let tp = rate(table[&("all".to_string(), true)]);
    let fp = rate(table[&("all".to_string(), false)]);
    assert!(tp >= 98.0, "only {tp:.2}% of the scanners' positives redacted");
    assert!(fp >= 85.0, "only {fp:.2}% of the scanners' false positives left readable");
}
