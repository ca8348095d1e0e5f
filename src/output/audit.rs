//! The audit stream: one redacted JSON object per counted denial, as JSON lines.
//!
//! Owns the record schema and the writer. Every text field of an [`AuditRecord`] was redacted by
//! [`crate::account::Accountant`] before it got here; this module only serialises and writes.
//! **Not here:** deciding what is a denial, redaction itself.
//!
//! Schema (one object a line, keys always in this order; optional keys are `null` when unknown):
//!
//! | key | type | meaning |
//! |---|---|---|
//! | `time` | string | log time of the denial (RFC 3339, UTC), else when it was read |
//! | `tool` | string | tool name as logged (redacted, at most 240 characters) |
//! | `workflow` | string | the `workflow` label value the denial was counted under |
//! | `reason` | string | the `reason` label value |
//! | `execution_id` | string? | correlation key value |
//! | `tool_use_id` | string? | the SDK's tool use id |
//! | `decision_reason` | string? | free-text reason (redacted, at most 240 characters) |
//! | `input_summary` | string? | the command, path or URL attempted (redacted, at most 240 characters) |
//! | `source_file` | string | the log file it was read from (`-` for stdin) |
//! | `origin` | string | `mid_stream` (counted as it happened) or `record` (only the execution record revealed it) |
//! | `format` | string | `pino`, `stream_json`, `claude_code_hook` or `agent_cli_hook` |
//!
//! Cold: per counted denial; flushed once per chunk.

use std::fs::{File, OpenOptions};
use std::io::{self, BufWriter, Write};
use std::path::Path;

use serde::Serialize;

use crate::vocab::Reason;

/// How a denial came to be counted.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Origin {
    MidStream,
    Record,
}

/// One counted denial, redacted.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct AuditRecord {
    pub time: String,
    pub tool: String,
    pub workflow: String,
    pub reason: Reason,
    pub execution_id: Option<String>,
    pub tool_use_id: Option<String>,
    pub decision_reason: Option<String>,
    pub input_summary: Option<String>,
    pub source_file: String,
    pub origin: Origin,
    pub format: &'static str,
    /// How many denials this record stands for: 1, except for a record's per-tool count or
    /// total, which reveals its denials as one record (written only when not 1).
    #[serde(skip_serializing_if = "is_one")]
    pub count: u64,
}

fn is_one(n: &u64) -> bool {
    *n == 1
}

/// Where audit lines go.
pub struct AuditWriter {
    out: BufWriter<Box<dyn Write + Send>>,
    /// Length of the audit file after the last flush; `None` for stdout.
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
            let sink: Box<dyn Write + Send> = Box::new(io::stdout());
            return Ok(AuditWriter {
                out: BufWriter::with_capacity(64 * 1024, sink),
                len: None,
            });
        }
        let file: File = OpenOptions::new().create(true).append(true).open(path)?;
        let mut len = file.metadata()?.len();
        if let Some(resume) = resume_len.filter(|r| *r < len) {
            file.set_len(resume)?;
            len = resume;
        }
        Ok(AuditWriter {
            out: BufWriter::with_capacity(64 * 1024, Box::new(file)),
            len: Some(len),
        })
    }

    /// Writes records, one JSON object a line, and flushes.
    pub fn write(&mut self, records: &[AuditRecord]) -> io::Result<()> {
        let mut line = Vec::with_capacity(512);
        for record in records {
            line.clear();
            serde_json::to_writer(&mut line, record)?;
            line.push(b'\n');
            self.out.write_all(&line)?;
            if let Some(len) = &mut self.len {
                *len += line.len() as u64;
            }
        }
        self.out.flush()
    }

    /// The audit file's length after the last write (for the state file); `None` for stdout.
    pub fn file_len(&self) -> Option<u64> {
        self.len
    }
}

#[cfg(test)]
mod tests {
    use super::*;

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

    #[test]
    fn schema_is_stable() {
        let record = AuditRecord {
            time: "2026-06-12T08:00:00.139Z".into(),
            tool: "Bash".into(),
            workflow: "review".into(),
            reason: Reason::Hook,
            execution_id: Some("exec_1".into()),
            tool_use_id: None,
            decision_reason: Some("PreToolUse hook denied".into()),
            input_summary: Some("git push --force".into()),
            source_file: "/var/log/executor/app.log".into(),
            origin: Origin::MidStream,
            format: "pino",
            count: 1,
        };
        assert_eq!(
            serde_json::to_string(&record).unwrap(),
            r#"{"time":"2026-06-12T08:00:00.139Z","tool":"Bash","workflow":"review","reason":"hook","execution_id":"exec_1","tool_use_id":null,"decision_reason":"PreToolUse hook denied","input_summary":"git push --force","source_file":"/var/log/executor/app.log","origin":"mid_stream","format":"pino"}"#
        );
    }
}
