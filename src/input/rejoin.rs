//! Lines that a writer cut across two files, joined again.
//!
//! Under load pino-roll cuts lines at roll boundaries: a roll ends inside a line and the next
//! roll begins with the rest of it. Read file by file, the two pieces are two bad lines, and a
//! denial or an execution record is lost. The exact rule:
//!
//! * A file *P* is **superseded** by a file *S* when *S* is a newer roll of *P*'s
//!   [sequence](super::roll::Sequence) (newer in the sequence's
//!   [direction](super::roll::Directions): logrotate's `app.log.2` is newer than its
//!   `app.log.3`), or when *S* is a new file at the path *P* was followed under while *P* was
//!   renamed away or deleted (rename + create).
//! * *P*'s **fragment** *T* is what follows its last newline once it was read to its end: not
//!   empty, not an oversized line being skipped. *S*'s **head** *H* is its first line, read
//!   from offset 0, without its newline.
//! * *T* and *H* are joined into the one line *T+H* if and only if *H* is not a whole line by
//!   itself, *T* is not either, and *T+H* is (the stage above decides what "whole" means: for
//!   the pipeline, one JSON object), and, for rolls, *S* is the very next roll of *P*
//!   ([`Sequence::is_next`]): with a roll between them that was never read (deleted, or
//!   reached only through a symlink that moved on twice), *T* and *H* are pieces of two
//!   different lines, and two such pieces often make valid JSON — a line nobody wrote. The
//!   joined line counts as *S*'s; *P*'s offset moves past *T* and *S*'s past *H*, in the same
//!   step, so the state file never holds half a join.
//! * Otherwise nothing is joined. *H* is read as *S*'s first line, whatever it is. *T* is
//!   handed up as an unterminated last line (counted if whole, else `malformed`) when *P* is a
//!   numbered roll (its writer has moved on for good), or when *P* is let go; a renamed *P* may
//!   still be written through an open descriptor until then.
//! * When *P* is let go, or is gone at a restart, before any successor appeared, *T* is kept as
//!   an **orphan** (in memory and in the state file, at most [`MAX_ORPHANS`], the oldest handed
//!   up first) for a successor to join. It keeps its sequence's direction as it was known then,
//!   for when no file of that sequence is left to show it.
//!
//! **Not here:** following files ([`super::follow`]), what a whole line is (the stage above).
//!
//! Cold: once per new file.

use std::path::PathBuf;

use serde::{Deserialize, Serialize};

use super::roll::{Direction, Directions, Sequence};

/// At most this many orphan fragments are kept.
pub const MAX_ORPHANS: usize = 64;

/// A fragment whose file is gone, waiting for its successor.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Orphan {
    /// The path its file was followed under first.
    pub path: PathBuf,
    /// The path whose name places it in a roll sequence (its target, for a symlink).
    pub sequence_path: PathBuf,
    pub fragment: Vec<u8>,
    /// Which way its sequence counts, if that was known when it was kept (absent from state
    /// files written before directions were learned: then as `directions` say, or up).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub direction: Option<Direction>,
}

impl Orphan {
    /// Its sequence and that sequence's direction: as the files on disk show it now, else as
    /// it was known when the orphan was kept, else up.
    fn sequence(&self, directions: &Directions) -> Option<(Sequence, Direction)> {
        let mine = Sequence::of(&self.sequence_path)?;
        let direction = directions.known(&mine).or(self.direction);
        Some((mine, direction.unwrap_or_default()))
    }

    /// Whether a new file at `path` (in `sequence`) supersedes this orphan's file.
    pub fn superseded_by(
        &self,
        path: &std::path::Path,
        sequence: Option<&Sequence>,
        directions: &Directions,
    ) -> bool {
        self.path == path
            || self
                .sequence(directions)
                .zip(sequence)
                .is_some_and(|((mine, direction), theirs)| mine.precedes(theirs, direction))
    }

    /// Whether a new file that supersedes this orphan's file may continue its fragment: not a
    /// roll with another roll between them (never read: the pieces are of different lines).
    pub fn continued_by(
        &self,
        path: &std::path::Path,
        sequence: Option<&Sequence>,
        directions: &Directions,
    ) -> bool {
        match (self.sequence(directions), sequence) {
            (Some((mine, direction)), Some(theirs)) if mine.precedes(theirs, direction) => {
                mine.is_next(theirs, direction)
            }
            _ => self.path == path,
        }
    }
}

/// What to do with a fragment and a head.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Verdict {
    /// Join them: this is the whole line, with its newline.
    Join(Vec<u8>),
    /// Leave them apart.
    Apart,
}

/// Applies the rule to fragment `tail` and head `head` (without its newline).
pub fn judge(tail: &[u8], head: &[u8], is_whole_line: impl Fn(&[u8]) -> bool) -> Verdict {
    if tail.is_empty() || is_whole_line(head) || is_whole_line(tail) {
        return Verdict::Apart;
    }
    let mut joined = Vec::with_capacity(tail.len() + head.len() + 1);
    joined.extend_from_slice(tail);
    joined.extend_from_slice(head);
    if is_whole_line(&joined) {
        joined.push(b'\n');
        Verdict::Join(joined)
    } else {
        Verdict::Apart
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn braces(b: &[u8]) -> bool {
        b.first() == Some(&b'{') && b.last() == Some(&b'}')
    }

    #[test]
    fn joins_only_two_fragments_that_make_one_line() {
        assert_eq!(
            judge(b"{\"a\":", b"1}", braces),
            Verdict::Join(b"{\"a\":1}\n".to_vec())
        );
        // A head that is a whole line starts a line: the tail stays a bad line of its own.
        assert_eq!(judge(b"{\"a\":", b"{\"b\":1}", braces), Verdict::Apart);
        // A tail that is whole missed only its newline.
        assert_eq!(judge(b"{\"a\":1}", b"x}", braces), Verdict::Apart);
        // Two pieces that do not fit.
        assert_eq!(judge(b"{\"a\":", b"1", braces), Verdict::Apart);
        assert_eq!(judge(b"", b"1}", braces), Verdict::Apart);
    }

    fn seq(path: &str) -> Option<Sequence> {
        Sequence::of(std::path::Path::new(path))
    }

    #[test]
    fn an_orphan_is_superseded_by_its_next_roll_or_its_path() {
        let orphan = Orphan {
            path: "d/current.log".into(),
            sequence_path: "d/app.9.log".into(),
            fragment: b"{".to_vec(),
            direction: None,
        };
        let up = Directions::default();
        let superseded = |p: &str| orphan.superseded_by(p.as_ref(), seq(p).as_ref(), &up);
        let continued = |p: &str| orphan.continued_by(p.as_ref(), seq(p).as_ref(), &up);
        assert!(superseded("d/app.10.log"));
        assert!(!superseded("d/app.8.log"));
        assert!(superseded("d/current.log"));
        assert!(!superseded("d/other.log"));
        // Only the next roll continues its fragment.
        assert!(continued("d/app.10.log"));
        assert!(!continued("d/app.11.log"));
        assert!(continued("d/current.log"));
    }

    /// logrotate's numbers count down: `app.log.2` continues `app.log.3`, never `app.log.4`.
    #[test]
    fn a_counting_down_orphan_is_continued_by_the_lower_number() {
        let mut orphan = Orphan {
            path: "d/app.log.3".into(),
            sequence_path: "d/app.log.3".into(),
            fragment: b"{".to_vec(),
            direction: Some(Direction::Down),
        };
        let nothing = Directions::default();
        let superseded = |o: &Orphan, p: &str, d| o.superseded_by(p.as_ref(), seq(p).as_ref(), d);
        let continued = |o: &Orphan, p: &str, d| o.continued_by(p.as_ref(), seq(p).as_ref(), d);
        // Known when it was kept; no file on disk shows it now.
        assert!(superseded(&orphan, "d/app.log.2", &nothing));
        assert!(continued(&orphan, "d/app.log.2", &nothing));
        assert!(!superseded(&orphan, "d/app.log.4", &nothing));
        assert!(!continued(&orphan, "d/app.log.4", &nothing));
        assert!(superseded(&orphan, "d/app.log.1", &nothing));
        assert!(!continued(&orphan, "d/app.log.1", &nothing));
        // Kept before directions were learned: the files on disk decide.
        orphan.direction = None;
        let mut down = Directions::default();
        let on_disk = [("d/app.log.2", 300), ("d/app.log.4", 100)].map(|(p, t)| {
            let t = std::time::SystemTime::UNIX_EPOCH + std::time::Duration::from_secs(t);
            (seq(p), t)
        });
        down.learn(&on_disk, |f| f.0.as_ref(), |f| f.1);
        assert!(continued(&orphan, "d/app.log.2", &down));
        assert!(!superseded(&orphan, "d/app.log.4", &down));
        // Without either, as before: up.
        assert!(continued(&orphan, "d/app.log.4", &nothing));
    }

    /// State files written before directions were learned still load.
    #[test]
    fn an_orphan_without_a_direction_loads() {
        let old = r#"{"path":"d/app.log","sequence_path":"d/app.log","fragment":[123]}"#;
        let orphan: Orphan = serde_json::from_str(old).unwrap();
        assert_eq!(orphan.direction, None);
        assert_eq!(serde_json::to_string(&orphan).unwrap(), old);
        let down = Orphan {
            direction: Some(Direction::Down),
            ..orphan
        };
        let text = serde_json::to_string(&down).unwrap();
        assert!(text.ends_with(r#","direction":"down"}"#), "{text}");
        assert_eq!(serde_json::from_str::<Orphan>(&text).unwrap(), down);
    }
}
