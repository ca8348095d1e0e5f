//! Roll sequences: which files are numbered rolls of one log, and in which order they were
//! written.
//!
//! pino-roll writes `app.1.log`, `app.2.log`, … (with `dateFormat`, `app.2026-11-22.1.log`);
//! logrotate's numbered scheme writes `app.log.1`, `app.log.2`. Two files of one directory whose
//! names differ only in their runs of digits are one [`Sequence`], ordered by those numbers read
//! as integers, left to right. Modification times cannot order them: Linux stamps files with a
//! coarse clock (one tick is 1–10 ms), so a roll created in the tick its predecessor was last
//! written in has the same mtime, and a tie broken by name puts `app.10.log` before `app.9.log`.
//! Reading a newer roll first applies an execution's record before its mid-stream denials, and
//! the record then reveals them again as `unknown`.
//!
//! **Not here:** opening or reading files ([`super::follow`]).
//!
//! Cold: per scan, per matching path.

use std::path::{Path, PathBuf};

/// A file's place in its roll sequence.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Sequence {
    /// The directory and the file name with every run of digits replaced by `#`.
    key: (PathBuf, String),
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

    /// Whether `self` comes before `other` in the same sequence.
    pub fn precedes(&self, other: &Sequence) -> bool {
        self.key == other.key && self.numbers < other.numbers
    }

    /// Whether `other` is the roll right after `self`: the same numbers but the last, one more.
    /// When an earlier number changed too (a new date), there is no telling: taken as next.
    pub fn is_next(&self, other: &Sequence) -> bool {
        let Some((last, earlier)) = self.numbers.split_last() else {
            return false;
        };
        match other.numbers.split_last() {
            _ if !self.precedes(other) => false,
            Some((other_last, other_earlier)) if earlier == other_earlier => {
                last.checked_add(1) == Some(*other_last)
            }
            _ => true,
        }
    }
}

/// Reorders `items` so that the members of each sequence stand in roll order, in the places
/// the members of that sequence already held; everything else keeps its place. `items` comes
/// sorted by another order (modification time); this corrects it within each sequence only.
pub fn order<T>(items: &mut [T], sequence: impl Fn(&T) -> Option<&Sequence>) {
    let mut done = vec![false; items.len()];
    for first in 0..items.len() {
        if done[first] {
            continue;
        }
        let Some(key) = sequence(&items[first]).map(|s| s.key.clone()) else {
            continue;
        };
        let places: Vec<usize> = (first..items.len())
            .filter(|&i| sequence(&items[i]).is_some_and(|s| s.key == key))
            .collect();
        // A selection sort over the places: sequences are short, and it needs no Clone.
        for (n, &place) in places.iter().enumerate() {
            done[place] = true;
            let smallest = places[n..]
                .iter()
                .copied()
                .min_by(|&a, &b| {
                    let (a, b) = (sequence(&items[a]), sequence(&items[b]));
                    a.map(|s| &s.numbers).cmp(&b.map(|s| &s.numbers))
                })
                .unwrap_or(place);
            items.swap(place, smallest);
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
        order(&mut items, |(_, s)| s.as_ref());
        items
            .into_iter()
            .map(|(p, _)| p.display().to_string())
            .collect()
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
        let s = |p: &str| Sequence::of(Path::new(p)).unwrap();
        assert!(s("d/app.9.log").precedes(&s("d/app.10.log")));
        assert!(!s("d/app.10.log").precedes(&s("d/app.9.log")));
        assert!(!s("d/app.1.log").precedes(&s("e/app.2.log")));
        assert!(!s("d/app.1.log").precedes(&s("d/other.2.log")));
        assert_eq!(Sequence::of(Path::new("d/current.log")), None);
    }

    #[test]
    fn is_next_only_without_a_roll_between() {
        let s = |p: &str| Sequence::of(Path::new(p)).unwrap();
        assert!(s("d/app.9.log").is_next(&s("d/app.10.log")));
        assert!(!s("d/app.9.log").is_next(&s("d/app.11.log")));
        assert!(!s("d/app.10.log").is_next(&s("d/app.9.log")));
        assert!(s("d/app.2026-11-22.12.log").is_next(&s("d/app.2026-11-23.1.log")));
        assert!(!s("d/app.2026-11-22.1.log").is_next(&s("d/app.2026-11-22.3.log")));
    }
}
