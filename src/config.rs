//! The validated configuration: parsed flags turned into field sets, compiled regexes and caps
//! ([`Config`], what the pipeline needs), and the sidecar's settings ([`RunConfig`], `run`).
//!
//! Owns every check a flag value needs (a regex that compiles, a reason that exists, a cap above
//! zero); what comes out is only ever read. **Not here:** flag names and defaults ([`crate::cli`]),
//! and anything that runs.
//!
//! Cold: built once at start-up.

use std::path::PathBuf;

use regex::Regex;
use thiserror::Error;

use crate::cli::{defaults, PipelineArgs};
use crate::vocab::{LabelName, Reason};

mod reason_rules;
mod run;
pub use reason_rules::ReasonRules;

use crate::risk::RiskRules;
pub use run::{Listen, RunConfig};

/// A flag value that cannot work.
#[derive(Debug, Error)]
pub enum ConfigError {
    #[error("invalid --{flag} regex {pattern:?}: {error}")]
    PathRegex {
        flag: &'static str,
        pattern: String,
        error: regex::Error,
    },
    #[error("--{flag} {pattern:?} names a group {name:?}: the groups it may name are workflow, namespace, pod and container")]
    PathGroup {
        flag: &'static str,
        pattern: String,
        name: String,
    },
    #[error("--labels-from-path and --workflow-from-path are one flag under two names: give one")]
    TwoPathPatterns,
    #[error("invalid --reason-rule {rule:?}: expected REGEX=REASON")]
    ReasonRuleShape { rule: String },
    #[error("invalid --reason-rule {rule:?}: {error}")]
    ReasonRuleRegex { rule: String, error: regex::Error },
    #[error("invalid --reason-rule {rule:?}: unknown reason {reason:?} (one of {known})")]
    ReasonRuleReason {
        rule: String,
        reason: String,
        known: String,
    },
    #[error("--{flag} must be at least {min}, got {value}")]
    TooSmall {
        flag: &'static str,
        min: usize,
        value: usize,
    },
    #[error("invalid --risk-rule or --risk-allow-host: {0}")]
    Risk(#[from] crate::risk::RiskRuleError),
    #[error("--{flag} must not be empty")]
    Empty { flag: &'static str },
    #[error("no --path given: name the log files to follow")]
    NoPath,
    #[error("invalid --path glob {pattern:?}: {error}")]
    Glob {
        pattern: String,
        error: glob::PatternError,
    },
    #[error("--{flag} must be positive, got {seconds}")]
    NotPositive { flag: &'static str, seconds: f64 },
    #[error("invalid --web.listen-address {address:?}: {reason}")]
    ListenAddress { address: String, reason: String },
    #[error("--web.telemetry-path must start with '/', got {path:?}")]
    TelemetryPath { path: String },
}

/// The names the executor gives its fields. Every one is configurable; defaults in
/// [`crate::cli::defaults`].
#[derive(Debug, Clone)]
pub struct Fields {
    pub event_key: String,
    pub denied_event: String,
    pub message_key: String,
    pub completed_message: String,
    pub correlation_keys: Vec<String>,
    pub workflow_keys: Vec<String>,
    pub tool_key: String,
    pub tool_use_id_key: String,
    pub reason_type_key: String,
    pub reason_key: String,
}

impl Default for Fields {
    fn default() -> Self {
        let list = |keys: &str| keys.split(',').map(String::from).collect();
        Fields {
            event_key: defaults::EVENT_KEY.into(),
            denied_event: defaults::DENIED_EVENT.into(),
            message_key: defaults::MESSAGE_KEY.into(),
            completed_message: defaults::COMPLETED_MESSAGE.into(),
            correlation_keys: list(defaults::CORRELATION_KEYS),
            workflow_keys: list(defaults::WORKFLOW_KEYS),
            tool_key: defaults::TOOL_KEY.into(),
            tool_use_id_key: defaults::TOOL_USE_ID_KEY.into(),
            reason_type_key: defaults::REASON_TYPE_KEY.into(),
            reason_key: defaults::REASON_KEY.into(),
        }
    }
}

/// Caps that keep memory and label cardinality bounded.
#[derive(Debug, Clone, Copy)]
pub struct Limits {
    /// Distinct `tool` label values. By default, 200.
    pub max_tools: usize,
    /// Distinct `workflow` label values. By default, 100.
    pub max_workflows: usize,
    /// Distinct `model` label values. By default, 50.
    pub max_models: usize,
    /// Executions held for reconciliation. By default, 4096.
    pub max_executions: usize,
    /// Seconds of silence before an execution's state is evicted. By default, 6 hours.
    pub execution_idle_timeout_secs: u64,
    /// Longest accepted line in bytes. By default, 1 MiB.
    pub max_line_bytes: usize,
    /// `permission_denials_total` series at most. By default, 5,000.
    pub max_series: usize,
    /// Denials one record may reveal in total. By default, 10,000.
    pub max_denials_per_record: u64,
    /// Seconds a log time may run ahead of the wall clock. By default, 1 hour.
    pub max_clock_skew_secs: u64,
    /// Distinct values of each label `--labels-from-path` gives (`namespace`, `pod`,
    /// `container`). By default, 1,000.
    pub max_path_values: usize,
    /// Seconds a path's label set keeps its series after its last file was let go. By
    /// default, 15 minutes.
    pub path_labels_grace_secs: u64,
}

impl Default for Limits {
    fn default() -> Self {
        Limits {
            max_tools: defaults::MAX_TOOLS,
            max_workflows: defaults::MAX_WORKFLOWS,
            max_models: defaults::MAX_MODELS,
            max_executions: defaults::MAX_EXECUTIONS,
            execution_idle_timeout_secs: defaults::EXECUTION_IDLE_TIMEOUT_SECS,
            max_line_bytes: defaults::MAX_LINE_BYTES,
            max_series: defaults::MAX_SERIES,
            max_denials_per_record: defaults::MAX_DENIALS_PER_RECORD,
            max_clock_skew_secs: defaults::MAX_CLOCK_SKEW_SECS,
            max_path_values: defaults::MAX_PATH_VALUES,
            path_labels_grace_secs: defaults::PATH_LABELS_GRACE_SECS,
        }
    }
}

/// Everything the pipeline needs to know, checked.
#[derive(Debug, Clone)]
pub struct Config {
    pub fields: Fields,
    pub reason_rules: ReasonRules,
    /// What each denial attempted is classified with: the built-in rules plus `--risk-rule`
    /// and `--risk-allow-host`.
    pub risk_rules: RiskRules,
    /// `--labels-from-path` (or its older name `--workflow-from-path`).
    pub labels_from_path: Option<PathPattern>,
    pub workflow_default: String,
    pub limits: Limits,
    pub audit_log: Option<PathBuf>,
}

impl Default for Config {
    fn default() -> Self {
        Config {
            fields: Fields::default(),
            reason_rules: ReasonRules::default(),
            risk_rules: RiskRules::builtin(),
            labels_from_path: None,
            workflow_default: defaults::WORKFLOW_DEFAULT.into(),
            limits: Limits::default(),
            audit_log: None,
        }
    }
}

impl Config {
    /// Checks and compiles the pipeline flags.
    pub fn from_args(args: &PipelineArgs) -> Result<Config, ConfigError> {
        let fields = Fields {
            event_key: non_empty("field.event", &args.event_key)?,
            denied_event: non_empty("field.denied-event", &args.denied_event)?,
            message_key: non_empty("field.message", &args.message_key)?,
            completed_message: non_empty("field.completed-message", &args.completed_message)?,
            correlation_keys: non_empty_list("field.correlation", &args.correlation_keys)?,
            workflow_keys: non_empty_list("field.workflow", &args.workflow_keys)?,
            tool_key: non_empty("field.tool", &args.tool_key)?,
            tool_use_id_key: non_empty("field.tool-use-id", &args.tool_use_id_key)?,
            reason_type_key: non_empty("field.reason-type", &args.reason_type_key)?,
            reason_key: non_empty("field.reason", &args.reason_key)?,
        };
        let mut custom = Vec::new();
        for rule in args.reason_rules.iter().filter(|r| !r.trim().is_empty()) {
            custom.push(parse_reason_rule(rule)?);
        }
        let labels_from_path = match (&args.labels_from_path, &args.workflow_from_path) {
            (Some(_), Some(_)) => return Err(ConfigError::TwoPathPatterns),
            (Some(pattern), None) => Some(PathPattern::new("labels-from-path", pattern)?),
            (None, Some(pattern)) => Some(PathPattern::new("workflow-from-path", pattern)?),
            (None, None) => None,
        };
        let limits = Limits {
            max_tools: at_least("max-tools", 1, args.max_tools)?,
            max_workflows: at_least("max-workflows", 1, args.max_workflows)?,
            max_models: at_least("max-models", 1, args.max_models)?,
            max_executions: at_least("max-executions", 1, args.max_executions)?,
            execution_idle_timeout_secs: args.execution_idle_timeout.max(1),
            max_line_bytes: at_least("max-line-bytes", 1024, args.max_line_bytes)?,
            max_series: at_least("max-series", 13, args.max_series)?,
            max_denials_per_record: args.max_denials_per_record,
            max_clock_skew_secs: args.max_clock_skew,
            max_path_values: at_least("max-path-values", 1, args.max_path_values)?,
            path_labels_grace_secs: args.path_labels_grace,
        };
        Ok(Config {
            fields,
            reason_rules: ReasonRules::with_custom(custom),
            risk_rules: RiskRules::new(
                args.risk_rules.iter().filter(|r| !r.trim().is_empty()),
                args.risk_allow_hosts
                    .iter()
                    .filter(|h| !h.trim().is_empty()),
            )?,
            labels_from_path,
            workflow_default: non_empty("workflow-default", &args.workflow_default)?,
            limits,
            audit_log: args.audit_log.clone(),
        })
    }
}

fn non_empty(flag: &'static str, value: &str) -> Result<String, ConfigError> {
    if value.is_empty() {
        return Err(ConfigError::Empty { flag });
    }
    Ok(value.to_string())
}

fn non_empty_list(flag: &'static str, values: &[String]) -> Result<Vec<String>, ConfigError> {
    let list: Vec<String> = values.iter().filter(|v| !v.is_empty()).cloned().collect();
    if list.is_empty() {
        return Err(ConfigError::Empty { flag });
    }
    Ok(list)
}

fn at_least(flag: &'static str, min: usize, value: usize) -> Result<usize, ConfigError> {
    if value < min {
        return Err(ConfigError::TooSmall { flag, min, value });
    }
    Ok(value)
}

fn parse_reason_rule(rule: &str) -> Result<(Regex, Reason), ConfigError> {
    let (pattern, reason) = rule
        .rsplit_once('=')
        .ok_or_else(|| ConfigError::ReasonRuleShape {
            rule: rule.to_string(),
        })?;
    let reason = Reason::from_type(reason.trim()).ok_or_else(|| ConfigError::ReasonRuleReason {
        rule: rule.to_string(),
        reason: reason.to_string(),
        known: Reason::ALL
            .iter()
            .map(|r| r.as_str())
            .collect::<Vec<_>>()
            .join(", "),
    })?;
    let regex = Regex::new(pattern).map_err(|error| ConfigError::ReasonRuleRegex {
        rule: rule.to_string(),
        error,
    })?;
    Ok((regex, reason))
}

#[cfg(test)]
mod tests {

    #[test]
    fn labels_from_path_takes_named_groups_and_the_older_flag_its_first_group() {
        let kubelet = r"^/var/log/pods/(?P<namespace>[^_/]+)_(?P<pod>[^_/]+)_[^/]+/";
        let got = PathPattern::new("labels-from-path", kubelet)
            .unwrap()
            .captures("/var/log/pods/ci_runner-1_0f0e/executor/0.log");
        let want = [
            (LabelName::Namespace, "ci".into()),
            (LabelName::Pod, "runner-1".into()),
        ];
        assert_eq!((got.workflow, got.labels), (None, want.to_vec()));
        let old = PathPattern::new("workflow-from-path", r"/logs/([a-z]+)\.log$").unwrap();
        assert_eq!(
            old.captures("/logs/review.log").workflow.as_deref(),
            Some("review")
        );
        let both = PathPattern::new("labels-from-path", r"/(?P<pod>[a-z]+)/(?P<workflow>[a-z]+)")
            .unwrap()
            .captures("/p/w");
        assert_eq!(both.workflow.as_deref(), Some("w"));
        assert_eq!(both.labels, [(LabelName::Pod, "p".to_string())]);
        let no_match = PathPattern::new("labels-from-path", kubelet).unwrap();
        assert_eq!(no_match.captures("/tmp/app.log"), PathCaptures::default());
        let error = PathPattern::new("labels-from-path", r"(?P<node>x)").unwrap_err();
        assert!(error.to_string().contains("\"node\""), "{error}");
    }
    use clap::Parser as _;

    use super::*;
    use crate::cli::{Cli, Command};

    /// The flags as parsed from a command line that sets none of them.
    fn parsed_defaults() -> PipelineArgs {
        let cli = Cli::try_parse_from(["denials-exporter", "replay", "x.log"]).unwrap();
        match cli.command {
            Command::Replay(args) => args.pipeline,
            Command::Run(_) => unreachable!("parsed replay"),
        }
    }

    #[test]
    fn the_flag_defaults_are_the_config_defaults() {
        let from_flags = Config::from_args(&parsed_defaults()).unwrap();
        assert_eq!(
            format!("{from_flags:?}"),
            format!("{:?}", Config::default())
        );
    }

    #[test]
    fn reason_rule_parses_and_rejects() {
        let (re, reason) = parse_reason_rule("(?i)blocked by opa=hook").unwrap();
        assert!(re.is_match("Blocked by OPA policy"));
        assert_eq!(reason, Reason::Hook);
        assert!(matches!(
            parse_reason_rule("x=nonsense"),
            Err(ConfigError::ReasonRuleReason { .. })
        ));
        assert!(matches!(
            parse_reason_rule("no-equals"),
            Err(ConfigError::ReasonRuleShape { .. })
        ));
        assert!(matches!(
            parse_reason_rule("(=hook"),
            Err(ConfigError::ReasonRuleRegex { .. })
        ));
    }
}

/// `--labels-from-path`: a regex over a file's path whose named groups become labels of the
/// file's series. `workflow` is the workflow when a line names none; `namespace`, `pod` and
/// `container` are labels of their own ([`LabelName::FROM_PATH`]). Without named groups, the
/// first group is the workflow (what `--workflow-from-path` always did).
#[derive(Debug, Clone)]
pub struct PathPattern {
    regex: Regex,
    /// The named groups that are labels, with their group names.
    labels: Vec<(LabelName, String)>,
}

/// What a path gave: the workflow, and the other labels' raw values.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct PathCaptures {
    pub workflow: Option<String>,
    pub labels: Vec<(LabelName, String)>,
}

impl PathPattern {
    /// Compiles `pattern`, given as `--{flag}` (what an error names).
    pub fn new(flag: &'static str, pattern: &str) -> Result<PathPattern, ConfigError> {
        let regex = Regex::new(pattern).map_err(|error| ConfigError::PathRegex {
            flag,
            pattern: pattern.to_string(),
            error,
        })?;
        let mut labels = Vec::new();
        for name in regex.capture_names().flatten() {
            if name == "workflow" {
                continue;
            }
            let Some(label) = LabelName::FROM_PATH
                .into_iter()
                .find(|l| l.as_str() == name)
            else {
                return Err(ConfigError::PathGroup {
                    flag,
                    pattern: pattern.to_string(),
                    name: name.to_string(),
                });
            };
            labels.push((label, name.to_string()));
        }
        labels.sort();
        Ok(PathPattern { regex, labels })
    }

    /// What `path` gives (nothing if the regex does not match it).
    pub fn captures(&self, path: &str) -> PathCaptures {
        let Some(caps) = self.regex.captures(path) else {
            return PathCaptures::default();
        };
        let named = self.regex.capture_names().flatten().next().is_some();
        let workflow = caps
            .name("workflow")
            .or_else(|| (!named).then(|| caps.get(1)).flatten())
            .map(|m| m.as_str().to_string());
        let labels = self
            .labels
            .iter()
            .filter_map(|(label, name)| Some((*label, caps.name(name)?.as_str().to_string())))
            .collect();
        PathCaptures { workflow, labels }
    }
}
