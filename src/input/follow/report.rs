//! What the follower shows of itself between reads: its state-file entries and its counters.
//!
//! Owns [`Follower::save`] (a [`Saved`]: each file's [`FileState`] and the orphan fragments, made
//! when every complete line read was handed up) and [`Follower::stats`] (the [`FollowStats`],
//! with the lag of the files that lag most, and the sum of the others'). **Not here:** writing the state file (`crate::state`), resuming from
//! it ([`super::open`]), the metric names (`crate::output`).
//!
//! Cold: once per state write, once per scrape.

use super::truncation::widen_signature;
use super::{FileState, FollowStats, Followed, Follower, Saved};

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
    /// are summed, so every name appears once (a `path` label must not repeat). Only the names
    /// that get a series are made: a scrape of thousands of files costs a sort, not thousands
    /// of strings.
    pub fn stats(&self) -> FollowStats {
        let mut stats = self.stats.clone();
        let lag = |f: &Followed| f.size.saturating_sub(f.buffer.committed());
        // Files under their name each have their own; rotated files (few) are summed by name.
        let mut lags: Vec<(Name<'_>, u64)> = self
            .files
            .iter()
            .filter(|f| !f.rotated)
            .map(|f| (name(f), lag(f)))
            .collect();
        let mut rotated: Vec<(Name<'_>, u64)> = self
            .files
            .iter()
            .filter(|f| f.rotated)
            .map(|f| (name(f), lag(f)))
            .collect();
        rotated.sort_unstable_by(|a, b| a.0.cmp(&b.0));
        rotated.dedup_by(|later, kept| {
            let same = later.0 == kept.0;
            if same {
                kept.1 += later.1;
            }
            same
        });
        lags.append(&mut rotated);
        stats.followed = lags.len() as u64;
        let n = self.max_file_series;
        if lags.len() > n {
            // The most lag first (ties by name, so the set is stable); the rest summed.
            let most = |a: &(Name<'_>, u64), b: &(Name<'_>, u64)| {
                b.1.cmp(&a.1).then_with(|| a.0.cmp(&b.0))
            };
            if n > 0 {
                lags.select_nth_unstable_by(n - 1, most);
            }
            stats.lag_others = lags[n..].iter().map(|l| l.1).sum();
            lags.truncate(n);
        }
        let mut files: Vec<(String, u64)> = lags
            .into_iter()
            .map(|((path, rotated), lag)| {
                let mut name = String::from_utf8_lossy(path).into_owned();
                if rotated {
                    name.push_str(" (rotated)");
                }
                (name, lag)
            })
            .collect();
        files.sort_unstable_by(|a, b| a.0.cmp(&b.0));
        stats.files = files;
        stats.unopenable = self.unopenable.len() as u64;
        stats.open_files = self.open_count as u64;
        stats
    }
}

/// A lag series' name: the path's bytes, and whether the file was rotated away from it.
type Name<'a> = (&'a [u8], bool);

fn name(f: &Followed) -> Name<'_> {
    (f.path.as_os_str().as_encoded_bytes(), f.rotated)
}

#[cfg(test)]
mod tests {
    use std::time::Duration;

    use crate::input::follow::{FileId, FollowConfig, Follower, Opened, Sink};

    struct Nothing;

    impl Sink for Nothing {
        fn opened(&mut self, _: &Opened<'_>) {}
        fn lines(&mut self, _: FileId, _: &[u8]) {}
        fn oversized(&mut self, _: FileId, _: u64) {}
        fn unterminated(&mut self, _: FileId, _: &[u8]) {}
        fn reset(&mut self, _: FileId) {}
        fn closed(&mut self, _: FileId) {}
        fn is_whole_line(&self, _: &[u8]) -> bool {
            true
        }
    }

    #[test]
    fn only_the_files_lagging_most_get_a_series_and_the_others_are_summed() {
        let dir = tempfile::tempdir().unwrap();
        // Lags 10, 20, 30, 40, 50 bytes: nothing is read yet.
        for (name, lag) in [("a", 30), ("b", 10), ("c", 50), ("d", 20), ("e", 40)] {
            std::fs::write(dir.path().join(format!("{name}.log")), "x".repeat(lag)).unwrap();
        }
        let config = FollowConfig::for_test(&dir.path().join("*.log"), Duration::from_secs(5));
        let mut follower = Follower::new(config, Vec::new(), Vec::new(), true);
        follower.set_max_file_series(2);
        follower.scan(&mut Nothing);
        let stats = follower.stats();
        let named: Vec<(String, u64)> = stats
            .files
            .iter()
            .map(|(p, lag)| (p.rsplit('/').next().unwrap().to_string(), *lag))
            .collect();
        assert_eq!(
            named,
            [("c.log".to_string(), 50), ("e.log".to_string(), 40)]
        );
        assert_eq!((stats.followed, stats.lag_others), (5, 60));
    }
}
