//! The exporter's own log: tracing to stderr, every line redacted before it is written.
//!
//! Paths, errors and excerpts of bad lines are attacker-influenced (a log directory named after a
//! token, a tool name that is one), so redaction is not left to each call site: the formatted
//! line of every event, at every level and in either format, passes the redactor on its way
//! out. The redactor keeps JSON valid, so `--log.format json` stays one object a line.
//!
//! **Not here:** what is logged (the call sites), the redaction rules (`crate::redact`).

use std::io::{self, IsTerminal, Write};

use tracing_subscriber::fmt::MakeWriter;

use crate::cli::{LogArgs, LogFormat};

/// Sets up the global subscriber from `--log.level` and `--log.format`.
pub fn init(log: &LogArgs) -> anyhow::Result<()> {
    let filter = tracing_subscriber::EnvFilter::try_new(&log.level)
        .map_err(|e| anyhow::anyhow!("invalid --log.level {:?}: {e}", log.level))?;
    let builder = tracing_subscriber::fmt()
        .with_env_filter(filter)
        .with_ansi(io::stderr().is_terminal())
        // A closed stderr must not take the exporter down: tracing's own fallback report of a
        // failed write is an eprintln!, which panics on a closed stderr.
        .log_internal_errors(false)
        .with_writer(RedactedStderr);
    match log.format {
        LogFormat::Text => builder.init(),
        LogFormat::Json => builder.json().flatten_event(true).init(),
    }
    Ok(())
}

/// Makes one [`Line`] per event.
struct RedactedStderr;

impl<'a> MakeWriter<'a> for RedactedStderr {
    type Writer = Line;

    fn make_writer(&'a self) -> Line {
        Line(Vec::with_capacity(256))
    }
}

/// One formatted event, held until it is complete, then redacted and written whole.
struct Line(Vec<u8>);

impl Write for Line {
    fn write(&mut self, bytes: &[u8]) -> io::Result<usize> {
        self.0.extend_from_slice(bytes);
        Ok(bytes.len())
    }

    fn flush(&mut self) -> io::Result<()> {
        Ok(())
    }
}

impl Drop for Line {
    fn drop(&mut self) {
        if self.0.is_empty() {
            return;
        }
        let text = String::from_utf8_lossy(&self.0);
        let mut tally = Default::default(); // the log's redactions are not the pipeline's count
        let redacted = crate::redact::shared_redactor().redact(&text, &mut tally);
        let _ = io::stderr().write_all(redacted.as_bytes());
    }
}
