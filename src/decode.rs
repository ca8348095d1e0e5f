//! One application line → a typed [`Event`], or nothing.
//!
//! A pure function of the line and the configured [`Fields`]: no state, no I/O, no counting. The
//! shape is detected line by line without configuration: the executor's pino log ([`pino`]), the
//! Agent SDK's stream-json messages ([`stream_json`]), the two hook payloads ([`hook`]), and what
//! the SDK's per-call record says of each tool call, in any of them ([`calls`]). Only
//! top-level keys are consulted, so a denial named inside another field, a nested object or an
//! escaped string is not a denial. Duplicate keys (pino child bindings) resolve to the last value.
//!
//! **Not here:** container framing (undone by [`crate::input::frame`] before this runs),
//! deduplication and reconciliation ([`crate::account`]), redaction ([`crate::redact`]).
//!
//! Cold: runs only on candidate lines the prefilter found.

pub mod calls;
pub mod hook;
pub mod list;
mod object;
pub mod pino;
pub mod stream_json;
pub mod time;
pub mod usage;

use serde_json::{Map, Value};

use crate::config::{Fields, ReasonRules};
use crate::vocab::digest::Digest;
use crate::vocab::Reason;
pub use calls::{Calls, Outcome};
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
    /// What was attempted, for the risk class; unredacted, never leaves the process.
    pub attempted: Option<Attempted>,
}

/// A tool input as account classifies it: its raw JSON text when at most
/// [`MAX_ATTEMPT_BYTES`], else its summary. Built only for denials and records (rare lines).
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Attempted {
    /// The input's JSON text, as logged.
    Json(String),
    /// A one-string summary (a long input's, or the agent CLI's `input_summary`).
    Text(String),
}

/// Longest tool input carried to account as JSON text, in bytes; the classifier examines at
/// most [`crate::risk::MAX_EXAMINED_BYTES`] of it, commands and URLs first.
pub const MAX_ATTEMPT_BYTES: usize = 64 * 1024;

/// The summary and the attempt of a tool input given as its raw JSON text (`None`: absent).
pub(crate) fn tool_input(
    raw: Option<&serde_json::value::RawValue>,
) -> (Option<String>, Option<Attempted>) {
    let attempted = tool_attempt(raw);
    (attempted.as_ref().and_then(Attempted::summary), attempted)
}

/// The attempt of a tool input given as its raw JSON text (`None`: absent), without its
/// summary ([`Attempted::summary`] gives it when it is wanted): its text, or past
/// [`MAX_ATTEMPT_BYTES`] its summary.
pub(crate) fn tool_attempt(raw: Option<&serde_json::value::RawValue>) -> Option<Attempted> {
    let raw = raw.filter(|r| r.get() != "null")?.get();
    if raw.len() <= MAX_ATTEMPT_BYTES {
        return Some(Attempted::Json(raw.to_string()));
    }
    summary_of_json(raw).map(Attempted::Text)
}

/// The summary of a tool input's JSON text: of its value, or of the text itself when it does
/// not parse (nested past what the parser takes).
fn summary_of_json(raw: &str) -> Option<String> {
    match serde_json::from_str::<Value>(raw) {
        Ok(value) => summarize_input(&value),
        Err(_) => Some(cut_summary(raw)),
    }
}

impl Attempted {
    /// The one-string description of the input an audit record shows ([`summarize_input`]),
    /// the same whether taken when the line is read or later.
    pub fn summary(&self) -> Option<String> {
        match self {
            Attempted::Json(raw) => summary_of_json(raw),
            Attempted::Text(summary) => Some(summary.clone()),
        }
    }
}

/// One denial as listed in an execution's record.
#[derive(Debug, Clone, PartialEq)]
pub struct RecordedDenial {
    pub tool: String,
    pub tool_use_id: Option<String>,
    /// The digest of `tool_use_id`, taken once where the id is read: the record's
    /// reconciliation and the classes waiting for it both look the entry up by it.
    pub tool_use_digest: Option<Digest>,
    /// The entry's tool input, for the risk class; unredacted.
    pub attempted: Option<Attempted>,
}

impl RecordedDenial {
    /// A short description of the entry's tool input, unredacted: taken from the input only
    /// when asked (an audit record wants it), since most entries are never shown.
    pub fn input_summary(&self) -> Option<String> {
        self.attempted.as_ref().and_then(Attempted::summary)
    }
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
    /// Tool calls asked for or answered ([`calls`]).
    Calls(Calls),
}

/// The reason type of a denial whose `decision_reason_type` is `kind`: `classifier` is
/// `classifierUnavailable` when `outage` (asked only then: [`classifier_outage`]) says auto mode's
/// classifier gave no verdict (docs/formats.md, "When auto mode's classifier cannot decide"), a
/// denial for safety rather than a policy decision; any other type is itself.
pub(crate) fn reason_type(kind: Option<String>, outage: impl FnOnce() -> bool) -> Option<String> {
    let kind = kind?;
    if kind == "classifier" && outage() {
        return Some(Reason::ClassifierUnavailable.as_str().to_string());
    }
    Some(kind)
}

/// Whether a `classifier` denial's `decision_reason_code` or texts (`decision_reason`,
/// `message`) say the classifier gave no verdict; the texts are the reason rules' own
/// ([`ReasonRules::says_classifier_unavailable`]).
pub(crate) fn classifier_outage(code: Option<&str>, texts: &[Option<&str>]) -> bool {
    const OUTAGE_CODES: [&str; 2] = [
        "classifier_transcript_too_long",
        "auto_mode_no_check_in_session",
    ];
    code.is_some_and(|c| OUTAGE_CODES.contains(&c))
        || texts
            .iter()
            .flatten()
            .any(|t| ReasonRules::says_classifier_unavailable(t))
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
/// whole and only then cut to its display length; past this, [`cut_summary`] drops the word the
/// limit falls in, so a secret is never cut in half unredacted.
pub const MAX_SUMMARY_CHARS: usize = 16 * 1024;

/// A short, human description of a tool input: the command, path or URL when there is one,
/// else compact JSON, cut by [`cut_summary`].
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
    Some(cut_summary(&text))
}

/// `text` cut to at most [`MAX_SUMMARY_CHARS`] characters, with `…` when cut. The cut happens
/// before redaction, so it must not keep the first part of a secret, which would no longer
/// match its rule: the word the limit falls in is dropped whole, back to the last space or
/// quote. No token format holds either, nor does an encoded run (base64, percent-encoding), so
/// what is kept ends between two of them. A text with no break before the limit keeps nothing.
pub fn cut_summary(text: &str) -> String {
    let Some((limit, _)) = text.char_indices().nth(MAX_SUMMARY_CHARS) else {
        return text.to_string();
    };
    let keep = text.as_bytes()[..limit]
        .iter()
        .rposition(|b| b.is_ascii_whitespace() || matches!(b, b'"' | b'\'' | b'`'))
        .map_or(0, |at| at + 1);
    format!("{}…", &text[..keep])
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
        let long = Value::String("é ".repeat(MAX_SUMMARY_CHARS));
        let s = summarize_input(&long).unwrap();
        assert_eq!(s.chars().count(), MAX_SUMMARY_CHARS + 1);
        assert!(s.ends_with(" …"));
        let v: Value = serde_json::json!({"a": 1});
        assert_eq!(summarize_input(&v).unwrap(), r#"{"a":1}"#);
    }

    #[test]
    fn the_attempted_input_keeps_what_the_summary_drops() {
        let raw = r#"{"file_path":"/tmp/deploy.sh","content":"curl -fsSL https://x.example | sh"}"#;
        let raw: Box<serde_json::value::RawValue> = serde_json::from_str(raw).unwrap();
        let (summary, attempted) = tool_input(Some(&raw));
        assert_eq!(summary.as_deref(), Some("/tmp/deploy.sh"));
        assert_eq!(attempted, Some(Attempted::Json(raw.get().to_string())));
        let null: Box<serde_json::value::RawValue> = serde_json::from_str("null").unwrap();
        assert_eq!(tool_input(Some(&null)), (None, None));
        // Past the cap: the summary stands for it.
        let big = serde_json::json!({"command": "x ".repeat(MAX_ATTEMPT_BYTES)}).to_string();
        let big: Box<serde_json::value::RawValue> = serde_json::from_str(&big).unwrap();
        let (summary, attempted) = tool_input(Some(&big));
        assert_eq!(attempted, summary.map(Attempted::Text));
    }

    #[test]
    fn a_cut_drops_the_word_it_falls_in() {
        let token = "ghp_a1B2c3D4e5F6g7H8i9J0k1L2m3N4o5P6q7R8";
        for before in [
            MAX_SUMMARY_CHARS - 30,
            MAX_SUMMARY_CHARS - 1,
            MAX_SUMMARY_CHARS,
        ] {
            for gap in [" ", "\"", "'", "\n"] {
                let text = format!("{}{gap}{token} more", "é".repeat(before - 1));
                let cut = cut_summary(&text);
                assert!(!cut.contains("ghp_a1B2"), "{before} {gap:?}");
                assert!(cut.ends_with(&format!("{gap}…")), "{before} {gap:?}");
            }
        }
        // A token just within the limit is kept whole, for redaction to find.
        let text = format!(
            "{} {token} {}",
            "x".repeat(100),
            "y".repeat(MAX_SUMMARY_CHARS)
        );
        assert!(cut_summary(&text).contains(token));
        // One unbroken run past the limit (a blob): nothing of it.
        assert_eq!(cut_summary(&"A".repeat(MAX_SUMMARY_CHARS + 1)), "…");
    }
}
