//! One pass over the followed files that may have changed (every file after a scan while
//! polling or a lost event; else those due, [`super::hot`]): each read to its end, parked files
//! looked at by path and opened again when they did ([`super::park`]), drained rotated files let
//! go after their grace period, and the descriptor budget kept after each file.
//!
//! A shutdown's stop flag ends a pass between two chunks: the state written next resumes each
//! file from there. Not a file deleted while open (its rotation compressed it, or its pod was
//! deleted): its unread end is only in our descriptor and maybe a `.gz` that the writer's
//! retention may delete before the restart (a burst of rolls while the exporter exits), so it
//! is read to its end first, at the cost of one `fstat` per file the stop left unread.
//!
//! **Not here:** reading one file ([`super::drain`]), finding files (the scan).
//!
//! Cold per file that did not change (one `fstat`, or a `stat` if parked); hot inside
//! [`Reading::drain`].

use std::sync::atomic::Ordering;
use std::time::Instant;

use tracing::debug;

use super::drain::Reading;
use super::{park, paths, Followed, Follower, Sink};

impl Follower {
    /// Reads every followed file to its end, handing what it read to `sink`; lets go of rotated
    /// files that stayed drained for the grace period; parks files read to their end when more
    /// are open than the descriptor budget allows ([`park`]).
    pub fn read_all(&mut self, sink: &mut impl Sink) {
        self.pass(sink, true, false);
    }

    /// Reads the files that may have changed: those an event named or the sweep asked for
    /// ([`Follower::touch`], [`Follower::sweep`]), rotated files (until they are let go), and
    /// files whose last read stopped before their end. The others cost nothing.
    pub fn read_due(&mut self, sink: &mut impl Sink) {
        self.pass(sink, false, false);
    }

    /// The last read before the final state write, at shutdown: reads to their end the files
    /// deleted while open, whose unread bytes no restart could read ([module docs](self)). The
    /// others are resumed from the state; a wake-up queued before the shutdown is not served.
    pub fn read_deleted(&mut self, sink: &mut impl Sink) {
        self.pass(sink, true, true);
    }

    /// One pass over every file (`all`) or those due; over only the files deleted while open if
    /// `deleted_only` or once the stop flag is set.
    fn pass(&mut self, sink: &mut impl Sink, all: bool, deleted_only: bool) {
        let now = Instant::now();
        let mut signed = 0;
        let mut lookup = paths::Lookup::default();
        // Every file, or those due: what an event, the sweep or a scan named, and those with
        // something left to do (rotated, or bytes not read yet), never a loop over the others.
        let order = if all {
            self.take_due();
            (0..self.files.len()).collect()
        } else {
            self.take_due()
        };
        let mut removed = 0;
        let mut left = Vec::new();
        for &at in &order {
            let i = at - removed;
            // Stopped (shutting down): the others are read from where they are at the next
            // start, a file deleted while open is read to its end now ([module docs](self)).
            let stopped = deleted_only || self.config.stop.load(Ordering::Acquire);
            if stopped && !self.files[i].is_deleted() {
                left.push(self.files[i].id); // still due: read at the next pass
                continue;
            }
            self.hot.looked_at += 1;
            match self.visit(i, sink, now, &mut lookup) {
                Visit::Kept(sign) => {
                    signed += u64::from(sign);
                    self.note(i);
                    self.keep_if_pending(i);
                }
                Visit::LetGo => removed += 1,
            }
        }
        self.put_back(left);
        if removed > 0 {
            self.relayout();
        }
        self.identities += signed;
    }

    /// Reads the `i`th file if it may have changed; whether it was kept (and its first bytes
    /// newly signed) or let go.
    fn visit(
        &mut self,
        i: usize,
        sink: &mut impl Sink,
        now: Instant,
        lookup: &mut paths::Lookup,
    ) -> Visit {
        let due = std::mem::take(&mut self.files[i].due);
        if self.files[i].file.is_none() {
            match self.visit_parked(i, lookup, sink) {
                park::Parked::Unchanged => return Visit::Kept(false),
                park::Parked::Gone => {
                    // Kept for the grace period as an open rotated file would be: a
                    // successor's first line may still join its unfinished last one.
                    if self.files[i].drained_for(now, self.config.rotated_grace) {
                        let f = self.files.remove(i);
                        self.let_go(f, sink);
                        return Visit::LetGo;
                    }
                    return Visit::Kept(false);
                }
                park::Parked::Reopened => {
                    if self.files[i].check_truncation(&mut self.stats, true) {
                        sink.reset(self.files[i].id);
                    }
                }
            }
        } else if self.files[i].is_unchanged() {
            // Read to its end, and its size has not moved since: one fstat. Named by an
            // event, it may have been rewritten in place: its first bytes, and those before
            // our offset, are checked.
            if !(due && self.files[i].check_truncation(&mut self.stats, true)) {
                return Visit::Kept(false);
            }
            sink.reset(self.files[i].id);
        }
        let tick = self.tick();
        let grace = self.config.rotated_grace;
        let (mut reading, f) = self.reading(i);
        // Named by an event or the sweep: the bytes before our offset are checked too (a
        // rewrite that kept the first KiB and grew past our offset).
        if f.check_truncation(reading.stats, due) {
            sink.reset(f.id);
        }
        let mut read = reading.drain(f, sink);
        if read.rewritten && f.check_truncation(reading.stats, true) {
            sink.reset(f.id);
            read = reading.drain(f, sink);
        }
        if read.compressed {
            // Created empty and then written compressed (gzip at work): never lines.
            let f = self.files.remove(i);
            self.open_count -= 1;
            self.followed.remove(&f.inode);
            let changed = f.file.as_ref().and_then(|file| file.metadata().ok());
            let changed = changed.map_or((0, 0), |meta| super::paths::changed(&meta));
            self.skip_compressed(f.inode, changed, &f.path);
            sink.closed(f.id);
            return Visit::LetGo;
        }
        let grew = read.grew;
        if grew {
            f.active = tick;
        }
        let signed = f.settle(reading.stats);
        if f.rotated && !grew && f.read_pos >= f.size {
            if f.drained_for(now, grace) {
                debug!(path = %f.path.display(), "rotated file drained; letting go");
                let f = self.files.remove(i); // keep the others in the order they were opened
                self.let_go(f, sink);
                return Visit::LetGo;
            }
        } else {
            f.not_drained();
        }
        self.fit_budget(None, self.fd_budget);
        Visit::Kept(signed)
    }

    /// Reads the `i`th file to its end now, outside a pass: a roll read at once comes next, and
    /// what this older file holds unread was written before it ([`super::unrecorded`]). Never
    /// lets it go (its pass does), and leaves to its pass a file parked, one whose first bytes
    /// are not read yet (a `.gz` being made), and one rewritten under the read (its truncation
    /// is the pass's to notice: it is made due).
    pub(super) fn read_ahead(&mut self, i: usize, sink: &mut impl Sink) {
        let f = &self.files[i];
        if f.file.is_none() || f.read_pos < 2 || !f.grew() {
            return;
        }
        let tick = self.tick();
        let (mut reading, f) = self.reading(i);
        let read = reading.drain(f, sink);
        if read.grew {
            f.active = tick;
        }
        let signed = f.settle(reading.stats);
        self.identities += u64::from(signed);
        if read.rewritten {
            self.mark_due(i);
        }
    }

    /// A read of the `i`th file, with the files before it as its possible predecessors (what
    /// [`Follower::visit`] makes for each file it reads; a test drives one read with it).
    pub(super) fn reading(&mut self, i: usize) -> (Reading<'_>, &mut Followed) {
        let renamed_held = self.holds_rotated();
        let (before, rest) = self.files.split_at_mut(i);
        let reading = Reading {
            before,
            renamed_held,
            orphans: &mut self.orphans,
            directions: &self.directions,
            stats: &mut self.stats,
            stop: &self.config.stop,
        };
        (reading, &mut rest[0])
    }
}

/// What a visit did with a file.
enum Visit {
    /// It stays followed; whether its first bytes were newly signed.
    Kept(bool),
    /// It was let go (removed from the list).
    LetGo,
}

#[cfg(test)]
mod tests {
    use std::fs;
    use std::io::Write;
    use std::sync::atomic::Ordering;

    use crate::input::follow::following_for_test;

    /// `n` lines of one read chunk's worth of bytes each in the unit tests' follower.
    fn lines(tag: &str, n: usize) -> Vec<u8> {
        (0..n)
            .flat_map(|i| format!("{tag} line {i:04} {}\n", "x".repeat(1000)).into_bytes())
            .collect()
    }

    /// A shutdown stops a pass between two chunks, and the state written next resumes every
    /// file from there, except one deleted while we hold it open: its rotation compressed it
    /// and the kubelet's retention may delete that `.gz` before the restart (a burst of rolls
    /// while the exporter exits), so our descriptor is the only sure copy of its unread end.
    /// It is read to its end before the pass stops, and by the shutdown's last read; a file
    /// still on disk is left where the stop found it.
    #[test]
    fn a_stopped_pass_reads_a_file_deleted_while_open_to_its_end() {
        let dir = tempfile::tempdir().unwrap();
        let (gone, kept) = (dir.path().join("a.log"), dir.path().join("b.log"));
        fs::write(&gone, lines("a", 1)).unwrap();
        fs::write(&kept, lines("b", 1)).unwrap();
        let (mut follower, mut sink) = following_for_test(&dir.path().join("*.log"));
        assert_eq!(sink.bytes(), 2 * lines("a", 1).len());
        let append = |path: &std::path::Path, tag: &str| {
            let mut file = fs::OpenOptions::new().append(true).open(path).unwrap();
            file.write_all(&lines(tag, 8)[lines(tag, 1).len()..])
                .unwrap();
            file
        };
        let mut writer = append(&gone, "a");
        append(&kept, "b");
        fs::remove_file(&gone).unwrap();
        follower.config.stop.store(true, Ordering::Release);
        sink.regions.clear();
        follower.read_all(&mut sink);
        let read: Vec<u8> = sink.regions.iter().flat_map(|(_, r)| r.clone()).collect();
        assert_eq!(
            String::from_utf8(read).unwrap(),
            String::from_utf8(lines("a", 8)[lines("a", 1).len()..].to_vec()).unwrap(),
            "the deleted file's unread end, and nothing of the file still on disk"
        );
        // Its writer still holds it (the runtime's late lines), and the shutdown comes with no
        // pass to serve the events queued before it: its last read reads it to its end.
        writer.write_all(&lines("late", 3)).unwrap();
        sink.regions.clear();
        follower.read_deleted(&mut sink);
        assert_eq!(sink.bytes(), lines("late", 3).len());
        let saved = follower.save();
        let offsets: Vec<u64> = saved.files.iter().map(|(_, f)| f.offset).collect();
        let gone_end = lines("a", 8).len() + lines("late", 3).len();
        assert_eq!(offsets, [gone_end as u64, lines("b", 1).len() as u64]);
    }
}
