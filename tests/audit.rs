//! The audit stream: one redacted JSON object per counted denial, with the documented schema.

mod common;

use std::collections::BTreeSet;

#[test]
fn one_record_per_counted_denial_with_the_documented_schema() {
    let dir = tempfile::tempdir().unwrap();
    let audit = dir.path().join("audit.jsonl");
    let example = concat!(env!("CARGO_MANIFEST_DIR"), "/examples/executor.log");
    let e = common::replay(&["--audit-log", audit.to_str().unwrap(), example]);
    let text = std::fs::read_to_string(&audit).unwrap();
    let all: Vec<serde_json::Value> = text
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    let (records, decided): (Vec<_>, Vec<_>) = all
        .into_iter()
        .partition(|r| r["audit"] == "permission_denial");
    assert_eq!(records.len() as f64, e.sum("permission_denials_total", &[]));
    // Each mid-stream denial counted with "risk":"pending" has its class decided once.
    let pending = records.iter().filter(|r| r["risk"] == "pending").count();
    assert!(pending > 0);
    assert_eq!(decided.len(), pending);
    assert!(decided.iter().all(|r| r["audit"] == "risk_decided"
        && r["risk"] != "pending"
        && r["execution_id"].is_string()));
    let push = decided.iter().find(|r| r["tool"] == "Bash").unwrap();
    assert_eq!(
        (&push["risk"], &push["tool_use_id"]),
        (&"history_rewrite".into(), &"toolu_01A9x2Lq".into()),
        "the record brought the force push's input"
    );
    let keys: BTreeSet<&str> = records[0]
        .as_object()
        .unwrap()
        .keys()
        .map(String::as_str)
        .collect();
    let want: BTreeSet<&str> = [
        "audit",
        "time",
        "tool",
        "workflow",
        "reason",
        "risk",
        "execution_id",
        "tool_use_id",
        "decision_reason",
        "input_summary",
        "source_file",
        "origin",
        "format",
    ]
    .into_iter()
    .collect();
    assert_eq!(keys, want);
    for line in text.lines() {
        assert!(
            line.starts_with(r#"{"audit":"permission_denial","#)
                || line.starts_with(r#"{"audit":"risk_decided","#),
            "the discriminator is the first key: {line}"
        );
    }
    let first = &records[0];
    assert_eq!(first["tool"], "Bash");
    assert_eq!(first["reason"], "hook");
    assert_eq!(first["origin"], "mid_stream");
    assert_eq!(first["format"], "pino");
    assert_eq!(first["execution_id"], "exec_01JQ7ZK3M9");
    assert_eq!(first["time"], "2026-06-12T08:00:05.516Z");
    assert!(first["source_file"]
        .as_str()
        .unwrap()
        .ends_with("examples/executor.log"));
    let from_record: Vec<&serde_json::Value> =
        records.iter().filter(|r| r["origin"] == "record").collect();
    assert_eq!(from_record.len(), 2);
    assert!(from_record.iter().all(|r| r["reason"] == "unknown"));
    let write = from_record.iter().find(|r| r["tool"] == "Write").unwrap();
    assert_eq!(
        write["input_summary"], ".env",
        "the summary names the path written"
    );
}

#[test]
fn audit_to_stdout_comes_before_the_exposition() {
    let example = concat!(env!("CARGO_MANIFEST_DIR"), "/examples/executor.log");
    let out = common::run(&["--audit-log", "-", example]);
    assert!(out.status.success());
    let text = String::from_utf8(out.stdout).unwrap();
    let audit_lines = text.lines().take_while(|l| l.starts_with('{')).count();
    assert_eq!(
        audit_lines,
        7 + 4,
        "7 denials, 4 of them classified at their record"
    );
    assert!(text.contains("# TYPE permission_denials_total counter"));
}
