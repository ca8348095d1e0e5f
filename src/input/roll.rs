//! Roll sequences: which files are numbered rolls of one log, and in which order they were
//! written.
//!
//! Owns [`Sequence`] (a file's place among the rolls of one log), [`Direction`] (which way a
//! sequence's numbers run as its rolls get newer) and [`Directions`] (what the files on disk
//! showed of each sequence's direction).
//!
//! pino-roll writes `app.1.log`, `app.2.log`, … (with `dateFormat`, `app.2026-11-22.1.log`):
//! the highest number is the newest. logrotate's numbered scheme writes `app.log.1`,
//! `app.log.2`, …: the *lowest* number is the newest. Two files of one directory whose names
//! differ only in their runs of digits are one [`Sequence`], ordered by those numbers read as
//! integers, left to right, in the sequence's direction. Reading a newer roll first applies an
//! execution's record before its mid-stream denials, and the record then reveals them again as
//! `unknown`.
//!
//! **The direction.** Names cannot tell the two schemes apart: pino-roll without an extension
//! writes `logs.1`, `logs.2`, the shape of logrotate's. The rule, from the files on disk: among
//! the members of one sequence a scan finds, if the member with the lowest numbers was modified
//! *strictly later* than the member with the highest numbers, the sequence counts **down**
//! (newest = lowest); otherwise it counts **up**. A writer never writes to a roll once it has
//! moved on, so along a sequence the mtimes never go down from older to newer: pino-roll's lowest
//! roll is never the later-modified, and logrotate's `.1` (the live file until the last
//! rotation) is, unless the whole backlog was rotated within one clock tick. A tie counts up:
//! Linux stamps files with a coarse clock (one tick is 1–10 ms), so a pino-roll roll created in
//! the tick its predecessor was last written in has the same mtime. That is also why mtimes tell
//! a sequence's direction but do not order its members (a tie broken by name puts `app.10.log`
//! before `app.9.log`): only the two ends are compared, and the members are ordered by number.
//! A direction once shown is kept while a member of its sequence is on disk (the others may be
//! deleted, by pino-roll's `limit.count` or logrotate's `rotate`); a sequence never shown to have
//! two members counts up, as every sequence did before directions were learned. Sequences are
//! named by their real directories, as followed files are.
//!
//! Not a second signal: the un-numbered `app.log` beside `app.log.N`. logrotate leaves it, but
//! pino-roll given `file: 'app.log'` and no extension writes `app.log.1`, `app.log.2` beside a
//! leftover `app.log` of the writer it replaced just as well, and in a tie (the one case the
//! mtimes leave open) it would turn pino-roll's rapid rolls around.
//!
//! Where a direction misleads: logrotate's rolls copied without their mtimes (`cp` without `-p`,
//! all stamped in name order) count up; keep rotated names out of the globs, or copy with
//! `cp -p`.
//!
//! **Not here:** opening or reading files ([`super::follow`]).
//!
//! Cold: per scan, per matching path.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::time::SystemTime;

use serde::{Deserialize, Serialize};

/// Which way a sequence's numbers run as its rolls get newer.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Direction {
    /// The highest numbers are the newest (pino-roll; logrotate's `dateext`).
    #[default]
    Up,
    /// The lowest numbers are the newest (logrotate's `app.log.1`, `app.log.2`, …).
    Down,
}

/// The directory and the file name with every run of digits replaced by `#`.
type Key = (PathBuf, String);

/// A file's place in its roll sequence.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Sequence {
    key: Key,
    /// The runs of digits of the file name, in order, as integers (saturating).
    numbers: Vec<u64>,
}

impl Sequence {
    /// The sequence of `path`, if its file name has digits.
    pub fn of(path: &Path) -> Option<Sequence> {
        let name = path.file_name()?.to_str()?;
        let mut key = String::with_capacity(name.len());
        let mut numbers = Vec::new();
        let mut digits: Option<u64> = None;
        for c in name.chars() {
            match (c.to_digit(10), digits) {
                (Some(d), Some(n)) => digits = Some(n.saturating_mul(10).saturating_add(d.into())),
                (Some(d), None) => {
                    key.push('#');
                    digits = Some(d.into());
                }
                (None, _) => {
                    numbers.extend(digits.take());
                    key.push(c);
                }
            }
        }
        numbers.extend(digits);
        if numbers.is_empty() {
            return None;
        }
        let dir = path.parent().map(Path::to_path_buf).unwrap_or_default();
        Some(Sequence {
            key: (dir, key),
            numbers,
        })
    }

    /// The sequence of `path` under its real directory (symlinks and relative parts resolved),
    /// as a followed file is named ([`std::fs::canonicalize`]), so that what a scan learns of a
    /// glob's names applies to the files followed under their real ones. Each directory is
    /// resolved once per `real_dirs` (one scan).
    pub fn of_real(path: &Path, real_dirs: &mut BTreeMap<PathBuf, PathBuf>) -> Option<Sequence> {
        let mut sequence = Sequence::of(path)?;
        let real = real_dir(&sequence.key.0, real_dirs);
        sequence.key.0.clone_from(real);
        Some(sequence)
    }

    /// Whether `self` comes before `other` in the same sequence, counting in `direction`.
    pub fn precedes(&self, other: &Sequence, direction: Direction) -> bool {
        self.key == other.key
            && match direction {
                Direction::Up => self.numbers < other.numbers,
                Direction::Down => self.numbers > other.numbers,
            }
    }

    /// Whether `other` is the roll right after `self`, counting in `direction`: the same numbers
    /// but the last, one more (one less, counting down). When an earlier number changed too (a
    /// new date), there is no telling: taken as next.
    pub fn is_next(&self, other: &Sequence, direction: Direction) -> bool {
        let Some((last, earlier)) = self.numbers.split_last() else {
            return false;
        };
        match other.numbers.split_last() {
            _ if !self.precedes(other, direction) => false,
            Some((other_last, other_earlier)) if earlier == other_earlier => match direction {
                Direction::Up => last.checked_add(1) == Some(*other_last),
                Direction::Down => other_last.checked_add(1) == Some(*last),
            },
            _ => true,
        }
    }
}

/// `dir` with symlinks and relative parts resolved ([`std::fs::canonicalize`]; `dir` itself if it
/// cannot be), each directory once per `real_dirs` (one scan).
pub fn real_dir<'a>(dir: &Path, real_dirs: &'a mut BTreeMap<PathBuf, PathBuf>) -> &'a PathBuf {
    real_dirs.entry(dir.to_path_buf()).or_insert_with(|| {
        let here = if dir.as_os_str().is_empty() {
            Path::new(".")
        } else {
            dir
        };
        std::fs::canonicalize(here).unwrap_or_else(|_| dir.to_path_buf())
    })
}

/// The direction of each sequence, as the files on disk last showed it (the rule is in the
/// module documentation). Holds only the sequences the last scan found a member of, so it stays
/// as small as the set of matching files.
#[derive(Debug, Clone, Default)]
pub struct Directions {
    known: BTreeMap<Key, Direction>,
}

impl Directions {
    /// Learns from `items` (one scan's matching files): every sequence with members of two
    /// different numbers gets the direction their modification times show; one with a single
    /// member keeps what an earlier scan showed; one with none is forgotten.
    pub fn learn<T>(
        &mut self,
        items: &[T],
        sequence: impl Fn(&T) -> Option<&Sequence>,
        modified: impl Fn(&T) -> SystemTime,
    ) {
        // Per sequence: its lowest and its highest member, each with its modification time.
        let mut ends: BTreeMap<&Key, [(&[u64], SystemTime); 2]> = BTreeMap::new();
        for item in items {
            let Some(s) = sequence(item) else {
                continue;
            };
            let this = (s.numbers.as_slice(), modified(item));
            let [lowest, highest] = ends.entry(&s.key).or_insert([this, this]);
            if this.0 < lowest.0 {
                *lowest = this;
            }
            if this.0 > highest.0 {
                *highest = this;
            }
        }
        self.known.retain(|key, _| ends.contains_key(key));
        for (key, [lowest, highest]) in ends {
            if lowest.0 == highest.0 {
                continue; // one member: nothing to compare
            }
            let direction = if lowest.1 > highest.1 {
                Direction::Down
            } else {
                Direction::Up
            };
            self.known.insert(key.clone(), direction);
        }
    }

    /// The direction of `sequence`, if the files on disk showed one.
    pub fn known(&self, sequence: &Sequence) -> Option<Direction> {
        self.known.get(&sequence.key).copied()
    }

    /// The direction of `sequence`: up unless the files on disk showed it counts down.
    pub fn of(&self, sequence: &Sequence) -> Direction {
        self.known(sequence).unwrap_or_default()
    }

    /// Whether `a` comes before `b` in their sequence ([`Sequence::precedes`]).
    pub fn precedes(&self, a: &Sequence, b: &Sequence) -> bool {
        a.precedes(b, self.of(a))
    }

    /// Whether `b` is the roll right after `a` ([`Sequence::is_next`]).
    pub fn is_next(&self, a: &Sequence, b: &Sequence) -> bool {
        a.is_next(b, self.of(a))
    }
}

/// Reorders `items` so that the members of each sequence stand in roll order (oldest first, in
/// the direction `directions` gives), in the places the members of that sequence already held;
/// everything else keeps its place. `items` comes sorted by another order (modification time);
/// this corrects it within each sequence only.
pub fn order<T>(
    items: &mut [T],
    sequence: impl Fn(&T) -> Option<&Sequence>,
    directions: &Directions,
) {
    // Each sequence's places, in one pass (thousands of rolls make one sequence).
    let mut sequences: BTreeMap<&Key, Vec<usize>> = BTreeMap::new();
    for (i, item) in items.iter().enumerate() {
        if let Some(s) = sequence(item) {
            sequences.entry(&s.key).or_default().push(i);
        }
    }
    let sequences: Vec<Vec<usize>> = sequences.into_values().collect();
    for places in sequences {
        let Some(direction) = sequence(&items[places[0]]).map(|s| directions.of(s)) else {
            continue;
        };
        // perm[k]: which of the places holds the item that belongs at the kth.
        let mut perm: Vec<usize> = (0..places.len()).collect();
        perm.sort_by(|&a, &b| {
            let (a, b) = (sequence(&items[places[a]]), sequence(&items[places[b]]));
            let by_number = a.map(|s| &s.numbers).cmp(&b.map(|s| &s.numbers));
            match direction {
                Direction::Up => by_number,
                Direction::Down => by_number.reverse(),
            }
        });
        // Applied in place, one cycle at a time: it needs no Clone.
        let mut placed = vec![false; perm.len()];
        for k in 0..perm.len() {
            if placed[k] {
                continue;
            }
            placed[k] = true;
            let mut cur = k;
            while perm[cur] != k {
                items.swap(places[cur], places[perm[cur]]);
                cur = perm[cur];
                placed[cur] = true;
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn paths(names: &[&str]) -> Vec<(PathBuf, Option<Sequence>)> {
        names
            .iter()
            .map(|n| {
                let p = PathBuf::from(n);
                let s = Sequence::of(&p);
                (p, s)
            })
            .collect()
    }

    fn ordered(names: &[&str]) -> Vec<String> {
        let mut items = paths(names);
        order(&mut items, |(_, s)| s.as_ref(), &Directions::default());
        items
            .into_iter()
            .map(|(p, _)| p.display().to_string())
            .collect()
    }

    fn at(seconds: u64) -> SystemTime {
        SystemTime::UNIX_EPOCH + std::time::Duration::from_secs(1_781_251_200 + seconds)
    }

    /// What a scan does: sort by modification time (then name), learn, order the sequences.
    fn scanned(directions: &mut Directions, files: &[(&str, u64)]) -> Vec<String> {
        let mut items: Vec<(SystemTime, PathBuf, Option<Sequence>)> = files
            .iter()
            .map(|&(n, t)| (at(t), PathBuf::from(n), Sequence::of(Path::new(n))))
            .collect();
        items.sort_by(|a, b| (a.0, &a.1).cmp(&(b.0, &b.1)));
        directions.learn(&items, |i| i.2.as_ref(), |i| i.0);
        order(&mut items, |i| i.2.as_ref(), directions);
        items
            .into_iter()
            .map(|(_, p, _)| p.display().to_string())
            .collect()
    }

    fn s(path: &str) -> Sequence {
        Sequence::of(Path::new(path)).unwrap()
    }

    #[test]
    fn numbered_rolls_order_by_number_not_by_name() {
        // As an mtime tie leaves them: by name, so 10 before 9.
        assert_eq!(
            ordered(&["d/app.10.log", "d/app.11.log", "d/app.9.log"]),
            ["d/app.9.log", "d/app.10.log", "d/app.11.log"]
        );
    }

    #[test]
    fn other_files_keep_their_places() {
        assert_eq!(
            ordered(&[
                "d/b.log",
                "d/app.3.log",
                "d/current.log",
                "d/app.2.log",
                "e/app.1.log"
            ]),
            [
                "d/b.log",
                "d/app.2.log",
                "d/current.log",
                "d/app.3.log",
                "e/app.1.log"
            ]
        );
    }

    #[test]
    fn dated_rolls_order_by_date_then_number() {
        assert_eq!(
            ordered(&[
                "d/app.2026-11-23.1.log",
                "d/app.2026-11-22.12.log",
                "d/app.2026-11-22.2.log"
            ]),
            [
                "d/app.2026-11-22.2.log",
                "d/app.2026-11-22.12.log",
                "d/app.2026-11-23.1.log"
            ]
        );
    }

    #[test]
    fn precedes_only_within_one_directory_and_name() {
        let up = Direction::Up;
        assert!(s("d/app.9.log").precedes(&s("d/app.10.log"), up));
        assert!(!s("d/app.10.log").precedes(&s("d/app.9.log"), up));
        assert!(!s("d/app.1.log").precedes(&s("e/app.2.log"), up));
        assert!(!s("d/app.1.log").precedes(&s("d/other.2.log"), up));
        assert!(!s("d/app.log.1").precedes(&s("e/app.log.2"), Direction::Down));
        assert_eq!(Sequence::of(Path::new("d/current.log")), None);
    }

    #[test]
    fn is_next_only_without_a_roll_between() {
        let up = Direction::Up;
        assert!(s("d/app.9.log").is_next(&s("d/app.10.log"), up));
        assert!(!s("d/app.9.log").is_next(&s("d/app.11.log"), up));
        assert!(!s("d/app.10.log").is_next(&s("d/app.9.log"), up));
        assert!(s("d/app.2026-11-22.12.log").is_next(&s("d/app.2026-11-23.1.log"), up));
        assert!(!s("d/app.2026-11-22.1.log").is_next(&s("d/app.2026-11-22.3.log"), up));
    }

    #[test]
    fn a_sequence_is_named_by_its_real_directory() {
        let dir = tempfile::tempdir().unwrap();
        let real = std::fs::canonicalize(dir.path()).unwrap().join("logs");
        std::fs::create_dir(&real).unwrap();
        let link = dir.path().join("link");
        std::os::unix::fs::symlink(&real, &link).unwrap();
        let mut real_dirs = BTreeMap::new();
        let through_link = Sequence::of_real(&link.join("app.log.2"), &mut real_dirs);
        assert_eq!(through_link, Sequence::of(&real.join("app.log.2")));
        assert_eq!(
            Sequence::of_real(&link.join("app.log"), &mut real_dirs),
            None
        );
        let here = std::fs::canonicalize(".").unwrap();
        let relative = Sequence::of_real(Path::new("app.log.1"), &mut real_dirs);
        assert_eq!(relative, Sequence::of(&here.join("app.log.1")));
    }

    #[test]
    fn counting_down_the_lower_number_is_next() {
        let down = Direction::Down;
        assert!(s("d/app.log.3").precedes(&s("d/app.log.2"), down));
        assert!(!s("d/app.log.2").precedes(&s("d/app.log.3"), down));
        assert!(s("d/app.log.3").is_next(&s("d/app.log.2"), down));
        assert!(s("d/app.log.10").is_next(&s("d/app.log.9"), down));
        assert!(!s("d/app.log.3").is_next(&s("d/app.log.1"), down));
        assert!(!s("d/app.log.2").is_next(&s("d/app.log.3"), down));
        assert!(!s("d/app.log.1").is_next(&s("d/app.log.0"), Direction::Up));
    }

    #[test]
    fn rolls_whose_mtimes_tie_count_up() {
        // pino-roll rolling within one clock tick: every mtime ties.
        let mut directions = Directions::default();
        assert_eq!(
            scanned(
                &mut directions,
                &[("d/app.10.log", 5), ("d/app.11.log", 5), ("d/app.9.log", 5)]
            ),
            ["d/app.9.log", "d/app.10.log", "d/app.11.log"]
        );
        assert_eq!(directions.known(&s("d/app.1.log")), Some(Direction::Up));
        // Without an extension pino-roll's names are logrotate's shape; the mtimes decide.
        assert_eq!(
            scanned(
                &mut directions,
                &[("d/logs.2", 5), ("d/logs.1", 4), ("d/logs.3", 5)]
            ),
            ["d/logs.1", "d/logs.2", "d/logs.3"]
        );
    }

    #[test]
    fn logrotate_numbers_count_down_when_the_lowest_is_the_newest() {
        let mut directions = Directions::default();
        let backlog = [
            ("d/app.log", 400),
            ("d/app.log.1", 300),
            ("d/app.log.2", 200),
            ("d/app.log.3", 100),
        ];
        assert_eq!(
            scanned(&mut directions, &backlog),
            ["d/app.log.3", "d/app.log.2", "d/app.log.1", "d/app.log"]
        );
        assert_eq!(directions.known(&s("d/app.log.7")), Some(Direction::Down));
        assert!(directions.precedes(&s("d/app.log.3"), &s("d/app.log.2")));
        assert!(directions.is_next(&s("d/app.log.3"), &s("d/app.log.2")));
        assert!(!directions.is_next(&s("d/app.log.2"), &s("d/app.log.3")));
        // Only the two ends are compared: the middle may tie with either (copied with `cp -p`
        // from a coarser clock), and ties within are ordered by number, counting down.
        assert_eq!(
            scanned(
                &mut directions,
                &[
                    ("d/app.log.10", 100),
                    ("d/app.log.9", 100),
                    ("d/app.log.1", 300)
                ]
            ),
            ["d/app.log.10", "d/app.log.9", "d/app.log.1"]
        );
        // A pino-roll sequence beside it keeps counting up.
        assert_eq!(
            scanned(
                &mut directions,
                &[
                    ("d/app.log.2", 200),
                    ("d/app.log.1", 300),
                    ("d/app.9.log", 9),
                    ("d/app.10.log", 9)
                ]
            ),
            ["d/app.9.log", "d/app.10.log", "d/app.log.2", "d/app.log.1"]
        );
    }

    #[test]
    fn a_direction_is_kept_while_a_member_is_left_and_forgotten_after() {
        let mut directions = Directions::default();
        scanned(
            &mut directions,
            &[("d/app.log.1", 300), ("d/app.log.2", 200)],
        );
        // One member left: nothing to compare, what was learned stays.
        scanned(&mut directions, &[("d/app.log.1", 300)]);
        assert_eq!(directions.known(&s("d/app.log.1")), Some(Direction::Down));
        scanned(&mut directions, &[("d/other.log", 300)]);
        assert_eq!(directions.known(&s("d/app.log.1")), None);
        assert_eq!(directions.of(&s("d/app.log.1")), Direction::Up);
        // A single member never teaches a direction.
        scanned(&mut directions, &[("d/app.log.1", 300)]);
        assert_eq!(directions.known(&s("d/app.log.1")), None);
    }
}
