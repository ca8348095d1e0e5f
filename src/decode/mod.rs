//! One application line → a typed [`Event`], or nothing.
//!
//! A pure function of the line and the configured [`Fields`]: no state, no I/O, no counting. The
//! shape is detected line by line without configuration: the executor's pino log ([`pino`]), the
//! Agent SDK's stream-json messages ([`stream_json`]), and the two hook payloads ([`hook`]). Only
//! top-level keys are consulted, so a denial named inside another field, a nested object or an
//! escaped string is not a denial. Duplicate keys (pino child bindings) resolve to the last value.
//!
//! **Not here:** container framing (undone by [`crate::input::container`] before this runs),
//! deduplication and reconciliation ([`crate::account`]), redaction ([`crate::redact`]).
//!
//! Cold: runs only on candidate lines the prefilter found.

pub mod hook;
pub mod list;
mod object;
pub mod pino;
pub mod stream_json;
pub mod time;
pub mod usage;

use serde_json::{Map, Value};

use crate::config::Fields;
use object::Object;
pub use usage::{ModelSpend, ModelUsage};

/// Which input shape a line had.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Format {
    Pino,
    StreamJson,
    ClaudeCodeHook,
    AgentCliHook,
}

impl Format {
    pub fn as_str(self) -> &'static str {
        match self {
            Format::Pino => "pino",
            Format::StreamJson => "stream_json",
            Format::ClaudeCodeHook => "claude_code_hook",
            Format::AgentCliHook => "agent_cli_hook",
        }
    }
}

/// A denied tool call reported as it happened.
#[derive(Debug, Clone, PartialEq)]
pub struct Denial {
    pub format: Format,
    /// Log time in seconds since the epoch, when the line says.
    pub time: Option<f64>,
    pub execution_id: Option<String>,
    pub workflow: Option<String>,
    pub tool: String,
    pub tool_use_id: Option<String>,
    /// The SDK's `decision_reason_type`, when the line has one.
    pub reason_type: Option<String>,
    /// Free-text reason (decision reason, hook reason); unredacted.
    pub reason_text: Option<String>,
    /// A short description of the tool input; unredacted.
    pub input_summary: Option<String>,
}

/// One denial as listed in an execution's record.
#[derive(Debug, Clone, PartialEq)]
pub struct RecordedDenial {
    pub tool: String,
    pub tool_use_id: Option<String>,
    pub input_summary: Option<String>,
}

/// What the record says about denials, most authoritative first.
#[derive(Debug, Clone, PartialEq)]
pub enum RecordedDenials {
    /// The authoritative list.
    List(Vec<RecordedDenial>),
    /// Per-tool counts, when the list is absent.
    PerTool(Vec<(String, u64)>),
    /// Only a total, when both are absent.
    Total(u64),
    /// The record says nothing about denials.
    None,
}

/// Token counts by kind.
#[derive(Debug, Clone, Copy, Default, PartialEq)]
pub struct Tokens {
    pub input: f64,
    pub output: f64,
    pub cache_read: f64,
    pub cache_creation: f64,
}

impl Tokens {
    /// By kind: input, output, cache read, cache creation.
    pub fn as_array(&self) -> [f64; 4] {
        [
            self.input,
            self.output,
            self.cache_read,
            self.cache_creation,
        ]
    }
}

/// An execution's record: the completed-execution line, or an SDK result message.
#[derive(Debug, Clone, PartialEq)]
pub struct Record {
    pub format: Format,
    pub time: Option<f64>,
    pub execution_id: Option<String>,
    pub workflow: Option<String>,
    /// The SDK result subtype (`success`, `error_max_turns`, …).
    pub outcome: Option<String>,
    /// The execution's cost in dollars: the line's total, else the sum of `modelUsage`.
    pub cost_usd: Option<f64>,
    pub duration_seconds: Option<f64>,
    pub turns: Option<f64>,
    /// Tokens by kind: the sum of `modelUsage` when the line has it, else its top-level fields.
    pub tokens: Option<Tokens>,
    /// `modelUsage` by model: a running total per session in streaming-input sessions.
    pub model_usage: Option<ModelUsage>,
    /// `model_usage_since_last_result`: this result's own spend by model, where the SDK gives it.
    pub model_usage_delta: Option<ModelUsage>,
    pub denials: RecordedDenials,
}

/// What one line means.
#[derive(Debug, Clone, PartialEq)]
pub enum Event {
    Denial(Denial),
    Record(Record),
}

/// Why a line yields no event.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Skip {
    /// Valid JSON object, but not a denial or a record.
    Ignored,
    /// Not a JSON object.
    Malformed,
}

/// Decodes one application line (without its newline).
pub fn decode(line: &[u8], fields: &Fields) -> Result<Event, Skip> {
    let object = Object::parse(line).ok_or(Skip::Malformed)?;
    decode_object(&object, fields).ok_or(Skip::Ignored)
}

/// Decodes one parsed top-level object.
pub fn decode_object(object: &Object<'_>, fields: &Fields) -> Option<Event> {
    if let Some(event) = pino::decode(object, fields) {
        return Some(event);
    }
    if let Some(event) = stream_json::decode(object, fields) {
        return Some(event);
    }
    hook::decode(object, fields)
}

// ---- small lookups shared by the decoders ----

/// The first of `keys` present as an identifier.
pub(crate) fn first_id(object: &Object<'_>, keys: &[String]) -> Option<String> {
    keys.iter().find_map(|k| object.id(k))
}

/// The first of `keys` present as a number.
pub(crate) fn first_num(object: &Object<'_>, keys: &[&str]) -> Option<f64> {
    keys.iter().find_map(|k| object.num(k))
}

/// The first of `keys` of a nested object present as a non-negative number.
pub(crate) fn num_in(map: &Map<String, Value>, keys: &[&str]) -> Option<f64> {
    keys.iter().find_map(|k| {
        let n = match map.get(*k)? {
            Value::Number(n) => n.as_f64()?,
            Value::String(s) => s.trim().parse::<f64>().ok()?,
            _ => return None,
        };
        (n.is_finite() && n >= 0.0).then_some(n)
    })
}

/// Longest input summary decoded, in characters. Generous on purpose: the summary is redacted
/// whole and only then cut to its display length, so a secret is never cut in half unredacted.
pub const MAX_SUMMARY_CHARS: usize = 16 * 1024;

/// A short, human description of a tool input: the command, path or URL when there is one,
/// else compact JSON. Truncated on a character boundary.
pub fn summarize_input(input: &Value) -> Option<String> {
    let text = match input {
        Value::Null => return None,
        Value::String(s) => s.clone(),
        Value::Object(map) => {
            let preferred = [
                "command",
                "file_path",
                "path",
                "url",
                "pattern",
                "query",
                "prompt",
            ];
            match preferred
                .iter()
                .find_map(|k| map.get(*k).and_then(Value::as_str))
            {
                Some(s) => s.to_string(),
                None => serde_json::to_string(input).ok()?,
            }
        }
        other => other.to_string(),
    };
    Some(truncate_chars(&text, MAX_SUMMARY_CHARS))
}

/// `text` cut to at most `max` characters, with `…` when cut.
pub fn truncate_chars(text: &str, max: usize) -> String {
    match text.char_indices().nth(max) {
        None => text.to_string(),
        Some((at, _)) => format!("{}…", &text[..at]),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn malformed_and_ignored() {
        let f = Fields::default();
        assert_eq!(decode(b"not json", &f), Err(Skip::Malformed));
        assert_eq!(decode(b"[1,2]", &f), Err(Skip::Malformed));
        assert_eq!(
            decode(br#"{"level":30,"msg":"hello"}"#, &f),
            Err(Skip::Ignored)
        );
    }

    #[test]
    fn summaries_prefer_the_command_and_truncate() {
        let v: Value = serde_json::json!({"command": "git push --force", "description": "x"});
        assert_eq!(summarize_input(&v).unwrap(), "git push --force");
        let long = Value::String("é".repeat(MAX_SUMMARY_CHARS + 10));
        let s = summarize_input(&long).unwrap();
        assert_eq!(s.chars().count(), MAX_SUMMARY_CHARS + 1);
        let v: Value = serde_json::json!({"a": 1});
        assert_eq!(summarize_input(&v).unwrap(), r#"{"a":1}"#);
    }
}
