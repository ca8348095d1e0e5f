//! What the landing page answers first, read from one publication: the denials counted since
//! start by risk class, reason and workflow; how many were dangerous and how many still wait for
//! their class; the faults met (bad input, failed writes, bounds reached); and the state file's
//! last write.
//!
//! Owns [`Summary`] and the rule the page colours by: a class is dangerous unless it is `none`,
//! `unknown` or `pending`, as the alert on the risk class says. Plain data, no HTML.
//!
//! **Not here:** the HTML ([`super`]), counting (`crate::account`), the classes themselves
//! (`crate::risk`).
//!
//! Cost: per landing-page request, one pass over the counted series.

use std::collections::BTreeMap;

use crate::exposition::RunStats;
use crate::risk::Risk;
use crate::vocab::counters::{LineOutcome, Metrics};
use crate::vocab::RISK_PENDING;

/// The first answers, from one publication.
#[derive(Debug, Clone, PartialEq)]
pub struct Summary {
    /// `permission_denials_total`, summed.
    pub total: u64,
    /// Denials by risk class, most severe first, `pending` (the denials still waiting for their
    /// class) last when there are any.
    pub by_class: Vec<(String, u64)>,
    /// Denials by reason, most first.
    pub by_reason: Vec<(&'static str, u64)>,
    /// Denials by workflow, most first.
    pub by_workflow: Vec<(String, u64)>,
    /// Denials whose class is dangerous.
    pub dangerous: u64,
    /// Denials counted whose class waits for their execution's record.
    pub pending: u64,
    /// Every fault with a count above zero.
    pub faults: Vec<Fault>,
    pub state: StateFile,
}

/// A fault met since start: how many, what one is and what several are, and the series that
/// counts it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Fault {
    pub count: u64,
    pub one: &'static str,
    pub many: &'static str,
    pub series: String,
}

impl Fault {
    /// What `count` of it are, in words.
    pub fn what(&self) -> &'static str {
        if self.count == 1 {
            self.one
        } else {
            self.many
        }
    }
}

/// The state file, as the last publication saw it.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum StateFile {
    /// No `--state-file`: counts start from zero at each start.
    NotKept,
    /// Configured, not written yet.
    NotWritten { errors: u64 },
    /// Last written at `at` (seconds since the epoch); `errors` writes failed since start.
    Written { at: f64, errors: u64 },
}

/// Whether a risk label value is one an operator is woken for: every class but `none`,
/// `unknown` and `pending` (a user class from `--risk-rule` is dangerous).
pub fn is_dangerous(class: &str) -> bool {
    class != RISK_PENDING && Risk::from_builtin_name(class).is_none_or(Risk::is_dangerous)
}

/// Where a class goes in the table: built-in dangerous classes by severity, user classes, then
/// `none`, `unknown`, `pending`.
fn class_rank(class: &str) -> (usize, &str) {
    let builtin = Risk::BUILTIN.len();
    let rank = match Risk::from_builtin_name(class) {
        Some(Risk::None) => builtin + 1,
        Some(Risk::Unknown) => builtin + 2,
        Some(risk) => Risk::BUILTIN
            .iter()
            .position(|r| *r == risk)
            .unwrap_or(builtin),
        None if class == RISK_PENDING => builtin + 3,
        None => builtin,
    };
    (rank, class)
}

impl Summary {
    /// Reads `metrics` and `run`; `has_state_file`: whether a `--state-file` is configured.
    pub fn of(metrics: &Metrics, run: &RunStats, has_state_file: bool) -> Summary {
        let mut by_reason: BTreeMap<&'static str, u64> = BTreeMap::new();
        let mut by_workflow: BTreeMap<&str, u64> = BTreeMap::new();
        let mut total = 0u64;
        for (key, &n) in &metrics.denials {
            total = total.saturating_add(n);
            let reason = by_reason.entry(key.reason.as_str()).or_default();
            *reason = reason.saturating_add(n);
            let workflow = by_workflow.entry(key.workflow.as_str()).or_default();
            *workflow = workflow.saturating_add(n);
        }
        let mut by_class: BTreeMap<&str, u64> = BTreeMap::new();
        for (key, &n) in &metrics.denial_risks {
            let class = by_class.entry(key.risk.as_str()).or_default();
            *class = class.saturating_add(n);
        }
        let decided = by_class.values().fold(0u64, |a, &n| a.saturating_add(n));
        let pending = total.saturating_sub(decided);
        let dangerous = by_class
            .iter()
            .filter(|(class, _)| is_dangerous(class))
            .fold(0u64, |a, (_, &n)| a.saturating_add(n));
        let mut by_class: Vec<(String, u64)> = by_class
            .into_iter()
            .map(|(class, n)| (class.to_string(), n))
            .collect();
        if pending > 0 {
            by_class.push((RISK_PENDING.to_string(), pending));
        }
        by_class.sort_by(|a, b| class_rank(&a.0).cmp(&class_rank(&b.0)));
        Summary {
            total,
            by_class,
            by_reason: most_first(by_reason),
            by_workflow: most_first(by_workflow)
                .into_iter()
                .map(|(w, n)| (w.to_string(), n))
                .collect(),
            dangerous,
            pending,
            faults: faults(metrics, run),
            state: match (has_state_file, run.state_last_write > 0.0) {
                (false, _) => StateFile::NotKept,
                (true, false) => StateFile::NotWritten {
                    errors: run.state_writes_error,
                },
                (true, true) => StateFile::Written {
                    at: run.state_last_write,
                    errors: run.state_writes_error,
                },
            },
        }
    }
}

/// Counts, most first; ties by name.
fn most_first<K: Ord + Copy>(counts: BTreeMap<K, u64>) -> Vec<(K, u64)> {
    let mut counts: Vec<(K, u64)> = counts.into_iter().collect();
    counts.sort_by(|a, b| b.1.cmp(&a.1).then(a.0.cmp(&b.0)));
    counts
}

/// The self-metrics of things that went wrong, those above zero, worst first.
fn faults(metrics: &Metrics, run: &RunStats) -> Vec<Fault> {
    let line = |outcome: LineOutcome| metrics.lines.get(&outcome).copied().unwrap_or(0);
    let labelled =
        |family: &str, label: &str, value: &str| format!("{family}{{{label}=\"{value}\"}}");
    let lines = "denials_exporter_lines_total";
    let follow = &run.follow;
    let mut found = vec![
        Fault {
            count: run.state_writes_error,
            one: "state file write failed",
            many: "state file writes failed",
            series: labelled("denials_exporter_state_writes_total", "result", "error"),
        },
        Fault {
            count: follow.file_errors_read,
            one: "read of a followed file failed",
            many: "reads of a followed file failed",
            series: labelled("denials_exporter_file_errors_total", "error", "read"),
        },
        Fault {
            count: follow.file_errors_open,
            one: "open of a matched file failed",
            many: "opens of a matched file failed",
            series: labelled("denials_exporter_file_errors_total", "error", "open"),
        },
        Fault {
            count: follow.unopenable,
            one: "matched file cannot be opened now",
            many: "matched files cannot be opened now",
            series: "denials_exporter_files_unopenable".into(),
        },
        Fault {
            count: run.watcher_errors,
            one: "inotify error",
            many: "inotify errors",
            series: "denials_exporter_watcher_errors_total".into(),
        },
        Fault {
            count: follow.state_entries_dropped,
            one: "state entry dropped at a restart (its file was gone)",
            many: "state entries dropped at a restart (their file was gone)",
            series: "denials_exporter_state_entries_dropped_total".into(),
        },
        Fault {
            count: line(LineOutcome::Malformed),
            one: "line that looked relevant but is not a JSON object",
            many: "lines that looked relevant but are not a JSON object",
            series: labelled(lines, "outcome", "malformed"),
        },
        Fault {
            count: line(LineOutcome::Oversized),
            one: "line longer than --max-line-bytes, skipped",
            many: "lines longer than --max-line-bytes, skipped",
            series: labelled(lines, "outcome", "oversized"),
        },
        Fault {
            count: line(LineOutcome::NonUtf8),
            one: "line that is not UTF-8",
            many: "lines that are not UTF-8",
            series: labelled(lines, "outcome", "non_utf8"),
        },
        Fault {
            count: metrics.denials_clamped,
            one: "denial a record claimed beyond --max-denials-per-record",
            many: "denials a record claimed beyond --max-denials-per-record",
            series: "denials_exporter_record_denials_clamped_total".into(),
        },
        Fault {
            count: metrics.times_rejected,
            one: "log time too far ahead of the clock, taken as no time",
            many: "log times too far ahead of the clock, taken as no time",
            series: "denials_exporter_times_rejected_total".into(),
        },
        Fault {
            count: metrics.series_overflow,
            one: "denial counted under other/other past --max-series",
            many: "denials counted under other/other past --max-series",
            series: "denials_exporter_series_overflow_total".into(),
        },
        Fault {
            count: metrics.label_overflow.values().sum(),
            one: "label value past --max-tools, --max-workflows or --max-models",
            many: "label values past --max-tools, --max-workflows or --max-models",
            series: "denials_exporter_label_overflow_total".into(),
        },
        Fault {
            count: metrics.label_invalid.values().sum(),
            one: "label value outside the allowed characters or length",
            many: "label values outside the allowed characters or length",
            series: "denials_exporter_label_invalid_total".into(),
        },
    ];
    for &(fault, count) in &run.faults {
        found.push(Fault {
            count,
            one: "data fault at start-up; the exporter came up regardless",
            many: "data faults at start-up; the exporter came up regardless",
            series: labelled("denials_exporter_faults_total", "fault", fault),
        });
    }
    found.retain(|f| f.count > 0);
    found
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::vocab::counters::{DenialKey, RiskKey};
    use crate::vocab::Reason;

    fn metrics(denials: &[(&str, Reason, u64)], risks: &[(&str, &str, u64)]) -> Metrics {
        let mut metrics = Metrics::default();
        for &(workflow, reason, n) in denials {
            let key = DenialKey {
                path: Default::default(),
                tool: "Bash".into(),
                workflow: workflow.into(),
                reason,
            };
            *metrics.denials.entry(key).or_default() += n;
        }
        for &(workflow, risk, n) in risks {
            let key = RiskKey {
                path: Default::default(),
                tool: "Bash".into(),
                workflow: workflow.into(),
                risk: risk.into(),
            };
            *metrics.denial_risks.entry(key).or_default() += n;
        }
        metrics
    }

    #[test]
    fn dangerous_is_every_class_but_none_unknown_and_pending() {
        for class in [
            "remote_code",
            "history_rewrite",
            "credential_access",
            "db_migration",
        ] {
            assert!(is_dangerous(class), "{class}");
        }
        for class in ["none", "unknown", "pending"] {
            assert!(!is_dangerous(class), "{class}");
        }
    }

    #[test]
    fn totals_by_class_reason_and_workflow_with_the_pending_rest() {
        let metrics = metrics(
            &[
                ("review", Reason::Hook, 2),
                ("review", Reason::Unknown, 1),
                ("implement", Reason::Rule, 3),
            ],
            &[
                ("review", "none", 1),
                ("review", "history_rewrite", 1),
                ("implement", "remote_code", 1),
                ("implement", "db_migration", 1),
                ("implement", "unknown", 1),
            ],
        );
        let summary = Summary::of(&metrics, &RunStats::default(), false);
        assert_eq!(summary.total, 6);
        assert_eq!(summary.pending, 1);
        assert_eq!(summary.dangerous, 3);
        let classes: Vec<(&str, u64)> = summary
            .by_class
            .iter()
            .map(|(c, n)| (c.as_str(), *n))
            .collect();
        assert_eq!(
            classes,
            [
                ("remote_code", 1),
                ("history_rewrite", 1),
                ("db_migration", 1),
                ("none", 1),
                ("unknown", 1),
                ("pending", 1)
            ]
        );
        assert_eq!(
            summary.by_reason,
            [("rule", 3), ("hook", 2), ("unknown", 1)]
        );
        assert_eq!(
            summary.by_workflow,
            [("implement".to_string(), 3), ("review".to_string(), 3)]
        );
        assert_eq!(summary.state, StateFile::NotKept);
        assert!(summary.faults.is_empty());
    }

    #[test]
    fn faults_above_zero_are_listed_with_their_series_and_the_state_file_is_read() {
        let mut metrics = metrics(&[], &[]);
        metrics.lines.insert(LineOutcome::Malformed, 2);
        let run = RunStats {
            state_writes_error: 1,
            state_last_write: 1_800_000_000.0,
            faults: vec![("state_corrupt", 1), ("state_newer", 0)],
            ..RunStats::default()
        };
        let summary = Summary::of(&metrics, &run, true);
        let series: Vec<&str> = summary.faults.iter().map(|f| f.series.as_str()).collect();
        assert_eq!(
            series,
            [
                "denials_exporter_state_writes_total{result=\"error\"}",
                "denials_exporter_lines_total{outcome=\"malformed\"}",
                "denials_exporter_faults_total{fault=\"state_corrupt\"}",
            ]
        );
        assert_eq!(
            summary.state,
            StateFile::Written {
                at: 1_800_000_000.0,
                errors: 1
            }
        );
        let unwritten = RunStats::default();
        assert_eq!(
            Summary::of(&metrics, &unwritten, true).state,
            StateFile::NotWritten { errors: 0 }
        );
    }
}
