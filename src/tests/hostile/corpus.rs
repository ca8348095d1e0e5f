//! The hostile-input corpus: every file in `tests/data/hostile/` through the line path under the
//! invariants of [`super::check_bounds`], with the denials each must count; and the inputs too
//! big to keep as files (1 MB names, label-set and execution floods), generated here.
//!
//! The corpus files are written by `bench/hostile_inputs.py corpus tests/data/hostile`; an input
//! a property test ever finds failing is added there as a file, with its expected count below.

use std::path::Path;

use super::{check_bounds, feed, feed_by_line, tight};
use crate::config::{Config, Limits};

/// Denials each corpus file must count with default flags (a file not listed is checked for the
/// bounds only).
const EXPECTED: &[(&str, u64)] = &[
    // 2,000 tools x 1e15 in 49 KB: the record's budget, not 2e18 (finding 1).
    ("finding1-20m-denials.log", 10_000),
    // Record-only denials behind deep tool inputs still count (finding 2).
    ("finding2-deep-200.log", 3),
    ("finding2-deep-100k.log", 3),
    // A microsecond-epoch time evicts nothing, so no record counts again (finding 3).
    ("finding3-us-epoch.log", 4),
    ("finding3-behind-wall-clock.log", 1),
    ("finding4-1e308.log", 0),
    // Found here: an execution seen before any log time is not evicted by the first one.
    ("found-untimed-execution-then-first-time.log", 2),
    // Found here: a mid-stream denial after a record claiming u64::MAX of its tool.
    ("found-per-tool-count-at-u64-max.log", 10_001),
    // Line edges (finding 14).
    ("finding14-bom.log", 1),
    ("finding14-nul.log", 1),
    ("finding14-escaped-event.log", 0),
];

fn with_limits(set: impl FnOnce(&mut Limits)) -> Config {
    let mut config = Config::default();
    set(&mut config.limits);
    config
}

fn corpus_dir() -> std::path::PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/data/hostile")
}

#[test]
fn every_corpus_file_keeps_the_bounds_and_counts_what_it_must() {
    let mut files: Vec<_> = std::fs::read_dir(corpus_dir())
        .expect("tests/data/hostile exists")
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|e| e == "log"))
        .collect();
    files.sort();
    assert!(
        files.len() >= EXPECTED.len(),
        "corpus files missing: {files:?}"
    );
    for path in files {
        let name = path.file_name().unwrap().to_string_lossy().into_owned();
        let input = std::fs::read(&path).unwrap();
        // Whole, in odd chunks, and line by line under tight caps: the same bounds each time.
        let whole = feed(Config::default(), &input, &[]);
        check_bounds(&whole);
        let cuts: Vec<usize> = (1..8).map(|i| input.len() * i / 7 + i).collect();
        let chunked = feed(Config::default(), &input, &cuts);
        check_bounds(&chunked);
        check_bounds(&feed_by_line(tight(), &input));
        let total = whole.metrics().denials_total();
        assert_eq!(
            total,
            chunked.metrics().denials_total(),
            "{name}: chunking changed the count"
        );
        if let Some((_, expected)) = EXPECTED.iter().find(|(n, _)| *n == name) {
            assert_eq!(total, *expected, "{name}");
        }
    }
}

/// Finding 1 exactly: what a record claimed beyond its budget is counted as clamped.
#[test]
fn the_20m_denials_line_is_clamped_to_the_budget() {
    let input = std::fs::read(corpus_dir().join("finding1-20m-denials.log")).unwrap();
    let acc = feed(Config::default(), &input, &[]);
    let m = acc.metrics();
    assert_eq!(m.denials_total(), 10_000);
    assert!(m.denials_clamped > 1_000_000_000, "{}", m.denials_clamped);
}

fn denial(execution: &str, workflow: &str, tool: &str, id: &str) -> String {
    format!(
        r#"{{"level":40,"executionId":{},"workflow":{},"event":"agent.permission.denied","toolName":{},"toolUseId":{},"msg":"d"}}"#,
        super::generate::js(execution),
        super::generate::js(workflow),
        super::generate::js(tool),
        super::generate::js(id)
    ) + "\n"
}

/// Finding 5, scaled for a debug build: distinct tool names (and workflows) of 1 MB, each in its
/// own execution. Every denial counts, and nothing of the names is kept beyond a label's length.
#[test]
fn distinct_megabyte_names_are_counted_but_not_kept() {
    const N: usize = 24;
    let mut input = String::new();
    for i in 0..N {
        let name = format!("{i:03}{}", "T".repeat(1_000_000 - 4_096));
        input.push_str(&denial(&format!("e{i}"), "w", &name, "t1"));
        input.push_str(&denial(&format!("f{i}"), &name, "Bash", "t1"));
    }
    let acc = feed(Config::default(), input.as_bytes(), &[]);
    check_bounds(&acc);
    assert_eq!(acc.metrics().denials_total(), 2 * N as u64);
    let state = serde_json::to_string(acc.state()).unwrap();
    assert!(
        state.len() < 256 * 1024,
        "{} bytes of state for {N} names: raw names are kept",
        state.len()
    );
}

/// Finding 5, scaled: tools x workflows x every reason overflow `--max-series` into `other`,
/// and every denial still counts.
#[test]
fn label_sets_beyond_the_series_cap_go_to_other_and_still_count() {
    let config = with_limits(|l| l.max_series = 500);
    let reasons = crate::vocab::Reason::ALL.map(|r| r.as_str());
    let mut input = String::new();
    for t in 0..20 {
        for w in 0..10 {
            for r in reasons {
                input.push_str(&format!(
                    r#"{{"level":40,"workflow":"w{w}","event":"agent.permission.denied","toolName":"tool{t}","decisionReasonType":"{r}"}}"#
                ));
                input.push('\n');
            }
        }
    }
    let acc = feed(config, input.as_bytes(), &[4096, 65_536]);
    check_bounds(&acc);
    let m = acc.metrics();
    assert_eq!(m.denials_total(), 20 * 10 * reasons.len() as u64);
    assert!(m.series_overflow > 0);
}

/// Finding 5, scaled: distinct execution ids are evicted at the cap, and each denial counts once.
#[test]
fn distinct_executions_are_evicted_at_the_cap() {
    let config = with_limits(|l| l.max_executions = 256);
    let mut input = String::new();
    for i in 0..5_000 {
        input.push_str(&denial(&format!("exec-{i}"), "w", "Bash", "t1"));
    }
    let acc = feed(config, input.as_bytes(), &[100_000]);
    check_bounds(&acc);
    assert_eq!(acc.metrics().denials_total(), 5_000);
    assert_eq!(acc.metrics().evicted_cap, 5_000 - 256);
}

/// Finding 5 under `run`: a 1 MB tool name (or id, or reason) is shown in the audit stream and
/// the recent-denials ring as its length, and is never handed to the redactor, whose scan of
/// each such name made `run` 18 times slower than `replay` on 300 of them.
#[test]
fn megabyte_fields_are_shown_as_their_length_and_never_scanned() {
    use crate::account::labels::MAX_LABEL_BYTES;
    use crate::account::shown::MAX_TEXT_BYTES;
    use crate::account::Accountant;
    use crate::audit::{AuditWriter, TestBuffer};
    use crate::pipeline::{Pipeline, Source};

    const N: usize = 3;
    const BIG: usize = 1_000_000;
    let big = |i: usize, c: &str| format!("{i:03}{}", c.repeat(BIG - 3));
    let mut input = String::new();
    for i in 0..N {
        let line = serde_json::json!({"level":40,"executionId":big(i, "E"),"workflow":"review",
            "event":"agent.permission.denied","toolName":big(i, "T"),"toolUseId":big(i, "U"),
            "decisionReasonType":"hook","decisionReason":big(i, "R"),"msg":"d"});
        input.push_str(&format!("{line}\n"));
    }
    let written = TestBuffer::default();
    // Four 1 MB fields to a line.
    let config = with_limits(|l| l.max_line_bytes = 8 << 20);
    let mut accountant = Accountant::new(config);
    accountant.set_exemplars(true); // as `run` does
    let audit = AuditWriter::to(Box::new(written.clone()), None);
    let mut p = Pipeline::new(accountant, Some(audit), 100);
    let mut source = Source::new("hostile.log", p.accountant().config());
    crate::redact::scanned::take_longest();
    p.lines(&mut source, input.as_bytes());
    let longest = crate::redact::scanned::take_longest();
    assert!(
        longest <= MAX_LABEL_BYTES.max(MAX_TEXT_BYTES),
        "a {longest}-byte text was scanned"
    );

    let kept = p.take_kept();
    assert_eq!(kept.len(), N);
    let marker = |field: &str| format!("<{field} of {BIG} bytes>");
    for record in &kept {
        assert_eq!(record.tool, marker("tool name"));
        assert_eq!(record.execution_id, Some(marker("execution id")));
        assert_eq!(record.tool_use_id, Some(marker("tool use id")));
        assert_eq!(record.decision_reason, Some(marker("decision reason")));
    }
    let m = p.accountant().metrics();
    assert_eq!(m.denials_total(), N as u64);
    let exemplar = m.denial_exemplars.values().next().expect("an exemplar");
    assert_eq!(
        exemplar.tool_use_id.as_deref(),
        Some(&*marker("tool use id"))
    );
    assert!(exemplar
        .execution_id
        .as_deref()
        .unwrap()
        .starts_with("<execution id of "));
    drop(p);
    let audit = written.text();
    assert_eq!(audit.lines().count(), N);
    assert_eq!(audit.matches(&marker("tool name")).count(), N, "{audit}");
    assert!(
        !audit.contains("TTTT") && !audit.contains("UUUU") && !audit.contains("RRRR"),
        "{audit}"
    );
}
