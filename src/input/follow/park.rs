//! Parking: a followed file read to its end is closed when the descriptors run short, and opened
//! again when it changes (filebeat's `close_inactive`), so that any number of files is read within
//! the open files limit.
//!
//! A parked file stays a [`Followed`](super::Followed) in its place: its identity (device, inode, signature), its
//! offset, its unfinished last line and where it stands in its roll sequence are all kept, only
//! its descriptor is given back. The least recently active open file read to its end is parked
//! first, so the files being written keep theirs. A parked file is looked at by path: a `stat`
//! that shows its inode with a new size or modification time (or bytes it still has to read)
//! opens it again, checked as any reopened file is (its prefix included,
//! [`Followed::check_truncation`](super::Followed::check_truncation)), and it is read from its
//! offset. Found rotated (the scan no longer sees its inode under the
//! globs), it is looked up by identity in its directory ([`super::paths::locate`]) and drained
//! from there; gone, it is let go like any drained rotated file, and gives up its identity at
//! once: no descriptor holds its inode, whose number a new file may get (the kubelet's next
//! `0.log`), and the scan must follow that file as new, not take it for the one gone.
//!
//! **Not here:** when a file is visited (the [`Follower`]'s pass), reading it ([`super::drain`]).
//!
//! Cold: one `stat` per visit of a parked file, an `open` per change; a directory listing per
//! parked file found rotated.

use std::fs::{self, File};
use std::io::ErrorKind;
use std::path::PathBuf;

use tracing::{debug, warn};

use super::paths::Lookup;
use super::Follower;
use crate::input::identity::Inode;

/// What a visit found of a parked file.
#[derive(Debug, PartialEq, Eq)]
pub(super) enum Parked {
    /// Nothing to read: it stays parked.
    Unchanged,
    /// Opened again at its offset: read it.
    Reopened,
    /// Rotated and no longer anywhere in its directory: let it go once its grace period is over.
    Gone,
}

/// `errno` EMFILE: the process is at its open files limit.
const EMFILE: i32 = 24;

impl Follower {
    /// Parks open files until no more than the budget are open, least recently active first,
    /// among those read to their end that are still under their name (a rotated file keeps its
    /// descriptor until it is let go: its path no longer leads to it). `keep` is never parked.
    /// Returns false if no file could be parked while the budget was exceeded.
    pub(super) fn fit_budget(&mut self, keep: Option<usize>, budget: usize) -> bool {
        while self.open_count > budget {
            let victim = self
                .files
                .iter()
                .enumerate()
                .filter(|&(i, f)| Some(i) != keep && f.parkable())
                .min_by_key(|(_, f)| f.active)
                .map(|(i, _)| i);
            let Some(i) = victim else {
                return false;
            };
            self.park(i);
        }
        true
    }

    /// Closes the `i`th file's descriptor, recording its size and modification time.
    pub(super) fn park(&mut self, i: usize) {
        if !self.files[i].park() {
            return;
        }
        self.open_count -= 1;
        self.stats.parked += 1;
        self.note(i); // its size was taken again
    }

    /// Looks at the parked `i`th file: opens it again when it changed or still has bytes to read.
    /// When its path no longer leads to it, it is looked for by identity (where the path led
    /// when it was opened, then its directory), opened there and drained as a rotated file.
    pub(super) fn visit_parked(&mut self, i: usize, lookup: &mut Lookup) -> Parked {
        let f = &self.files[i];
        if f.vanished {
            return Parked::Gone;
        }
        if !f.rotated {
            if let Ok(meta) = fs::metadata(&f.path) {
                if Inode::of(&meta) == f.inode {
                    if f.parked_unchanged(&meta) {
                        return Parked::Unchanged;
                    }
                    return self.reopen(i, f.path.clone());
                }
            }
        }
        let Some(path) = f.whereabouts(lookup) else {
            if !f.rotated {
                return Parked::Unchanged; // the scan says it rotated; then it is let go
            }
            if f.read_pos < f.size {
                self.stats.file_errors_vanished += 1;
                warn!(path = %f.path.display(), offset = f.read_pos, size = f.size,
                      "parked file rotated away and gone before its end was read");
            }
            // Its inode number is free again, with no descriptor of ours to hold it: a file
            // created now may get it, and must be followed as the new file it is.
            let inode = f.inode;
            self.files[i].vanished = true;
            self.followed.remove(&inode);
            return Parked::Gone;
        };
        let reopened = self.reopen(i, path);
        let f = &mut self.files[i];
        if reopened == Parked::Reopened && !f.rotated {
            f.rotated = true; // kept open, drained and let go as any rotated file
            self.stats.rotations += 1;
            debug!(path = %f.path.display(), "parked file rotated away; draining it");
        }
        reopened
    }

    /// Opens the parked `i`th file again from `path`, at its offset, if `path` still leads to its
    /// inode; makes room within the budget first.
    fn reopen(&mut self, i: usize, path: PathBuf) -> Parked {
        if self.open_count >= self.fd_budget {
            self.fit_budget(Some(i), self.fd_budget.saturating_sub(1));
        }
        let file = match self.open_path(&path) {
            Ok(file) => file,
            Err(error) => {
                if error.kind() != ErrorKind::NotFound {
                    self.stats.file_errors_read += 1;
                    warn!(path = %path.display(), %error, "cannot open a parked log file again; will retry");
                    self.mark_due(i); // the next pass tries again
                }
                return Parked::Unchanged;
            }
        };
        let tick = self.tick();
        if !self.files[i].unpark(file, &path, tick) {
            return Parked::Unchanged; // swapped between the stat and the open
        }
        self.open_count += 1;
        Parked::Reopened
    }

    /// Opens `path`; at the process's open files limit, parks one more file and tries again.
    pub(super) fn open_path(&mut self, path: &std::path::Path) -> std::io::Result<File> {
        match File::open(path) {
            Err(error) if error.raw_os_error() == Some(EMFILE) => {
                let fewer = self.open_count.saturating_sub(1);
                if self.fit_budget(None, fewer) {
                    File::open(path)
                } else {
                    Err(error)
                }
            }
            other => other,
        }
    }

    /// A new tick of the activity clock.
    pub(super) fn tick(&mut self) -> u64 {
        self.ticks += 1;
        self.ticks
    }
}

#[cfg(test)]
mod tests {
    use std::fs;

    use crate::input::follow::following_for_test as following;
    use crate::input::identity::Inode;

    /// A parked roll deleted by the kubelet's rotation is found gone and waits out its grace
    /// period; the inode number it had is free, and the pod's next file gets it (ext4 hands a
    /// freed number out again at once; here the follower is told so, as it cannot be forced).
    /// That file is new, read from its start, not taken for the roll gone (the live freeze
    /// test's pod that stopped being read: its next `0.log` "found" as the vanished roll, never
    /// read, and let go after the grace period).
    #[test]
    fn a_new_file_on_the_inode_of_a_vanished_parked_file_is_read() {
        let dir = tempfile::tempdir().unwrap();
        let roll = dir.path().join("0.log.20260612-100001");
        let log = dir.path().join("0.log");
        fs::write(&roll, "roll line\n").unwrap();
        fs::write(&log, "log line\n").unwrap();
        let (mut follower, mut sink) = following(&dir.path().join("0.log*"));
        // Read to its end and parked, as past the descriptor budget.
        let gone = follower.files.iter().position(|f| f.path == roll).unwrap();
        follower.park(gone);
        // Rotated: its `.gz` made and the plain roll deleted; a pass finds it nowhere.
        fs::remove_file(&roll).unwrap();
        follower.scan(&mut sink);
        follower.read_all(&mut sink);
        assert!(follower.files[gone].vanished);
        // The next roll is created on the inode number the deleted roll had.
        let next = dir.path().join("0.log.20260612-100002");
        fs::write(&next, "next line\n").unwrap();
        let (old, new) = (
            follower.files[gone].inode,
            Inode::of(&fs::metadata(&next).unwrap()),
        );
        follower.files[gone].inode = new;
        if follower.followed.remove(&old) {
            follower.followed.insert(new);
        }
        let read = sink.bytes();
        follower.scan(&mut sink);
        follower.read_all(&mut sink);
        assert_eq!(
            sink.bytes() - read,
            "next line\n".len(),
            "the new file is read"
        );
    }
}
