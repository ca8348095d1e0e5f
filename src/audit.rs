//! The audit stream: one redacted JSON object per counted denial, as JSON lines.
//!
//! Owns the record schema, the writer, and the writer thread of a replay ([`WriterThread`]).
//! Every text field of an [`AuditRecord`] given to [`AuditWriter::write`] was redacted by
//! [`crate::account::Accountant`], or replaced whole when past its bound
//! ([`crate::account::shown`]); the writer thread first finishes the records a replay's
//! Accountant handed over unredacted ([`crate::account::deferred`]) with that same step.
//! **Not here:** deciding what is a denial, redaction itself.
//!
//! Schema (one object a line, keys always in this order; optional keys are `null` when unknown):
//!
//! | key | type | meaning |
//! |---|---|---|
//! | `audit` | string | the record kind, always the first key: it tells audit lines from the exporter's own log when both go to one stream (`--audit-log=-`). `permission_denial` for a counted denial; `risk_decided` for the class of a denial counted earlier with `"risk":"pending"` (below); `denial_unenforced` for a denied call that ran anyway (below) |
//! | `time` | string | log time of the denial (RFC 3339, UTC), else when it was read |
//! | `tool` | string | tool name as logged (redacted, at most 240 characters) |
//! | `workflow` | string | the `workflow` label value the denial was counted under |
//! | `namespace`, `pod` | string | the labels its file's path gave (`--labels-from-path`); absent without |
//! | `reason` | string | the `reason` label value |
//! | `risk` | string | the `risk` label value: what the denial attempted (docs/risk.md), or `pending` |
//! | `execution_id` | string? | correlation key value |
//! | `tool_use_id` | string? | the SDK's tool use id |
//! | `decision_reason` | string? | free-text reason (redacted, at most 240 characters) |
//! | `input_summary` | string? | the command, path or URL attempted (redacted, at most 240 characters) |
//! | `source_file` | string | the log file it was read from (`-` for stdin) |
//! | `origin` | string | `mid_stream` (counted as it happened) or `record` (only the execution record revealed it) |
//! | `format` | string | `pino`, `stream_json`, `claude_code_hook` or `agent_cli_hook` |
//! | `count` | number | only when not 1: how many denials a record's per-tool count or total stands for |
//!
//! A mid-stream denial with a tool use id and a correlation key but no tool input is counted at
//! once with `"risk":"pending"`: its class waits for its execution's record, which brings the
//! input. When the class is decided, a `risk_decided` line follows with the same keys: `tool`
//! and `workflow` are the label values, `tool_use_id`, `execution_id` and `input_summary` come
//! from the record (all `null` when the execution was evicted before its record), and
//! `decision_reason` is `null`. Every `permission_denial` line is one denial, as before; a
//! `risk_decided` line counts no denial.
//!
//! A denied call that ran anyway (a `tool_result` that is not an error, or a `PostToolUse` hook
//! input, for its tool use id) gets one `denial_unenforced` line, whichever came first: the keys
//! of its denial (the label values, `reason`, `risk` as far as known), `origin` `mid_stream`,
//! `decision_reason` `null`. It counts no denial: it marks one, and is counted in
//! `permission_denials_unenforced_total`.
//!
//! A field past its bound is its length instead, with nothing of its content:
//! `<tool name of 1000003 bytes>` for a tool name, execution id or tool use id past 128 bytes (the
//! label bound), `<decision reason of N bytes>` or `<input summary of N bytes>` past 64 KiB.
//!
//! Each record is written by hand into one reused line buffer (the discriminator, then the same
//! bytes `serde_json` makes of an [`AuditRecord`], which the HTTP answers use) and buffered; the pipeline flushes
//! after each region of a followed file (before its offsets can be saved), a replay as the
//! buffer fills and at the end.
//!
//! Cold: per counted denial.

use std::fs::{File, OpenOptions};
use std::io::{self, BufWriter, Write};
use std::path::Path;

use tracing::warn;

use crate::json::next_special;
use crate::vocab::{AuditKind, AuditRecord};

mod thread;
pub use thread::WriterThread;

/// The write buffer: some forty records (a record's line is about 400 bytes), so a replay
/// writing 15 MB of records makes about a thousand writes; a 64 KiB buffer saved no measurable
/// time and held 48 KiB more for the life of the process.
const BUFFER_BYTES: usize = 16 * 1024;

/// Where audit lines go. Lines are buffered: [`AuditWriter::flush`] writes them out, and so
/// does dropping the writer (a failure then is logged).
pub struct AuditWriter {
    out: BufWriter<Box<dyn Write + Send>>,
    /// One record's line, reused.
    line: Vec<u8>,
    /// Length of the audit file once what was written is flushed; `None` for stdout.
    len: Option<u64>,
}

impl AuditWriter {
    /// Opens `path` for appending (`-` is stdout).
    pub fn open(path: &Path) -> io::Result<AuditWriter> {
        AuditWriter::open_at(path, None)
    }

    /// Opens `path` for appending, first cutting it back to `resume_len` bytes when it is longer.
    ///
    /// The state file records the audit file's length beside the offsets and counters; after a
    /// crash, the lines read again after the snapshot write their records again, so cutting the
    /// records written after the snapshot keeps the audit stream exactly once too.
    pub fn open_at(path: &Path, resume_len: Option<u64>) -> io::Result<AuditWriter> {
        if path == Path::new("-") {
            return Ok(AuditWriter::to(Box::new(io::stdout()), None));
        }
        let file: File = OpenOptions::new().create(true).append(true).open(path)?;
        let mut len = file.metadata()?.len();
        if let Some(resume) = resume_len.filter(|r| *r < len) {
            file.set_len(resume)?;
            len = resume;
        }
        Ok(AuditWriter::to(Box::new(file), Some(len)))
    }

    /// A writer to `sink`, whose length so far is `len` (`None`: not a file).
    pub(crate) fn to(sink: Box<dyn Write + Send>, len: Option<u64>) -> AuditWriter {
        AuditWriter {
            out: BufWriter::with_capacity(BUFFER_BYTES, sink),
            line: Vec::with_capacity(1024),
            len,
        }
    }

    /// Writes records, one JSON object a line, into the buffer (written out as it fills).
    pub fn write(&mut self, records: &[AuditRecord]) -> io::Result<()> {
        for record in records {
            self.line.clear();
            write_record(&mut self.line, record);
            self.out.write_all(&self.line)?;
            if let Some(len) = &mut self.len {
                *len += self.line.len() as u64;
            }
        }
        Ok(())
    }

    /// Writes out what the buffer holds.
    pub fn flush(&mut self) -> io::Result<()> {
        self.out.flush()
    }

    /// The audit file's length after the last write (for the state file); `None` for stdout.
    pub fn file_len(&self) -> Option<u64> {
        self.len
    }
}

impl Drop for AuditWriter {
    fn drop(&mut self) {
        if let Err(error) = self.out.flush() {
            warn!(%error, "cannot write the last records of the audit log");
        }
    }
}

/// The first key of every counted denial's audit line: what a log stack selects audit lines by.
const DISCRIMINATOR: &[u8] = b"{\"audit\":\"permission_denial\"";

/// The first key of a `risk_decided` line.
const RISK_DECIDED: &[u8] = b"{\"audit\":\"risk_decided\"";

/// The first key of a `denial_unenforced` line.
const UNENFORCED: &[u8] = b"{\"audit\":\"denial_unenforced\"";

/// Appends `record` as one JSON object and a newline: the discriminator, then the keys and
/// bytes `serde_json` writes for it (`records_are_written_as_serde_writes_them` checks every field and escape).
fn write_record(out: &mut Vec<u8>, record: &AuditRecord) {
    let text = |out: &mut Vec<u8>, key: &str, value: &str| {
        out.extend_from_slice(key.as_bytes());
        write_str(out, value);
    };
    let optional = |out: &mut Vec<u8>, key: &str, value: &Option<String>| {
        out.extend_from_slice(key.as_bytes());
        match value {
            Some(value) => write_str(out, value),
            None => out.extend_from_slice(b"null"),
        }
    };
    // A name from a closed set, which needs no escape (`names_of_closed_sets_need_no_escape`).
    let name = |out: &mut Vec<u8>, key: &str, value: &str| {
        debug_assert!(next_special(value.as_bytes(), 0).is_none(), "{value}");
        out.extend_from_slice(key.as_bytes());
        out.push(b'"');
        out.extend_from_slice(value.as_bytes());
        out.push(b'"');
    };
    out.extend_from_slice(match record.kind {
        AuditKind::Denial => DISCRIMINATOR,
        AuditKind::RiskDecided => RISK_DECIDED,
        AuditKind::Unenforced => UNENFORCED,
    });
    text(out, ",\"time\":", &record.time);
    text(out, ",\"tool\":", &record.tool);
    text(out, ",\"workflow\":", &record.workflow);
    if let Some(namespace) = &record.namespace {
        text(out, ",\"namespace\":", namespace);
    }
    if let Some(pod) = &record.pod {
        text(out, ",\"pod\":", pod);
    }
    name(out, ",\"reason\":", record.reason.as_str());
    text(out, ",\"risk\":", &record.risk);
    optional(out, ",\"execution_id\":", &record.execution_id);
    optional(out, ",\"tool_use_id\":", &record.tool_use_id);
    optional(out, ",\"decision_reason\":", &record.decision_reason);
    optional(out, ",\"input_summary\":", &record.input_summary);
    text(out, ",\"source_file\":", &record.source_file);
    name(out, ",\"origin\":", record.origin.as_str());
    text(out, ",\"format\":", record.format);
    if record.count != 1 {
        out.extend_from_slice(format!(",\"count\":{}", record.count).as_bytes());
    }
    out.extend_from_slice(b"}\n");
}

/// Appends `value` as a JSON string: `"` and `\` escaped, control characters as `\n`-style
/// or `\u00XX` escapes, everything else (non-ASCII included) as is. The bytes between two
/// that need an escape go in one copy, found eight at a time ([`next_special`]).
fn write_str(out: &mut Vec<u8>, value: &str) {
    const HEX: &[u8; 16] = b"0123456789abcdef";
    let bytes = value.as_bytes();
    out.reserve(bytes.len() + 2);
    out.push(b'"');
    let mut start = 0;
    while let Some(at) = next_special(bytes, start) {
        out.extend_from_slice(&bytes[start..at]);
        let b = bytes[at];
        match b {
            b'"' => out.extend_from_slice(b"\\\""),
            b'\\' => out.extend_from_slice(b"\\\\"),
            b'\n' => out.extend_from_slice(b"\\n"),
            b'\r' => out.extend_from_slice(b"\\r"),
            b'\t' => out.extend_from_slice(b"\\t"),
            0x08 => out.extend_from_slice(b"\\b"),
            0x0c => out.extend_from_slice(b"\\f"),
            _ => out.extend_from_slice(&[
                b'\\',
                b'u',
                b'0',
                b'0',
                HEX[usize::from(b >> 4)],
                HEX[usize::from(b & 0xf)],
            ]),
        }
        start = at + 1;
    }
    out.extend_from_slice(&bytes[start..]);
    out.push(b'"');
}

/// An audit destination whose bytes a test reads back (`AuditWriter::to(Box::new(buffer.clone()), …)`).
#[cfg(test)]
#[derive(Clone, Default)]
pub(crate) struct TestBuffer(std::sync::Arc<std::sync::Mutex<Vec<u8>>>);

#[cfg(test)]
impl TestBuffer {
    /// What was written, as text.
    pub(crate) fn text(&self) -> String {
        String::from_utf8(self.0.lock().unwrap().clone()).unwrap()
    }

    /// Records written: one per line.
    pub(crate) fn records(&self) -> usize {
        self.text().lines().count()
    }
}

#[cfg(test)]
impl Write for TestBuffer {
    fn write(&mut self, bytes: &[u8]) -> io::Result<usize> {
        self.0.lock().unwrap().extend_from_slice(bytes);
        Ok(bytes.len())
    }

    fn flush(&mut self) -> io::Result<()> {
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::vocab::{Origin, Reason};

    #[test]
    fn a_byte_after_an_escaped_one_is_read_as_itself() {
        // The word test borrows out of a special byte into the one above it (`\0` then ` `):
        // what follows an escaped byte must be judged afresh, wherever it lies in the text.
        for special in [0x00u8, 0x01, 0x1f, b'"', b'\\'] {
            for follower in [b' ', b'!', b'#', b']', 0x7f, b'a', 0x00] {
                for len in 1..20 {
                    for at in 0..len {
                        let mut bytes = vec![b'x'; len];
                        bytes[at] = special;
                        bytes.insert(at + 1, follower);
                        bytes.extend("\u{a1}".bytes());
                        let text = String::from_utf8(bytes).unwrap();
                        let mut out = Vec::new();
                        write_str(&mut out, &text);
                        assert_eq!(out, serde_json::to_vec(&text).unwrap(), "{text:?}");
                    }
                }
            }
        }
    }

    #[test]
    fn names_of_closed_sets_need_no_escape() {
        let names = Reason::ALL
            .iter()
            .map(|reason| reason.as_str())
            .chain([Origin::MidStream, Origin::Record].map(Origin::as_str));
        for name in names {
            let mut out = Vec::new();
            write_str(&mut out, name);
            assert_eq!(out, format!("\"{name}\"").into_bytes());
        }
    }

    #[test]
    fn strings_are_escaped_at_every_place_of_a_word() {
        let specials = ["\"", "\\", "\n", "\u{1}", "\u{1f}"];
        for len in 0..26 {
            for at in 0..len {
                for special in specials {
                    let mut text = "é".repeat(len / 3) + &"x".repeat(len - len / 3);
                    let at = text.char_indices().nth(at).map_or(text.len(), |(i, _)| i);
                    text.insert_str(at, special);
                    let mut out = Vec::new();
                    write_str(&mut out, &text);
                    assert_eq!(out, serde_json::to_vec(&text).unwrap(), "{text:?}");
                    // And a second one after it, in the same word or a later one.
                    for later in (at + 1..=text.len()).filter(|&i| text.is_char_boundary(i)) {
                        let mut two = text.clone();
                        two.insert_str(later, specials[later % specials.len()]);
                        let mut out = Vec::new();
                        write_str(&mut out, &two);
                        assert_eq!(out, serde_json::to_vec(&two).unwrap(), "{two:?}");
                    }
                }
            }
        }
    }

    #[test]
    fn resuming_cuts_records_written_after_the_snapshot() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("audit.jsonl");
        std::fs::write(&path, b"{\"a\":1}\n{\"a\":2}\n").unwrap();
        let writer = AuditWriter::open_at(&path, Some(8)).unwrap();
        assert_eq!(writer.file_len(), Some(8));
        assert_eq!(std::fs::read(&path).unwrap(), b"{\"a\":1}\n");
        let writer = AuditWriter::open_at(&path, Some(100)).unwrap();
        assert_eq!(writer.file_len(), Some(8), "never extends");
    }

    /// The discriminator, then the record as `serde_json` writes it, and a newline.
    fn as_serde_writes_it(record: &AuditRecord) -> Vec<u8> {
        let serde = serde_json::to_vec(record).unwrap();
        let mut line = DISCRIMINATOR.to_vec();
        line.push(b',');
        line.extend_from_slice(&serde[1..]);
        line.push(b'\n');
        line
    }

    fn record(text: &str, optional: Option<String>, count: u64) -> AuditRecord {
        AuditRecord {
            kind: AuditKind::Denial,
            time: text.into(),
            tool: text.into(),
            workflow: text.into(),
            namespace: None,
            pod: None,
            reason: Reason::SubcommandResults,
            risk: text.into(),
            execution_id: optional.clone(),
            tool_use_id: optional.clone(),
            decision_reason: optional.clone(),
            input_summary: optional,
            source_file: text.into(),
            origin: Origin::Record,
            format: "stream_json",
            count,
        }
    }

    proptest::proptest! {
        #[test]
        fn records_are_written_as_serde_writes_them(
            text in "(?s:.{0,40})",
            optional in proptest::option::of("(?s:.{0,40})"),
            count in proptest::prop_oneof![proptest::strategy::Just(1u64), proptest::num::u64::ANY],
        ) {
            let record = record(&text, optional, count);
            let mut hand = Vec::new();
            write_record(&mut hand, &record);
            let serde = as_serde_writes_it(&record);
            proptest::prop_assert_eq!(String::from_utf8(hand).unwrap(), String::from_utf8(serde).unwrap());
        }
    }

    #[test]
    fn every_control_character_and_quote_is_escaped_as_serde_does() {
        let text: String = (0u8..0x80)
            .map(char::from)
            .chain("é\u{2028}😀".chars())
            .collect();
        let record = record(&text, Some(text.clone()), 7);
        let mut hand = Vec::new();
        write_record(&mut hand, &record);
        let serde = as_serde_writes_it(&record);
        assert_eq!(
            String::from_utf8(hand).unwrap(),
            String::from_utf8(serde).unwrap()
        );
    }

    #[test]
    fn schema_is_stable() {
        let mut record = AuditRecord {
            kind: AuditKind::Denial,
            time: "2026-06-12T08:00:00.139Z".into(),
            tool: "Bash".into(),
            workflow: "review".into(),
            namespace: None,
            pod: None,
            reason: Reason::Hook,
            risk: "history_rewrite".into(),
            execution_id: Some("exec_1".into()),
            tool_use_id: None,
            decision_reason: Some("PreToolUse hook denied".into()),
            input_summary: Some("git push --force".into()),
            source_file: "/var/log/executor/app.log".into(),
            origin: Origin::MidStream,
            format: "pino",
            count: 1,
        };
        let want = r#"{"time":"2026-06-12T08:00:00.139Z","tool":"Bash","workflow":"review","reason":"hook","risk":"history_rewrite","execution_id":"exec_1","tool_use_id":null,"decision_reason":"PreToolUse hook denied","input_summary":"git push --force","source_file":"/var/log/executor/app.log","origin":"mid_stream","format":"pino"}"#;
        assert_eq!(serde_json::to_string(&record).unwrap(), want);
        let mut line = Vec::new();
        write_record(&mut line, &record);
        let audit = r#"{"audit":"permission_denial","time":"2026-06-12T08:00:00.139Z","tool":"Bash","workflow":"review","reason":"hook","risk":"history_rewrite","execution_id":"exec_1","tool_use_id":null,"decision_reason":"PreToolUse hook denied","input_summary":"git push --force","source_file":"/var/log/executor/app.log","origin":"mid_stream","format":"pino"}"#;
        assert_eq!(String::from_utf8(line).unwrap(), format!("{audit}\n"));
        record.kind = AuditKind::RiskDecided;
        let mut line = Vec::new();
        write_record(&mut line, &record);
        let decided = audit.replace("permission_denial", "risk_decided");
        assert_eq!(String::from_utf8(line).unwrap(), format!("{decided}\n"));
    }
}
