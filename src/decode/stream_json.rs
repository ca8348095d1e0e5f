//! The Agent SDK's stream-json messages (docs/formats.md, "The Agent SDK's stream-json"): `system`/`permission_denied` frames,
//! `result` messages, and the tool calls of `assistant` and `user` messages ([`super::calls`]).
//!
//! A result in a streaming-input session carries running totals (`total_cost_usd`, `modelUsage`)
//! beside per-result figures (`usage`, `num_turns`, `duration_ms`, `permission_denials`, and
//! `model_usage_since_last_result` where the CLI sends it; docs/formats.md, "What the SDK reports by itself"); this module reports
//! them as they are and [`crate::account`] turns totals into increments. **Not here:** pino or
//! hook shapes, `modelUsage` itself ([`super::usage`]), any state.

use serde_json::Value;

use super::calls;
use super::list::denial_list;
use super::object::Object;
use super::usage;
use super::{
    first_id, first_num, num_in, time, tool_input, Denial, Event, Format, Record, RecordedDenials,
    Tokens,
};
use crate::config::Fields;

/// Decodes a `permission_denied` frame or a `result` message; `None` for anything else.
pub fn decode(object: &Object<'_>, fields: &Fields) -> Option<Event> {
    let kind = object.str("type")?;
    match (kind.as_ref(), object.str("subtype").as_deref()) {
        ("system", Some("permission_denied")) => Some(Event::Denial(frame(object, fields))),
        ("result", _) => Some(Event::Record(result(object, fields))),
        ("assistant", _) => calls::requested(object, fields).map(Event::Calls),
        ("user", _) => calls::answered(object, fields).map(Event::Calls),
        _ => None,
    }
}

fn frame(object: &Object<'_>, fields: &Fields) -> Denial {
    let (input_summary, attempted) = tool_input(object.raw("tool_input"));
    let reason_text = object.str("decision_reason");
    let message = object.str("message");
    let reason_type = super::reason_type(
        object.str("decision_reason_type").map(|s| s.into_owned()),
        || {
            let code = object.str("decision_reason_code");
            super::classifier_outage(
                code.as_deref(),
                &[reason_text.as_deref(), message.as_deref()],
            )
        },
    );
    Denial {
        format: Format::StreamJson,
        time: time::of_object(object),
        execution_id: first_id(object, &fields.correlation_keys),
        workflow: first_id(object, &fields.workflow_keys),
        tool: object
            .id("tool_name")
            .unwrap_or_else(|| "unknown".to_string()),
        tool_use_id: object.id("tool_use_id"),
        reason_type,
        reason_text: reason_text.or(message).map(|s| s.into_owned()),
        input_summary,
        attempted,
    }
}

fn result(object: &Object<'_>, fields: &Fields) -> Record {
    // modelUsage is a running total per session and complete; `usage` covers the last turn only.
    let model_usage = object
        .value("modelUsage")
        .as_ref()
        .and_then(usage::model_usage);
    let (tokens, model_cost) = match &model_usage {
        Some(models) => {
            let sum = usage::total(models);
            (Some(sum.tokens), sum.cost_usd)
        }
        None => (object.value("usage").as_ref().and_then(usage_tokens), None),
    };
    let denials = denial_list(object, &["permission_denials"], fields)
        .map_or(RecordedDenials::None, RecordedDenials::List);
    Record {
        format: Format::StreamJson,
        time: time::of_object(object),
        execution_id: first_id(object, &fields.correlation_keys),
        workflow: first_id(object, &fields.workflow_keys),
        outcome: object.str("subtype").map(|s| s.into_owned()),
        cost_usd: first_num(object, &["total_cost_usd", "cost_usd"]).or(model_cost),
        duration_seconds: first_num(object, &["duration_ms"]).map(|ms| ms / 1000.0),
        turns: first_num(object, &["num_turns"]),
        tokens,
        model_usage,
        model_usage_delta: object
            .value("model_usage_since_last_result")
            .as_ref()
            .and_then(usage::model_usage),
        denials,
    }
}

fn usage_tokens(usage: &Value) -> Option<Tokens> {
    let usage = usage.as_object()?;
    Some(Tokens {
        input: num_in(usage, &["input_tokens"]).unwrap_or(0.0),
        output: num_in(usage, &["output_tokens"]).unwrap_or(0.0),
        cache_read: num_in(usage, &["cache_read_input_tokens"]).unwrap_or(0.0),
        cache_creation: num_in(usage, &["cache_creation_input_tokens"]).unwrap_or(0.0),
    })
}

#[cfg(test)]
mod tests {
    use super::super::{decode as decode_line, Skip};
    use super::*;

    #[test]
    fn frame_decodes() {
        let line = r#"{"type":"system","subtype":"permission_denied","tool_name":"Bash","tool_use_id":"toolu_01X","decision_reason_type":"rule","decision_reason":"Bash(rm:*) is denied","message":"Permission to use Bash has been denied.","uuid":"u","session_id":"s1"}"#;
        let Ok(Event::Denial(d)) = decode_line(line.as_bytes(), &Fields::default()) else {
            panic!()
        };
        assert_eq!(d.format, Format::StreamJson);
        assert_eq!(
            (
                d.tool.as_str(),
                d.tool_use_id.as_deref(),
                d.execution_id.as_deref()
            ),
            ("Bash", Some("toolu_01X"), Some("s1"))
        );
        assert_eq!(d.reason_type.as_deref(), Some("rule"));
    }

    #[test]
    fn a_classifier_that_gave_no_verdict_is_told_from_one_that_blocked() {
        let frame = |extra: &str| {
            let line = format!(
                r#"{{"type":"system","subtype":"permission_denied","tool_name":"Bash","tool_use_id":"t","decision_reason_type":"classifier",{extra}"session_id":"s"}}"#
            );
            match decode_line(line.as_bytes(), &Fields::default()) {
                Ok(Event::Denial(d)) => d.reason_type.unwrap(),
                other => panic!("{other:?}"),
            }
        };
        // As CLI 2.1.330 sends them (docs/formats.md has every text).
        assert_eq!(
            frame(r#""decision_reason":"Classifier unavailable","#),
            "classifierUnavailable"
        );
        assert_eq!(
            frame(
                r#""decision_reason":"Auto mode could not evaluate this action and is blocking it for safety — run with --debug for details","#
            ),
            "classifierUnavailable"
        );
        assert_eq!(
            frame(
                r#""decision_reason_code":"classifier_transcript_too_long","decision_reason":"Auto mode classifier transcript exceeded context window; will try to compact the conversation before the next request","#
            ),
            "classifierUnavailable"
        );
        assert_eq!(
            frame(r#""decision_reason_code":"auto_mode_no_check_in_session","#),
            "classifierUnavailable"
        );
        assert_eq!(
            frame(
                r#""message":"claude-sonnet-4-6 is temporarily unavailable, so auto mode cannot determine the safety of Bash right now.","#
            ),
            "classifierUnavailable"
        );
        assert_eq!(
            frame(
                r#""decision_reason":"[Code from External] Runs a script fetched from the internet.","#
            ),
            "classifier"
        );
    }

    #[test]
    fn result_decodes_running_totals() {
        let line = r#"{"type":"result","subtype":"error_max_turns","duration_ms":60000,"num_turns":7,"total_cost_usd":1.23,"usage":{"input_tokens":1},"modelUsage":{"a":{"inputTokens":10,"outputTokens":20,"cacheReadInputTokens":30,"cacheCreationInputTokens":40,"costUSD":1},"b":{"inputTokens":1}},"permission_denials":[{"tool_name":"Bash","tool_use_id":"toolu_01X","tool_input":{"command":"rm -rf /"}}],"session_id":"s1","uuid":"u"}"#;
        let Ok(Event::Record(r)) = decode_line(line.as_bytes(), &Fields::default()) else {
            panic!()
        };
        assert_eq!(r.outcome.as_deref(), Some("error_max_turns"));
        assert_eq!(r.cost_usd, Some(1.23));
        assert_eq!(r.duration_seconds, Some(60.0));
        assert_eq!(r.tokens.unwrap().input, 11.0);
        assert_eq!(r.tokens.unwrap().cache_creation, 40.0);
        let RecordedDenials::List(list) = r.denials else {
            panic!()
        };
        assert_eq!(list[0].input_summary().as_deref(), Some("rm -rf /"));
    }

    #[test]
    fn result_reads_model_usage_and_its_delta() {
        // As CLI 2.1.330 sends it: the second result of a streaming-input session.
        let line = r#"{"type":"result","subtype":"success","total_cost_usd":0.0465,"usage":{"input_tokens":2268,"output_tokens":5},"modelUsage":{"claude-sonnet-4-5":{"inputTokens":1213,"outputTokens":100,"costUSD":0.0323},"claude-haiku-4-5":{"inputTokens":2268,"outputTokens":5,"cacheReadInputTokens":7,"costUSD":0.0142}},"model_usage_since_last_result":{"claude-haiku-4-5":{"inputTokens":2268,"outputTokens":5,"cacheReadInputTokens":7,"costUSD":0.0142}},"result_index":1,"session_id":"s1"}"#;
        let Ok(Event::Record(r)) = decode_line(line.as_bytes(), &Fields::default()) else {
            panic!()
        };
        let models = r.model_usage.unwrap();
        assert_eq!(models.len(), 2);
        let haiku = models
            .iter()
            .find(|(m, _)| m == "claude-haiku-4-5")
            .unwrap();
        assert_eq!(haiku.1.tokens.cache_read, 7.0);
        assert_eq!(haiku.1.cost_usd, Some(0.0142));
        assert_eq!(r.tokens.unwrap().input, 3481.0, "modelUsage, not usage");
        let delta = r.model_usage_delta.unwrap();
        assert_eq!(delta.len(), 1);
        assert_eq!(delta[0].0, "claude-haiku-4-5");
    }

    #[test]
    fn other_messages_are_ignored() {
        for line in [
            r#"{"type":"assistant","message":{"content":[{"type":"text","text":"permission_denied"}]},"session_id":"s"}"#,
            r#"{"type":"system","subtype":"init","session_id":"s","permission_denials":[]}"#,
            r#"{"type":"user","message":{"type":"result"}}"#,
            r#"{"type":"user","message":{"content":[{"type":"text","text":"hi"}]},"session_id":"s"}"#,
        ] {
            assert_eq!(
                decode_line(line.as_bytes(), &Fields::default()),
                Err(Skip::Ignored),
                "{line}"
            );
        }
    }
}
