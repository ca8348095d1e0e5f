//! What happened to tool calls, from the SDK's own per-call record (docs/formats.md, "What the
//! SDK's per-call record says"): the calls an `assistant` message asks for, and each call's
//! answer in the `user` message that follows (its `tool_result` and its `tool_result_meta`
//! record), in stream-json or as the executor's `agent.tool.result` pino line; and Claude Code's
//! `PostToolUse` hook input (the call ran).
//!
//! Owns the mapping of a per-call record onto a [`Reason`] ([`rejection_reason`]) and the
//! rule that says a call ran: a `tool_result` that is not an error, with output, and no rejection
//! record. **Not here:** what an answer means for counting (a denial, one that ran anyway: that
//! is `crate::account`'s), frames and records ([`super::stream_json`], [`super::pino`]).
//!
//! Cold: per tool call, on lines the prefilter picked by `"parent_tool_use_id"` (every SDK
//! `assistant` and `user` message), `"agent.tool.result"` or `"PostToolUse"`. A message is read
//! with [`Object`] and derived structs, no hand-written visitor: as fast, measured in
//! docs/performance.md.

use serde::Deserialize;
use serde_json::value::RawValue;
use serde_json::Value;

use super::object::{raw_id, raw_str, Object};
use super::{first_id, time, Format};
use crate::config::Fields;
use crate::vocab::digest::Digest;
use crate::vocab::Reason;

/// The pino event an executor logs for each tool call's answer (docs/formats.md).
pub const TOOL_RESULT_EVENT: &str = "agent.tool.result";

/// The longest answer text kept as a denial's reason text, in bytes; a longer one is cut (on a
/// character boundary) before redaction, so what is kept holds no cut secret only if the audit
/// bound is shorter still, which it is (`crate::account::AUDIT_TEXT_CHARS`).
const MAX_ANSWER_TEXT_BYTES: usize = 4096;

/// Tool calls of one execution, asked for or answered, in the order the line lists them.
#[derive(Debug, Clone, PartialEq)]
pub struct Calls {
    pub format: Format,
    pub time: Option<f64>,
    pub execution_id: Option<String>,
    pub workflow: Option<String>,
    pub calls: Vec<Call>,
}

/// One tool call, asked for or answered.
#[derive(Debug, Clone, PartialEq)]
pub struct Call {
    pub tool_use_id: String,
    /// The tool, where the line names it (an `assistant` block, a hook input, a pino line).
    pub tool: Option<String>,
    /// The digest of the call's input ([`Digest::of_input`], an `assistant` block only): the
    /// input itself is neither copied nor kept.
    pub input: Option<Digest>,
    pub outcome: Outcome,
}

/// What a line says of a call.
#[derive(Debug, Clone, PartialEq)]
pub enum Outcome {
    /// The model asked for it; no answer yet.
    Requested,
    /// It ran: a result that is not an error, with output and no rejection record, or a
    /// `PostToolUse` hook input.
    Ran,
    /// A permission layer refused it (its per-call record says `reject`).
    Rejected {
        /// The reason its record gives ([`rejection_reason`]).
        reason: Reason,
        /// The answer's text (the layer's message); unredacted.
        text: Option<String>,
    },
    /// Answered otherwise: an error that is not a denial, or a result without output.
    Failed,
}

/// A stream-json `assistant` message's `tool_use` blocks, or `None` when it has none.
pub fn requested(object: &Object<'_>, fields: &Fields) -> Option<Calls> {
    let calls: Vec<Call> = blocks(object)
        .iter()
        .filter(|b| b.is("tool_use"))
        .filter_map(|b| {
            Some(Call {
                tool_use_id: raw_id(b.id?)?,
                tool: b.name.and_then(raw_id),
                input: b.input.map(|i| Digest::of_input(i.get())),
                outcome: Outcome::Requested,
            })
        })
        .collect();
    (!calls.is_empty()).then(|| of(object, fields, Format::StreamJson, calls))
}

/// A stream-json `user` message's answers: each `tool_result` block with its record in
/// `tool_result_meta` (a record without a block stands alone); `None` when it has neither.
pub fn answered(object: &Object<'_>, fields: &Fields) -> Option<Calls> {
    let records = meta_records(object.raw("tool_result_meta"));
    let mut calls: Vec<Call> = Vec::new();
    for block in blocks(object) {
        if !block.is("tool_result") {
            continue;
        }
        let Some(id) = block.tool_use_id.and_then(raw_id) else {
            continue;
        };
        let record = records.iter().find(|(rid, _)| rid.as_deref() == Some(&id));
        let is_error = block.is_error.map(|r| r.get() == "true");
        let content = block.content;
        calls.push(Call {
            outcome: outcome(record.map(|(_, m)| m), is_error, content),
            tool_use_id: id,
            tool: None,
            input: None,
        });
    }
    for (id, record) in &records {
        let Some(id) = id
            .as_ref()
            .filter(|id| !calls.iter().any(|c| &c.tool_use_id == *id))
        else {
            continue;
        };
        if let Some(reason) = rejection_reason(record) {
            calls.push(Call {
                tool_use_id: id.clone(),
                tool: None,
                input: None,
                outcome: Outcome::Rejected { reason, text: None },
            });
        }
    }
    (!calls.is_empty()).then(|| of(object, fields, Format::StreamJson, calls))
}

/// The executor's `agent.tool.result` line: `toolUseId`, `toolName`, `isError` and the call's
/// `toolResultMeta` record as the SDK gave it. It never carries the output, so a call ran when
/// `isError` is false and its record does not reject it.
pub fn pino_answer(object: &Object<'_>, fields: &Fields) -> Option<Calls> {
    let id = object
        .id(&fields.tool_use_id_key)
        .or_else(|| object.id("tool_use_id"))?;
    let record = object
        .value("toolResultMeta")
        .or_else(|| object.value("tool_result_meta"));
    let record = match record {
        Some(Value::Array(items)) => items.into_iter().find(|m| meta_id(m) == Some(&id)),
        other => other,
    };
    let is_error = object
        .raw("isError")
        .or_else(|| object.raw("is_error"))
        .map(|r| r.get() == "true");
    let outcome = match (record.as_ref().and_then(rejection_reason), is_error) {
        (Some(reason), _) => Outcome::Rejected { reason, text: None },
        (None, Some(false)) => Outcome::Ran,
        (None, _) => Outcome::Failed,
    };
    let call = Call {
        tool_use_id: id,
        tool: object
            .id(&fields.tool_key)
            .or_else(|| object.id("tool_name")),
        input: None,
        outcome,
    };
    Some(of(object, fields, Format::Pino, vec![call]))
}

/// Claude Code's `PostToolUse` hook input: the call ran.
pub fn post_tool_use(object: &Object<'_>, fields: &Fields) -> Option<Calls> {
    let call = Call {
        tool_use_id: object.id("tool_use_id")?,
        tool: object.id("tool_name"),
        input: None,
        outcome: Outcome::Ran,
    };
    Some(of(object, fields, Format::ClaudeCodeHook, vec![call]))
}

/// The reason a per-call record gives a refused call, or `None` when it does not refuse it
/// (`decision` is not `reject`, and there is no `non_execution_kind` without a decision).
///
/// The classifier giving no verdict (`automode-unavailable`, `automode-parsing-error`) is
/// `classifierUnavailable`; else the record's `reason_type` (`other` when it names no reason);
/// else its `source`: `user_reject` (a `canUseTool` callback) is `permissionPromptTool`, `hook`
/// is `hook`; else (a headless ask, `user-rejected`, and anything never seen) `other`.
pub fn rejection_reason(record: &Value) -> Option<Reason> {
    let field = |v: &Value, keys: [&str; 2]| -> Option<String> {
        keys.iter()
            .find_map(|k| v.get(*k)?.as_str())
            .map(str::to_string)
    };
    let kind = field(record, ["non_execution_kind", "nonExecutionKind"]);
    let decision = ["permission_decision", "permissionDecision"]
        .iter()
        .find_map(|k| record.get(*k))
        .cloned()
        .unwrap_or(Value::Null);
    let verdict = field(&decision, ["decision", "decision"]);
    let refused = match verdict.as_deref() {
        Some(v) => v == "reject" || v == "deny",
        None => kind.is_some(),
    };
    if !refused {
        return None;
    }
    let reason_type = field(&decision, ["reason_type", "reasonType"]);
    let source = field(&decision, ["source", "source"]);
    let reason = match (kind.as_deref(), reason_type.as_deref(), source.as_deref()) {
        (Some("automode-unavailable" | "automode-parsing-error"), _, _) => {
            Reason::ClassifierUnavailable
        }
        (_, Some(t), _) if !t.is_empty() => Reason::from_type(t).unwrap_or(Reason::Other),
        (_, _, Some("user_reject")) => Reason::PermissionPromptTool,
        (_, _, Some("hook")) => Reason::Hook,
        _ => Reason::Other,
    };
    Some(reason)
}

/// What a `tool_result` block and its record say of the call.
fn outcome(record: Option<&Value>, is_error: Option<bool>, content: Option<&RawValue>) -> Outcome {
    if let Some(reason) = record.and_then(rejection_reason) {
        return Outcome::Rejected {
            reason,
            text: content.and_then(answer_text),
        };
    }
    let has_output = content.is_some_and(|c| c.get() != "null");
    match is_error {
        Some(true) => Outcome::Failed,
        _ if has_output => Outcome::Ran,
        _ => Outcome::Failed,
    }
}

/// An answer's text: a string, or the text blocks of a list, cut to [`MAX_ANSWER_TEXT_BYTES`].
fn answer_text(content: &RawValue) -> Option<String> {
    let text = match serde_json::from_str::<Value>(content.get()).ok()? {
        Value::String(s) => s,
        Value::Array(items) => items
            .iter()
            .filter_map(|b| b.get("text")?.as_str())
            .collect::<Vec<_>>()
            .join("\n"),
        _ => return None,
    };
    let text = text
        .trim_start_matches("<tool_use_error>")
        .trim_end_matches("</tool_use_error>");
    let mut end = text.len().min(MAX_ANSWER_TEXT_BYTES);
    while !text.is_char_boundary(end) {
        end -= 1;
    }
    (!text.is_empty()).then(|| text[..end].to_string())
}

/// A content block's fields this module reads, each as raw JSON; the rest is skipped unread.
#[derive(Debug, Default, Deserialize)]
struct Block<'a> {
    #[serde(rename = "type", borrow, default)]
    kind: Option<&'a RawValue>,
    #[serde(borrow, default)]
    id: Option<&'a RawValue>,
    #[serde(borrow, default)]
    name: Option<&'a RawValue>,
    #[serde(borrow, default)]
    input: Option<&'a RawValue>,
    #[serde(borrow, default)]
    tool_use_id: Option<&'a RawValue>,
    #[serde(borrow, default)]
    is_error: Option<&'a RawValue>,
    #[serde(borrow, default)]
    content: Option<&'a RawValue>,
}

impl Block<'_> {
    fn is(&self, kind: &str) -> bool {
        self.kind.and_then(raw_str).as_deref() == Some(kind)
    }
}

/// The blocks of the message's `content` list (a tool's output is skipped, never copied); none
/// when it is a string, or not a list of objects. The message's keys are read as the line's are
/// ([`Object`]: the last of a repeated key wins).
fn blocks<'a>(object: &Object<'a>) -> Vec<Block<'a>> {
    object
        .raw("message")
        .and_then(|message| Object::parse_str(message.get()))
        .and_then(|message| message.raw("content"))
        .and_then(|content| serde_json::from_str(content.get()).ok())
        .unwrap_or_default()
}

/// The `tool_result_meta` records with their ids.
fn meta_records(raw: Option<&RawValue>) -> Vec<(Option<String>, Value)> {
    let Some(Value::Array(items)) = raw.and_then(|r| serde_json::from_str(r.get()).ok()) else {
        return Vec::new();
    };
    items
        .into_iter()
        .map(|m| (meta_id(&m).map(str::to_string), m))
        .collect()
}

fn meta_id(record: &Value) -> Option<&str> {
    record
        .get("id")
        .or_else(|| record.get("tool_use_id"))?
        .as_str()
}

fn of(object: &Object<'_>, fields: &Fields, format: Format, calls: Vec<Call>) -> Calls {
    Calls {
        format,
        time: time::of_object(object),
        execution_id: first_id(object, &fields.correlation_keys),
        workflow: first_id(object, &fields.workflow_keys),
        calls,
    }
}

#[cfg(test)]
mod tests {
    use super::super::{decode, Event};
    use super::*;

    fn calls(line: &str) -> Calls {
        match decode(line.as_bytes(), &Fields::default()) {
            Ok(Event::Calls(c)) => c,
            other => panic!("{other:?} for {line}"),
        }
    }

    fn record(json: &str) -> Option<&'static str> {
        rejection_reason(&serde_json::from_str(json).unwrap()).map(Reason::as_str)
    }

    #[test]
    fn every_observed_record_maps_onto_its_layer() {
        for (json, want) in [
            (
                r#"{"id":"t","non_execution_kind":"permission-rule","permission_decision":{"decision":"reject","reason_type":"hook","source":"hook"}}"#,
                Some("hook"),
            ),
            (
                r#"{"id":"t","non_execution_kind":"permission-rule","permission_decision":{"decision":"reject","source":"user_reject"}}"#,
                Some("permissionPromptTool"),
            ),
            (
                r#"{"id":"t","permission_decision":{"decision":"reject","source":"config","reason_type":"rule"}}"#,
                Some("rule"),
            ),
            (
                r#"{"id":"t","non_execution_kind":"user-rejected","permission_decision":{"decision":"reject","source":"config"}}"#,
                Some("other"),
            ),
            (
                r#"{"id":"t","non_execution_kind":"permission-rule","permission_decision":{"decision":"reject","source":"config","reason_type":"subcommandResults"}}"#,
                Some("subcommandResults"),
            ),
            (
                r#"{"id":"t","non_execution_kind":"automode-blocked","permission_decision":{"decision":"reject","source":"config","reason_type":"classifier"}}"#,
                Some("classifier"),
            ),
            (
                r#"{"id":"t","non_execution_kind":"automode-unavailable","permission_decision":{"decision":"reject","source":"config","reason_type":"classifier"}}"#,
                Some("classifierUnavailable"),
            ),
            (
                r#"{"id":"t","non_execution_kind":"automode-parsing-error","permission_decision":{"decision":"reject","source":"config","reason_type":"classifier"}}"#,
                Some("classifierUnavailable"),
            ),
            (
                r#"{"id":"t","non_execution_kind":"something-new","permission_decision":{"decision":"reject","source":"elsewhere"}}"#,
                Some("other"),
            ),
            (
                r#"{"id":"t","nonExecutionKind":"permission-rule","permissionDecision":{"decision":"reject","reasonType":"hook","source":"hook"}}"#,
                Some("hook"),
            ),
            (
                r#"{"id":"t","permission_decision":{"decision":"accept","source":"config","reason_type":"rule"}}"#,
                None,
            ),
            (r#"{"id":"t"}"#, None),
        ] {
            assert_eq!(record(json), want, "{json}");
        }
    }

    #[test]
    fn a_user_message_answers_each_call() {
        // As CLI 2.1.330 sends it: a hook denial, a call that ran, an error that is no denial.
        let line = r#"{"type":"user","message":{"role":"user","content":[{"type":"tool_result","tool_use_id":"t1","is_error":true,"content":"PreToolUse:Bash hook error: Blocked by hook"},{"tool_use_id":"t2","type":"tool_result","content":"checked","is_error":false},{"type":"tool_result","tool_use_id":"t3","is_error":true,"content":"Exit code 1"},{"type":"tool_result","tool_use_id":"t4","content":[{"type":"text","text":"ok"}]}]},"tool_result_meta":[{"id":"t1","non_execution_kind":"permission-rule","permission_decision":{"decision":"reject","source":"hook","reason_type":"hook"}},{"id":"t2","permission_decision":{"decision":"accept","source":"config","reason_type":"classifier"}}],"session_id":"s1"}"#;
        let c = calls(line);
        assert_eq!(c.execution_id.as_deref(), Some("s1"));
        let outcomes: Vec<(&str, &Outcome)> = c
            .calls
            .iter()
            .map(|c| (c.tool_use_id.as_str(), &c.outcome))
            .collect();
        assert_eq!(
            outcomes,
            [
                (
                    "t1",
                    &Outcome::Rejected {
                        reason: Reason::Hook,
                        text: Some("PreToolUse:Bash hook error: Blocked by hook".into())
                    }
                ),
                ("t2", &Outcome::Ran),
                ("t3", &Outcome::Failed),
                ("t4", &Outcome::Ran),
            ]
        );
    }

    #[test]
    fn an_assistant_message_names_its_calls() {
        let line = r#"{"type":"assistant","message":{"content":[{"type":"text","text":"tool_use"},{"type":"tool_use","id":"t1","name":"Bash","input":{"command":"git push --force"}}]},"session_id":"s1"}"#;
        let c = calls(line);
        assert_eq!(c.calls.len(), 1);
        assert_eq!(c.calls[0].tool.as_deref(), Some("Bash"));
        assert_eq!(
            c.calls[0].input,
            Some(Digest::of(r#"{"command":"git push --force"}"#))
        );
        assert_eq!(c.calls[0].outcome, Outcome::Requested);
    }

    #[test]
    fn pino_answers_and_post_tool_use() {
        let denied = r#"{"level":30,"executionId":"e1","workflow":"fix","event":"agent.tool.result","toolName":"Bash","toolUseId":"t1","isError":true,"toolResultMeta":{"id":"t1","non_execution_kind":"permission-rule","permission_decision":{"decision":"reject","source":"user_reject"}},"msg":"agent tool result"}"#;
        let c = calls(denied);
        assert_eq!(
            (c.format, c.workflow.as_deref()),
            (Format::Pino, Some("fix"))
        );
        assert!(
            matches!(&c.calls[0].outcome, Outcome::Rejected { reason, .. } if reason.as_str() == "permissionPromptTool")
        );
        let ran = r#"{"level":30,"executionId":"e1","event":"agent.tool.result","toolName":"Bash","toolUseId":"t2","isError":false,"msg":"agent tool result"}"#;
        assert_eq!(calls(ran).calls[0].outcome, Outcome::Ran);
        let post = r#"{"hook_event_name":"PostToolUse","session_id":"s1","tool_name":"Bash","tool_use_id":"t3","tool_input":{"command":"ls"},"tool_response":{}}"#;
        let c = calls(post);
        assert_eq!(c.calls[0].outcome, Outcome::Ran);
        assert_eq!(c.calls[0].tool.as_deref(), Some("Bash"));
    }

    #[test]
    fn a_message_key_repeated_is_read_as_its_last() {
        let call = r#"[{"type":"tool_use","id":"t1","name":"Bash","input":{}}]"#;
        let line = format!(
            r#"{{"type":"assistant","message":{{"content":"text","c\u006fntent":{call}}},"session_id":"s"}}"#
        );
        assert_eq!(calls(&line).calls[0].tool_use_id, "t1");
        let line = format!(
            r#"{{"type":"assistant","message":{{"content":{call},"content":null}},"session_id":"s"}}"#
        );
        assert!(
            decode(line.as_bytes(), &Fields::default()).is_err(),
            "{line}"
        );
    }

    #[test]
    fn messages_without_calls_are_ignored() {
        for line in [
            r#"{"type":"user","message":{"role":"user","content":"tool_result tool_use"},"session_id":"s"}"#,
            r#"{"type":"assistant","message":{"content":[{"type":"text","text":"\"tool_use\""}]},"session_id":"s"}"#,
            r#"{"type":"user","message":{"content":[{"type":"tool_result","content":"no id"}]}}"#,
        ] {
            assert!(
                decode(line.as_bytes(), &Fields::default()).is_err(),
                "{line}"
            );
        }
    }
}
