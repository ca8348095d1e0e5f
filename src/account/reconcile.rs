//! Per-execution reconciliation state: what was already counted for an execution, so that its
//! record adds only what the stream missed, and running totals turn into increments.
//!
//! Owns the bounded map of executions (a cap with least-recently-seen eviction, and an idle
//! timeout), each holding the tool use ids counted, the per-tool counts, mid-stream denials that
//! had no id yet, the totals of the last record and its cumulative `modelUsage`. **Not here:** label values and counters
//! ([`super::Accountant`] decides what the findings here mean for them).
//!
//! Cold: per denial or record line. Eviction by cap scans the map (O(n)), which happens only
//! when the cap is reached.

use std::collections::{BTreeMap, HashMap, HashSet};

use serde::{Deserialize, Serialize};

use crate::decode::{RecordedDenials, Tokens};

/// Tool use ids remembered per execution, at most.
pub const MAX_IDS_PER_EXECUTION: usize = 10_000;

/// Denials one record may reveal from a count, at most: a count is attacker-influenced text, and
/// an absurd one must not allocate or loop without bound.
pub const MAX_REVEALED_PER_RECORD: u64 = 10_000;

/// One denial the record revealed that nothing counted before.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Revealed {
    pub tool: String,
    pub tool_use_id: Option<String>,
    pub input_summary: Option<String>,
}

/// The totals of the last record of an execution (running totals for stream-json sessions).
#[derive(Debug, Clone, Copy, Default, PartialEq, Serialize, Deserialize)]
pub struct Totals {
    pub cost_usd: f64,
    pub duration_seconds: f64,
    pub turns: f64,
    pub tokens: [f64; 4],
    pub denials: u64,
    pub records: u64,
}

/// What the accountant knows of one execution.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct Execution {
    pub workflow: Option<String>,
    /// Tool use ids already counted (mid-stream or from a record).
    pub ids: HashSet<String>,
    /// Denials counted per raw tool name, from every source.
    pub by_tool: BTreeMap<String, u64>,
    /// Mid-stream denials without an id, per tool, not yet matched to a listed id.
    pub anonymous: BTreeMap<String, u64>,
    pub last: Totals,
    /// The last cumulative `modelUsage` seen, by model (at most
    /// [`super::spend::MAX_MODELS_PER_EXECUTION`]).
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub models: super::spend::SeenModels,
    /// Clock (seconds) when a line of this execution was last seen.
    pub last_seen: f64,
}

impl Execution {
    /// Records a mid-stream denial. Returns false if and only if its id was already counted.
    pub fn note_denial(&mut self, tool: &str, tool_use_id: Option<&str>) -> bool {
        match tool_use_id {
            Some(id) if self.ids.contains(id) => return false,
            Some(id) => {
                if self.ids.len() < MAX_IDS_PER_EXECUTION {
                    self.ids.insert(id.to_string());
                }
            }
            None => *self.anonymous.entry(tool.to_string()).or_default() += 1,
        }
        *self.by_tool.entry(tool.to_string()).or_default() += 1;
        true
    }

    /// Takes a record's denials and returns those not already counted, marking them counted.
    ///
    /// By tool use id where the list has ids (a listed id matches a mid-stream denial of the same
    /// tool that had no id); else by per-tool count, the record's count minus what was counted,
    /// never negative. A total alone reveals its excess under the tool `unknown`.
    pub fn reveal(&mut self, denials: &RecordedDenials) -> Vec<Revealed> {
        let mut revealed = Vec::new();
        match denials {
            RecordedDenials::List(items) => {
                let mut listed: BTreeMap<&str, u64> = BTreeMap::new();
                let mut without_id: BTreeMap<&str, Vec<&Option<String>>> = BTreeMap::new();
                for item in items {
                    *listed.entry(&item.tool).or_default() += 1;
                    let Some(id) = &item.tool_use_id else {
                        without_id
                            .entry(&item.tool)
                            .or_default()
                            .push(&item.input_summary);
                        continue;
                    };
                    if self.ids.contains(id) {
                        continue;
                    }
                    if self.ids.len() < MAX_IDS_PER_EXECUTION {
                        self.ids.insert(id.clone());
                    }
                    if let Some(n) = self.anonymous.get_mut(&item.tool).filter(|n| **n > 0) {
                        *n -= 1; // the stream reported it, without an id
                        continue;
                    }
                    *self.by_tool.entry(item.tool.clone()).or_default() += 1;
                    revealed.push(Revealed {
                        tool: item.tool.clone(),
                        tool_use_id: Some(id.clone()),
                        input_summary: item.input_summary.clone(),
                    });
                }
                for (tool, summaries) in without_id {
                    let extra = self.excess(tool, listed[tool]);
                    for summary in summaries.into_iter().take(extra as usize) {
                        revealed.push(Revealed {
                            tool: tool.to_string(),
                            tool_use_id: None,
                            input_summary: summary.clone(),
                        });
                    }
                }
            }
            RecordedDenials::PerTool(counts) => {
                for (tool, n) in counts {
                    let extra = self.excess(tool, *n);
                    revealed.extend((0..extra).map(|_| Revealed {
                        tool: tool.clone(),
                        tool_use_id: None,
                        input_summary: None,
                    }));
                }
            }
            RecordedDenials::Total(n) => {
                let counted: u64 = self.by_tool.values().sum();
                let extra = n.saturating_sub(counted).min(MAX_REVEALED_PER_RECORD);
                *self.by_tool.entry("unknown".into()).or_default() += extra;
                revealed.extend((0..extra).map(|_| Revealed {
                    tool: "unknown".into(),
                    tool_use_id: None,
                    input_summary: None,
                }));
            }
            RecordedDenials::None => {}
        }
        revealed
    }

    /// How many of `recorded` denials of `tool` exceed what was counted; marks them counted.
    fn excess(&mut self, tool: &str, recorded: u64) -> u64 {
        let counted = self.by_tool.entry(tool.to_string()).or_default();
        let extra = recorded
            .saturating_sub(*counted)
            .min(MAX_REVEALED_PER_RECORD);
        *counted += extra;
        extra
    }

    /// Denials counted for this execution, from every source.
    pub fn denials_counted(&self) -> u64 {
        self.by_tool.values().sum()
    }
}

/// Why an execution was dropped.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Eviction {
    Cap,
    Idle,
}

/// The bounded map of executions.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct Executions {
    map: HashMap<String, Execution>,
    last_sweep: f64,
}

impl Executions {
    /// The execution `id`, created if new, marked seen at `now`. Evicts the least recently seen
    /// execution when a new one would exceed `cap`, reporting it through `evicted`.
    pub fn touch(
        &mut self,
        id: &str,
        now: f64,
        cap: usize,
        evicted: &mut impl FnMut(Eviction),
    ) -> &mut Execution {
        if !self.map.contains_key(id) {
            while self.map.len() >= cap {
                let oldest = self
                    .map
                    .iter()
                    .min_by(|a, b| a.1.last_seen.total_cmp(&b.1.last_seen))
                    .map(|(k, _)| k.clone())
                    .expect("a map at its cap (at least 1) is not empty");
                self.map.remove(&oldest);
                evicted(Eviction::Cap);
            }
        }
        let execution = self.map.entry(id.to_string()).or_default();
        execution.last_seen = execution.last_seen.max(now);
        execution
    }

    /// Drops executions not seen for `idle_secs` before `now`. Runs at most once a minute of clock.
    pub fn sweep(&mut self, now: f64, idle_secs: f64, evicted: &mut impl FnMut(Eviction)) {
        if now - self.last_sweep < 60.0 {
            return;
        }
        self.last_sweep = now;
        self.map.retain(|_, e| {
            let keep = now - e.last_seen <= idle_secs;
            if !keep {
                evicted(Eviction::Idle);
            }
            keep
        });
    }

    pub fn len(&self) -> usize {
        self.map.len()
    }
}

/// Tokens as the array order of [`Totals::tokens`].
pub fn tokens_array(t: &Tokens) -> [f64; 4] {
    t.as_array()
}

/// The increase from `previous` to `current` of a running total; a drop means a new run, whose
/// whole value is the increase. A drop within rounding (a running total of dollars summed in a
/// different order, 1e-9 relative) is no change, not a new run.
pub fn increase(previous: f64, current: f64) -> f64 {
    if current >= previous {
        current - previous
    } else if previous - current <= 1e-9 * previous.abs() {
        0.0
    } else {
        current
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::decode::RecordedDenial;

    fn listed(tool: &str, id: Option<&str>) -> RecordedDenial {
        RecordedDenial {
            tool: tool.into(),
            tool_use_id: id.map(String::from),
            input_summary: None,
        }
    }

    #[test]
    fn ids_reconcile_against_the_stream() {
        let mut e = Execution::default();
        assert!(e.note_denial("Bash", Some("t1")));
        assert!(
            !e.note_denial("Bash", Some("t1")),
            "a frame seen twice counts once"
        );
        let list =
            RecordedDenials::List(vec![listed("Bash", Some("t1")), listed("Edit", Some("t2"))]);
        let revealed = e.reveal(&list);
        assert_eq!(revealed.len(), 1);
        assert_eq!(revealed[0].tool_use_id.as_deref(), Some("t2"));
        assert!(
            e.reveal(&list).is_empty(),
            "a cumulative result seen again adds nothing"
        );
        assert_eq!(e.denials_counted(), 2);
    }

    #[test]
    fn anonymous_stream_denials_match_listed_ids() {
        let mut e = Execution::default();
        e.note_denial("Bash", None);
        let list =
            RecordedDenials::List(vec![listed("Bash", Some("t1")), listed("Bash", Some("t2"))]);
        assert_eq!(e.reveal(&list).len(), 1);
        assert_eq!(e.denials_counted(), 2);
    }

    #[test]
    fn counts_reconcile_without_ids() {
        let mut e = Execution::default();
        e.note_denial("Bash", None);
        e.note_denial("Bash", None);
        e.note_denial("Edit", None);
        let per_tool = RecordedDenials::PerTool(vec![
            ("Bash".into(), 3),
            ("Edit".into(), 0),
            ("Write".into(), 1),
        ]);
        let revealed = e.reveal(&per_tool);
        let tools: Vec<&str> = revealed.iter().map(|r| r.tool.as_str()).collect();
        assert_eq!(tools, ["Bash", "Write"]);
        assert!(e.reveal(&per_tool).is_empty());
        assert_eq!(e.reveal(&RecordedDenials::Total(6)).len(), 1);
        let list = RecordedDenials::List(vec![listed("Bash", None); 4]);
        assert_eq!(e.reveal(&list).len(), 1);
    }

    #[test]
    fn cap_and_idle_evict() {
        let mut ex = Executions::default();
        let mut evictions = Vec::new();
        ex.touch("a", 1.0, 2, &mut |e| evictions.push(e));
        ex.touch("b", 2.0, 2, &mut |e| evictions.push(e));
        ex.touch("a", 3.0, 2, &mut |e| evictions.push(e));
        ex.touch("c", 4.0, 2, &mut |e| evictions.push(e)); // evicts b, the least recently seen
        assert_eq!(evictions, [Eviction::Cap]);
        ex.sweep(100.0, 97.0, &mut |e| evictions.push(e)); // a (3.0) idle 97 → kept; c kept
        assert_eq!(ex.len(), 2);
        ex.sweep(200.0, 97.0, &mut |e| evictions.push(e));
        assert_eq!(ex.len(), 0);
        assert_eq!(evictions, [Eviction::Cap, Eviction::Idle, Eviction::Idle]);
    }

    #[test]
    fn running_totals_become_increases() {
        assert_eq!(increase(1.0, 1.5), 0.5);
        assert_eq!(increase(1.5, 0.25), 0.25);
        assert_eq!(increase(0.1 + 0.2, 0.3), 0.0, "rounding is not a new run");
    }
}
