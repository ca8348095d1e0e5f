//! Hook payloads appended to a log (docs/formats.md, "Hook logs"): Claude Code's `PermissionDenied` hook input
//! and the Rust agent CLI's `permission_denied` hook context; Claude Code's `PostToolUse` hook
//! input says a call ran ([`super::calls`]).
//!
//! Both carry only a free-text `reason`; [`crate::account`] classifies it into the closed reason
//! set. **Not here:** pino and stream-json shapes, any state.

use super::object::Object;
use super::{
    cut_summary, first_id, summarize_input, time, tool_input, Attempted, Denial, Event, Format,
};
use crate::config::Fields;

/// Decodes a hook payload; `None` for anything else.
pub fn decode(object: &Object<'_>, fields: &Fields) -> Option<Event> {
    match object.str("hook_event_name").as_deref() {
        Some("PermissionDenied") => return Some(Event::Denial(claude_code(object, fields))),
        Some("PostToolUse") => {
            return super::calls::post_tool_use(object, fields).map(Event::Calls)
        }
        _ => {}
    }
    if is_agent_cli_context(object) {
        return Some(Event::Denial(agent_cli(object, fields)));
    }
    None
}

fn claude_code(object: &Object<'_>, fields: &Fields) -> Denial {
    let (input_summary, attempted) = tool_input(object.raw("tool_input"));
    Denial {
        format: Format::ClaudeCodeHook,
        time: time::of_object(object),
        execution_id: first_id(object, &fields.correlation_keys),
        workflow: first_id(object, &fields.workflow_keys),
        tool: object
            .id("tool_name")
            .unwrap_or_else(|| "unknown".to_string()),
        tool_use_id: object.id("tool_use_id"),
        reason_type: object.str("decision_reason_type").map(|s| s.into_owned()),
        reason_text: object.str("reason").map(|s| s.into_owned()),
        input_summary,
        attempted,
    }
}

/// The agent CLI's context has no event name: it is recognised by its shape, a string `tool`
/// and `reason` plus `input_summary` (or an explicit `permission_denied` event name).
fn is_agent_cli_context(object: &Object<'_>) -> bool {
    let named = ["event", "hook_event", "hook"]
        .iter()
        .any(|k| object.str(k).as_deref() == Some("permission_denied"));
    let shaped = object.is_str("tool") && object.is_str("reason") && object.has("input_summary");
    named || shaped
}

fn agent_cli(object: &Object<'_>, fields: &Fields) -> Denial {
    let input_summary = match object.str("input_summary") {
        Some(s) => Some(cut_summary(&s)),
        None => object
            .value("input_summary")
            .as_ref()
            .and_then(summarize_input),
    };
    Denial {
        format: Format::AgentCliHook,
        time: time::of_object(object),
        execution_id: first_id(object, &fields.correlation_keys),
        workflow: first_id(object, &fields.workflow_keys),
        tool: object.id("tool").unwrap_or_else(|| "unknown".to_string()),
        tool_use_id: object.id("tool_use_id"),
        reason_type: None,
        reason_text: object.str("reason").map(|s| s.into_owned()),
        attempted: input_summary.clone().map(Attempted::Text),
        input_summary,
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
