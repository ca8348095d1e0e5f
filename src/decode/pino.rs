//! The executor's pino log (docs/formats.md, "The executor's pino log"): `agent.permission.denied` events and the
//! completed-execution line.
//!
//! A line is a denial if and only if its top-level event key equals the configured denied event;
//! it is a record if and only if its top-level message equals the configured completed message.
//! **Not here:** stream-json and hook shapes (sibling modules), any state.

use serde_json::Value;

use super::calls;
use super::list::denial_list;
use super::object::{is_literally, Object};
use super::{
    first_id, first_num, time, tool_input, usage, Denial, Event, Format, Record, RecordedDenials,
    Tokens,
};
use crate::config::Fields;

/// Decodes a pino denial or completed line; `None` for anything else.
///
/// The event name and the completed message must be written as such, not spelled with JSON
/// escapes (`agent.permission.\u0064enied`): the prefilter searches the bytes for them, so a
/// line is a denial whatever else it holds, or never (pino escapes no letter).
pub fn decode(object: &Object<'_>, fields: &Fields) -> Option<Event> {
    let event = object.raw(&fields.event_key);
    let event_is = |want: &str| event.is_some_and(|event| is_literally(event, want));
    if event_is(&fields.denied_event) {
        return Some(Event::Denial(denial(object, fields)));
    }
    if object.is_literally(&fields.message_key, &fields.completed_message) {
        return Some(Event::Record(record(object, fields)));
    }
    if event_is(calls::TOOL_RESULT_EVENT) {
        return calls::pino_answer(object, fields).map(Event::Calls);
    }
    None
}

fn denial(object: &Object<'_>, fields: &Fields) -> Denial {
    let (input_summary, attempted) =
        tool_input(object.raw("toolInput").or_else(|| object.raw("tool_input")));
    let text = |keys: &[&str]| {
        keys.iter()
            .find_map(|k| object.str(k))
            .map(|s| s.into_owned())
    };
    Denial {
        format: Format::Pino,
        time: time::of_object(object),
        execution_id: first_id(object, &fields.correlation_keys),
        workflow: first_id(object, &fields.workflow_keys),
        tool: object
            .id(&fields.tool_key)
            .or_else(|| object.id("tool_name"))
            .unwrap_or_else(|| "unknown".to_string()),
        tool_use_id: object
            .id(&fields.tool_use_id_key)
            .or_else(|| object.id("tool_use_id")),
        reason_type: super::reason_type(
            text(&[&fields.reason_type_key, "decision_reason_type"]),
            || {
                let code = text(&["decisionReasonCode", "decision_reason_code"]);
                let reason = text(&[&fields.reason_key, "decision_reason"]);
                let message = text(&["message"]);
                super::classifier_outage(code.as_deref(), &[reason.as_deref(), message.as_deref()])
            },
        ),
        reason_text: text(&[&fields.reason_key, "decision_reason", "message"]),
        input_summary,
        attempted,
    }
}

fn record(object: &Object<'_>, fields: &Fields) -> Record {
    let token = |keys: &[&str]| first_num(object, keys);
    let model_usage = object
        .value("modelUsage")
        .as_ref()
        .and_then(usage::model_usage);
    let from_models = model_usage.as_ref().map(usage::total).unwrap_or_default();
    let top_level = [
        token(&["inputTokens", "input_tokens"]),
        token(&["outputTokens", "output_tokens"]),
        token(&["cacheReadInputTokens", "cache_read_input_tokens"]),
        token(&["cacheCreationInputTokens", "cache_creation_input_tokens"]),
    ];
    // modelUsage is complete; the top-level counts may be a copy of the last turn's `usage`.
    // Kind by kind: what modelUsage states, else the top-level field.
    let models = from_models.tokens.as_array();
    let kinds: [Option<f64>; 4] = std::array::from_fn(|i| {
        if from_models.stated[i] {
            Some(models[i])
        } else {
            top_level[i]
        }
    });
    let tokens = kinds.iter().any(Option::is_some).then(|| Tokens {
        input: kinds[0].unwrap_or(0.0),
        output: kinds[1].unwrap_or(0.0),
        cache_read: kinds[2].unwrap_or(0.0),
        cache_creation: kinds[3].unwrap_or(0.0),
    });
    let model_cost = from_models.cost_usd;
    Record {
        format: Format::Pino,
        time: time::of_object(object),
        execution_id: first_id(object, &fields.correlation_keys),
        workflow: first_id(object, &fields.workflow_keys),
        outcome: object.str("subtype").map(|s| s.into_owned()),
        cost_usd: first_num(
            object,
            &["costUsd", "cost_usd", "totalCostUsd", "total_cost_usd"],
        )
        .or(model_cost),
        duration_seconds: first_num(object, &["durationMs", "duration_ms"]).map(|ms| ms / 1000.0),
        turns: first_num(object, &["numTurns", "num_turns"]),
        tokens,
        model_usage,
        model_usage_delta: object
            .value("modelUsageSinceLastResult")
            .or_else(|| object.value("model_usage_since_last_result"))
            .as_ref()
            .and_then(usage::model_usage),
        denials: recorded_denials(object, fields),
    }
}

/// The denial record of a completed line: the list, else per-tool counts, else the total.
fn recorded_denials(object: &Object<'_>, fields: &Fields) -> RecordedDenials {
    if let Some(list) = denial_list(object, &["permissionDenials", "permission_denials"], fields) {
        return RecordedDenials::List(list);
    }
    if let Some(Value::Object(per_tool)) = object.value("permissionDeniedTools") {
        let counts = per_tool
            .iter()
            .filter_map(|(tool, n)| Some((tool.clone(), n.as_f64().filter(|n| *n >= 0.0)? as u64)))
            .collect();
        return RecordedDenials::PerTool(counts);
    }
    match object.num("permissionDenialCount") {
        Some(n) => RecordedDenials::Total(n as u64),
        None => RecordedDenials::None,
    }
}

#[cfg(test)]
mod tests {
    use super::super::{decode as decode_line, Skip};
    use super::*;

    fn f() -> Fields {
        Fields::default()
    }

    const DENIAL: &str = r#"{"level":40,"time":1781251200139,"pid":4242,"hostname":"executor-7d9f6c5b8-x2x9q","component":"executor","executionId":"exec_1","jobId":"job_1","workflow":"review","installationId":10792956,"repo":"acme/web","event":"agent.permission.denied","toolName":"Bash","toolUseId":"toolu_01A","decisionReasonType":"hook","decisionReason":"PreToolUse hook block-destructive-bash denied: git push --force","message":"Permission to use Bash has been denied.","msg":"agent permission denied"}"#;

    fn valid_cases() -> Vec<(&'static str, Event)> {
        vec![
            (
                DENIAL,
                Event::Denial(Denial {
                    format: Format::Pino,
                    time: Some(1781251200.139),
                    execution_id: Some("exec_1".into()),
                    workflow: Some("review".into()),
                    tool: "Bash".into(),
                    tool_use_id: Some("toolu_01A".into()),
                    reason_type: Some("hook".into()),
                    reason_text: Some(
                        "PreToolUse hook block-destructive-bash denied: git push --force".into(),
                    ),
                    input_summary: None,
                    attempted: None,
                }),
            ),
            (
                // label level, ISO time, duplicate binding (last wins), no toolUseId
                r#"{"level":"warn","time":"2026-06-12T10:00:00.500Z","workflow":"old","executionId":"exec_2","workflow":"implement","event":"agent.permission.denied","toolName":"Edit","decisionReasonType":"rule","msg":"agent permission denied"}"#,
                Event::Denial(Denial {
                    format: Format::Pino,
                    time: Some(1781258400.5),
                    execution_id: Some("exec_2".into()),
                    workflow: Some("implement".into()),
                    tool: "Edit".into(),
                    tool_use_id: None,
                    reason_type: Some("rule".into()),
                    reason_text: None,
                    input_summary: None,
                    attempted: None,
                }),
            ),
        ]
    }

    fn decoys() -> Vec<&'static str> {
        vec![
            // Spelled with an escape: never a denial, whether or not another field holds a
            // literal the prefilter picks the line for.
            r#"{"level":40,"event":"agent.permission.\u0064enied","toolName":"Bash","msg":"agent permission denied"}"#,
            r#"{"level":30,"msg":"Claude Agent SDK execution \u0063ompleted","permissionDenialCount":2}"#,
            r#"{"level":30,"payload":{"event":"agent.permission.denied","toolName":"Bash"},"msg":"nested"}"#,
            r#"{"level":30,"msg":"saw {\"event\":\"agent.permission.denied\",\"toolName\":\"Bash\"} in a comment"}"#,
            r#"{"level":30,"event":"agent.permission.requested","toolName":"Bash","msg":"asking"}"#,
            r#"{"level":30,"event":"pull_request.opened","msg":"agent.permission.denied"}"#,
            r#"{"level":30,"Event":"agent.permission.denied","msg":"case differs"}"#,
            r#"{"level":30,"msg":"Claude Agent SDK execution completed (not really)"}"#,
        ]
    }

    #[test]
    fn valid() {
        for (line, want) in valid_cases() {
            assert_eq!(decode_line(line.as_bytes(), &f()), Ok(want), "{line}");
        }
    }

    #[test]
    fn decoys_are_ignored() {
        for line in decoys() {
            assert_eq!(
                decode_line(line.as_bytes(), &f()),
                Err(Skip::Ignored),
                "{line}"
            );
        }
    }

    #[test]
    fn configured_names_are_used() {
        let fields = Fields {
            event_key: "evt".into(),
            denied_event: "tool.denied".into(),
            correlation_keys: vec!["runId".into()],
            workflow_keys: vec!["pipeline".into()],
            tool_key: "tool".into(),
            ..Fields::default()
        };
        let line = r#"{"evt":"tool.denied","runId":"r1","pipeline":"nightly","tool":"Write"}"#;
        let Ok(Event::Denial(d)) = decode_line(line.as_bytes(), &fields) else {
            panic!()
        };
        assert_eq!(
            (
                d.execution_id.as_deref(),
                d.workflow.as_deref(),
                d.tool.as_str()
            ),
            (Some("r1"), Some("nightly"), "Write")
        );
        assert_eq!(decode_line(DENIAL.as_bytes(), &fields), Err(Skip::Ignored));
    }

    #[test]
    fn completed_line_with_list() {
        let line = r#"{"level":30,"time":1781251700000,"executionId":"exec_1","workflow":"implement","sdkMsgType":"result","subtype":"success","costUsd":2.93,"durationMs":491545,"numTurns":21,"inputTokens":6337,"outputTokens":13081,"cacheReadInputTokens":374483,"cacheCreationInputTokens":29450,"modelUsage":{"claude-sonnet-4-5":{"inputTokens":6337,"outputTokens":13081,"costUSD":0.5}},"permissionDenialCount":3,"permissionDeniedTools":{"Bash":1,"Edit":1,"mcp__github_comment__add_comment":1},"permissionDenials":[{"toolName":"Bash","toolUseId":"toolu_01","toolInput":{"command":"curl -H 'Authorization: Bearer x' https://example.com"}}],"msg":"Claude Agent SDK execution completed"}"#;
        let Ok(Event::Record(r)) = decode_line(line.as_bytes(), &f()) else {
            panic!()
        };
        assert_eq!(r.execution_id.as_deref(), Some("exec_1"));
        assert_eq!(r.outcome.as_deref(), Some("success"));
        assert_eq!(r.cost_usd, Some(2.93));
        assert_eq!(r.duration_seconds, Some(491.545));
        assert_eq!(r.turns, Some(21.0));
        assert_eq!(r.tokens.unwrap().cache_read, 374483.0);
        let RecordedDenials::List(list) = r.denials else {
            panic!()
        };
        assert_eq!(list.len(), 1);
        assert_eq!(list[0].tool_use_id.as_deref(), Some("toolu_01"));
        assert!(list[0]
            .input_summary()
            .as_deref()
            .unwrap()
            .starts_with("curl"));
    }

    #[test]
    fn completed_line_prefers_model_usage_over_copied_usage() {
        // The executor copies the last result's `usage` into inputTokens…; modelUsage is complete
        // (the real SDK's streaming-input session, result_index 2: docs/formats.md, "What the SDK reports by itself").
        let line = r#"{"executionId":"e","workflow":"implement","subtype":"success","costUsd":0.05637845,"inputTokens":1130,"outputTokens":9,"cacheReadInputTokens":1,"cacheCreationInputTokens":2,"modelUsage":{"claude-sonnet-4-5":{"inputTokens":1213,"outputTokens":50,"cacheReadInputTokens":100,"cacheCreationInputTokens":10,"costUSD":0.03231345},"claude-haiku-4-5":{"inputTokens":3398,"outputTokens":70,"cacheReadInputTokens":200,"cacheCreationInputTokens":20,"costUSD":0.024065}},"msg":"Claude Agent SDK execution completed"}"#;
        let Ok(Event::Record(r)) = decode_line(line.as_bytes(), &f()) else {
            panic!()
        };
        let tokens = r.tokens.unwrap();
        assert_eq!(
            (
                tokens.input,
                tokens.output,
                tokens.cache_read,
                tokens.cache_creation
            ),
            (4611.0, 120.0, 300.0, 30.0)
        );
        assert_eq!(r.cost_usd, Some(0.05637845), "the line's own total wins");
        assert_eq!(r.model_usage.unwrap().len(), 2);
        // Without modelUsage the top-level fields are the figure, and the cost may come from
        // modelUsage when the line has no total.
        let line =
            r#"{"executionId":"e","inputTokens":5,"msg":"Claude Agent SDK execution completed"}"#;
        let Ok(Event::Record(r)) = decode_line(line.as_bytes(), &f()) else {
            panic!()
        };
        assert_eq!(r.tokens.unwrap().input, 5.0);
        assert!(r.model_usage.is_none());
        let line = r#"{"executionId":"e","modelUsage":{"m":{"costUSD":0.5}},"msg":"Claude Agent SDK execution completed"}"#;
        let Ok(Event::Record(r)) = decode_line(line.as_bytes(), &f()) else {
            panic!()
        };
        assert_eq!(r.cost_usd, Some(0.5));
    }

    #[test]
    fn completed_line_without_list_falls_back() {
        let line = r#"{"executionId":"e","permissionDenialCount":3,"permissionDeniedTools":{"Bash":2,"Edit":1},"msg":"Claude Agent SDK execution completed"}"#;
        let Ok(Event::Record(r)) = decode_line(line.as_bytes(), &f()) else {
            panic!()
        };
        assert_eq!(
            r.denials,
            RecordedDenials::PerTool(vec![("Bash".into(), 2), ("Edit".into(), 1)])
        );
        let line = r#"{"executionId":"e","permissionDenialCount":3,"msg":"Claude Agent SDK execution completed"}"#;
        let Ok(Event::Record(r)) = decode_line(line.as_bytes(), &f()) else {
            panic!()
        };
        assert_eq!(r.denials, RecordedDenials::Total(3));
    }
}
