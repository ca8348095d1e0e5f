//! Command-line flags and their environment variables, as parsed data.
//!
//! Owns the flag names, defaults and help texts. Every default is stated once, in [`defaults`]:
//! clap applies it, and the `Default` of the checked configuration is built from it (a test
//! holds the two equal). **Not here:** validation and anything compiled
//! from a flag (regexes, caps, field sets) — that is [`crate::config`], which turns these plain
//! values into a checked `Config`.
//!
//! Every flag has an environment variable named after it: `DENIALS_EXPORTER_` and the flag's
//! name in capitals, dots and dashes made underscores (`--web.listen-address` is
//! `DENIALS_EXPORTER_WEB_LISTEN_ADDRESS`); the flag wins. Names from before that rule are still
//! read ([`env`]). Duration flags take `500ms`, `5s`, `1m`, `6h`, `1d` or sums such as `1h30m`; a
//! bare number is seconds.

use std::path::PathBuf;

use clap::{Args, Parser, Subcommand, ValueEnum};

pub mod env;

/// The headings `--help` groups the flags under.
pub mod headings {
    pub const INPUT: &str = "Input";
    pub const FIELDS: &str = "Fields";
    pub const LIMITS: &str = "Limits";
    pub const WEB: &str = "Web";
    pub const LOGGING: &str = "Logging";
}

/// Every flag default, stated once.
pub mod defaults {
    // Durations are written as `--help` shows them and a user would type them.
    pub const STATE_INTERVAL: &str = "5s";
    pub const STAT_INTERVAL: &str = "1s";
    pub const MAX_FILE_SERIES: usize = 50;
    pub const LISTEN_ADDRESS: &str = ":10403";
    pub const TELEMETRY_PATH: &str = "/metrics";
    pub const MAX_CONNECTIONS: usize = 256;
    pub const WRITE_TIMEOUT: &str = "10s";
    pub const RECENT_DENIALS: usize = 100;
    pub const LOG_LEVEL: &str = "info";

    pub const EVENT_KEY: &str = "event";
    pub const DENIED_EVENT: &str = "agent.permission.denied";
    pub const MESSAGE_KEY: &str = "msg";
    pub const COMPLETED_MESSAGE: &str = "Claude Agent SDK execution completed";
    /// Comma-separated, tried in order.
    pub const CORRELATION_KEYS: &str = "executionId,execution_id,sessionId,session_id,jobId";
    /// Comma-separated, tried in order.
    pub const WORKFLOW_KEYS: &str = "workflow,workflowName,workflow_name";
    pub const TOOL_KEY: &str = "toolName";
    pub const TOOL_USE_ID_KEY: &str = "toolUseId";
    pub const REASON_TYPE_KEY: &str = "decisionReasonType";
    pub const REASON_KEY: &str = "decisionReason";
    pub const WORKFLOW_DEFAULT: &str = "unknown";

    pub const MAX_TOOLS: usize = 200;
    pub const MAX_WORKFLOWS: usize = 100;
    pub const MAX_SERIES: usize = 5000;
    pub const MAX_MODELS: usize = 50;
    pub const MAX_PATH_VALUES: usize = 1000;
    pub const PATH_LABELS_GRACE: &str = "15m";
    /// [`PATH_LABELS_GRACE`] in seconds, for the checked configuration's `Default`.
    pub const PATH_LABELS_GRACE_SECS: u64 = 15 * 60;
    pub const MAX_EXECUTIONS: usize = 4096;
    pub const EXECUTION_IDLE_TIMEOUT: &str = "6h";
    /// [`EXECUTION_IDLE_TIMEOUT`] in seconds, for the checked configuration's `Default`.
    pub const EXECUTION_IDLE_TIMEOUT_SECS: u64 = 6 * 3600;
    pub const MAX_DENIALS_PER_RECORD: u64 = 10_000;
    pub const MAX_CLOCK_SKEW: &str = "1h";
    /// [`MAX_CLOCK_SKEW`] in seconds, for the checked configuration's `Default`.
    pub const MAX_CLOCK_SKEW_SECS: u64 = 3600;
    /// 1 MiB.
    pub const MAX_LINE_BYTES: usize = 1 << 20;
}

/// denials-exporter: count AI-agent permission denials in executor logs, exactly once, for Prometheus.
#[derive(Debug, Parser)]
#[command(name = "denials-exporter", version = crate::build_info::LONG_VERSION, about, long_about = None)]
pub struct Cli {
    #[command(subcommand)]
    pub command: Command,
}

#[derive(Debug, Subcommand)]
pub enum Command {
    /// Read log files from start to end and print the Prometheus text exposition to stdout.
    Replay(Box<ReplayArgs>),
    /// Follow log files as they are written and rotated, and serve /metrics over HTTP.
    Run(Box<RunArgs>),
}

#[derive(Debug, Args)]
pub struct ReplayArgs {
    /// Log files to read, in order (`-` reads standard input).
    #[arg(required = true, value_name = "FILE", help_heading = headings::INPUT)]
    pub files: Vec<PathBuf>,

    #[command(flatten)]
    pub pipeline: PipelineArgs,

    #[command(flatten)]
    pub log: LogArgs,
}

#[derive(Debug, Args)]
pub struct RunArgs {
    /// Glob of log files to follow; files that match now or appear later are followed
    /// (repeatable; the environment variable takes a comma-separated list).
    #[arg(
        long = "path",
        value_name = "GLOB",
        env = "DENIALS_EXPORTER_PATH",
        value_delimiter = ',',
        required_unless_present = "demo",
        help_heading = headings::INPUT
    )]
    pub paths: Vec<String>,

    /// Where to keep file offsets, counters and reconciliation state across restarts.
    #[arg(long, value_name = "PATH", env = "DENIALS_EXPORTER_STATE_FILE", help_heading = headings::INPUT)]
    pub state_file: Option<PathBuf>,

    /// How often the state file is written, a duration (`5s`, `1m`; a bare number is seconds). It
    /// is also written at start-up, on SIGHUP, at shutdown, and again within a second after a
    /// failed write.
    #[arg(
        long,
        value_name = "DURATION",
        value_parser = parse_duration,
        default_value = defaults::STATE_INTERVAL,
        env = "DENIALS_EXPORTER_STATE_INTERVAL",
        help_heading = headings::INPUT
    )]
    pub state_interval: f64,

    /// Accepted for compatibility, and now always the behaviour: a state file that is corrupt,
    /// unreadable or written by a newer version is moved aside as `<path>.bad-<time>` and the
    /// exporter starts fresh, counted in `denials_exporter_faults_total`.
    #[arg(long, env = "DENIALS_EXPORTER_STATE_RESET_ON_ERROR", help_heading = headings::INPUT)]
    pub state_reset_on_error: bool,

    /// Where to start in the files found at the first start, when there is no state file yet.
    /// With a state file, files it knows resume at their offset and every other file is new and
    /// read from its beginning; files that appear while running are always read from the beginning.
    #[arg(long, value_enum, default_value_t = ReadFrom::Beginning, env = "DENIALS_EXPORTER_READ_FROM", help_heading = headings::INPUT)]
    pub read_from: ReadFrom,

    /// Poll the files instead of using inotify.
    #[arg(long, env = "DENIALS_EXPORTER_POLL", help_heading = headings::INPUT)]
    pub poll: bool,

    /// How many files (those with the most lag) get a `denials_exporter_file_lag_bytes` series;
    /// the others are summed into `denials_exporter_file_lag_others_bytes`.
    #[arg(
        long,
        value_name = "N",
        default_value_t = defaults::MAX_FILE_SERIES,
        env = "DENIALS_EXPORTER_MAX_FILE_SERIES",
        help_heading = headings::LIMITS
    )]
    pub max_file_series: usize,

    /// How often files are stat()ed to catch what inotify missed (and the poll period with
    /// --poll), a duration (`250ms`, `1s`; a bare number is seconds).
    #[arg(
        long,
        value_name = "DURATION",
        value_parser = parse_duration,
        default_value = defaults::STAT_INTERVAL,
        env = "DENIALS_EXPORTER_STAT_INTERVAL",
        help_heading = headings::INPUT
    )]
    pub stat_interval: f64,

    /// Address to serve HTTP on (repeatable): `:PORT` listens on every address family (IPv6 and
    /// IPv4), `host:port`, `IPv4:port` or `[IPv6]:port` on that one address.
    #[arg(
        long = "web.listen-address",
        value_name = "ADDR",
        default_value = defaults::LISTEN_ADDRESS,
        env = "DENIALS_EXPORTER_WEB_LISTEN_ADDRESS",
        value_delimiter = ',',
        help_heading = headings::WEB
    )]
    pub listen_addresses: Vec<String>,

    /// Path under which the metrics are served.
    #[arg(
        long = "web.telemetry-path",
        value_name = "PATH",
        default_value = defaults::TELEMETRY_PATH,
        env = "DENIALS_EXPORTER_WEB_TELEMETRY_PATH",
        help_heading = headings::WEB
    )]
    pub telemetry_path: String,

    /// TLS, basic auth and response headers, in exporter-toolkit's web config format (YAML).
    /// Read at start-up; an unreadable or invalid file stops the exporter.
    #[arg(
        long = "web.config.file",
        value_name = "PATH",
        env = "DENIALS_EXPORTER_WEB_CONFIG_FILE",
        help_heading = headings::WEB
    )]
    pub web_config_file: Option<PathBuf>,

    /// Open HTTP connections allowed; beyond it new ones are closed at once (and counted).
    #[arg(
        long = "web.max-connections",
        value_name = "N",
        default_value_t = defaults::MAX_CONNECTIONS,
        env = "DENIALS_EXPORTER_WEB_MAX_CONNECTIONS",
        help_heading = headings::WEB
    )]
    pub max_connections: usize,

    /// Time to write a response, a duration (`10s`; a bare number is seconds); a client that does
    /// not read it in time is disconnected.
    #[arg(
        long = "web.write-timeout",
        value_name = "DURATION",
        value_parser = parse_duration,
        default_value = defaults::WRITE_TIMEOUT,
        env = "DENIALS_EXPORTER_WEB_WRITE_TIMEOUT",
        help_heading = headings::WEB
    )]
    pub write_timeout: f64,

    /// How many recent denials the landing page and /api/v1/denials keep (0 turns them off).
    #[arg(
        long,
        value_name = "N",
        default_value_t = defaults::RECENT_DENIALS,
        env = "DENIALS_EXPORTER_RECENT_DENIALS",
        help_heading = headings::WEB
    )]
    pub recent_denials: usize,

    /// Demo: write the bundled example log, line by line with each line's time set to now, into a
    /// temporary directory and follow it.
    #[arg(long, env = "DENIALS_EXPORTER_DEMO", help_heading = headings::INPUT)]
    pub demo: bool,

    #[command(flatten)]
    pub pipeline: PipelineArgs,

    #[command(flatten)]
    pub log: LogArgs,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum ReadFrom {
    Beginning,
    End,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum LogFormat {
    /// Human-readable lines.
    Text,
    /// One JSON object a line.
    Json,
    /// `key=value` pairs a line, as Prometheus and its exporters log.
    Logfmt,
}

/// The exporter's own logs.
#[derive(Debug, Args)]
pub struct LogArgs {
    /// Minimum level of the exporter's own log: error, warn, info, debug, trace.
    #[arg(
        long = "log.level",
        value_name = "LEVEL",
        default_value = defaults::LOG_LEVEL,
        env = "DENIALS_EXPORTER_LOG_LEVEL",
        help_heading = headings::LOGGING
    )]
    pub level: String,

    /// Format of the exporter's own log (written to stderr).
    #[arg(long = "log.format", value_enum, default_value_t = LogFormat::Text, env = "DENIALS_EXPORTER_LOG_FORMAT", help_heading = headings::LOGGING)]
    pub format: LogFormat,
}

/// Flags shared by `replay` and `run`: what the lines mean and how they are counted.
#[derive(Debug, Args)]
pub struct PipelineArgs {
    /// Top-level key holding the event name.
    #[arg(
        long = "field.event",
        value_name = "KEY",
        default_value = defaults::EVENT_KEY,
        env = "DENIALS_EXPORTER_FIELD_EVENT",
        help_heading = headings::FIELDS
    )]
    pub event_key: String,

    /// Event name of a mid-stream denial.
    #[arg(
        long = "field.denied-event",
        value_name = "NAME",
        default_value = defaults::DENIED_EVENT,
        env = "DENIALS_EXPORTER_FIELD_DENIED_EVENT",
        help_heading = headings::FIELDS
    )]
    pub denied_event: String,

    /// Top-level key holding the log message.
    #[arg(
        long = "field.message",
        value_name = "KEY",
        default_value = defaults::MESSAGE_KEY,
        env = "DENIALS_EXPORTER_FIELD_MESSAGE",
        help_heading = headings::FIELDS
    )]
    pub message_key: String,

    /// Message of the completed-execution line.
    #[arg(
        long = "field.completed-message",
        value_name = "TEXT",
        default_value = defaults::COMPLETED_MESSAGE,
        env = "DENIALS_EXPORTER_FIELD_COMPLETED_MESSAGE",
        help_heading = headings::FIELDS
    )]
    pub completed_message: String,

    /// Correlation keys, tried in order (comma-separated).
    #[arg(
        long = "field.correlation",
        value_name = "KEYS",
        value_delimiter = ',',
        default_value = defaults::CORRELATION_KEYS,
        env = "DENIALS_EXPORTER_FIELD_CORRELATION",
        help_heading = headings::FIELDS
    )]
    pub correlation_keys: Vec<String>,

    /// Workflow keys, tried in order (comma-separated).
    #[arg(
        long = "field.workflow",
        value_name = "KEYS",
        value_delimiter = ',',
        default_value = defaults::WORKFLOW_KEYS,
        env = "DENIALS_EXPORTER_FIELD_WORKFLOW",
        help_heading = headings::FIELDS
    )]
    pub workflow_keys: Vec<String>,

    /// Key of the tool name in a denial line.
    #[arg(
        long = "field.tool",
        value_name = "KEY",
        default_value = defaults::TOOL_KEY,
        env = "DENIALS_EXPORTER_FIELD_TOOL",
        help_heading = headings::FIELDS
    )]
    pub tool_key: String,

    /// Key of the tool use id in a denial line.
    #[arg(
        long = "field.tool-use-id",
        value_name = "KEY",
        default_value = defaults::TOOL_USE_ID_KEY,
        env = "DENIALS_EXPORTER_FIELD_TOOL_USE_ID",
        help_heading = headings::FIELDS
    )]
    pub tool_use_id_key: String,

    /// Key of the decision reason type in a denial line.
    #[arg(
        long = "field.reason-type",
        value_name = "KEY",
        default_value = defaults::REASON_TYPE_KEY,
        env = "DENIALS_EXPORTER_FIELD_REASON_TYPE",
        help_heading = headings::FIELDS
    )]
    pub reason_type_key: String,

    /// Key of the decision reason text in a denial line.
    #[arg(
        long = "field.reason",
        value_name = "KEY",
        default_value = defaults::REASON_KEY,
        env = "DENIALS_EXPORTER_FIELD_REASON",
        help_heading = headings::FIELDS
    )]
    pub reason_key: String,

    /// Classify free-text reasons: `REGEX=REASON`, tried before the built-in rules (repeatable).
    /// The environment variable holds one rule a line (split on newlines, not commas, since a
    /// regex may contain a comma).
    #[arg(
        long = "reason-rule",
        value_name = "REGEX=REASON",
        env = "DENIALS_EXPORTER_REASON_RULE",
        value_delimiter = '\n',
        help_heading = headings::FIELDS
    )]
    pub reason_rules: Vec<String>,

    /// Add a risk rule: `CLASS=REGEX` over what a denied call attempted (its command, path, URL
    /// or written content), tried with the built-in rules; CLASS is a built-in dangerous class or
    /// a new one (at most 8 new classes). Repeatable; the environment variable holds one rule a
    /// line. See docs/risk.md.
    #[arg(
        long = "risk-rule",
        value_name = "CLASS=REGEX",
        env = "DENIALS_EXPORTER_RISK_RULE",
        value_delimiter = '\n',
        help_heading = headings::FIELDS
    )]
    pub risk_rules: Vec<String>,

    /// A host data may be sent to without being `exfiltration` (and its subdomains), beside the
    /// built-in code hosts and package registries. Repeatable; the environment variable holds
    /// one host a line.
    #[arg(
        long = "risk-allow-host",
        value_name = "HOST",
        env = "DENIALS_EXPORTER_RISK_ALLOW_HOST",
        value_delimiter = '\n',
        help_heading = headings::FIELDS
    )]
    pub risk_allow_hosts: Vec<String>,

    /// Regex on each file's path whose named groups become labels of its series: `namespace`,
    /// `pod` and `container` on every denial, execution and spend series; `workflow` names the
    /// workflow when a line carries none. Without named groups, the first group is the
    /// workflow. See docs/node-agent.md.
    #[arg(
        long,
        value_name = "REGEX",
        env = "DENIALS_EXPORTER_LABELS_FROM_PATH",
        help_heading = headings::FIELDS
    )]
    pub labels_from_path: Option<String>,

    /// The older name of --labels-from-path (the same flag).
    #[arg(
        long,
        value_name = "REGEX",
        env = "DENIALS_EXPORTER_WORKFLOW_FROM_PATH",
        help_heading = headings::FIELDS
    )]
    pub workflow_from_path: Option<String>,

    /// Distinct values of each label --labels-from-path gives (`namespace`, `pod`,
    /// `container`) before new ones become `other`; a value comes free again when its series
    /// are dropped.
    #[arg(
        long,
        value_name = "N",
        default_value_t = defaults::MAX_PATH_VALUES,
        env = "DENIALS_EXPORTER_MAX_PATH_VALUES",
        help_heading = headings::LIMITS
    )]
    pub max_path_values: usize,

    /// How long the series of a label set --labels-from-path gave stay after its last file was
    /// let go (a deleted pod's logs), a duration (`15m`; a bare number is seconds); then they
    /// are dropped, so pod churn does not grow the exposition.
    #[arg(
        long,
        value_name = "DURATION",
        value_parser = parse_whole_seconds,
        default_value = defaults::PATH_LABELS_GRACE,
        env = "DENIALS_EXPORTER_PATH_LABELS_GRACE",
        help_heading = headings::LIMITS
    )]
    pub path_labels_grace: u64,

    /// Workflow when neither the line nor the path names one.
    #[arg(
        long,
        value_name = "NAME",
        default_value = defaults::WORKFLOW_DEFAULT,
        env = "DENIALS_EXPORTER_WORKFLOW_DEFAULT",
        help_heading = headings::FIELDS
    )]
    pub workflow_default: String,

    /// Distinct `tool` label values admitted before new ones become `other`.
    #[arg(
        long,
        value_name = "N",
        default_value_t = defaults::MAX_TOOLS,
        env = "DENIALS_EXPORTER_MAX_TOOLS",
        help_heading = headings::LIMITS
    )]
    pub max_tools: usize,

    /// Distinct `workflow` label values admitted before new ones become `other`.
    #[arg(
        long,
        value_name = "N",
        default_value_t = defaults::MAX_WORKFLOWS,
        env = "DENIALS_EXPORTER_MAX_WORKFLOWS",
        help_heading = headings::LIMITS
    )]
    pub max_workflows: usize,

    /// `permission_denials_total` series at most, above the per-label caps: a new label set
    /// beyond it is counted under tool and workflow `other` (its reason kept), and the overflow
    /// is counted.
    #[arg(
        long,
        value_name = "N",
        default_value_t = defaults::MAX_SERIES,
        env = "DENIALS_EXPORTER_MAX_SERIES",
        help_heading = headings::LIMITS
    )]
    pub max_series: usize,

    /// Distinct `model` label values (spend by model) admitted before new ones become `other`.
    #[arg(
        long,
        value_name = "N",
        default_value_t = defaults::MAX_MODELS,
        env = "DENIALS_EXPORTER_MAX_MODELS",
        help_heading = headings::LIMITS
    )]
    pub max_models: usize,

    /// Executions held for reconciliation; beyond it the least recently seen is evicted.
    #[arg(
        long,
        value_name = "N",
        default_value_t = defaults::MAX_EXECUTIONS,
        env = "DENIALS_EXPORTER_MAX_EXECUTIONS",
        help_heading = headings::LIMITS
    )]
    pub max_executions: usize,

    /// Time without a line before an execution's reconciliation state is evicted, a duration
    /// (`6h`, `90m`; a bare number is seconds).
    #[arg(
        long,
        value_name = "DURATION",
        value_parser = parse_whole_seconds,
        default_value = defaults::EXECUTION_IDLE_TIMEOUT,
        env = "DENIALS_EXPORTER_EXECUTION_IDLE_TIMEOUT",
        help_heading = headings::LIMITS
    )]
    pub execution_idle_timeout: u64,

    /// Denials one execution record may reveal, in total: a count in a record is written by
    /// whoever controls the log, and an absurd one is clamped (and counted) instead of counted.
    #[arg(
        long,
        value_name = "N",
        default_value_t = defaults::MAX_DENIALS_PER_RECORD,
        env = "DENIALS_EXPORTER_MAX_DENIALS_PER_RECORD",
        help_heading = headings::LIMITS
    )]
    pub max_denials_per_record: u64,

    /// A log time further than this ahead of the wall clock is treated as no time (and counted):
    /// one wrong timestamp must not evict every execution in flight. A duration (`1h`, `30m`; a
    /// bare number is seconds).
    #[arg(
        long,
        value_name = "DURATION",
        value_parser = parse_whole_seconds,
        default_value = defaults::MAX_CLOCK_SKEW,
        env = "DENIALS_EXPORTER_MAX_CLOCK_SKEW",
        help_heading = headings::LIMITS
    )]
    pub max_clock_skew: u64,

    /// Longest line accepted, in bytes; longer lines are skipped and counted as oversized.
    #[arg(long, value_name = "BYTES", default_value_t = defaults::MAX_LINE_BYTES, env = "DENIALS_EXPORTER_MAX_LINE_BYTES", help_heading = headings::LIMITS)]
    pub max_line_bytes: usize,

    /// Write one redacted JSON object per counted denial here (`-` for stdout).
    #[arg(long, value_name = "PATH", env = "DENIALS_EXPORTER_AUDIT_LOG", help_heading = headings::LOGGING)]
    pub audit_log: Option<PathBuf>,
}

/// Parses a duration flag into seconds: `500ms`, `5s`, `1m`, `6h`, `1d`, a sum of them (`1h30m`),
/// or a bare number of seconds. Range checks (positive, …) are the config's.
pub fn parse_duration(text: &str) -> Result<f64, String> {
    let invalid =
        || format!("want a duration such as 5s, 1m or 6h, or a number of seconds, not {text:?}");
    let text = text.trim();
    if let Ok(seconds) = text.parse::<f64>() {
        return seconds.is_finite().then_some(seconds).ok_or_else(invalid);
    }
    let mut rest = text;
    let mut total = 0.0;
    if rest.is_empty() {
        return Err(invalid());
    }
    while !rest.is_empty() {
        let number_end = rest
            .find(|c: char| !(c.is_ascii_digit() || c == '.'))
            .unwrap_or(rest.len());
        let (number, tail) = rest.split_at(number_end);
        let unit_end = tail
            .find(|c: char| c.is_ascii_digit() || c == '.')
            .unwrap_or(tail.len());
        let (unit, next) = tail.split_at(unit_end);
        let number: f64 = number.parse().map_err(|_| invalid())?;
        let scale = match unit {
            "ms" => 0.001,
            "s" => 1.0,
            "m" => 60.0,
            "h" => 3600.0,
            "d" => 86_400.0,
            _ => return Err(invalid()),
        };
        total += number * scale;
        rest = next;
    }
    total.is_finite().then_some(total).ok_or_else(invalid)
}

/// [`parse_duration`] for flags held in whole seconds: the value must be a whole, non-negative
/// number of seconds (`90m` is 5400).
pub fn parse_whole_seconds(text: &str) -> Result<u64, String> {
    let seconds = parse_duration(text)?;
    if seconds < 0.0 || seconds.fract() != 0.0 || seconds > u64::MAX as f64 {
        return Err(format!(
            "want a whole, non-negative number of seconds (such as 30s, 1h), not {text:?}"
        ));
    }
    Ok(seconds as u64)
}

#[cfg(test)]
mod tests {
    use super::*;
    use clap::CommandFactory;

    #[test]
    fn durations_take_units_and_bare_seconds() {
        assert_eq!(parse_duration("5s"), Ok(5.0));
        assert_eq!(parse_duration("1m"), Ok(60.0));
        assert_eq!(parse_duration("6h"), Ok(21_600.0));
        assert_eq!(parse_duration("1d"), Ok(86_400.0));
        assert_eq!(parse_duration("250ms"), Ok(0.25));
        assert_eq!(parse_duration("1h30m"), Ok(5_400.0));
        assert_eq!(parse_duration("5"), Ok(5.0));
        assert_eq!(parse_duration("0.25"), Ok(0.25));
        for bad in ["", "5x", "s", "1.2.3s", "inf", "NaN", "5 s", "m5"] {
            assert!(parse_duration(bad).is_err(), "{bad:?} accepted");
        }
        assert_eq!(parse_whole_seconds("6h"), Ok(21_600));
        assert_eq!(parse_whole_seconds("3600"), Ok(3_600));
        assert!(parse_whole_seconds("1.5").is_err());
        assert!(parse_whole_seconds("-1").is_err());
    }

    #[test]
    fn duration_defaults_equal_the_configs() {
        // `--help` shows them as typed (`6h`, not `21600`): tests/cli_habits.rs.
        assert_eq!(
            parse_whole_seconds(defaults::EXECUTION_IDLE_TIMEOUT),
            Ok(defaults::EXECUTION_IDLE_TIMEOUT_SECS)
        );
        assert_eq!(
            parse_whole_seconds(defaults::MAX_CLOCK_SKEW),
            Ok(defaults::MAX_CLOCK_SKEW_SECS)
        );
        assert_eq!(
            parse_whole_seconds(defaults::PATH_LABELS_GRACE),
            Ok(defaults::PATH_LABELS_GRACE_SECS)
        );
    }

    #[test]
    fn duration_flags_take_units_and_their_defaults_parse() {
        let cli = Cli::try_parse_from([
            "denials-exporter",
            "run",
            "--path=/x/*.log",
            "--state-interval=1m",
            "--stat-interval=250ms",
            "--web.write-timeout=10s",
            "--execution-idle-timeout=6h",
            "--max-clock-skew=30m",
        ])
        .unwrap();
        let Command::Run(run) = cli.command else {
            panic!("not run")
        };
        assert_eq!(run.state_interval, 60.0);
        assert_eq!(run.stat_interval, 0.25);
        assert_eq!(run.write_timeout, 10.0);
        assert_eq!(run.pipeline.execution_idle_timeout, 21_600);
        assert_eq!(run.pipeline.max_clock_skew, 1_800);
        let error = Cli::try_parse_from([
            "denials-exporter",
            "run",
            "--path=/x",
            "--state-interval=5x",
        ])
        .unwrap_err()
        .to_string();
        assert!(
            error.contains("--state-interval") && error.contains("5x"),
            "{error}"
        );
    }

    #[test]
    fn every_flag_has_an_env_named_after_it() {
        let mut checked = 0;
        let command = Cli::command();
        for sub in command.get_subcommands() {
            for arg in sub.get_arguments() {
                let Some(long) = arg.get_long() else {
                    continue;
                };
                if matches!(long, "help" | "version") {
                    continue;
                }
                let env = arg
                    .get_env()
                    .unwrap_or_else(|| panic!("--{long} has no environment variable"));
                let want = format!(
                    "DENIALS_EXPORTER_{}",
                    long.to_uppercase().replace(['.', '-'], "_")
                );
                assert_eq!(env.to_str(), Some(want.as_str()), "--{long}");
                checked += 1;
            }
        }
        assert!(checked > 30, "{checked}");
    }

    #[test]
    fn run_help_is_grouped_under_headings() {
        let mut command = Cli::command();
        let run = command
            .find_subcommand_mut("run")
            .expect("run is a subcommand");
        let help = run.render_long_help().to_string();
        for heading in ["Input:", "Fields:", "Limits:", "Web:", "Logging:"] {
            assert!(help.contains(heading), "{heading} missing in\n{help}");
        }
        assert!(
            !help.contains("Options:\n  --"),
            "a flag without a heading in\n{help}"
        );
        assert!(help.contains("--reason-rule") && help.contains("split on newlines"));
    }
}
