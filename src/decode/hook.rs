//! Hook payloads appended to a log (formats.md §1c): Claude Code's `PermissionDenied` hook input
//! and the Rust agent CLI's `permission_denied` hook context.
//!
//! Both carry only a free-text `reason`; [`crate::account`] classifies it into the closed reason
//! set. **Not here:** pino and stream-json shapes, any state.

use serde_json::{Map, Value};

use super::{
    first_id, id_of, str_of, summarize_input, time, truncate_chars, Denial, Event, Format,
    MAX_SUMMARY_CHARS,
};
use crate::config::Fields;

/// Decodes a hook payload; `None` for anything else.
pub fn decode(object: &Map<String, Value>, fields: &Fields) -> Option<Event> {
    if str_of(object, "hook_event_name") == Some("PermissionDenied") {
        return Some(Event::Denial(claude_code(object, fields)));
    }
    if is_agent_cli_context(object) {
        return Some(Event::Denial(agent_cli(object, fields)));
    }
    None
}

fn claude_code(object: &Map<String, Value>, fields: &Fields) -> Denial {
    Denial {
        format: Format::ClaudeCodeHook,
        time: time::of_object(object),
        execution_id: first_id(object, &fields.correlation_keys),
        workflow: first_id(object, &fields.workflow_keys),
        tool: id_of(object, "tool_name").unwrap_or_else(|| "unknown".to_string()),
        tool_use_id: id_of(object, "tool_use_id"),
        reason_type: str_of(object, "decision_reason_type").map(str::to_string),
        reason_text: str_of(object, "reason").map(str::to_string),
        input_summary: object.get("tool_input").and_then(summarize_input),
    }
}

/// The agent CLI's context has no event name: it is recognised by its shape, a string `tool`
/// and `reason` plus `input_summary` (or an explicit `permission_denied` event name).
fn is_agent_cli_context(object: &Map<String, Value>) -> bool {
    let named = ["event", "hook_event", "hook"]
        .iter()
        .any(|k| str_of(object, k) == Some("permission_denied"));
    let shaped = object.get("tool").is_some_and(Value::is_string)
        && object.get("reason").is_some_and(Value::is_string)
        && object.contains_key("input_summary");
    named || shaped
}

fn agent_cli(object: &Map<String, Value>, fields: &Fields) -> Denial {
    Denial {
        format: Format::AgentCliHook,
        time: time::of_object(object),
        execution_id: first_id(object, &fields.correlation_keys),
        workflow: first_id(object, &fields.workflow_keys),
        tool: id_of(object, "tool").unwrap_or_else(|| "unknown".to_string()),
        tool_use_id: id_of(object, "tool_use_id"),
        reason_type: None,
        reason_text: str_of(object, "reason").map(str::to_string),
        input_summary: match object.get("input_summary") {
            Some(Value::String(s)) => Some(truncate_chars(s, MAX_SUMMARY_CHARS)),
            Some(other) => summarize_input(other),
            None => None,
        },
    }
}

#[cfg(test)]
mod tests {
    use super::super::{decode as decode_line, Skip};
    use super::*;

    #[test]
    fn claude_code_hook_input() {
        let line = r#"{"session_id":"abc","transcript_path":"/home/u/.claude/projects/x.jsonl","cwd":"/repo","hook_event_name":"PermissionDenied","tool_name":"Bash","tool_input":{"command":"git push --force"},"tool_use_id":"toolu_01H","reason":"Auto mode classifier denied this action"}"#;
        let Ok(Event::Denial(d)) = decode_line(line.as_bytes(), &Fields::default()) else {
            panic!()
        };
        assert_eq!(d.format, Format::ClaudeCodeHook);
        assert_eq!(
            (d.tool.as_str(), d.execution_id.as_deref()),
            ("Bash", Some("abc"))
        );
        assert_eq!(d.input_summary.as_deref(), Some("git push --force"));
        assert_eq!(
            d.reason_text.as_deref(),
            Some("Auto mode classifier denied this action")
        );
    }

    #[test]
    fn agent_cli_context() {
        let line = r#"{"session_id":"s9","turn":3,"tool":"Bash","tool_use_id":"call_abc","reason":"Denied by rule for Bash","input_summary":"rm -rf /","timestamp":"2026-04-23T23:45:01Z"}"#;
        let Ok(Event::Denial(d)) = decode_line(line.as_bytes(), &Fields::default()) else {
            panic!()
        };
        assert_eq!(d.format, Format::AgentCliHook);
        assert_eq!(
            (d.tool.as_str(), d.tool_use_id.as_deref()),
            ("Bash", Some("call_abc"))
        );
        assert_eq!(d.time, Some(1776987901.0));
        assert_eq!(d.input_summary.as_deref(), Some("rm -rf /"));
    }

    #[test]
    fn look_alikes_are_ignored() {
        for line in [
            r#"{"hook_event_name":"PreToolUse","tool_name":"Bash","reason":"x"}"#,
            r#"{"tool":"Bash","reason":"just a field pair"}"#,
            r#"{"level":30,"ctx":{"tool":"Bash","reason":"nested","turn":1}}"#,
        ] {
            assert_eq!(
                decode_line(line.as_bytes(), &Fields::default()),
                Err(Skip::Ignored),
                "{line}"
            );
        }
    }
}
