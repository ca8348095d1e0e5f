//! The label sets `--labels-from-path` gives, from the first file of one to the end of its
//! series: admitted value by value, followed while any of its files is, and dropped once none has
//! been for the grace period (`--path-labels-grace`), so that pod churn neither grows the
//! exposition nor fills the caps.
//!
//! Owns [`PathSets`]: how many followed files have each label set, and since when those with none
//! have none. A label set whose files were let go while the exporter was down is known only from
//! the saved series: the first [`Accountant::expire_paths`] after a start counts it as having
//! none from then on.
//!
//! **Not here:** taking the raw values from a path (`crate::config::PathPattern`), which files are
//! followed (`crate::input::follow`), validating a value ([`super::labels`]).
//!
//! Cold: per file opened or let go, and per expiry pass (a few a second).

use std::collections::{BTreeSet, HashMap};

use super::Accountant;
use crate::vocab::{LabelName, PathLabels};

/// Followed files by label set ([module docs](self)).
#[derive(Debug, Default)]
pub(super) struct PathSets {
    live: HashMap<PathLabels, Live>,
    /// The saved series' label sets were taken in (at the first expiry pass).
    seeded: bool,
}

/// One label set's files.
#[derive(Debug, Default)]
struct Live {
    files: u64,
    /// When its last file was let go (seconds since the epoch), while it has none.
    gone_since: Option<f64>,
}

impl Accountant {
    /// The label set of a file whose path gave `raw` (name, value) pairs: each value validated,
    /// redacted if it holds a secret, and admitted under `--max-path-values`, else `other`.
    pub fn path_labels(&mut self, raw: &[(LabelName, String)]) -> PathLabels {
        PathLabels(
            raw.iter()
                .map(|(name, value)| (*name, self.label(*name, value)))
                .collect(),
        )
    }

    /// A file with the label set `path` is followed.
    pub fn path_opened(&mut self, path: &PathLabels) {
        if path.is_empty() {
            return;
        }
        let live = self.paths.live.entry(path.clone()).or_default();
        live.files += 1;
        live.gone_since = None;
    }

    /// A file with the label set `path` was let go at `now` (seconds since the epoch).
    pub fn path_closed(&mut self, path: &PathLabels, now: f64) {
        if let Some(live) = self.paths.live.get_mut(path) {
            live.files = live.files.saturating_sub(1);
            if live.files == 0 {
                live.gone_since = Some(now);
            }
        }
    }

    /// Drops the series of every label set none of whose files has been followed for the grace
    /// period as of `now`; returns how many label sets were dropped.
    pub fn expire_paths(&mut self, now: f64) -> usize {
        if !self.paths.seeded {
            self.paths.seeded = true;
            let saved: BTreeSet<PathLabels> = self.saved_path_sets();
            for path in saved {
                self.paths.live.entry(path).or_insert(Live {
                    files: 0,
                    gone_since: Some(now),
                });
            }
        }
        let grace = self.config.limits.path_labels_grace_secs as f64;
        let expired: Vec<PathLabels> = self
            .paths
            .live
            .iter()
            .filter(|(_, live)| live.gone_since.is_some_and(|t| now - t >= grace))
            .map(|(path, _)| path.clone())
            .collect();
        for path in &expired {
            self.paths.live.remove(path);
            self.forget_path(path);
        }
        expired.len()
    }

    /// Every label set the counted series carry.
    fn saved_path_sets(&self) -> BTreeSet<PathLabels> {
        let m = &self.state.metrics;
        m.denials
            .keys()
            .map(|k| &k.path)
            .chain(m.denial_risks.keys().map(|k| &k.path))
            .chain(m.path_workflows.keys())
            .filter(|p| !p.is_empty())
            .cloned()
            .collect()
    }

    /// Drops every series of `path` and lets its values go from their admitted sets, unless
    /// another label set still uses them.
    fn forget_path(&mut self, path: &PathLabels) {
        self.state.metrics.forget_path(path);
        let still_used: BTreeSet<(LabelName, String)> = self
            .saved_path_sets()
            .into_iter()
            .flat_map(|p| p.0)
            .collect();
        for (name, value) in &path.0 {
            if !still_used.contains(&(*name, value.clone())) {
                if let Some(set) = self.state.path_values.get_mut(name) {
                    set.remove(value);
                }
            }
        }
    }
}
