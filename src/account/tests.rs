//! Accountant tests: sequences of decoded lines → counter values.

mod layers;
mod paths;
mod risk;

use super::*;
use crate::config::Fields;
use crate::decode;

/// The path labels of a file whose path gave none.
const NO_PATH_LABELS: PathLabels = PathLabels(Vec::new());

fn account(lines: &[&str]) -> Accountant {
    account_with(Config::default(), lines)
}

fn account_with(config: Config, lines: &[&str]) -> Accountant {
    let mut accountant = Accountant::new(config);
    for line in lines {
        let outcome = feed(&mut accountant, line);
        accountant.add_outcome(outcome);
    }
    accountant
}

/// Decodes one line and applies it, as read from a file whose path gave no labels.
fn feed(accountant: &mut Accountant, line: &str) -> LineOutcome {
    let event = decode::decode(line.as_bytes(), &Fields::default()).expect("test lines decode");
    let source = LineSource {
        path: "/var/log/executor/app.log",
        path_workflow: None,
        path_labels: &NO_PATH_LABELS,
    };
    accountant.apply(event, source)
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

fn ms(secs: f64) -> String {
    format!("{}", (secs * 1000.0) as u64)
}

/// One line with a microsecond epoch (read as milliseconds: a year far ahead) evicted every
/// execution in flight, whose records then counted their denials again, and stopped sweeps for
/// good. Such a time is now no time, and counted.
#[test]
fn a_time_far_ahead_of_the_wall_clock_moves_nothing() {
    let now = wall_now();
    let denial = format!(
        r#"{{"time":{},"executionId":"e1","workflow":"w","event":"agent.permission.denied","toolName":"Bash","toolUseId":"t1","decisionReasonType":"hook"}}"#,
        ms(now - 10.0)
    );
    let future = format!(
        r#"{{"time":{},"executionId":"x","workflow":"w","event":"agent.permission.denied","toolName":"Edit","decisionReasonType":"rule"}}"#,
        (now * 1e6) as u64
    );
    let record = format!(
        r#"{{"time":{},"executionId":"e1","workflow":"w","permissionDenials":[{{"toolName":"Bash","toolUseId":"t1"}}],"msg":"Claude Agent SDK execution completed"}}"#,
        ms(now - 9.0)
    );
    let a = account(&[&denial, &future, &record]);
    assert_eq!(a.metrics().denials_total(), 2, "{:?}", a.denial_counts());
    assert_eq!(count(&a, "Bash", "w", "unknown"), 0);
    assert_eq!(a.metrics().times_rejected, 1);
    assert_eq!(a.metrics().evicted_idle, 0);
}

/// `run` swept by the wall clock: a denial and its record one second apart, twelve hours
/// behind the wall clock, counted twice when a line without a time came between them.
#[test]
fn sweeps_go_by_log_time_only() {
    let then = wall_now() - 12.0 * 3600.0;
    let denial = format!(
        r#"{{"time":{},"executionId":"e1","workflow":"w","event":"agent.permission.denied","toolName":"Bash","toolUseId":"t1","decisionReasonType":"hook"}}"#,
        ms(then)
    );
    let untimed = r#"{"type":"system","subtype":"permission_denied","tool_name":"Read","tool_use_id":"t9","decision_reason_type":"rule","session_id":"s"}"#;
    let record = format!(
        r#"{{"time":{},"executionId":"e1","workflow":"w","permissionDenials":[{{"toolName":"Bash","toolUseId":"t1"}}],"msg":"Claude Agent SDK execution completed"}}"#,
        ms(then + 1.0)
    );
    let config = Config {
        limits: crate::config::Limits {
            execution_idle_timeout_secs: 3600,
            ..Default::default()
        },
        ..Config::default()
    };
    let a = account_with(config, &[&denial, untimed, &record]);
    assert_eq!(count(&a, "Bash", "w", "hook"), 1);
    assert_eq!(
        count(&a, "Bash", "w", "unknown"),
        0,
        "{:?}",
        a.denial_counts()
    );
}

/// Two records of 1e308 USD made the cost sum +Inf, the state file then held `null`, and the
/// next start failed. Sums saturate, and the state round-trips.
#[test]
fn sums_stay_finite_and_the_state_round_trips() {
    let record = |id: &str| {
        format!(
            r#"{{"executionId":"{id}","workflow":"w","costUsd":1e308,"inputTokens":1e308,"numTurns":1e308,"msg":"Claude Agent SDK execution completed"}}"#
        )
    };
    let a = account(&[&record("a"), &record("b"), &record("c")]);
    let series = &a.metrics().workflows["w"];
    assert_eq!(series.cost_usd.sum, f64::MAX);
    assert!(series.tokens.iter().all(|t| t.is_finite()));
    let saved = serde_json::to_string(a.state()).unwrap();
    assert!(!saved.contains("null"), "{saved}");
    let back: AccountState = serde_json::from_str(&saved).unwrap();
    assert_eq!(&back, a.state());
}

/// One 53 KB completed line claims 20,000,000 denials (2,000 tools × 1e15, a cap per tool); it
/// once cost gigabytes (docs/performance.md, "Hostile input"). A record reveals at most its
/// budget, as counts, in one step.
#[test]
fn a_record_claiming_absurd_counts_is_clamped_and_counted() {
    let tools: Vec<String> = (0..2000).map(|i| format!("\"t{i}\":1e15")).collect();
    let record = format!(
        r#"{{"executionId":"e1","workflow":"w","permissionDeniedTools":{{{}}},"msg":"Claude Agent SDK execution completed"}}"#,
        tools.join(",")
    );
    let a = account(&[&record, &record]);
    assert_eq!(a.metrics().denials_total(), 10_000);
    assert_eq!(a.metrics().denials_clamped, 2000 * 1e15 as u64 - 10_000);
}

/// 200 tools × 100 workflows × 13 reasons made 260,000 series; a total cap sits above the
/// per-label caps.
#[test]
fn the_series_cap_folds_new_label_sets_into_other() {
    let lines: Vec<String> = (0..50)
        .flat_map(|t| {
            (0..20).map(move |w| {
                format!(
                    r#"{{"workflow":"w{w}","event":"agent.permission.denied","toolName":"t{t}","decisionReasonType":"rule"}}"#
                )
            })
        })
        .collect();
    let refs: Vec<&str> = lines.iter().map(String::as_str).collect();
    let config = Config {
        limits: crate::config::Limits {
            max_series: 100,
            ..Default::default()
        },
        ..Config::default()
    };
    let a = account_with(config, &refs);
    let m = a.metrics();
    assert_eq!(m.denials.len(), 101);
    assert_eq!(m.denials_total(), 1000);
    assert_eq!(m.series_overflow, 900);
    assert_eq!(count(&a, "other", "other", "rule"), 900);
}

/// A streaming-input session as the real SDK's executor logs it (tests/sdk): one completed line
/// per result, `inputTokens`… copied from that result's own `usage`, `costUsd` and `modelUsage`
/// cumulative for the session.
const SESSION: [&str; 3] = [
    r#"{"executionId":"x","workflow":"implement","subtype":"success","costUsd":0.03,"inputTokens":1213,"outputTokens":40,"cacheReadInputTokens":900,"cacheCreationInputTokens":30,"modelUsage":{"sonnet":{"inputTokens":1213,"outputTokens":40,"cacheReadInputTokens":900,"cacheCreationInputTokens":30,"costUSD":0.03}},"msg":"Claude Agent SDK execution completed"}"#,
    r#"{"executionId":"x","workflow":"implement","subtype":"success","costUsd":0.045,"inputTokens":2268,"outputTokens":20,"cacheReadInputTokens":100,"cacheCreationInputTokens":10,"modelUsage":{"sonnet":{"inputTokens":1213,"outputTokens":40,"cacheReadInputTokens":900,"cacheCreationInputTokens":30,"costUSD":0.03},"haiku":{"inputTokens":2268,"outputTokens":20,"cacheReadInputTokens":100,"cacheCreationInputTokens":10,"costUSD":0.015}},"msg":"Claude Agent SDK execution completed"}"#,
    r#"{"executionId":"x","workflow":"implement","subtype":"success","costUsd":0.055,"inputTokens":1130,"outputTokens":15,"cacheReadInputTokens":50,"cacheCreationInputTokens":5,"modelUsage":{"sonnet":{"inputTokens":1213,"outputTokens":40,"cacheReadInputTokens":900,"cacheCreationInputTokens":30,"costUSD":0.03},"haiku":{"inputTokens":3398,"outputTokens":35,"cacheReadInputTokens":150,"cacheCreationInputTokens":15,"costUSD":0.025}},"msg":"Claude Agent SDK execution completed"}"#,
];

#[test]
fn streaming_session_tokens_come_from_cumulative_model_usage() {
    let a = account(&SESSION);
    let wf = &a.metrics().workflows["implement"];
    // The last cumulative modelUsage, summed over models: 1213 + 3398 input. Taking the copied
    // per-result `usage` as a running total loses tokens (1213 → 2268 → 1130 counts 2268 + 1130).
    assert_eq!(wf.tokens, [4611.0, 75.0, 1050.0, 45.0]);
    assert_eq!(wf.models["sonnet"].tokens, [1213.0, 40.0, 900.0, 30.0]);
    assert_eq!(wf.models["haiku"].tokens, [3398.0, 35.0, 150.0, 15.0]);
    assert!((wf.models["sonnet"].cost_usd - 0.03).abs() < 1e-12);
    assert!((wf.models["haiku"].cost_usd - 0.025).abs() < 1e-12);
    assert!((wf.cost_usd.sum - 0.055).abs() < 1e-12);
    assert_eq!(wf.executions["success"], 3, "one execution per result");
    assert!(!wf.models.contains_key("unknown"));
}

#[test]
fn stream_json_spend_by_model_and_delta_only_results() {
    let r0 = r#"{"type":"result","subtype":"success","total_cost_usd":0.2,"modelUsage":{"m":{"inputTokens":100,"costUSD":0.2}},"model_usage_since_last_result":{"m":{"inputTokens":100,"costUSD":0.2}},"session_id":"s1"}"#;
    let r1 = r#"{"type":"result","subtype":"success","total_cost_usd":0.5,"modelUsage":{"m":{"inputTokens":100,"costUSD":0.2},"n":{"inputTokens":7,"costUSD":0.3}},"model_usage_since_last_result":{"n":{"inputTokens":7,"costUSD":0.3}},"session_id":"s1"}"#;
    // An older CLI's result with only the delta, in another session.
    let r2 = r#"{"type":"result","subtype":"success","model_usage_since_last_result":{"n":{"inputTokens":5,"costUSD":0.1}},"session_id":"s2"}"#;
    let a = account(&[r0, r1, r1, r2]);
    let wf = &a.metrics().workflows["unknown"];
    assert_eq!(wf.models["m"].tokens[0], 100.0);
    assert_eq!(wf.models["n"].tokens[0], 12.0);
    assert!((wf.models["n"].cost_usd - 0.4).abs() < 1e-12);
    assert_eq!(
        wf.tokens[0], 112.0,
        "tokens by kind are the sum over models"
    );
    assert_eq!(a.metrics().lines[&LineOutcome::Duplicate], 1);
}

#[test]
fn model_labels_are_bounded() {
    let mut config = Config::default();
    config.limits.max_models = 1;
    let r = r#"{"type":"result","modelUsage":{"a":{"inputTokens":1},"b":{"inputTokens":2},"bad model!":{"inputTokens":4}},"session_id":"s"}"#;
    let a = account_with(config, &[r]);
    let models = &a.metrics().workflows["unknown"].models;
    assert_eq!(models["a"].tokens[0], 1.0);
    assert_eq!(models["other"].tokens[0], 2.0);
    assert_eq!(models["invalid"].tokens[0], 4.0);
    assert_eq!(a.metrics().label_overflow[&LabelName::Model], 1);
    assert_eq!(a.metrics().label_invalid[&LabelName::Model], 1);
    assert_eq!(a.gauges().models_admitted, 1);
}

#[test]
fn lines_without_time_stamp_the_read_time() {
    let before = wall_now();
    let frame = r#"{"type":"system","subtype":"permission_denied","tool_name":"Bash","tool_use_id":"t1","decision_reason_type":"rule","session_id":"s1"}"#;
    let a = account(&[frame]);
    let stamped = a.metrics().last_event_timestamp;
    assert!(
        stamped >= before && stamped <= wall_now(),
        "{stamped} not between {before} and now"
    );
    // A line with a time still sets its own (the gauge never goes back).
    let old = r#"{"time":1000000000000,"event":"agent.permission.denied","toolName":"Bash","decisionReasonType":"rule"}"#;
    let a = account(&[old]);
    assert_eq!(a.metrics().last_event_timestamp, 1_000_000_000.0);
}

#[test]
fn state_with_model_usage_round_trips_and_old_state_loads() {
    let a = account(&SESSION);
    let json = serde_json::to_string(a.state()).unwrap();
    assert!(json.contains("\"models\""), "{json}");
    let back: AccountState = serde_json::from_str(&json).unwrap();
    assert_eq!(&back, a.state());
    // A state file written before spend by model: no `models` anywhere.
    let old = account(&[D1]);
    let mut value = serde_json::to_value(old.state()).unwrap();
    value.as_object_mut().unwrap().remove("models");
    let back: AccountState = serde_json::from_value(value).unwrap();
    assert_eq!(&back, old.state());
}

#[test]
fn exemplars_are_kept_only_when_asked_and_redacted() {
    let record = r#"{"executionId":"e1","workflow":"review","costUsd":0.5,"modelUsage":{"m":{"inputTokens":1,"costUSD":0.5}},"permissionDenials":[{"toolName":"Edit","toolUseId":"t2"}],"msg":"Claude Agent SDK execution completed"}"#;
    let off = account(&[D1, record]);
    assert!(off.metrics().denial_exemplars.is_empty());
    assert!(off.metrics().workflows["review"].models["m"]
        .cost_exemplar
        .is_none());

    let secret = "sk-ant-api03-abcdefghijklmnopqrstuvwxyz0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZ";
    let denial = D1.replace("\"e1\"", &format!("\"{secret}\""));
    let mut a = Accountant::new(Config::default());
    a.set_exemplars(true);
    for line in [denial.as_str(), record] {
        feed(&mut a, line);
    }
    let m = a.metrics();
    let hook = &m.denial_exemplars[&denial_key(&NO_PATH_LABELS, "Bash", "review", Reason::Hook)];
    let id = hook.execution_id.as_deref().unwrap();
    assert!(
        id.contains("[REDACTED:") && !id.contains("abcdefghij"),
        "{id}"
    );
    assert_eq!(hook.tool_use_id.as_deref(), Some("t1"));
    let edit = &m.denial_exemplars[&denial_key(&NO_PATH_LABELS, "Edit", "review", Reason::Unknown)];
    assert_eq!(
        (edit.execution_id.as_deref(), edit.tool_use_id.as_deref()),
        (Some("e1"), Some("t2"))
    );
    let cost = m.workflows["review"].models["m"]
        .cost_exemplar
        .as_ref()
        .unwrap();
    assert_eq!(
        (cost.execution_id.as_deref(), cost.value),
        (Some("e1"), 0.5)
    );
}

/// What the redactor replaced, all kinds summed: one per secret redacted.
fn redactions(a: &Accountant) -> u64 {
    a.metrics().redactions.values().sum()
}

#[test]
fn each_id_is_redacted_once_per_line_whatever_shows_it() {
    let execution = "sk-ant-api03-abcdefghijklmnopqrstuvwxyz0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZ";
    let tool_use = |k: u32| format!("ghp_{k}A1b2C3d4E5f6G7h8I9j0K1l2M3n4O5p6Q7r");
    // A mid-stream denial classified at once (no tool use id to wait on): its execution id
    // shows in the exemplars of both counters and in its audit record.
    let denial = format!(
        r#"{{"executionId":"{execution}","workflow":"review","event":"agent.permission.denied","toolName":"Bash","decisionReasonType":"hook","decisionReason":"no"}}"#
    );
    // A record revealing two denials with their inputs (classified at once), and spend: its
    // execution id shows in four exemplars, a model's cost exemplar and two audit records.
    let record = format!(
        r#"{{"executionId":"{execution}","workflow":"review","modelUsage":{{"m":{{"inputTokens":1,"costUSD":0.5}}}},"permissionDenials":[{{"toolName":"Edit","toolUseId":"{}","toolInput":{{"file_path":"a"}}}},{{"toolName":"Read","toolUseId":"{}","toolInput":{{"file_path":"b"}}}}],"msg":"Claude Agent SDK execution completed"}}"#,
        tool_use(1),
        tool_use(2)
    );
    let mut a = Accountant::new(Config::default());
    a.set_exemplars(true);
    feed(&mut a, &denial);
    assert_eq!(redactions(&a), 1, "the denial's execution id, once");
    feed(&mut a, &record);
    assert_eq!(
        redactions(&a),
        1 + 1 + 2,
        "the record's execution id once, each tool use id once"
    );
    // Each shows redacted wherever it shows.
    let audit = a.take_audit();
    assert_eq!(audit.len(), 3);
    for record in &audit {
        let id = record.execution_id.as_deref().unwrap();
        assert!(id.starts_with("[REDACTED:"), "{id}");
    }
    let m = a.metrics();
    let exemplars = m
        .denial_exemplars
        .values()
        .chain(m.denial_risk_exemplars.values());
    for exemplar in exemplars {
        let id = exemplar.execution_id.as_deref().unwrap();
        assert!(id.starts_with("[REDACTED:"), "{id}");
        if let Some(tool_use) = exemplar.tool_use_id.as_deref() {
            assert!(tool_use.starts_with("[REDACTED:"), "{tool_use}");
        }
    }
    let cost = m.workflows["review"].models["m"].cost_exemplar.as_ref();
    assert!(cost
        .unwrap()
        .execution_id
        .as_deref()
        .unwrap()
        .starts_with("[REDACTED:"));
}

/// A refused call is counted once, with the tool it was asked for with, under the reason its
/// record gives; its ask is forgotten; the line's time, too far ahead, is counted once.
#[test]
fn a_refused_call_counts_once_and_forgets_its_ask() {
    let ask = r#"{"type":"assistant","message":{"content":[{"type":"tool_use","id":"t1","name":"Bash","input":{"command":"ls"}}]},"session_id":"s1"}"#;
    let future = (wall_now() * 1e6) as u64;
    let refuse = format!(
        r#"{{"type":"user","timestamp":{future},"message":{{"content":[{{"type":"tool_result","tool_use_id":"t1","is_error":true,"content":"no"}},{{"type":"tool_result","tool_use_id":"t2","is_error":true,"content":"no"}}]}},"tool_result_meta":[{{"id":"t1","permission_decision":{{"decision":"reject","source":"config","reason_type":"safety_check"}}}},{{"id":"t2","permission_decision":{{"decision":"reject","source":"hook"}}}}],"session_id":"s1"}}"#
    );
    let mut a = account(&[ask, &refuse, &refuse]);
    assert_eq!(
        count(&a, "Bash", "unknown", "safetyCheck"),
        1,
        "{:?}",
        a.denial_counts()
    );
    assert_eq!(count(&a, "unknown", "unknown", "hook"), 1);
    assert_eq!(a.metrics().times_rejected, 2, "once per line");
    let asked = |a: &mut Accountant| {
        let (asked, _) = a.state.executions.with("s1", 0.0, usize::MAX, |e| {
            e.calls.asked(Digest::of("t1")).is_some()
        });
        asked
    };
    assert!(!asked(&mut a));
    assert!(asked(&mut account(&[ask])));
}

/// A text that says the classifier gave no verdict is `classifierUnavailable` both as a
/// `classifier` frame's reason and as a free-text reason: those decode once recognised alone
/// (the first two) and those only the reason rules did (the rest).
#[test]
fn classifier_outage_texts_map_alike_through_a_frame_and_the_reason_rules() {
    for text in [
        "Classifier gave no verdict; denying for safety",
        "The service is temporarily unavailable",
        "Auto mode couldn't evaluate this action",
        "auto-mode unavailable",
        "Classifier is unavailable",
    ] {
        let frame = format!(
            r#"{{"type":"system","subtype":"permission_denied","tool_name":"Bash","tool_use_id":"t1","decision_reason_type":"classifier","decision_reason":"{text}","session_id":"s1"}}"#
        );
        let free = format!(
            r#"{{"executionId":"e1","workflow":"w","event":"agent.permission.denied","toolName":"Bash","toolUseId":"t1","decisionReason":"{text}"}}"#
        );
        let a = account(&[&frame, &free]);
        assert_eq!(
            count(&a, "Bash", "unknown", "classifierUnavailable"),
            1,
            "{text}"
        );
        assert_eq!(count(&a, "Bash", "w", "classifierUnavailable"), 1, "{text}");
    }
}
