//! Decoys count nothing: a nested event, the event name inside an escaped string, other events.

mod common;

use common::{fixture, replay};

#[test]
fn decoys_count_nothing() {
    let e = replay(&[fixture("decoys.log").to_str().unwrap()]);
    assert_eq!(e.sum("permission_denials_total", &[]), 0.0, "{}", e.text);
    assert_eq!(e.sum("agent_executions_total", &[]), 0.0);
    assert_eq!(
        e.get("denials_exporter_lines_total", &[("outcome", "ignored")]),
        9.0
    );
    assert_eq!(
        e.get("denials_exporter_lines_total", &[("outcome", "malformed")]),
        0.0
    );
}

#[test]
fn a_real_denial_among_decoys_counts_once() {
    let mut log = std::fs::read_to_string(fixture("decoys.log")).unwrap();
    log.push_str(&common::denial(
        "exec_d",
        "review",
        "Bash",
        Some("toolu_01R"),
        "hook",
    ));
    log.push('\n');
    let (e, _) = common::replay_stdin(log.as_bytes(), &[]);
    assert_eq!(
        e.get(
            "permission_denials_total",
            &[("tool", "Bash"), ("reason", "hook"), ("workflow", "review")]
        ),
        1.0
    );
    assert_eq!(e.sum("permission_denials_total", &[]), 1.0);
}
