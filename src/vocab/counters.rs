//! Every counted value and its buckets.
//!
//! [`Metrics`] is plain, serialisable data: [`crate::account::Accountant`] is its only writer, the
//! state file stores it whole (so counters continue across restarts instead of resetting), and
//! `crate::exposition` renders it.
//!
//! **Not here:** metric names and help texts ([`super::families`]), deciding what to count
//! ([`crate::account`]), the formats (`crate::exposition`), per-file follower gauges
//! ([`crate::input::follow`]).
//!
//! Cold: written per counted event; the per-line counts arrive in batches, once per chunk.

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};

use crate::vocab::{LabelName, PathLabels, Reason};

pub const COST_BUCKETS: &[f64] = &[
    0.01, 0.05, 0.1, 0.25, 0.5, 1.0, 2.5, 5.0, 10.0, 25.0, 50.0, 100.0,
];
pub const TURN_BUCKETS: &[f64] = &[
    1.0, 2.0, 5.0, 10.0, 15.0, 20.0, 30.0, 50.0, 75.0, 100.0, 150.0, 200.0,
];
pub const DURATION_BUCKETS: &[f64] = &[
    10.0, 30.0, 60.0, 120.0, 300.0, 600.0, 900.0, 1200.0, 1800.0, 2700.0, 3600.0, 5400.0, 7200.0,
];
pub const DENIAL_BUCKETS: &[f64] = &[0.0, 1.0, 2.0, 3.0, 5.0, 8.0, 13.0, 21.0, 34.0, 55.0];

/// The outcome an outcome-classified line had. Every line read is exactly one of these.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum LineOutcome {
    /// Produced an event that changed a count.
    Counted,
    /// A denial or record already counted (a frame and its booking, a cumulative result).
    Duplicate,
    /// Not relevant (the vast majority; never parsed).
    Ignored,
    /// A candidate line that is not a JSON object.
    Malformed,
    /// Longer than the line cap; skipped.
    Oversized,
    /// Not valid UTF-8; decoded lossily, counted here instead of `counted`.
    NonUtf8,
}

impl LineOutcome {
    pub const ALL: [LineOutcome; 6] = [
        LineOutcome::Counted,
        LineOutcome::Duplicate,
        LineOutcome::Ignored,
        LineOutcome::Malformed,
        LineOutcome::Oversized,
        LineOutcome::NonUtf8,
    ];

    pub fn as_str(self) -> &'static str {
        match self {
            LineOutcome::Counted => "counted",
            LineOutcome::Duplicate => "duplicate",
            LineOutcome::Ignored => "ignored",
            LineOutcome::Malformed => "malformed",
            LineOutcome::Oversized => "oversized",
            LineOutcome::NonUtf8 => "non_utf8",
        }
    }
}

/// Token kinds, in the order of [`WorkflowSeries::tokens`].
pub const TOKEN_KINDS: [&str; 4] = ["input", "output", "cache_read", "cache_creation"];

/// SDK result subtypes admitted as `outcome` label values; anything else is `other`.
pub const OUTCOMES: [&str; 5] = [
    "success",
    "error_max_turns",
    "error_during_execution",
    "error_max_budget_usd",
    "error_max_structured_output_retries",
];

/// Maps a result subtype to its label value.
pub fn outcome_label(subtype: Option<&str>) -> &'static str {
    match subtype {
        None => "unknown",
        Some(s) => OUTCOMES
            .iter()
            .find(|o| **o == s)
            .copied()
            .unwrap_or("other"),
    }
}

/// `a + b`, held at ±`f64::MAX` instead of becoming infinite (or staying `a` for a NaN `b`): a
/// counter must stay a finite number that the state file can hold and Prometheus can rate.
pub fn saturating_add(a: f64, b: f64) -> f64 {
    let sum = a + b;
    if sum.is_nan() {
        a
    } else {
        sum.clamp(f64::MIN, f64::MAX)
    }
}

/// A cumulative histogram with fixed buckets. `counts[i]` counts observations `<= buckets[i]`
/// that are greater than `buckets[i-1]` (non-cumulative storage; cumulated when rendered).
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct Histogram {
    pub counts: Vec<u64>,
    pub sum: f64,
    pub count: u64,
}

impl Histogram {
    /// Observes `value`; a value that is not finite is not observed, and the sum saturates.
    pub fn observe(&mut self, buckets: &[f64], value: f64) {
        if !value.is_finite() {
            return;
        }
        if self.counts.len() != buckets.len() {
            self.counts.resize(buckets.len(), 0);
        }
        if let Some(i) = buckets.iter().position(|b| value <= *b) {
            self.counts[i] += 1;
        }
        self.sum = saturating_add(self.sum, value);
        self.count += 1;
    }

    /// Cumulative counts per bucket, for rendering.
    pub fn cumulative(&self, buckets: &[f64]) -> Vec<u64> {
        let mut total = 0;
        (0..buckets.len())
            .map(|i| {
                total += self.counts.get(i).copied().unwrap_or(0);
                total
            })
            .collect()
    }
}

/// Per-workflow execution series.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct WorkflowSeries {
    /// Executions by outcome label.
    pub executions: BTreeMap<String, u64>,
    pub cost_usd: Histogram,
    pub turns: Histogram,
    pub duration_seconds: Histogram,
    pub denials: Histogram,
    /// By [`TOKEN_KINDS`]; always the sum of `models`' tokens.
    pub tokens: [f64; 4],
    /// Spend by `model` label value.
    #[serde(default)]
    pub models: BTreeMap<String, ModelSeries>,
}

/// Per-workflow, per-model spend.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct ModelSeries {
    /// By [`TOKEN_KINDS`].
    pub tokens: [f64; 4],
    pub cost_usd: f64,
    /// The latest increase of `cost_usd`, with the execution it came from.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cost_exemplar: Option<Exemplar>,
}

/// Longest exemplar label set (names and values), in characters: the OpenMetrics limit.
pub const MAX_EXEMPLAR_CHARS: usize = 128;

/// An OpenMetrics exemplar: which execution (and tool call) an increase of a counter came from.
/// The ids are redacted and cut so that the label set stays within [`MAX_EXEMPLAR_CHARS`].
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct Exemplar {
    pub execution_id: Option<String>,
    pub tool_use_id: Option<String>,
    /// The increase it stands for.
    pub value: f64,
    /// Seconds since the epoch.
    pub timestamp: f64,
}

impl Exemplar {
    /// An exemplar whose labels fit [`MAX_EXEMPLAR_CHARS`]: the tool use id keeps up to 48
    /// characters, the execution id what is left.
    pub fn new(
        execution_id: Option<&str>,
        tool_use_id: Option<&str>,
        value: f64,
        timestamp: f64,
    ) -> Exemplar {
        let cut = |s: &str, max: usize| s.chars().take(max).collect::<String>();
        let tool_use_id = tool_use_id.filter(|s| !s.is_empty()).map(|s| cut(s, 48));
        let used = tool_use_id
            .as_ref()
            .map_or(0, |s| "tool_use_id".len() + s.chars().count());
        let room = MAX_EXEMPLAR_CHARS - used - "execution_id".len();
        Exemplar {
            execution_id: execution_id.filter(|s| !s.is_empty()).map(|s| cut(s, room)),
            tool_use_id,
            value,
            timestamp,
        }
    }

    /// The label pairs, in order: `execution_id`, then `tool_use_id`, each when known.
    pub fn labels(&self) -> impl Iterator<Item = (&'static str, &str)> {
        [
            ("execution_id", &self.execution_id),
            ("tool_use_id", &self.tool_use_id),
        ]
        .into_iter()
        .filter_map(|(name, value)| Some((name, value.as_deref()?)))
    }
}

/// The label set of one `permission_denials_total` series.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
pub struct DenialKey {
    /// The labels its file's path gave it (`namespace`, `pod`), first: a pod's series sort
    /// together.
    #[serde(default, skip_serializing_if = "PathLabels::is_empty")]
    pub path: PathLabels,
    pub tool: String,
    pub workflow: String,
    pub reason: Reason,
}

/// The label set of one `permission_denial_risks_total` series: the tool and workflow label
/// values its denial was counted under in `permission_denials_total`, and the risk class.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
pub struct RiskKey {
    #[serde(default, skip_serializing_if = "PathLabels::is_empty")]
    pub path: PathLabels,
    pub tool: String,
    pub workflow: String,
    /// A label value of [`crate::risk::RiskRules::labels`].
    pub risk: String,
}

/// The label set of one `permission_denials_unenforced_total` series: the tool and workflow
/// label values its denial was counted under.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
pub struct ToolKey {
    #[serde(default, skip_serializing_if = "PathLabels::is_empty")]
    pub path: PathLabels,
    pub tool: String,
    pub workflow: String,
}

/// How an agent kept at a tool that was denied, within one execution.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum LoopPattern {
    /// Consecutive denials of the same tool: stuck against policy.
    Repeated,
    /// Distinct inputs tried with a tool after its first denial: probing the policy.
    Varied,
}

impl LoopPattern {
    pub fn as_str(self) -> &'static str {
        match self {
            LoopPattern::Repeated => "repeated",
            LoopPattern::Varied => "varied",
        }
    }
}

/// The steps a loop is counted at (`at` label of `permission_denial_loops_total`): a run of
/// consecutive denials of one tool, or the distinct inputs tried after its first denial,
/// reaching each of these counts it once more at that step.
pub const LOOP_STEPS: [u32; 3] = [3, 5, 10];

/// The label set of one `permission_denial_loops_total` series.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
pub struct LoopKey {
    #[serde(default, skip_serializing_if = "PathLabels::is_empty")]
    pub path: PathLabels,
    pub tool: String,
    pub workflow: String,
    pub pattern: LoopPattern,
    /// One of [`LOOP_STEPS`].
    pub at: u32,
}

/// Everything counted. Serialised whole into the state file.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct Metrics {
    #[serde(with = "pairs")]
    pub denials: BTreeMap<DenialKey, u64>,
    /// The latest denial of each `permission_denials_total` series, for OpenMetrics exemplars.
    #[serde(default, with = "pairs", skip_serializing_if = "BTreeMap::is_empty")]
    pub denial_exemplars: BTreeMap<DenialKey, Exemplar>,
    /// Denials by what they attempted (`permission_denial_risks_total`): each denial once, when
    /// its class is decided; a denial waiting for its record's input is not here yet.
    #[serde(default, with = "pairs", skip_serializing_if = "BTreeMap::is_empty")]
    pub denial_risks: BTreeMap<RiskKey, u64>,
    /// The latest denial of each `permission_denial_risks_total` series, for exemplars.
    #[serde(default, with = "pairs", skip_serializing_if = "BTreeMap::is_empty")]
    pub denial_risk_exemplars: BTreeMap<RiskKey, Exemplar>,
    /// Denied calls that ran anyway (`permission_denials_unenforced_total`), each once.
    #[serde(default, with = "pairs", skip_serializing_if = "BTreeMap::is_empty")]
    pub unenforced: BTreeMap<ToolKey, u64>,
    /// Executions' runs of denials of one tool that reached a step
    /// (`permission_denial_loops_total`).
    #[serde(default, with = "pairs", skip_serializing_if = "BTreeMap::is_empty")]
    pub loops: BTreeMap<LoopKey, u64>,
    pub workflows: BTreeMap<String, WorkflowSeries>,
    /// Per-workflow series of files whose path gave them labels, by those labels.
    #[serde(default, with = "pairs", skip_serializing_if = "BTreeMap::is_empty")]
    pub path_workflows: BTreeMap<PathLabels, BTreeMap<String, WorkflowSeries>>,
    /// Label sets of paths whose series were dropped, their files gone for the grace period.
    #[serde(default)]
    pub path_labels_expired: u64,
    pub read_bytes: u64,
    /// Lines read, by outcome; `Ignored` is derived when rendering (lines read minus the rest).
    pub lines_read: u64,
    pub lines: BTreeMap<LineOutcome, u64>,
    pub redactions: BTreeMap<String, u64>,
    pub label_overflow: BTreeMap<LabelName, u64>,
    pub label_invalid: BTreeMap<LabelName, u64>,
    /// Label values replaced by `redacted` because they held a secret.
    #[serde(default)]
    pub label_redacted: BTreeMap<LabelName, u64>,
    pub evicted_cap: u64,
    pub evicted_idle: u64,
    /// Denials counted under tool and workflow `other` because `--max-series` was reached.
    #[serde(default)]
    pub series_overflow: u64,
    /// Denials records claimed beyond `--max-denials-per-record`, not counted.
    #[serde(default)]
    pub denials_clamped: u64,
    /// Log times further ahead of the wall clock than `--max-clock-skew`, taken as no time.
    #[serde(default)]
    pub times_rejected: u64,
    /// Log time (seconds since the epoch) of the last counted event; 0 before the first.
    pub last_event_timestamp: f64,
}

impl Metrics {
    /// Lines by outcome, with `ignored` derived as lines read minus every classified line.
    pub fn lines_by_outcome(&self) -> Vec<(LineOutcome, u64)> {
        let classified: u64 = self.lines.values().sum();
        LineOutcome::ALL
            .iter()
            .map(|o| match o {
                LineOutcome::Ignored => (*o, self.lines_read.saturating_sub(classified)),
                _ => (*o, self.lines.get(o).copied().unwrap_or(0)),
            })
            .collect()
    }

    /// The sum of `permission_denial_risks_total` over every label set.
    #[cfg(test)]
    pub fn denial_risks_total(&self) -> u64 {
        self.denial_risks
            .values()
            .fold(0, |a, b| a.saturating_add(*b))
    }

    /// The series of `workflow` under the labels `path` gave it.
    pub fn workflow_series(&mut self, path: &PathLabels, workflow: String) -> &mut WorkflowSeries {
        let map = if path.is_empty() {
            &mut self.workflows
        } else {
            self.path_workflows.entry(path.clone()).or_default()
        };
        map.entry(workflow).or_default()
    }

    /// Every per-workflow map with the path labels of its series (none for the first).
    pub fn workflow_maps(
        &self,
    ) -> impl Iterator<Item = (&PathLabels, &BTreeMap<String, WorkflowSeries>)> {
        static NONE: PathLabels = PathLabels(Vec::new());
        std::iter::once((&NONE, &self.workflows)).chain(self.path_workflows.iter())
    }

    /// Drops every series `path` gave labels to (its files gone for the grace period).
    pub fn forget_path(&mut self, path: &PathLabels) {
        self.denials.retain(|k, _| k.path != *path);
        self.denial_exemplars.retain(|k, _| k.path != *path);
        self.denial_risks.retain(|k, _| k.path != *path);
        self.denial_risk_exemplars.retain(|k, _| k.path != *path);
        self.unenforced.retain(|k, _| k.path != *path);
        self.loops.retain(|k, _| k.path != *path);
        self.path_workflows.remove(path);
        self.path_labels_expired = self.path_labels_expired.saturating_add(1);
    }

    /// The sum of `permission_denials_total` over every label set.
    pub fn denials_total(&self) -> u64 {
        self.denials.values().fold(0, |a, b| a.saturating_add(*b))
    }
}

/// Serialises a map with structured keys as a list of `[key, value]` pairs (JSON object keys
/// must be strings).
mod pairs {
    use std::collections::BTreeMap;

    use serde::{Deserialize, Deserializer, Serialize, Serializer};

    pub fn serialize<K: Serialize, V: Serialize, S: Serializer>(
        map: &BTreeMap<K, V>,
        serializer: S,
    ) -> Result<S::Ok, S::Error> {
        serializer.collect_seq(map.iter())
    }

    pub fn deserialize<'de, K, V, D>(deserializer: D) -> Result<BTreeMap<K, V>, D::Error>
    where
        K: Deserialize<'de> + Ord,
        V: Deserialize<'de>,
        D: Deserializer<'de>,
    {
        Ok(Vec::<(K, V)>::deserialize(deserializer)?
            .into_iter()
            .collect())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn histogram_buckets_and_cumulates() {
        let mut h = Histogram::default();
        for v in [0.0, 1.0, 1.5, 100.0] {
            h.observe(DENIAL_BUCKETS, v);
        }
        assert_eq!(h.count, 4);
        assert_eq!(h.sum, 102.5);
        let c = h.cumulative(DENIAL_BUCKETS);
        assert_eq!(c[0], 1); // le=0
        assert_eq!(c[1], 2); // le=1
        assert_eq!(c[2], 3); // le=2
        assert_eq!(*c.last().unwrap(), 3); // 100 only in +Inf
    }

    #[test]
    fn metrics_round_trip_through_json() {
        let mut m = Metrics::default();
        m.denials.insert(
            DenialKey {
                path: Default::default(),
                tool: "Bash".into(),
                workflow: "review".into(),
                reason: Reason::Hook,
            },
            3,
        );
        m.lines.insert(LineOutcome::Malformed, 2);
        m.workflows
            .entry("review".into())
            .or_default()
            .cost_usd
            .observe(COST_BUCKETS, 1.0);
        let json = serde_json::to_string(&m).unwrap();
        let back: Metrics = serde_json::from_str(&json).unwrap();
        assert_eq!(back, m);
    }

    #[test]
    fn exemplar_labels_fit_the_openmetrics_limit() {
        let long = "x".repeat(500);
        let e = Exemplar::new(Some(&long), Some(&long), 1.0, 0.0);
        let chars: usize = e.labels().map(|(k, v)| k.len() + v.chars().count()).sum();
        assert_eq!(chars, MAX_EXEMPLAR_CHARS);
        let e = Exemplar::new(Some("exec_1"), None, 1.0, 0.0);
        assert_eq!(e.labels().collect::<Vec<_>>(), [("execution_id", "exec_1")]);
        assert_eq!(Exemplar::new(None, Some(""), 1.0, 0.0).labels().count(), 0);
    }

    #[test]
    fn outcome_labels_are_closed() {
        assert_eq!(outcome_label(Some("success")), "success");
        assert_eq!(outcome_label(Some("error_max_turns")), "error_max_turns");
        assert_eq!(outcome_label(Some("<script>")), "other");
        assert_eq!(outcome_label(None), "unknown");
    }
}
