//! Every input format of docs/formats.md, replayed through the built binary.

mod common;

use common::{fixture, replay, run, Exposition};

fn key(tool: &str, workflow: &str, reason: &str) -> (String, String, String) {
    (tool.into(), workflow.into(), reason.into())
}

#[test]
fn bundled_example_counts_every_denial_once() {
    let example = concat!(env!("CARGO_MANIFEST_DIR"), "/examples/executor.log");
    let e = replay(&[example]);
    let want = [
        (key("Bash", "implement", "classifier"), 1),
        (key("Bash", "implement", "unknown"), 1),
        (key("Bash", "review", "hook"), 1),
        (key("Edit", "implement", "rule"), 1),
        (key("WebFetch", "triage", "workingDir"), 1),
        (key("Write", "review", "unknown"), 1),
        (key("mcp__github_comment__add_comment", "review", "user"), 1),
    ];
    assert_eq!(e.denials(), want.into_iter().collect());
    assert_eq!(
        e.get(
            "agent_executions_total",
            &[("workflow", "implement"), ("outcome", "error_max_turns")]
        ),
        1.0
    );
    assert_eq!(
        e.get("agent_execution_cost_usd_sum", &[("workflow", "implement")]),
        2.93
    );
    assert_eq!(
        e.get(
            "agent_execution_duration_seconds_sum",
            &[("workflow", "implement")]
        ),
        491.545
    );
    assert_eq!(
        e.get(
            "agent_execution_turns_bucket",
            &[("workflow", "implement"), ("le", "30")]
        ),
        1.0
    );
    assert_eq!(
        e.get(
            "agent_execution_turns_bucket",
            &[("workflow", "implement"), ("le", "20")]
        ),
        0.0
    );
    assert_eq!(
        e.get("agent_execution_denials_sum", &[("workflow", "review")]),
        3.0
    );
    assert_eq!(
        e.get(
            "agent_tokens_total",
            &[("workflow", "review"), ("kind", "cache_read")]
        ),
        374483.0
    );
    assert_eq!(
        e.get("denials_exporter_lines_total", &[("outcome", "malformed")]),
        1.0
    );
    assert_eq!(
        e.sum("denials_exporter_lines_total", &[]),
        19.0,
        "every line has exactly one outcome"
    );
    assert_eq!(e.get("denials_exporter_build_info", &[]), 1.0);
}

#[test]
fn stream_json_frames_and_running_totals() {
    let e = replay(&[fixture("stream-json.log").to_str().unwrap()]);
    let want = [
        (key("Bash", "unknown", "rule"), 1),
        (key("WebFetch", "unknown", "classifier"), 1),
        (key("Bash", "unknown", "unknown"), 1),
        (key("Edit", "unknown", "unknown"), 1),
    ];
    assert_eq!(e.denials(), want.into_iter().collect());
    // Running totals: the latest result's values, never the sum of results.
    assert_eq!(
        e.get("agent_execution_cost_usd_sum", &[("workflow", "unknown")]),
        1.25
    );
    assert_eq!(
        e.get(
            "agent_tokens_total",
            &[("workflow", "unknown"), ("kind", "input")]
        ),
        1500.0
    );
    assert_eq!(
        e.get(
            "agent_tokens_total",
            &[("workflow", "unknown"), ("kind", "cache_read")]
        ),
        45000.0
    );
    assert_eq!(
        e.get("agent_execution_turns_sum", &[("workflow", "unknown")]),
        10.0
    );
    assert_eq!(
        e.get("agent_executions_total", &[("outcome", "success")]),
        1.0
    );
    assert_eq!(
        e.get("agent_executions_total", &[("outcome", "error_max_turns")]),
        1.0
    );
    assert_eq!(
        e.get("denials_exporter_lines_total", &[("outcome", "duplicate")]),
        1.0,
        "the repeated frame"
    );
}

#[test]
fn workflow_for_stream_json_comes_from_configuration() {
    let path = fixture("stream-json.log");
    let e = replay(&["--workflow-default", "nightly", path.to_str().unwrap()]);
    assert_eq!(
        e.sum("permission_denials_total", &[("workflow", "nightly")]),
        4.0
    );
    let e = replay(&[
        "--workflow-from-path",
        r"/data/(?P<workflow>[a-z]+)-json\.log$",
        path.to_str().unwrap(),
    ]);
    assert_eq!(
        e.sum("permission_denials_total", &[("workflow", "stream")]),
        4.0
    );
}

#[test]
fn claude_code_hook_input() {
    let e = replay(&[fixture("claude-code-hook.log").to_str().unwrap()]);
    let want = [
        (key("Bash", "unknown", "classifier"), 1),
        (key("Write", "unknown", "workingDir"), 1),
    ];
    assert_eq!(e.denials(), want.into_iter().collect());
}

#[test]
fn agent_cli_hook_context() {
    let e = replay(&[fixture("agent-cli-hook.log").to_str().unwrap()]);
    let want = [
        (key("Bash", "unknown", "rule"), 1),
        (key("Edit", "unknown", "user"), 1),
        (key("Bash", "unknown", "hook"), 1),
    ];
    assert_eq!(e.denials(), want.into_iter().collect());
}

#[test]
fn several_files_and_stdin_add_up() {
    let a = fixture("agent-cli-hook.log");
    let b = fixture("claude-code-hook.log");
    let e = replay(&[a.to_str().unwrap(), b.to_str().unwrap()]);
    assert_eq!(e.sum("permission_denials_total", &[]), 5.0);
    let (e, _) = common::replay_stdin(&std::fs::read(&a).unwrap(), &[]);
    assert_eq!(e.sum("permission_denials_total", &[]), 3.0);
}

#[test]
fn configured_field_names() {
    let line = r#"{"evt":"tool.blocked","runId":"r1","pipeline":"nightly","tool":"Write","useId":"u1","why":"hook","whyText":"x"}"#;
    let (e, _) = common::replay_stdin(
        format!("{line}\n{line}\n").as_bytes(),
        &[
            "--field.event",
            "evt",
            "--field.denied-event",
            "tool.blocked",
            "--field.correlation",
            "runId",
            "--field.workflow",
            "pipeline",
            "--field.tool",
            "tool",
            "--field.tool-use-id",
            "useId",
            "--field.reason-type",
            "why",
            "--field.reason",
            "whyText",
        ],
    );
    assert_eq!(
        e.denials(),
        [(key("Write", "nightly", "hook"), 1)].into_iter().collect()
    );
}

#[test]
fn environment_variables_configure_too() {
    let line = r#"{"evt":"tool.blocked","toolName":"Bash","decisionReasonType":"rule"}"#;
    let out = std::process::Command::new(common::BIN)
        .args(["replay", "-"])
        .env("DENIALS_EXPORTER_FIELD_EVENT", "evt")
        .env("DENIALS_EXPORTER_FIELD_DENIED_EVENT", "tool.blocked")
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::piped())
        .spawn()
        .and_then(|mut child| {
            use std::io::Write;
            child
                .stdin
                .take()
                .unwrap()
                .write_all(format!("{line}\n").as_bytes())?;
            child.wait_with_output()
        })
        .unwrap();
    let e = Exposition::parse(&String::from_utf8(out.stdout).unwrap());
    assert_eq!(e.sum("permission_denials_total", &[("tool", "Bash")]), 1.0);
}

#[test]
fn unreadable_file_and_bad_flags_fail_with_one_sentence() {
    let out = run(&["/nonexistent/executor.log"]);
    assert_eq!(out.status.code(), Some(2));
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(stderr.lines().count(), 1, "{stderr}");
    assert!(
        stderr.contains("cannot open log file /nonexistent/executor.log"),
        "{stderr}"
    );
    assert!(out.stdout.is_empty());

    let out = run(&["--workflow-from-path", "(unclosed", "x.log"]);
    assert_eq!(out.status.code(), Some(2));
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        stderr.starts_with("denials-exporter: invalid --workflow-from-path regex"),
        "{stderr}"
    );

    let out = run(&["--max-tools", "zero", "x.log"]);
    assert_ne!(out.status.code(), Some(0));
    let out = run(&["--reason-rule", "foo=bar", "x.log"]);
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("unknown reason \"bar\""));
}
