//! `denials-exporter replay FILE...`: read each file from start to end through the pipeline and
//! print the Prometheus text exposition, exactly what the live `/metrics` serves.
//!
//! A streaming loop over one reused [`LineBuffer`], fed by a read-ahead thread ([`Prefetch`]):
//! memory does not grow with file size. An
//! unreadable file stops the command with an error naming it; bad lines never do.
//! **Not here:** following, offsets, HTTP (`run`).

use std::fs::File;
use std::io::{self, Read, Write};
use std::path::Path;

use anyhow::{Context, Result};

use crate::account::Accountant;
use crate::config::Config;
use crate::input::chunk::LineBuffer;
use crate::input::prefetch::Prefetch;
use crate::output::audit::AuditWriter;
use crate::output::exposition;
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
    let mut pipeline = Pipeline::new(Accountant::new(config), audit, false);
    let mut buffer = LineBuffer::new(max_line_bytes);
    for path in files {
        let path = path.as_ref();
        let name = path.to_string_lossy();
        let mut source = Source::new(&name, pipeline.accountant().config());
        buffer.reset(0);
        let mut reader = if path == Path::new("-") {
            Prefetch::new(io::stdin())
        } else {
            Prefetch::new(File::open(path).with_context(|| format!("cannot open log file {name}"))?)
        };
        replay_one(&mut pipeline, &mut source, &mut buffer, &mut reader)
            .with_context(|| format!("cannot read log file {name}"))?;
    }
    let accountant = pipeline.accountant();
    let kinds = accountant.redactor().kinds();
    Ok(exposition::render(
        accountant.metrics(),
        accountant.gauges(),
        &kinds,
        None,
    ))
}

fn replay_one(
    pipeline: &mut Pipeline,
    source: &mut Source,
    buffer: &mut LineBuffer,
    reader: &mut dyn Read,
) -> io::Result<()> {
    loop {
        let filled = buffer.fill(reader)?;
        pipeline.oversized(source, filled.oversized);
        pipeline.lines(source, buffer.lines());
        if filled.read == 0 {
            break;
        }
    }
    if let Some(tail) = buffer.take_tail() {
        pipeline.last_line(source, &tail);
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
