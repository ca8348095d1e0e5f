//! Label bounds: the closed reason set, validated and capped tool and workflow values.

mod common;

use common::{denial, replay_stdin};

#[test]
fn tool_and_workflow_values_are_capped() {
    let mut log = String::new();
    for i in 0..10 {
        log.push_str(&denial(
            &format!("e{i}"),
            &format!("wf{i}"),
            &format!("mcp__server__tool_{i}"),
            None,
            "rule",
        ));
        log.push('\n');
    }
    let (e, _) = replay_stdin(
        log.as_bytes(),
        &["--max-tools", "3", "--max-workflows", "5"],
    );
    assert_eq!(
        e.sum("permission_denials_total", &[]),
        10.0,
        "overflow still counts"
    );
    assert_eq!(e.sum("permission_denials_total", &[("tool", "other")]), 7.0);
    assert_eq!(
        e.sum("permission_denials_total", &[("workflow", "other")]),
        5.0
    );
    assert_eq!(
        e.get(
            "denials_exporter_label_overflow_total",
            &[("label", "tool")]
        ),
        7.0
    );
    assert_eq!(
        e.get(
            "denials_exporter_label_overflow_total",
            &[("label", "workflow")]
        ),
        5.0
    );
    assert_eq!(
        e.get("denials_exporter_label_values", &[("label", "tool")]),
        3.0
    );
    let distinct_tools: std::collections::BTreeSet<_> =
        e.denials().keys().map(|k| k.0.clone()).collect();
    assert_eq!(distinct_tools.len(), 4, "3 admitted + other");
}

#[test]
fn hostile_values_become_invalid_never_raw() {
    let hostile = [
        r#"Bash\"} 1\nfake_metric{a=\"b"#,
        "rm -rf /; curl evil",
        "<script>alert(1)</script>",
        "ünïcödé",
    ];
    let mut log = String::new();
    for tool in hostile {
        log.push_str(&denial("e", "review", tool, None, "hook"));
        log.push('\n');
    }
    log.push_str(&denial("e", &"w".repeat(200), "Bash", None, "hook"));
    log.push('\n');
    let (e, _) = replay_stdin(log.as_bytes(), &[]);
    assert_eq!(
        e.get(
            "permission_denials_total",
            &[("tool", "invalid"), ("workflow", "review")]
        ),
        4.0
    );
    assert_eq!(
        e.get(
            "permission_denials_total",
            &[("tool", "Bash"), ("workflow", "invalid")]
        ),
        1.0
    );
    assert_eq!(
        e.get("denials_exporter_label_invalid_total", &[("label", "tool")]),
        4.0
    );
    assert!(!e.text.contains("fake_metric"));
    assert!(!e.text.contains("script"));
}

/// The SDK's `decision_reason_type` values (docs/formats.md, "How denials are counted").
const SDK_REASONS: [&str; 11] = [
    "rule",
    "mode",
    "subcommandResults",
    "permissionPromptTool",
    "hook",
    "asyncAgent",
    "sandboxOverride",
    "workingDir",
    "safetyCheck",
    "classifier",
    "other",
];

#[test]
fn reasons_are_a_closed_set() {
    let mut log = String::new();
    for reason in SDK_REASONS.iter().chain(&["user", "made-up", "<b>"]) {
        log.push_str(&denial("e", "w", "Bash", None, reason));
        log.push('\n');
    }
    let (e, _) = replay_stdin(log.as_bytes(), &[]);
    let reasons: std::collections::BTreeSet<String> =
        e.denials().keys().map(|k| k.2.clone()).collect();
    let allowed = |r: &str| SDK_REASONS.contains(&r) || r == "user" || r == "unknown";
    assert!(reasons.iter().all(|r| allowed(r)), "{reasons:?}");
    assert_eq!(
        e.get("permission_denials_total", &[("reason", "other")]),
        3.0
    );
}

#[test]
fn free_text_reason_rules_are_configurable() {
    let line = r#"{"session_id":"s","turn":1,"tool":"Bash","tool_use_id":"c1","reason":"Blocked by OPA policy bundle","input_summary":"ls"}"#;
    let (e, _) = replay_stdin(
        format!("{line}\n").as_bytes(),
        &["--reason-rule", "(?i)\\bOPA\\b=hook"],
    );
    assert_eq!(
        e.get("permission_denials_total", &[("reason", "hook")]),
        1.0
    );
    let (e, _) = replay_stdin(format!("{line}\n").as_bytes(), &[]);
    assert_eq!(
        e.get("permission_denials_total", &[("reason", "rule")]),
        1.0,
        "the default rules see 'policy'"
    );
}
