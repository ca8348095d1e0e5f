//! `denials-exporter replay FILE...`: read each file from start to end through the pipeline and
//! print the Prometheus text exposition, exactly what the live `/metrics` serves.
//!
//! A streaming loop fed by a read-ahead thread that reads and picks candidate lines
//! ([`ReadAhead`]) while this one decodes and counts: memory does not grow with file size. An
//! unreadable file stops the command with an error naming it; bad lines never do.
//! **Not here:** following, offsets, HTTP (`run`).

use std::fs::File;
use std::io::{self, Write};
use std::path::Path;

use anyhow::{Context, Result};

use crate::account::Accountant;
use crate::audit::AuditWriter;
use crate::config::Config;
use crate::exposition::{self, Counted};
use crate::input::readahead::ReadAhead;
use crate::pipeline::{Pipeline, Source};

/// Replays `files` and returns the exposition text.
pub fn replay(config: Config, files: &[impl AsRef<Path>]) -> Result<String> {
    let audit = match &config.audit_log {
        Some(path) => Some(
            AuditWriter::open(path)
                .with_context(|| format!("cannot open audit log {}", path.display()))?,
        ),
        None => None,
    };
    let max_line_bytes = config.limits.max_line_bytes;
    let mut pipeline = Pipeline::new(Accountant::new(config), audit, 0);
    for path in files {
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
        replay_one(&mut pipeline, &mut source, &mut ahead)
            .with_context(|| format!("cannot read log file {name}"))?;
    }
    let accountant = pipeline.accountant();
    Ok(exposition::render_text(&Counted {
        metrics: accountant.metrics(),
        gauges: accountant.gauges(),
        redaction_kinds: crate::redact::kind_names(),
        run: None,
    }))
}

fn replay_one(
    pipeline: &mut Pipeline,
    source: &mut Source,
    ahead: &mut ReadAhead,
) -> io::Result<()> {
    while let Some(batch) = ahead.next_batch() {
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
