//! The memo of secret-bearing texts, held to a fresh scan over the corpus: a text seen again
//! comes out byte for byte as a scan makes it and counts the same kinds as many times, a text
//! one byte away is not taken for it, and what the table holds carries none of the secrets.

use std::collections::BTreeMap;

use super::super::memo::redacted::{self, Key};
use super::super::{spans, Redactor};
use super::cases::{positive_cases, NEGATIVE};

/// `(secret, text)` for every text of the corpus files and the case table (no secret for a
/// negative).
fn corpus() -> Vec<(Option<String>, String)> {
    let dir = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/data/redaction");
    let mut texts = Vec::new();
    for name in ["positives.txt", "negatives.txt"] {
        let file = std::fs::read_to_string(format!("{dir}/{name}")).expect("corpus file");
        for line in file
            .lines()
            .filter(|l| !l.is_empty() && !l.starts_with('#'))
        {
            texts.push(match line.split_once('\t') {
                Some((secret, text)) => (Some(secret.to_string()), text.to_string()),
                None => (None, line.to_string()),
            });
        }
    }
    texts.extend(
        positive_cases()
            .into_iter()
            .map(|c| (Some(c.secret), c.input)),
    );
    texts.extend(NEGATIVE.iter().map(|t| (None, t.to_string())));
    texts
}

/// What the rules make of `text` with no memo involved.
fn fresh_scan(redactor: &Redactor, text: &str) -> (String, BTreeMap<String, u64>) {
    let mut tally = BTreeMap::new();
    let found = redactor.engine.spans(text);
    let output = spans::apply(text, &found, &mut tally).into_owned();
    (output, tally)
}

fn redact(redactor: &Redactor, text: &str) -> (String, BTreeMap<String, u64>) {
    let mut tally = BTreeMap::from([("already".to_string(), 1)]);
    let output = redactor.redact(text, &mut tally).into_owned();
    assert_eq!(
        tally.remove("already"),
        Some(1),
        "a tally is added to, not reset"
    );
    (output, tally)
}

fn is_remembered(redactor: &Redactor, text: &str) -> bool {
    Key::of(redactor.owner(), text).is_some_and(|key| redacted::recall(&key, |_, _| ()).is_some())
}

#[test]
fn a_remembered_text_comes_out_and_counts_exactly_as_a_fresh_scan() {
    let redactor = Redactor::new();
    let mut recalled = 0;
    for (_, text) in corpus() {
        let fresh = fresh_scan(&redactor, &text);
        assert_eq!(
            redact(&redactor, &text),
            fresh,
            "first sighting of {text:?}"
        );
        let remembered = is_remembered(&redactor, &text);
        assert_eq!(
            remembered,
            !fresh.1.is_empty() && fresh.0.len() <= redacted::MAX_OUTPUT_BYTES,
            "remembered iff it held a secret and its output is short: {text:?}"
        );
        recalled += usize::from(remembered);
        assert_eq!(redact(&redactor, &text), fresh, "seen again: {text:?}");
        assert_eq!(
            redactor.contains_secret(&text),
            !fresh.1.is_empty(),
            "{text:?}"
        );
    }
    assert!(
        recalled > 500,
        "only {recalled} texts were answered from the memo"
    );
}

#[test]
fn a_text_one_byte_away_from_a_remembered_one_is_scanned_for_itself() {
    let redactor = Redactor::new();
    for (secret, text) in corpus() {
        let Some(secret) = secret else { continue };
        let Some(at) = text.find(&secret) else {
            continue;
        };
        // The secret's last byte turned into another of its kind: a different secret.
        let last = at + secret.len() - 1;
        let byte = text.as_bytes()[last];
        let other = match byte {
            b'0'..=b'8' | b'a'..=b'y' | b'A'..=b'Y' => byte + 1,
            b'9' => b'0',
            b'z' => b'a',
            b'Z' => b'A',
            _ => continue,
        };
        let mut near = text.clone().into_bytes();
        near[last] = other;
        let near = String::from_utf8(near).expect("ASCII swapped for ASCII");
        redact(&redactor, &text);
        if !is_remembered(&redactor, &text) {
            continue;
        }
        assert!(
            !is_remembered(&redactor, &near),
            "{near:?} taken for {text:?}"
        );
        assert_eq!(
            redact(&redactor, &near),
            fresh_scan(&redactor, &near),
            "{near:?}"
        );
    }
}

#[test]
fn the_table_holds_no_part_of_any_secret() {
    let redactor = Redactor::new();
    let corpus = corpus();
    for (_, text) in &corpus {
        redact(&redactor, text);
    }
    let contents = redacted::contents();
    assert!(contents.len() > 200, "only {} entries", contents.len());
    for (secret, _) in &corpus {
        let Some(secret) = secret.as_deref().filter(|s| s.len() >= 12) else {
            continue;
        };
        // Any 12 bytes of the secret (the output keeps the readable text around it).
        let pieces: Vec<&str> = (0..=secret.len() - 12)
            .filter_map(|at| secret.get(at..at + 12))
            .collect();
        for (output, kinds) in &contents {
            assert!(
                !pieces.iter().any(|piece| output.contains(piece)),
                "a piece of {secret:?} is in the entry {output:?}"
            );
            assert!(kinds.iter().all(|(kind, _)| !secret.contains(kind)));
        }
    }
}
