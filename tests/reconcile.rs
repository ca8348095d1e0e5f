//! Reconciliation of mid-stream denials against the execution's record (docs/formats.md, "How denials are counted").

mod common;

use common::{denial, replay_stdin};

fn completed(execution: &str, workflow: &str, extra: &str) -> String {
    format!(
        r#"{{"level":30,"time":1781251300000,"executionId":"{execution}","workflow":"{workflow}","sdkMsgType":"result","subtype":"success","costUsd":1.5,"durationMs":600000,"numTurns":12,{extra},"msg":"Claude Agent SDK execution completed"}}"#
    )
}

fn log(lines: &[String]) -> Vec<u8> {
    lines
        .iter()
        .flat_map(|l| format!("{l}\n").into_bytes())
        .collect()
}

#[test]
fn with_ids_the_record_adds_only_what_the_stream_missed() {
    let lines = [
        denial("e1", "review", "Bash", Some("toolu_1"), "hook"),
        denial("e1", "review", "Edit", Some("toolu_2"), "rule"),
        completed(
            "e1",
            "review",
            r#""permissionDenialCount":3,"permissionDenials":[{"toolName":"Bash","toolUseId":"toolu_1","toolInput":{"command":"git push --force"}},{"toolName":"Edit","toolUseId":"toolu_2","toolInput":{}},{"toolName":"Bash","toolUseId":"toolu_3","toolInput":{"command":"rm -rf build"}}]"#,
        ),
    ];
    let (e, _) = replay_stdin(&log(&lines), &[]);
    assert_eq!(
        e.get(
            "permission_denials_total",
            &[("tool", "Bash"), ("reason", "hook")]
        ),
        1.0
    );
    assert_eq!(
        e.get(
            "permission_denials_total",
            &[("tool", "Edit"), ("reason", "rule")]
        ),
        1.0
    );
    assert_eq!(
        e.get(
            "permission_denials_total",
            &[("tool", "Bash"), ("reason", "unknown")]
        ),
        1.0
    );
    assert_eq!(e.sum("permission_denials_total", &[]), 3.0);
    assert_eq!(
        e.get("agent_execution_denials_sum", &[("workflow", "review")]),
        3.0
    );
}

#[test]
fn without_ids_the_record_adds_its_count_minus_the_stream() {
    let lines = [
        denial("e2", "implement", "Bash", None, "hook"),
        denial("e2", "implement", "Bash", None, "hook"),
        completed(
            "e2",
            "implement",
            r#""permissionDenialCount":5,"permissionDeniedTools":{"Bash":3,"Edit":1,"Write":1}"#,
        ),
    ];
    let (e, _) = replay_stdin(&log(&lines), &[]);
    assert_eq!(
        e.get(
            "permission_denials_total",
            &[("tool", "Bash"), ("reason", "hook")]
        ),
        2.0
    );
    assert_eq!(
        e.get(
            "permission_denials_total",
            &[("tool", "Bash"), ("reason", "unknown")]
        ),
        1.0
    );
    assert_eq!(
        e.get(
            "permission_denials_total",
            &[("tool", "Edit"), ("reason", "unknown")]
        ),
        1.0
    );
    assert_eq!(
        e.get(
            "permission_denials_total",
            &[("tool", "Write"), ("reason", "unknown")]
        ),
        1.0
    );
}

#[test]
fn a_record_never_subtracts() {
    let lines = [
        denial("e3", "docs", "Bash", None, "hook"),
        denial("e3", "docs", "Bash", None, "hook"),
        completed("e3", "docs", r#""permissionDeniedTools":{"Bash":1}"#),
    ];
    let (e, _) = replay_stdin(&log(&lines), &[]);
    assert_eq!(e.sum("permission_denials_total", &[]), 2.0);
}

#[test]
fn the_same_denial_seen_twice_counts_once() {
    let d = denial("e4", "review", "Bash", Some("toolu_9"), "hook");
    let record = completed(
        "e4",
        "review",
        r#""permissionDenials":[{"toolName":"Bash","toolUseId":"toolu_9"}]"#,
    );
    let lines = [d.clone(), d, record.clone(), record];
    let (e, _) = replay_stdin(&log(&lines), &[]);
    assert_eq!(e.sum("permission_denials_total", &[]), 1.0);
    assert_eq!(
        e.get("agent_executions_total", &[("workflow", "review")]),
        1.0,
        "a repeated record is a duplicate"
    );
    assert_eq!(
        e.get("denials_exporter_lines_total", &[("outcome", "duplicate")]),
        2.0
    );
}

#[test]
fn executions_do_not_mix() {
    let lines = [
        denial("e5", "review", "Bash", Some("toolu_same"), "hook"),
        denial("e6", "review", "Bash", Some("toolu_other"), "hook"),
        completed(
            "e6",
            "review",
            r#""permissionDenials":[{"toolName":"Bash","toolUseId":"toolu_same"}]"#,
        ),
    ];
    let (e, _) = replay_stdin(&log(&lines), &[]);
    assert_eq!(
        e.sum("permission_denials_total", &[]),
        3.0,
        "an id of another execution is not this one's"
    );
}

#[test]
fn lines_without_correlation_key_reconcile_nothing() {
    let plain = r#"{"level":40,"workflow":"review","event":"agent.permission.denied","toolName":"Bash","toolUseId":"toolu_x","decisionReasonType":"hook","msg":"agent permission denied"}"#;
    let lines = [plain.to_string(), plain.to_string()];
    let (e, _) = replay_stdin(&log(&lines), &[]);
    assert_eq!(e.sum("permission_denials_total", &[]), 2.0);
}

#[test]
fn execution_state_is_bounded() {
    let mut lines = Vec::new();
    for i in 0..10 {
        lines.push(denial(
            &format!("e{i}"),
            "review",
            "Bash",
            Some("toolu_1"),
            "hook",
        ));
    }
    let (e, _) = replay_stdin(&log(&lines), &["--max-executions", "4"]);
    assert_eq!(
        e.get(
            "denials_exporter_executions_evicted_total",
            &[("cause", "cap")]
        ),
        6.0
    );
    assert_eq!(e.get("denials_exporter_executions_tracked", &[]), 4.0);
    assert_eq!(e.sum("permission_denials_total", &[]), 10.0);
}

#[test]
fn idle_executions_are_evicted_by_log_time() {
    let early = denial("old", "review", "Bash", Some("toolu_1"), "hook");
    let late = denial("new", "review", "Bash", Some("toolu_2"), "hook")
        .replace("1781251200139", "1781260000000");
    let (e, _) = replay_stdin(&log(&[early, late]), &["--execution-idle-timeout", "3600"]);
    assert_eq!(
        e.get(
            "denials_exporter_executions_evicted_total",
            &[("cause", "idle")]
        ),
        1.0
    );
}

/// A hand-made stream (tests/data/sdk/README.md) built from the real SDK's shapes: a force push
/// denied by a deny rule whose call ran anyway, a hook denial that held, and a call that failed
/// on its own. The one that ran counts once as unenforced, with one `denial_unenforced` audit
/// line; the failing call is no denial and not unenforced; read twice, nothing counts again.
#[test]
fn a_denied_call_that_ran_counts_once_as_unenforced() {
    let stream = common::fixture("sdk/unenforced.jsonl");
    let stream = stream.to_str().expect("UTF-8 path");
    let dir = tempfile::tempdir().expect("a temporary directory");
    let audit = dir.path().join("audit.jsonl");
    let audit_arg = audit.to_str().expect("UTF-8 path");
    let e = common::replay(&[
        "--workflow-default",
        "fix",
        "--audit-log",
        audit_arg,
        stream,
        stream,
    ]);
    let bash = [("tool", "Bash"), ("workflow", "fix")];
    assert_eq!(e.get("permission_denials_unenforced_total", &bash), 1.0);
    assert_eq!(e.sum("permission_denials_unenforced_total", &[]), 1.0);
    let reasons = [("subcommandResults", 1.0), ("hook", 1.0), ("unknown", 0.0)];
    for (reason, want) in reasons {
        let labels = [("tool", "Bash"), ("reason", reason)];
        assert_eq!(e.get("permission_denials_total", &labels), want, "{reason}");
    }
    assert_eq!(e.sum("permission_denials_total", &[]), 2.0);
    let lines = std::fs::read_to_string(&audit).expect("the audit log");
    let marks: Vec<&str> = lines
        .lines()
        .filter(|l| l.starts_with(r#"{"audit":"denial_unenforced""#))
        .collect();
    assert_eq!(marks.len(), 1, "{lines}");
    assert!(marks[0].contains(r#""tool_use_id":"toolu_01SynthForcePush""#));
    assert!(marks[0].contains(r#""reason":"subcommandResults""#));
}
