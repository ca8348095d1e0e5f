//! `denials-exporter replay FILE...`: read each file from start to end through the pipeline and
//! print the Prometheus text exposition, exactly what the live `/metrics` serves.
//!
//! A streaming loop fed by a read-ahead thread that reads and picks candidate lines
//! ([`ReadAhead`]) while this one decodes and counts: memory does not grow with file size. An
//! unreadable file stops the command with an error naming it; bad lines never do.
//!
//! When done, one summary line on stderr ([`Summary`]: files, bytes, lines by outcome, denials,
//! seconds); on a terminal, a progress bar on stderr once the input has taken more than a second
//! ([`Progress`], redrawn at most ten times a second, erased before the summary).
//! **Not here:** following, offsets, HTTP (`run`).

use std::fmt;
use std::fs::File;
use std::io::{self, IsTerminal, Write};
use std::path::Path;
use std::time::{Duration, Instant};

use anyhow::{Context, Result};

use crate::account::{deferred, Accountant};
use crate::audit::{AuditWriter, WriterThread};
use crate::config::Config;
use crate::exposition::{self, Counted};
use crate::input::readahead::ReadAhead;
use crate::pipeline::{Pipeline, Source};
use crate::vocab::counters::Metrics;

/// What one replay read, printed as one line on stderr when it is done.
#[derive(Debug, Clone, PartialEq)]
pub struct Summary {
    pub files: usize,
    pub bytes: u64,
    /// Lines by outcome, every outcome, in the exposition's order.
    pub lines: Vec<(&'static str, u64)>,
    pub denials: u64,
    pub seconds: f64,
}

impl Summary {
    fn of(files: usize, metrics: &Metrics, took: Duration) -> Summary {
        Summary {
            files,
            bytes: metrics.read_bytes,
            lines: metrics
                .lines_by_outcome()
                .into_iter()
                .map(|(o, n)| (o.as_str(), n))
                .collect(),
            denials: metrics.denials_total(),
            seconds: took.as_secs_f64(),
        }
    }
}

impl fmt::Display for Summary {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let lines: Vec<String> = self.lines.iter().map(|(o, n)| format!("{o}={n}")).collect();
        write!(
            f,
            "replay: {} files, {} bytes, lines {}, {} denials, {:.3} s",
            self.files,
            self.bytes,
            lines.join(" "),
            self.denials,
            self.seconds
        )
    }
}

/// The progress bar of a replay on a terminal: drawn once the input has taken more than
/// [`Progress::AFTER`], then at most every [`Progress::EVERY`].
#[derive(Debug)]
pub struct Progress {
    /// Bytes of every input, when known (not for stdin).
    total: Option<u64>,
    files: usize,
    started: Instant,
    drawn: Option<Instant>,
    enabled: bool,
}

impl Progress {
    pub const AFTER: Duration = Duration::from_secs(1);
    pub const EVERY: Duration = Duration::from_millis(100);
    const WIDTH: usize = 30;

    fn new(files: &[impl AsRef<Path>], enabled: bool) -> Progress {
        let total = files
            .iter()
            .map(|p| {
                std::fs::metadata(p.as_ref())
                    .ok()
                    .filter(|m| m.is_file())
                    .map(|m| m.len())
            })
            .sum();
        Progress {
            total,
            files: files.len(),
            started: Instant::now(),
            drawn: None,
            enabled,
        }
    }

    /// Redraws the bar if it is due: `file` is the 1-based number of the file being read.
    fn tick(&mut self, file: usize, bytes: u64) {
        let now = Instant::now();
        if !self.enabled
            || now.duration_since(self.started) < Self::AFTER
            || self
                .drawn
                .is_some_and(|at| now.duration_since(at) < Self::EVERY)
        {
            return;
        }
        self.drawn = Some(now);
        let line = bar(file, self.files, bytes, self.total);
        let _ = write!(io::stderr(), "\r{line}\x1b[K");
    }

    /// Erases the bar, if one was drawn.
    fn clear(&self) {
        if self.drawn.is_some() {
            let _ = write!(io::stderr(), "\r\x1b[K");
        }
    }
}

/// One frame of the bar: `[#####.....]  42% file 2/5, 1.2 of 2.9 MiB`, or without the bar and
/// percentage when the total is unknown (stdin).
pub fn bar(file: usize, files: usize, bytes: u64, total: Option<u64>) -> String {
    let mib = |b: u64| b as f64 / (1024.0 * 1024.0);
    match total.filter(|&t| t > 0) {
        Some(total) => {
            let done = bytes.min(total) as f64 / total as f64;
            let full = (done * Progress::WIDTH as f64) as usize;
            format!(
                "[{}{}] {:3.0}% file {file}/{files}, {:.1} of {:.1} MiB",
                "#".repeat(full),
                ".".repeat(Progress::WIDTH - full),
                done * 100.0,
                mib(bytes),
                mib(total)
            )
        }
        None => format!("file {file}/{files}, {:.1} MiB", mib(bytes)),
    }
}

/// How a replay's audit records are redacted and written.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum AuditPath {
    /// On the reading thread, between lines (what `run` does).
    Inline,
    /// On a writer thread, while the reading thread counts ([`WriterThread`]): the same bytes.
    WriterThread,
}

/// Replays `files` and returns the exposition text; prints the summary (and the progress bar,
/// on a terminal) on stderr. Audit records, if asked for, are finished on a writer thread.
pub fn replay(config: Config, files: &[impl AsRef<Path>]) -> Result<String> {
    replay_with(config, files, AuditPath::WriterThread)
}

/// [`replay`], with the audit records redacted and written as `audit_path` says.
pub fn replay_with(
    config: Config,
    files: &[impl AsRef<Path>],
    audit_path: AuditPath,
) -> Result<String> {
    let mut progress = Progress::new(files, io::stderr().is_terminal());
    let audit = match &config.audit_log {
        Some(path) => Some(
            AuditWriter::open(path)
                .with_context(|| format!("cannot open audit log {}", path.display()))?,
        ),
        None => None,
    };
    let mut accountant = Accountant::new(config);
    // Nothing in a replay reads its audit records but the audit log: they can be finished off
    // the reading thread.
    let (audit, writer) = match (audit, audit_path) {
        (Some(audit), AuditPath::WriterThread) => {
            let (handover, received, spares) = deferred::channel();
            let writer = WriterThread::spawn(audit, received, spares)?;
            accountant.hand_audit_to(handover);
            (None, Some(writer))
        }
        (audit, _) => (audit, None),
    };
    let mut pipeline = Pipeline::new(accountant, audit, 0);
    let read = replay_all(&mut pipeline, files, &mut progress);
    progress.clear();
    let mut metrics = pipeline.accountant().metrics().clone();
    let gauges = pipeline.accountant().gauges();
    drop(pipeline); // sends the last records to the writer thread, or writes them out
    if let Some(writer) = writer {
        for (kind, n) in writer.join()? {
            let total = metrics.redactions.entry(kind).or_default();
            *total = total.saturating_add(n);
        }
    }
    read?;
    let summary = Summary::of(files.len(), &metrics, progress.started.elapsed());
    let _ = writeln!(io::stderr(), "{summary}"); // a closed stderr is no reason to fail
    Ok(exposition::render_text(&Counted {
        metrics: &metrics,
        gauges,
        run: None,
    }))
}

/// Reads every file through `pipeline`; stops at the first that cannot be opened or read.
fn replay_all(
    pipeline: &mut Pipeline,
    files: &[impl AsRef<Path>],
    progress: &mut Progress,
) -> Result<()> {
    let max_line_bytes = pipeline.accountant().config().limits.max_line_bytes;
    for (n, path) in files.iter().enumerate() {
        let path = path.as_ref();
        let name = path.to_string_lossy();
        let mut source = Source::new(&name, pipeline.accountant().config());
        let prefilter = pipeline.prefilter().clone();
        let mut ahead = if path == Path::new("-") {
            ReadAhead::new(io::stdin(), prefilter, max_line_bytes)
        } else {
            let file = File::open(path).with_context(|| format!("cannot open log file {name}"))?;
            ReadAhead::new(file, prefilter, max_line_bytes)
        };
        replay_one(pipeline, &mut source, &mut ahead, &mut |bytes| {
            progress.tick(n + 1, bytes)
        })
        .with_context(|| format!("cannot read log file {name}"))?;
    }
    Ok(())
}

fn replay_one(
    pipeline: &mut Pipeline,
    source: &mut Source,
    ahead: &mut ReadAhead,
    tick: &mut dyn FnMut(u64),
) -> io::Result<()> {
    while let Some(batch) = ahead.next_batch() {
        tick(pipeline.accountant().metrics().read_bytes);
        let batch = batch?;
        pipeline.oversized(source, batch.oversized);
        if batch.is_tail {
            pipeline.last_line(source, batch.region());
        } else {
            pipeline.picked(source, batch.region(), batch.lines, &batch.picks);
        }
        ahead.recycle(batch);
    }
    Ok(())
}

/// Writes the exposition to stdout; a closed pipe (`| head`) is not an error.
pub fn print(text: &str) -> Result<()> {
    let mut out = io::stdout().lock();
    match out.write_all(text.as_bytes()).and_then(|()| out.flush()) {
        Err(e) if e.kind() == io::ErrorKind::BrokenPipe => Ok(()),
        other => other.context("cannot write to standard output"),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A log whose denials carry the redaction corpus's secret-bearing texts, twice (so the
    /// memo answers the second time): in decision reasons, tool names and inputs that their
    /// execution's record brings later (`risk_decided` records), in denials only a record
    /// reveals, and in a reason past its bound.
    fn secret_laden_log(path: &Path) {
        use crate::account::shown::MAX_TEXT_BYTES;
        use serde_json::json;
        let corpus = include_str!("../tests/data/redaction/positives.txt");
        let texts: Vec<&str> = corpus
            .lines()
            .filter(|l| !l.starts_with('#'))
            .filter_map(|l| l.split_once('\t').map(|(_, text)| text))
            .collect();
        let mut log = String::new();
        let mut time = 1_781_251_205_000_u64;
        let mut line = |value: serde_json::Value| {
            log.push_str(&value.to_string());
            log.push('\n');
        };
        for (n, chunk) in texts
            .iter()
            .chain(&texts)
            .collect::<Vec<_>>()
            .chunks(7)
            .enumerate()
        {
            let execution = format!("exec_{n}");
            let mut listed = Vec::new();
            for (i, text) in chunk.iter().enumerate() {
                time += 1000;
                let tool_use_id = format!("toolu_{n}_{i}");
                let tool = if i == 3 {
                    (*text).to_string()
                } else {
                    "Bash".to_string()
                };
                let reason = match i {
                    5 if n % 10 == 0 => text.repeat(MAX_TEXT_BYTES / text.len() + 1),
                    _ => (*text).to_string(),
                };
                line(json!({"level": 40, "time": time, "executionId": execution,
                    "workflow": "review", "event": "agent.permission.denied", "toolName": tool,
                    "toolUseId": tool_use_id, "decisionReasonType": "classifier",
                    "decisionReason": reason, "msg": "agent permission denied"}));
                listed.push(json!({"toolName": "Bash", "toolUseId": tool_use_id,
                    "toolInput": {"command": text}}));
            }
            listed.push(
                json!({"toolName": "Write", "toolUseId": format!("toolu_{n}_record"),
                "toolInput": {"file_path": chunk[0], "content": "x"}}),
            );
            time += 1000;
            line(json!({"level": 30, "time": time, "executionId": execution,
                "workflow": "review", "sdkMsgType": "result", "subtype": "success",
                "permissionDenialCount": listed.len(), "permissionDenials": listed}));
        }
        std::fs::write(path, log).unwrap();
    }

    #[test]
    fn the_writer_thread_writes_the_same_bytes_and_counts_the_same_redactions() {
        let dir = tempfile::tempdir().unwrap();
        let generated = dir.path().join("secrets.log");
        secret_laden_log(&generated);
        let example = Path::new(env!("CARGO_MANIFEST_DIR")).join("examples/executor.log");
        for log in [example.as_path(), generated.as_path()] {
            let replayed = |audit_path: AuditPath, name: &str| {
                let audit = dir.path().join(name);
                let config = Config {
                    audit_log: Some(audit.clone()),
                    ..Config::default()
                };
                let text = replay_with(config, &[log], audit_path).unwrap();
                (text, std::fs::read_to_string(audit).unwrap())
            };
            let (inline_text, inline_audit) = replayed(AuditPath::Inline, "inline.jsonl");
            let (thread_text, thread_audit) = replayed(AuditPath::WriterThread, "thread.jsonl");
            assert!(
                inline_text.contains("denials_exporter_redactions_total{"),
                "{}: the log holds secrets",
                log.display()
            );
            assert!(inline_audit.contains("[REDACTED:"), "{}", log.display());
            assert_eq!(thread_text, inline_text, "{}: exposition", log.display());
            assert_eq!(thread_audit, inline_audit, "{}: audit log", log.display());
        }
        let audit = std::fs::read_to_string(dir.path().join("thread.jsonl")).unwrap();
        for kind in [
            "permission_denial",
            "risk_decided",
            "\"origin\":\"record\"",
            "<decision reason of ",
        ] {
            assert!(audit.contains(kind), "the generated log exercises {kind}");
        }
    }

    #[test]
    fn the_bar_shows_the_share_read_or_the_bytes_alone() {
        assert_eq!(
            bar(2, 5, 3 << 20, Some(4 << 20)),
            format!(
                "[{}{}]  75% file 2/5, 3.0 of 4.0 MiB",
                "#".repeat(22),
                ".".repeat(8)
            )
        );
        assert!(bar(1, 1, 0, Some(10)).starts_with(&format!("[{}]   0%", ".".repeat(30))));
        assert!(bar(1, 1, 99, Some(10)).starts_with(&format!("[{}] 100%", "#".repeat(30))));
        assert_eq!(bar(1, 1, 1 << 20, None), "file 1/1, 1.0 MiB");
    }

    #[test]
    fn the_bar_waits_a_second_and_then_redraws_at_most_ten_times_a_second() {
        let mut progress = Progress::new(&["-"], true);
        progress.tick(1, 10);
        assert!(progress.drawn.is_none(), "not before a second");
        progress.started -= Progress::AFTER;
        progress.tick(1, 10);
        let first = progress.drawn.expect("drawn after a second");
        progress.tick(1, 20);
        assert_eq!(progress.drawn, Some(first), "not again within 100 ms");
        let mut off = Progress::new(&["-"], false);
        off.started -= Progress::AFTER;
        off.tick(1, 10);
        assert!(off.drawn.is_none(), "never off a terminal");
    }

    #[test]
    fn the_summary_is_one_line_with_every_outcome() {
        let mut metrics = Metrics {
            read_bytes: 1234,
            lines_read: 7,
            ..Metrics::default()
        };
        metrics
            .lines
            .insert(crate::vocab::counters::LineOutcome::Malformed, 2);
        let text = Summary::of(3, &metrics, Duration::from_millis(1500)).to_string();
        assert!(
            text.starts_with("replay: 3 files, 1234 bytes, lines "),
            "{text}"
        );
        assert!(text.contains("malformed=2"), "{text}");
        assert!(text.ends_with(", 0 denials, 1.500 s"), "{text}");
        assert!(!text.contains('\n'));
    }
}
