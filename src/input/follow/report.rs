//! What the follower shows of itself between reads: its state-file entries and its counters.
//!
//! Owns [`Follower::save`] (a [`Saved`]: each file's [`FileState`] and the orphan fragments, made
//! when every complete line read was handed up) and [`Follower::stats`] (the [`FollowStats`],
//! with each file's lag). **Not here:** writing the state file (`crate::state`), resuming from
//! it ([`super::open`]), the metric names (`crate::output`).
//!
//! Cold: once per state write, once per scrape.

use std::collections::BTreeMap;

use super::truncation::widen_signature;
use super::{FileState, FollowStats, Follower, Saved};

impl Follower {
    /// Entries for the state file; call between reads (all complete lines were handed up).
    pub fn save(&mut self) -> Saved {
        let files = self
            .files
            .iter_mut()
            .map(|f| {
                widen_signature(f); // signed now, it is in this state
                f.buffer.consume();
                let state = FileState {
                    path: f.path.display().to_string(),
                    inode: f.inode,
                    signature: f.signature,
                    offset: f.buffer.committed(),
                    fragment: f.buffer.tail().map(<[u8]>::to_vec).or_else(|| {
                        // Resumed and not read yet: the entry's fragment still holds.
                        f.resumed_fragment
                            .as_ref()
                            .filter(|(at, _)| *at == f.read_pos)
                            .map(|(_, fragment)| fragment.clone())
                    }),
                    sequence_path: (f.sequence_path != f.path)
                        .then(|| f.sequence_path.display().to_string()),
                    first_path: (f.first_path != f.path)
                        .then(|| f.first_path.display().to_string()),
                };
                (f.id, state)
            })
            .collect();
        Saved {
            files,
            orphans: self.orphans.clone(),
        }
    }

    /// The follower's counters, with each file's lag. A rotated file still being drained is
    /// named `<path> (rotated)` (its old name: the new one is unknown), and files sharing a name
    /// are summed, so every name appears once (a `path` label must not repeat).
    pub fn stats(&self) -> FollowStats {
        let mut stats = self.stats.clone();
        let mut lags: BTreeMap<String, u64> = BTreeMap::new();
        for f in &self.files {
            let mut name = f.path.display().to_string();
            if f.rotated {
                name.push_str(" (rotated)");
            }
            *lags.entry(name).or_default() += f.size.saturating_sub(f.buffer.committed());
        }
        stats.files = lags.into_iter().collect();
        stats.unopenable = self.unopenable.len() as u64;
        stats
    }
}
