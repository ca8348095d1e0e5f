//! Reading one file to its end, handing every complete line up as it goes.
//!
//! Owns [`Reading`]: one pass over one file, which stops at its end, at the stop flag (not in a
//! file deleted while open), when the file's first bytes changed under the read, or when they
//! turn out to be gzip's; and the judgement of a file's first line against its predecessor's
//! fragment, or an orphan's ([`crate::input::rejoin`]).
//!
//! Before the lines just read from a file are handed up, a file renamed away from its path that
//! grew meanwhile is read to its end: its writer moved to the new file only after its last byte.
//!
//! **Not here:** deciding a file was truncated ([`super::followed`]), letting go of a drained
//! file (the [`Follower`](super::Follower)).
//!
//! Hot: per chunk, one [`LineBuffer::fill`](crate::input::chunk::LineBuffer::fill), one
//! signature check (a ≤1 KiB read) and one [`Sink::lines`]; no per-line work but the first
//! line's.

use std::sync::atomic::{AtomicBool, Ordering};

use tracing::warn;

use super::{FollowStats, Followed, Sink};
use crate::input::compressed::is_gzip;
use crate::input::rejoin::{self, Orphan, Verdict};
use crate::input::roll::{Directions, Sequence};

/// What reading one file may touch besides the file: the files read before it (its possible
/// predecessors), the orphan fragments, the roll directions, the counters, the stop flag.
pub(super) struct Reading<'a> {
    pub(super) before: &'a mut [Followed],
    /// Whether any followed file is rotated: if none, no file was renamed away from this one's
    /// path, and a chunk read costs no look at the files before it.
    pub(super) renamed_held: bool,
    pub(super) orphans: &'a mut Vec<Orphan>,
    pub(super) directions: &'a Directions,
    pub(super) stats: &'a mut FollowStats,
    pub(super) stop: &'a AtomicBool,
}

impl Reading<'_> {
    /// Reads `f` to its end, or until `stop` is set, handing every complete line to `sink`.
    pub(super) fn drain(&mut self, f: &mut Followed, sink: &mut impl Sink) -> Drain {
        let mut grew = false;
        loop {
            let Some(file) = f.file.as_mut() else {
                return Drain::default(); // parked: opened again before it is read
            };
            let filled = match f.buffer.fill(file) {
                Ok(filled) => filled,
                Err(error) => {
                    self.stats.file_errors_read += 1;
                    warn!(path = %f.path.display(), %error, "cannot read log file");
                    return Drain {
                        grew,
                        ..Drain::default()
                    };
                }
            };
            let from = f.read_pos;
            f.read_pos += filled.read as u64;
            // Once, when its first two bytes arrive: a compressed file is never read as lines.
            if from < 2 && f.read_pos >= 2 && is_gzip(file) {
                return Drain {
                    grew,
                    compressed: true,
                    ..Drain::default()
                };
            }
            if filled.read == 0 && filled.oversized == 0 && f.buffer.lines().is_empty() {
                return Drain {
                    grew,
                    ..Drain::default()
                };
            }
            // The bytes just read count only if the file still starts as it did: a copytruncate
            // and rewrite between our last check and this read would otherwise hand us the middle
            // of new content as if it followed the old.
            if filled.read > 0 && !f.signature.matches(file).unwrap_or(true) {
                return Drain {
                    grew,
                    rewritten: true,
                    ..Drain::default()
                };
            }
            grew = true;
            if filled.read > 0 {
                self.catch_up_renamed(f, sink);
                if f.head_unjudged {
                    self.catch_up_older_roll(f, sink);
                }
            }
            let mut region = f.buffer.lines();
            if f.head_unjudged && (filled.oversized > 0 || !region.is_empty()) {
                f.head_unjudged = false;
                let head = (filled.oversized == 0)
                    .then(|| memchr::memchr(b'\n', region).map(|end| &region[..end]))
                    .flatten();
                let joined = self.judge_head(f, head, sink);
                region = &region[joined..];
            }
            if filled.oversized > 0 {
                sink.oversized(f.id, filled.oversized);
            }
            sink.lines(f.id, region);
            f.buffer.consume();
            // A shutdown stops the read between two chunks, except in a file deleted while
            // open: no restart could read the rest ([`super::pass`]).
            if filled.read == 0 || (self.stop.load(Ordering::Acquire) && !f.is_deleted()) {
                return Drain {
                    grew,
                    ..Drain::default()
                };
            }
        }
    }

    /// Reads to their end the files renamed away from `f`'s path that grew: their writer
    /// appends to them until it reopens the path (logrotate's `create` with a `postrotate`
    /// signal, the kubelet), so every byte just read from `f` was written after theirs, which
    /// must be handed up first (a denial in the renamed file before its record in `f`). One
    /// `fstat` per such file, only while one is held.
    fn catch_up_renamed(&mut self, f: &Followed, sink: &mut impl Sink) {
        if !self.renamed_held {
            return;
        }
        for j in 0..self.before.len() {
            let g = &self.before[j];
            if g.rotated && g.first_path == f.first_path && g.grew() {
                self.drain_earlier(j, sink);
            }
        }
    }

    /// Reads to its end the latest older roll of `f`'s sequence if it grew since its last read.
    /// A writer that rolls by number (pino-roll) finishes that roll before it starts `f`, but
    /// it may have appended to it after this pass read it and before `f`'s first bytes: those
    /// last bytes come before any of `f`'s (a denial there before its record here), and the
    /// fragment `f`'s first line is judged against must be the roll's last. Asked until `f`'s
    /// head is judged: one `fstat`. A parked roll was read to its end and is left to its pass.
    fn catch_up_older_roll(&mut self, f: &Followed, sink: &mut impl Sink) {
        let Some(sequence) = f.sequence.as_ref() else {
            return;
        };
        let directions = self.directions;
        let Some(j) = self.before.iter().rposition(|g| {
            g.sequence
                .as_ref()
                .is_some_and(|g| directions.precedes(g, sequence))
        }) else {
            return;
        };
        if self.before[j].grew() {
            self.drain_earlier(j, sink);
        }
    }

    /// Reads `self.before[j]` to its end, the files before it as its predecessors.
    fn drain_earlier(&mut self, j: usize, sink: &mut impl Sink) {
        let (before, rest) = self.before.split_at_mut(j);
        let mut reading = Reading {
            before,
            renamed_held: self.renamed_held,
            orphans: &mut *self.orphans,
            directions: self.directions,
            stats: &mut *self.stats,
            stop: self.stop,
        };
        reading.drain(&mut rest[0], sink);
    }

    /// Judges `f`'s first line against its predecessor's fragment
    /// ([`crate::input::rejoin`]); returns how many bytes of `f`'s region the join took (0 if
    /// none).
    fn judge_head(&mut self, f: &Followed, head: Option<&[u8]>, sink: &mut impl Sink) -> usize {
        let judge = |tail: &[u8]| match head {
            Some(head) => rejoin::judge(tail, head, |b| sink.is_whole_line(b)),
            None => Verdict::Apart,
        };
        // A newer roll supersedes the latest older roll; a file at a renamed path, the file
        // renamed away from it.
        let directions = self.directions;
        let older_roll = self.before.iter_mut().rposition(|g| {
            g.sequence
                .as_ref()
                .zip(f.sequence.as_ref())
                .is_some_and(|(g, f)| directions.precedes(g, f))
        });
        if let Some(p) = older_roll {
            // Caught up just now, after `f`'s first line was written: its writer moved on.
            self.before[p].note_ended();
        }
        let renamed = || {
            self.before
                .iter()
                .rposition(|g| g.rotated && g.first_path == f.path)
        };
        let predecessor = older_roll.or_else(renamed).filter(|&p| {
            self.before[p].superseded = true;
            // A renamed file with nothing unfinished gives way to an orphan of this path: the
            // fragment of a file at this path deleted since (its entry dropped at a restart).
            older_roll.is_some() || self.before[p].buffer.tail().is_some()
        });
        if let Some(p) = predecessor {
            let p = &mut self.before[p];
            let Some(tail) = p.buffer.tail() else {
                return 0;
            };
            let numbered = older_roll.is_some();
            // Pieces of two rolls with a roll between them (never read) are not of one line.
            let next = |g: &Sequence| {
                f.sequence
                    .as_ref()
                    .is_some_and(|f| directions.is_next(g, f))
            };
            let consecutive = !numbered || p.sequence.as_ref().is_some_and(next);
            let verdict = if consecutive {
                judge(tail)
            } else {
                Verdict::Apart
            };
            return match verdict {
                Verdict::Join(line) => {
                    p.buffer.take_tail();
                    self.stats.rejoined += 1;
                    sink.lines(f.id, &line);
                    line.len() - tail_len(&line, head)
                }
                Verdict::Apart if numbered => {
                    if let Some(tail) = p.buffer.take_tail() {
                        sink.unterminated(p.id, &tail);
                    }
                    0
                }
                Verdict::Apart => 0, // a renamed file may still be written; its tail waits
            };
        }
        let orphan = self
            .orphans
            .iter()
            .rposition(|o| o.superseded_by(&f.path, f.sequence.as_ref(), directions))
            .map(|i| self.orphans.remove(i));
        let Some(orphan) = orphan else {
            return 0;
        };
        let verdict = if orphan.continued_by(&f.path, f.sequence.as_ref(), directions) {
            judge(&orphan.fragment)
        } else {
            Verdict::Apart
        };
        match verdict {
            Verdict::Join(line) => {
                self.stats.rejoined += 1;
                sink.lines(f.id, &line);
                line.len() - orphan.fragment.len()
            }
            Verdict::Apart => {
                sink.unterminated(f.id, &orphan.fragment);
                0
            }
        }
    }
}

/// The bytes of a joined `line` that came from the fragment: all but the head and newline.
fn tail_len(line: &[u8], head: Option<&[u8]>) -> usize {
    line.len() - head.map_or(0, <[u8]>::len) - 1
}

/// What reading a file to its end found.
#[derive(Default)]
pub(super) struct Drain {
    /// Something was read.
    pub(super) grew: bool,
    /// The file's first bytes changed under the read: what was read was not handed up.
    pub(super) rewritten: bool,
    /// The file starts with the gzip magic bytes: nothing was handed up.
    pub(super) compressed: bool,
}

#[cfg(test)]
mod tests {
    use std::fs;

    use crate::input::follow::{append_for_test as append, following_for_test as following};

    #[test]
    fn a_renamed_file_still_written_is_read_before_the_new_file_at_its_path() {
        let dir = tempfile::tempdir().unwrap();
        let (log, renamed) = (dir.path().join("app.log"), dir.path().join("app.log.1"));
        fs::write(&log, "a1\n").unwrap();
        let (mut follower, mut sink) = following(&log);
        // logrotate `create`: renamed, a new empty file at the path; both followed, at their end.
        fs::rename(&log, &renamed).unwrap();
        fs::write(&log, "").unwrap();
        follower.scan(&mut sink);
        follower.read_all(&mut sink);
        // A pass already past the renamed file: the writer appends to it, reopens the path on
        // the signal and writes there; the pass now reads the new file.
        append(&renamed, "a2 denial\n");
        append(&log, "b1 record\n");
        let (mut reading, new) = follower.reading(1);
        reading.drain(new, &mut sink);
        let order: Vec<&[u8]> = sink.regions.iter().map(|(_, r)| r.as_slice()).collect();
        assert_eq!(
            order,
            [&b"a1\n"[..], b"a2 denial\n", b"b1 record\n"],
            "the renamed file's last bytes come first"
        );
    }

    #[test]
    fn an_older_numbered_roll_written_after_its_read_is_read_before_the_next_roll() {
        let dir = tempfile::tempdir().unwrap();
        let (one, two) = (dir.path().join("app.1.log"), dir.path().join("app.2.log"));
        fs::write(&one, "a1\n").unwrap();
        let (mut follower, mut sink) = following(&dir.path().join("app.*.log"));
        // A pass already past the first roll: pino-roll appends to it, starts the next roll
        // and writes there; the pass now reads the next roll.
        append(&one, "a2 denial\n");
        fs::write(&two, "b1 record\n").unwrap();
        follower.scan(&mut sink);
        let (mut reading, next) = follower.reading(1);
        reading.drain(next, &mut sink);
        let order: Vec<&[u8]> = sink.regions.iter().map(|(_, r)| r.as_slice()).collect();
        assert_eq!(
            order,
            [&b"a1\n"[..], b"a2 denial\n", b"b1 record\n"],
            "the older roll's last bytes come first"
        );
    }
}
