//! The exporter's own log: tracing to stderr, every line redacted before it is written.
//!
//! Paths, errors and excerpts of bad lines are attacker-influenced (a log directory named after a
//! token, a tool name that is one), so redaction is not left to each call site: the formatted
//! line of every event, at every level and in either format, passes the redactor on its way
//! out. The redactor keeps JSON valid, so `--log.format json` stays one object a line;
//! `--log.format logfmt` (`ts=… level=… target=… msg=… key=value`, Prometheus' own format) is
//! formatted here and redacted the same way.
//!
//! **Not here:** what is logged (the call sites), the redaction rules (`crate::redact`).

use std::fmt::Write as _;
use std::io::{self, IsTerminal, Write};

use tracing::field::{Field, Visit};
use tracing::{Event, Subscriber};
use tracing_subscriber::fmt::format::Writer;
use tracing_subscriber::fmt::time::{FormatTime, SystemTime};
use tracing_subscriber::fmt::{FmtContext, FormatEvent, FormatFields, MakeWriter};
use tracing_subscriber::registry::LookupSpan;

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
        LogFormat::Logfmt => builder.event_format(Logfmt).init(),
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

/// `--log.format logfmt`: one `key=value` line an event, values quoted when they need it.
struct Logfmt;

impl<S, N> FormatEvent<S, N> for Logfmt
where
    S: Subscriber + for<'a> LookupSpan<'a>,
    N: for<'a> FormatFields<'a> + 'static,
{
    fn format_event(
        &self,
        _ctx: &FmtContext<'_, S, N>,
        mut writer: Writer<'_>,
        event: &Event<'_>,
    ) -> std::fmt::Result {
        let mut time = String::new();
        SystemTime.format_time(&mut Writer::new(&mut time))?;
        let meta = event.metadata();
        let mut line = String::with_capacity(128);
        pair(&mut line, "ts", &time);
        pair(
            &mut line,
            "level",
            &meta.level().as_str().to_ascii_lowercase(),
        );
        pair(&mut line, "target", meta.target());
        let mut fields = LogfmtFields {
            message: None,
            rest: String::new(),
        };
        event.record(&mut fields);
        if let Some(message) = fields.message {
            pair(&mut line, "msg", &message);
        }
        line.push_str(&fields.rest);
        writeln!(writer, "{}", line.trim_start())
    }
}

/// The event's fields: `message` is written first as `msg`, the others after it in order.
struct LogfmtFields {
    message: Option<String>,
    rest: String,
}

impl Visit for LogfmtFields {
    fn record_str(&mut self, field: &Field, value: &str) {
        if field.name() == "message" {
            self.message = Some(value.to_string());
        } else {
            pair(&mut self.rest, field.name(), value);
        }
    }

    fn record_debug(&mut self, field: &Field, value: &dyn std::fmt::Debug) {
        self.record_str(field, &format!("{value:?}"));
    }
}

/// Appends ` key=value`, the value quoted (with `\`, `"` and control characters escaped) when
/// it is empty or holds a space, `=`, `"` or a control character.
fn pair(line: &mut String, key: &str, value: &str) {
    line.push(' ');
    line.push_str(key);
    line.push('=');
    let bare = !value.is_empty()
        && !value
            .chars()
            .any(|c| c == ' ' || c == '=' || c == '"' || c == '\\' || c.is_control());
    if bare {
        line.push_str(value);
        return;
    }
    line.push('"');
    for c in value.chars() {
        match c {
            '"' => line.push_str("\\\""),
            '\\' => line.push_str("\\\\"),
            '\n' => line.push_str("\\n"),
            '\r' => line.push_str("\\r"),
            '\t' => line.push_str("\\t"),
            c if c.is_control() => {
                let _ = write!(line, "\\u{{{:04x}}}", c as u32);
            }
            c => line.push(c),
        }
    }
    line.push('"');
}

#[cfg(test)]
mod tests {
    use super::pair;

    #[test]
    fn logfmt_values_are_quoted_when_they_need_it() {
        let mut line = String::new();
        pair(&mut line, "a", "plain");
        pair(&mut line, "b", "two words");
        pair(&mut line, "c", "");
        pair(&mut line, "d", "say \"hi\"\nback\\");
        assert_eq!(
            line,
            r#" a=plain b="two words" c="" d="say \"hi\"\nback\\""#
        );
    }
}
