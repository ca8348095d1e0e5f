//! Accountant tests: sequences of decoded lines → counter values.

use super::*;
use crate::config::Fields;

fn account(lines: &[&str]) -> Accountant {
    account_with(Config::default(), lines)
}

fn account_with(config: Config, lines: &[&str]) -> Accountant {
    let mut accountant = Accountant::new(config);
    let fields = Fields::default();
    for line in lines {
        let event = decode::decode(line.as_bytes(), &fields).expect("test lines decode");
        let source = LineSource {
            path: "/var/log/executor/app.log",
            path_workflow: None,
        };
        let outcome = accountant.apply(event, source);
        accountant.add_outcome(outcome);
    }
    accountant
}

fn count(a: &Accountant, tool: &str, workflow: &str, reason: &str) -> u64 {
    a.denial_counts()
        .get(&(tool.into(), workflow.into(), leak(reason)))
        .copied()
        .unwrap_or(0)
}

fn leak(s: &str) -> &'static str {
    Reason::ALL
        .iter()
        .find(|r| r.as_str() == s)
        .expect("a reason")
        .as_str()
}

const D1: &str = r#"{"executionId":"e1","workflow":"review","event":"agent.permission.denied","toolName":"Bash","toolUseId":"t1","decisionReasonType":"hook","decisionReason":"hook said no"}"#;
const D1_NO_ID: &str = r#"{"executionId":"e1","workflow":"review","event":"agent.permission.denied","toolName":"Bash","decisionReasonType":"hook"}"#;

#[test]
fn midstream_then_record_with_ids_counts_each_once() {
    let record = r#"{"executionId":"e1","workflow":"review","subtype":"success","permissionDenials":[{"toolName":"Bash","toolUseId":"t1"},{"toolName":"Edit","toolUseId":"t2"}],"msg":"Claude Agent SDK execution completed"}"#;
    let a = account(&[D1, D1, record, record]);
    assert_eq!(count(&a, "Bash", "review", "hook"), 1);
    assert_eq!(count(&a, "Edit", "review", "unknown"), 1);
    assert_eq!(a.metrics().denials_total(), 2);
    assert_eq!(
        a.metrics().lines[&LineOutcome::Duplicate],
        2,
        "second frame and repeated record"
    );
    assert_eq!(a.metrics().workflows["review"].executions["success"], 1);
}

#[test]
fn record_without_ids_reconciles_by_count() {
    let record = r#"{"executionId":"e1","subtype":"success","permissionDenialCount":3,"permissionDeniedTools":{"Bash":2,"Write":1},"msg":"Claude Agent SDK execution completed"}"#;
    let a = account(&[D1_NO_ID, record]);
    assert_eq!(count(&a, "Bash", "review", "hook"), 1);
    assert_eq!(count(&a, "Bash", "review", "unknown"), 1);
    assert_eq!(
        count(&a, "Write", "review", "unknown"),
        1,
        "workflow comes from the execution"
    );
    assert_eq!(a.metrics().denials_total(), 3);
    assert_eq!(a.metrics().workflows["review"].denials.sum, 3.0);
}

#[test]
fn lines_without_correlation_key_count_their_own() {
    let denial = r#"{"workflow":"docs","event":"agent.permission.denied","toolName":"Bash","toolUseId":"t1","decisionReasonType":"rule"}"#;
    let record = r#"{"workflow":"docs","permissionDenials":[{"toolName":"Bash","toolUseId":"t1"}],"msg":"Claude Agent SDK execution completed"}"#;
    let a = account(&[denial, denial, record]);
    assert_eq!(count(&a, "Bash", "docs", "rule"), 2);
    assert_eq!(count(&a, "Bash", "docs", "unknown"), 1);
}

#[test]
fn stream_json_results_are_running_totals() {
    let frame = r#"{"type":"system","subtype":"permission_denied","tool_name":"Bash","tool_use_id":"t1","decision_reason_type":"rule","session_id":"s1"}"#;
    let r1 = r#"{"type":"result","subtype":"success","total_cost_usd":1.0,"num_turns":3,"duration_ms":1000,"modelUsage":{"m":{"inputTokens":100,"outputTokens":10}},"permission_denials":[{"tool_name":"Bash","tool_use_id":"t1"}],"session_id":"s1"}"#;
    let r2 = r#"{"type":"result","subtype":"success","total_cost_usd":1.5,"num_turns":5,"duration_ms":3000,"modelUsage":{"m":{"inputTokens":150,"outputTokens":30}},"permission_denials":[{"tool_name":"Bash","tool_use_id":"t1"},{"tool_name":"Write","tool_use_id":"t9"}],"session_id":"s1"}"#;
    let a = account(&[frame, r1, r2]);
    let wf = &a.metrics().workflows["unknown"];
    assert_eq!(wf.cost_usd.sum, 1.5, "latest total, not 2.5");
    assert_eq!(wf.tokens[0], 150.0);
    assert_eq!(wf.tokens[1], 30.0);
    assert_eq!(wf.turns.sum, 5.0);
    assert_eq!(count(&a, "Bash", "unknown", "rule"), 1);
    assert_eq!(count(&a, "Write", "unknown", "unknown"), 1);
    assert_eq!(wf.executions["success"], 2);
}

#[test]
fn labels_are_bounded() {
    let mut config = Config::default();
    config.limits.max_tools = 2;
    let line = |tool: &str| {
        format!(
            r#"{{"workflow":"w","event":"agent.permission.denied","toolName":"{tool}","decisionReasonType":"rule"}}"#
        )
    };
    let lines = [
        line("Bash"),
        line("Edit"),
        line("Write"),
        line("bad tool name!"),
        line("Bash"),
    ];
    let refs: Vec<&str> = lines.iter().map(String::as_str).collect();
    let a = account_with(config, &refs);
    assert_eq!(count(&a, "Bash", "w", "rule"), 2);
    assert_eq!(count(&a, "other", "w", "rule"), 1);
    assert_eq!(count(&a, "invalid", "w", "rule"), 1);
    assert_eq!(a.metrics().label_overflow[&LabelName::Tool], 1);
    assert_eq!(a.metrics().label_invalid[&LabelName::Tool], 1);
}

#[test]
fn unknown_reason_types_are_other_and_free_text_is_classified() {
    let odd =
        r#"{"event":"agent.permission.denied","toolName":"Bash","decisionReasonType":"vibes"}"#;
    let hook = r#"{"hook_event_name":"PermissionDenied","tool_name":"Bash","reason":"Denied by rule for Bash","session_id":"s"}"#;
    let a = account(&[odd, hook]);
    assert_eq!(count(&a, "Bash", "unknown", "other"), 1);
    assert_eq!(count(&a, "Bash", "unknown", "rule"), 1);
}

#[test]
fn audit_records_are_redacted() {
    let denial = r#"{"executionId":"e1","event":"agent.permission.denied","toolName":"Bash","toolUseId":"t1","decisionReasonType":"hook","decisionReason":"blocked: curl -H 'Authorization: Bearer abcdefghijklmnopqrstuvwxyz0123456789' https://api.example.com"}"#;
    let mut a = account(&[denial]);
    let audit = a.take_audit();
    assert_eq!(audit.len(), 1);
    let reason = audit[0].decision_reason.as_deref().unwrap();
    assert!(
        !reason.contains("abcdefghijklmnopqrstuvwxyz0123456789"),
        "{reason}"
    );
    assert!(reason.contains("https://api.example.com"), "{reason}");
    assert_eq!(audit[0].origin, Origin::MidStream);
}

#[test]
fn evictions_are_counted() {
    let mut config = Config::default();
    config.limits.max_executions = 1;
    let d = |e: &str| {
        format!(
            r#"{{"executionId":"{e}","event":"agent.permission.denied","toolName":"Bash","toolUseId":"t","decisionReasonType":"rule"}}"#
        )
    };
    let lines = [d("a"), d("b"), d("a")];
    let refs: Vec<&str> = lines.iter().map(String::as_str).collect();
    let a = account_with(config, &refs);
    assert_eq!(a.metrics().evicted_cap, 2);
    assert_eq!(a.gauges().executions_tracked, 1);
}

#[test]
fn state_round_trips() {
    let a = account(&[D1]);
    let json = serde_json::to_string(a.state()).unwrap();
    let back: AccountState = serde_json::from_str(&json).unwrap();
    assert_eq!(&back, a.state());
}
