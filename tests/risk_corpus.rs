//! The labelled risk corpus (`tests/data/risk/corpus.tsv`): precision and recall of every class,
//! printed as the table `docs/risk.md` shows, and held above floors. Misclassified cases are
//! listed, so a change to the rules shows what it gained and lost.
//!
//! Floors: every dangerous class at least 0.95 precision and 0.90 recall; `none` at least 0.95
//! recall (ordinary work is not flagged) and 0.90 precision; `unknown` exact.

use std::collections::BTreeMap;

use denials_exporter::risk::{Attempt, Input, Risk, RiskRules};

mod risk_support;

use risk_support::corpus;

#[derive(Default)]
struct Tally {
    true_pos: usize,
    false_pos: usize,
    false_neg: usize,
}

#[test]
fn precision_and_recall_per_class_hold_their_floors() {
    let rules = RiskRules::builtin();
    let cases = corpus();
    let classes: Vec<String> = rules.labels().map(str::to_string).collect();
    let mut tallies: BTreeMap<&str, Tally> = classes
        .iter()
        .map(|c| (c.as_str(), Tally::default()))
        .collect();
    let mut wrong = Vec::new();
    for case in &cases {
        assert!(
            classes.contains(&case.expected),
            "line {}: {} is not a class",
            case.line,
            case.expected
        );
        let got = rules.label(rules.classify(&case.attempt())).to_string();
        if got == case.expected {
            tallies.get_mut(got.as_str()).expect("a label").true_pos += 1;
        } else {
            tallies.get_mut(got.as_str()).expect("a label").false_pos += 1;
            tallies
                .get_mut(case.expected.as_str())
                .expect("a class")
                .false_neg += 1;
            wrong.push(format!(
                "  line {}: want {}, got {got}: {} {}",
                case.line, case.expected, case.tool, case.value
            ));
        }
    }
    let ratio = |num: usize, den: usize| {
        if den == 0 {
            1.0
        } else {
            num as f64 / den as f64
        }
    };
    println!("{} cases", cases.len());
    println!("| class | cases | precision | recall |");
    println!("| --- | ---: | ---: | ---: |");
    let mut failures = Vec::new();
    for class in &classes {
        let t = &tallies[class.as_str()];
        let precision = ratio(t.true_pos, t.true_pos + t.false_pos);
        let recall = ratio(t.true_pos, t.true_pos + t.false_neg);
        println!(
            "| `{class}` | {} | {precision:.3} | {recall:.3} |",
            t.true_pos + t.false_neg
        );
        let risk = Risk::from_builtin_name(class).expect("built-in rules only");
        let (min_precision, min_recall) = match risk {
            Risk::None => (0.90, 0.95),
            Risk::Unknown => (1.0, 1.0),
            _ => (0.95, 0.90),
        };
        if precision < min_precision || recall < min_recall {
            failures.push(format!(
                "{class}: precision {precision:.3} (floor {min_precision}), recall {recall:.3} (floor {min_recall})"
            ));
        }
    }
    if !wrong.is_empty() {
        println!("misclassified ({}):\n{}", wrong.len(), wrong.join("\n"));
    }
    assert!(
        failures.is_empty(),
        "below the floors:\n{}",
        failures.join("\n")
    );
}

#[test]
fn the_corpus_is_large_and_covers_every_class() {
    let cases = corpus();
    assert!(cases.len() >= 300, "only {} cases", cases.len());
    for class in RiskRules::builtin().labels() {
        let n = cases.iter().filter(|c| c.expected == class).count();
        assert!(n >= 3, "class {class} has only {n} cases");
    }
}

/// The accounting stage hands the classifier a tool input as its logged JSON text
/// (`Input::JsonText`), parsed only when the memo of recent attempts does not know it. Every
/// case gets the class its parsed input gets, both when first seen and when remembered, and a
/// string or an unparsable text reads as a command line.
#[test]
fn an_input_given_as_its_json_text_gets_the_class_of_its_parsed_value() {
    let rules = RiskRules::builtin();
    for case in risk_support::corpus() {
        let Some(value) = &case.input else { continue };
        let parsed = rules.classify(&case.attempt());
        let text = value.to_string();
        for seen in ["first", "remembered"] {
            let attempt = Attempt {
                tool: &case.tool,
                input: Some(Input::JsonText(&text)),
                reason: None,
            };
            assert_eq!(
                rules.classify(&attempt),
                parsed,
                "line {} ({seen}): {text}",
                case.line
            );
        }
    }
    // A JSON string is the command line it holds; a text that does not parse is one itself.
    for text in [
        "\"git push --force origin main\"",
        "{\"command\": \"git push -f\"",
    ] {
        let given = Attempt {
            tool: "Bash",
            input: Some(Input::JsonText(text)),
            reason: None,
        };
        assert_eq!(rules.classify(&given), Risk::HistoryRewrite, "{text}");
    }
}
