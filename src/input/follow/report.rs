//! What the follower shows of itself between reads: its state-file entries and its counters.
//!
//! Owns [`Follower::save`] (a [`Saved`]: each file's [`FileState`] and the orphan fragments, made
//! when every complete line read was handed up) and [`Follower::stats`] (the [`FollowStats`],
//! with the lag of the files that lag most, and the sum of the others'). **Not here:** writing
//! the state file (`crate::state`), resuming from it ([`super::open`]), the metric names and
//! their rendering (`crate::vocab`, `crate::exposition`).
//!
//! Cold: once per state write, once per scrape.

use std::sync::Arc;

use super::{FileId, FollowStats, Follower, Saved};

impl Follower {
    /// Entries for the state file; call between reads (all complete lines were handed up).
    pub fn save(&mut self) -> Saved {
        // The heads a file had before it was truncated: a copy made of it then is known by them
        // after a restart too.
        for f in self.files.iter().filter(|f| !f.earlier_heads.is_empty()) {
            for &signature in &f.earlier_heads {
                self.unrecorded
                    .remember(&f.sequence_path, f.inode, signature);
            }
        }
        let files = self.files.iter_mut().map(|f| (f.id, f.state())).collect();
        Saved {
            files,
            orphans: self.orphans.clone(),
            since: self.unrecorded.since,
            heads: self.unrecorded.saved(),
        }
    }

    /// The follower's counters, with each file's lag. A rotated file still being drained is
    /// named `<path> (rotated)` (its old name: the new one is unknown), and files sharing a name
    /// are summed, so every name appears once (a `path` label must not repeat). Only the files
    /// that lag or were rotated ([`super::hot`]) and the first names of the others are looked
    /// at: a publication of thousands of quiet files costs what the few that lag cost.
    pub fn stats(&self) -> FollowStats {
        let mut stats = self.counters();
        let hot = &self.hot;
        let file = |id: &FileId| hot.slots.get(id).and_then(|&i| self.files.get(i));
        // Files under their name each have their own; rotated files (few) are summed by name.
        let mut lags: Vec<(Name<'_>, u64)> = Vec::new();
        let mut rotated: Vec<(Name<'_>, u64)> = Vec::new();
        for f in hot.notable.iter().filter_map(file) {
            match f.rotated {
                true => rotated.push((f.series_name(), f.lag())),
                false if f.lag() > 0 => lags.push((f.series_name(), f.lag())),
                false => {}
            }
        }
        let under_name = self.files.len() - rotated.len();
        rotated.sort_unstable_by(|a, b| a.0.cmp(&b.0));
        rotated.dedup_by(|later, kept| {
            let same = later.0 == kept.0;
            if same {
                kept.1 += later.1;
            }
            same
        });
        stats.followed = (under_name + rotated.len()) as u64;
        let total: u64 = lags.iter().chain(&rotated).map(|l| l.1).sum();
        lags.append(&mut rotated);
        let n = self.config.max_file_series;
        // The quiet files (no lag) that get a series are among the first `n` by name.
        let quiet = hot
            .by_name
            .iter()
            .filter_map(file)
            .filter(|f| !f.rotated && f.lag() == 0)
            .take(n);
        lags.extend(quiet.map(|f| (f.series_name(), 0)));
        if lags.len() > n {
            // The most lag first (ties by name, so the set is stable); the rest summed.
            let most = |a: &(Name<'_>, u64), b: &(Name<'_>, u64)| {
                b.1.cmp(&a.1).then_with(|| a.0.cmp(&b.0))
            };
            if n > 0 {
                lags.select_nth_unstable_by(n - 1, most);
            }
            lags.truncate(n);
        }
        stats.lag_others = total - lags.iter().map(|l| l.1).sum::<u64>();
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
        stats.files = Arc::new(files);
        stats
    }

    /// The follower's counters without the lag series: `files` empty, `followed` and
    /// `lag_others` zero ([`Follower::stats`] has them).
    pub fn counters(&self) -> FollowStats {
        FollowStats {
            unopenable: self.unopenable.len() as u64,
            open_files: self.open_count as u64,
            ..self.stats.clone()
        }
    }

    /// What the lag series of [`Follower::stats`] are made of: the files' layout, the number
    /// of series, and each lagging or rotated file's lag. While the key is unchanged, so are
    /// the series, `followed` and `lag_others`; it costs what the files that lag cost.
    pub fn lag_key(&self) -> LagKey {
        let hot = &self.hot;
        let mut notable: Vec<(FileId, u64, bool)> = hot
            .notable
            .iter()
            .filter_map(|id| hot.slots.get(id).and_then(|&i| self.files.get(i)))
            .map(|f| (f.id, f.lag(), f.rotated))
            .collect();
        notable.sort_unstable();
        LagKey {
            layout: hot.layouts,
            series: self.config.max_file_series,
            notable,
        }
    }
}

/// What the lag series are made of ([`Follower::lag_key`]).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct LagKey {
    /// Layout changes of the follower's files (opened, renamed, let go) so far.
    layout: u64,
    /// Files that get a series of their own.
    series: usize,
    /// Each lagging or rotated file: its id, its lag, whether it was rotated.
    notable: Vec<(FileId, u64, bool)>,
}

/// A lag series' name: the path's bytes, and whether the file was rotated away from it.
type Name<'a> = (&'a [u8], bool);

#[cfg(test)]
mod tests {
    use std::time::Duration;

    use crate::input::follow::{FollowConfig, Follower, Recorder};

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
        follower.scan(&mut Recorder::default());
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

    /// The series every file would get, as the whole list ranks them: files under their name
    /// each, rotated files summed by name, the `n` with the most lag (ties by name) named, the
    /// others summed. What [`Follower::stats`] must give while looking at fewer files.
    fn ranked_by_every_file(follower: &Follower, n: usize) -> (Vec<(String, u64)>, u64, u64) {
        let mut all: Vec<((String, bool), u64)> = Vec::new();
        for f in &follower.files {
            let lag = f.lag();
            let key = (f.path.display().to_string(), f.rotated);
            match all.iter_mut().find(|(k, _)| f.rotated && *k == key) {
                Some(entry) => entry.1 += lag,
                None => all.push((key, lag)),
            }
        }
        all.sort_by(|a, b| b.1.cmp(&a.1).then_with(|| a.0.cmp(&b.0)));
        let others = all.iter().skip(n).map(|e| e.1).sum();
        let followed = all.len() as u64;
        let mut named: Vec<(String, u64)> = all
            .into_iter()
            .take(n)
            .map(|((path, rotated), lag)| match rotated {
                true => (format!("{path} (rotated)"), lag),
                false => (path, lag),
            })
            .collect();
        named.sort();
        (named, others, followed)
    }

    #[test]
    fn the_series_are_those_a_ranking_of_every_file_gives() {
        let dir = tempfile::tempdir().unwrap();
        let log = |k: usize| dir.path().join(format!("f{k:02}.log"));
        // Quiet files, files ending in half a line (they lag), a file not read yet.
        for k in 0..30 {
            let tail = if k % 4 == 1 {
                "x".repeat(k)
            } else {
                String::new()
            };
            std::fs::write(log(k), "line\n".repeat(k % 3 + 1) + &tail).unwrap();
        }
        let config = FollowConfig::for_test(&dir.path().join("*.log"), Duration::from_secs(3600));
        let mut follower = Follower::new(config, Vec::new(), Vec::new(), true);
        let mut sink = Recorder::default();
        follower.scan(&mut sink);
        follower.read_all(&mut sink);
        // Rotated away twice under one name (summed), once under another, still lagging.
        for (k, to) in [(5, "a.old"), (9, "b.old"), (9, "c.old")] {
            std::fs::rename(log(k), dir.path().join(to)).unwrap();
            std::fs::write(log(k), "new\nhalf").unwrap();
            follower.scan(&mut sink);
            follower.read_all(&mut sink);
        }
        std::fs::write(log(30), "unread\n").unwrap();
        follower.scan(&mut sink);
        for n in [0, 1, 3, 8, 20, 33, 50] {
            follower.set_max_file_series(n);
            let stats = follower.stats();
            let (named, others, followed) = ranked_by_every_file(&follower, n);
            assert_eq!(*stats.files, named, "n = {n}");
            assert_eq!(
                (stats.lag_others, stats.followed),
                (others, followed),
                "n = {n}"
            );
        }
    }

    #[test]
    fn while_the_lag_key_holds_so_do_the_series() {
        let dir = tempfile::tempdir().unwrap();
        let log = |name: &str| dir.path().join(name);
        let append = |name: &str, text: &str| {
            use std::io::Write;
            let mut f = std::fs::OpenOptions::new()
                .append(true)
                .create(true)
                .open(log(name))
                .unwrap();
            f.write_all(text.as_bytes()).unwrap();
        };
        for name in ["a.log", "b.log", "c.log"] {
            append(name, "line\n");
        }
        let config = FollowConfig::for_test(&dir.path().join("*.log"), Duration::from_secs(3600));
        let mut follower = Follower::new(config, Vec::new(), Vec::new(), true);
        let mut sink = Recorder::default();
        let mut last = (follower.lag_key(), follower.stats());
        let mut changes = 0;
        // A scan only when the files changed (it lays them out again: a new key whatever).
        let mut step = |follower: &mut Follower, what: &str, scan: bool| {
            if scan {
                follower.scan(&mut sink);
            }
            follower.read_all(&mut sink);
            let now = (follower.lag_key(), follower.stats());
            if now.0 == last.0 {
                assert_eq!(now.1, last.1, "{what}: the key held, the series did not");
            } else {
                changes += 1;
            }
            last = now;
        };
        step(&mut follower, "first read", true);
        append("b.log", "half");
        step(&mut follower, "half a line", false);
        append("b.log", " done\n");
        step(&mut follower, "the line ends", false);
        append("d.log", "line\n");
        step(&mut follower, "a new quiet file", true);
        std::fs::rename(log("a.log"), log("a.old")).unwrap();
        step(&mut follower, "renamed out of the globs", true);
        follower.set_max_file_series(1);
        step(&mut follower, "fewer series", false);
        append("c.log", "more\n");
        step(&mut follower, "a quiet file grows", false);
        assert!(
            changes >= 5,
            "the key moved with the series ({changes} changes)"
        );
    }
}
