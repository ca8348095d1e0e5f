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
//! Gone, it may have been written after it was parked, or parked before it was read at all
//! (opened past the budget): what it had not read is then only in the `.gz` its rotation made
//! of it, found by its first bytes and the bytes before its offset, and read from there
//! ([`super::finish`]). That `.gz` is known by the file's first bytes, so no one else reads it.
//! Found in neither form, what it had not read is lost, counted as a vanished file.
//!
//! So a parked file is known, like a state entry at a restart, by its inode number *and* its
//! first bytes: the scan meeting its number under another name takes it for renamed only if
//! that file starts as it did, else it is gone and the file is new, even one renamed and then
//! rewritten (read from its start either way). At its own path with other first bytes, it is
//! gone too if its `.gz` is there, and the file at its path is new; else changed first bytes
//! are judged as an open file's are: truncated or rewritten.
//!
//! **Not here:** when a file is visited (the [`Follower`]'s pass), reading it ([`super::drain`]).
//!
//! Cold: one `stat` per visit of a parked file, an `open` per change; a directory listing per
//! parked file found rotated or gone (and a ≤1 KiB decompression per gzip file there); an
//! `open` and a ≤1 KiB read per parked file found renamed or changed; the `.gz` of a parked
//! file found gone, decompressed from its start.

use std::fs::{self, File};
use std::io::ErrorKind;
use std::path::{Path, PathBuf};

use tracing::{debug, warn};

use super::paths::{Located, Lookup};
use super::{Follower, Sink};
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
    /// when it was opened, then its directory), opened there and drained as a rotated file; found
    /// only compressed, it is finished from its `.gz` and given up. At its path with other first
    /// bytes and its `.gz` there, it is finished from that, given up, and the file at its path
    /// followed as new; with no `.gz`, it is judged truncated and read from its start.
    pub(super) fn visit_parked(
        &mut self,
        i: usize,
        lookup: &mut Lookup,
        sink: &mut impl Sink,
    ) -> Parked {
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
                    let path = f.path.clone();
                    if !self.starts_as_parked(i, &path) {
                        if let Located::Compressed(gz, file) = self.whereabouts(i, lookup) {
                            // Deleted, and its number given to the file now at its path.
                            self.finish_parked(i, &gz, file, sink);
                            self.give_up(i);
                            self.open(&path, sink);
                            return Parked::Gone;
                        }
                    }
                    return self.reopen(i, path);
                }
            }
        }
        let path = match self.whereabouts(i, lookup) {
            Located::Plain(path, _) => path,
            Located::Compressed(gz, file) => {
                self.finish_parked(i, &gz, file, sink);
                self.give_up(i);
                return Parked::Gone;
            }
            Located::Gone if !self.files[i].rotated => {
                return Parked::Unchanged; // the scan says it rotated; then it is let go
            }
            Located::Gone => {
                self.give_up(i);
                return Parked::Gone;
            }
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

    /// Whether the file the scan found at `path`, on the inode number of the `i`th file, is that
    /// file. An open file's descriptor holds its number; a parked file's number was freed if it
    /// was deleted, and a new file may have it: found under another name, it is the parked file
    /// (renamed) only if its first bytes are there. At its own path it is, and is judged when
    /// opened again ([module docs](self)). A file that cannot be looked at is taken for it, as
    /// its number says.
    pub(super) fn is_file_at(&mut self, i: usize, path: &Path) -> bool {
        let f = &self.files[i];
        f.file.is_some() || f.path == path || self.starts_as_parked(i, path)
    }

    /// Whether the file at `path` starts as the parked `i`th file did, or is not on its number
    /// (swapped since it was looked at), or cannot be looked at.
    fn starts_as_parked(&mut self, i: usize, path: &Path) -> bool {
        let Ok(file) = self.open_path(path) else {
            return true;
        };
        let f = &self.files[i];
        let on_its_number = file.metadata().is_ok_and(|m| Inode::of(&m) == f.inode);
        !on_its_number || f.signature.matches(&file).unwrap_or(true)
    }

    /// Where the parked `i`th file is now
    /// ([`Followed::whereabouts`](super::Followed::whereabouts)). Found nowhere in listings
    /// `lookup` may have taken before the file was gone, it is looked for in new ones: a
    /// rotation makes the `.gz` before it deletes the file, and a directory's modification time
    /// may not move between two changes close together.
    fn whereabouts(&self, i: usize, lookup: &mut Lookup) -> Located {
        match self.files[i].whereabouts(lookup) {
            Located::Gone => self.files[i].whereabouts(&mut Lookup::default()),
            found => found,
        }
    }

    /// The parked `i`th file is not where its inode number is now: it is gone, finished first
    /// from its `.gz` if one was made of it, then given up.
    pub(super) fn finish_gone(&mut self, i: usize, lookup: &mut Lookup, sink: &mut impl Sink) {
        if let Located::Compressed(gz, file) = self.whereabouts(i, lookup) {
            self.finish_parked(i, &gz, file, sink);
        }
        self.give_up(i);
    }

    /// The parked `i`th file is gone: it is let go once its grace period is over, and gives up
    /// its inode number at once. No descriptor of ours held it: a file created since may have it
    /// (the kubelet's next `0.log`), and is followed as the new file it is.
    pub(super) fn give_up(&mut self, i: usize) {
        let f = &mut self.files[i];
        if f.vanished {
            return; // its number may be a new file's by now
        }
        if f.read_pos < f.size {
            self.stats.file_errors_vanished += 1;
            warn!(path = %f.path.display(), offset = f.read_pos, size = f.size,
                  "parked file rotated away and gone before its end was read");
        }
        if !f.rotated {
            f.rotated = true;
            self.stats.rotations += 1;
            debug!(path = %f.path.display(), "parked file deleted; a new file has its number");
        }
        f.vanished = true;
        self.followed.remove(&f.inode);
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
    use std::path::{Path, PathBuf};
    use std::time::Duration;

    use tempfile::TempDir;

    use crate::input::compressed::gzip;
    use crate::input::follow::following_for_test as following;
    use crate::input::follow::{FollowConfig, Follower, Recorder};
    use crate::input::identity::Inode;

    /// A follower of `0.log*` in a new directory of `files` (name, content), each read, and the
    /// one named `parked` parked, as past the descriptor budget: the directory, the follower,
    /// what it read, and where the parked file is in its list.
    fn with_parked(files: &[(&str, &str)], parked: &str) -> (TempDir, Follower, Recorder, usize) {
        let dir = tempfile::tempdir().unwrap();
        for (name, content) in files {
            fs::write(dir.path().join(name), content).unwrap();
        }
        let (mut follower, sink) = following(&dir.path().join("0.log*"));
        let path = dir.path().join(parked);
        let i = follower.files.iter().position(|f| f.path == path).unwrap();
        follower.park(i);
        (dir, follower, sink, i)
    }

    /// Gives the `i`th file the inode number of the file at `path`, as ext4 gives a freed number
    /// to the next file created (a test cannot force it).
    fn hand_inode_of(path: &Path, follower: &mut Follower, i: usize) {
        let (old, new) = (
            follower.files[i].inode,
            Inode::of(&fs::metadata(path).unwrap()),
        );
        follower.files[i].inode = new;
        if follower.followed.remove(&old) {
            follower.followed.insert(new);
        }
    }

    /// `late` written to the roll at `path`, then the kubelet's next rotation: its `.gz` made,
    /// the roll deleted.
    fn write_and_compress(path: &Path, late: &[u8]) {
        let mut file = fs::OpenOptions::new().append(true).open(path).unwrap();
        std::io::Write::write_all(&mut file, late).unwrap();
        let mut gz = path.as_os_str().to_os_string();
        gz.push(".gz");
        gzip(Path::new(&gz), &fs::read(path).unwrap());
        fs::remove_file(path).unwrap();
    }

    /// A follower with a parked roll deleted (no `.gz`) before any pass found it gone, and the
    /// pod's next roll on its number: the directory, the follower, what it read, where the
    /// parked roll is in its list, and the next roll's path.
    fn number_reused() -> (TempDir, Follower, Recorder, usize, PathBuf) {
        let roll = "0.log.20260612-100001";
        let files = [(roll, "roll line\n"), ("0.log", "log line\n")];
        let (dir, mut follower, sink, gone) = with_parked(&files, roll);
        fs::remove_file(dir.path().join(roll)).unwrap();
        let next = dir.path().join("0.log.20260612-100002");
        fs::write(&next, "next line\n").unwrap();
        hand_inode_of(&next, &mut follower, gone);
        (dir, follower, sink, gone, next)
    }

    /// Two scans and passes.
    fn two_passes(follower: &mut Follower, sink: &mut Recorder) {
        for _ in 0..2 {
            follower.scan(sink);
            follower.read_all(sink);
        }
    }

    /// A parked roll deleted by the kubelet's rotation is found gone and waits out its grace
    /// period; the inode number it had is free, and the pod's next file gets it (ext4 hands a
    /// freed number out again at once; here the follower is told so, as it cannot be forced).
    /// That file is new, read from its start, not taken for the roll gone (the live freeze
    /// test's pod that stopped being read: its next `0.log` "found" as the vanished roll, never
    /// read, and let go after the grace period).
    #[test]
    fn a_new_file_on_the_inode_of_a_vanished_parked_file_is_read() {
        let roll = "0.log.20260612-100001";
        let files = [(roll, "roll line\n"), ("0.log", "log line\n")];
        let (dir, mut follower, mut sink, gone) = with_parked(&files, roll);
        // Rotated: its `.gz` made and the plain roll deleted; a pass finds it nowhere.
        fs::remove_file(dir.path().join(roll)).unwrap();
        follower.scan(&mut sink);
        follower.read_all(&mut sink);
        assert!(follower.files[gone].vanished);
        // The next roll is created on the inode number the deleted roll had.
        let next = dir.path().join("0.log.20260612-100002");
        fs::write(&next, "next line\n").unwrap();
        hand_inode_of(&next, &mut follower, gone);
        let read = sink.bytes();
        follower.scan(&mut sink);
        follower.read_all(&mut sink);
        assert_eq!(
            sink.bytes() - read,
            "next line\n".len(),
            "the new file is read"
        );
    }

    /// The same, but the new file gets the number before any pass found the parked roll gone:
    /// the scan meets the roll's number under the new file's name, and the new file does not
    /// start as the roll did. It is a new file, read from its start once under its own id; the
    /// roll is not taken for renamed there and then truncated (the freeze test run with
    /// descriptors starved: hundreds of "file truncated" for `0.log`, and a pod's rolls lost).
    #[test]
    fn a_new_file_on_the_inode_of_a_parked_file_not_yet_found_gone_is_read_as_new() {
        let roll = "0.log.20260612-100001";
        let files = [(roll, "roll line\n"), ("0.log", "log line\n")];
        let (dir, mut follower, mut sink, gone) = with_parked(&files, roll);
        let roll_id = follower.files[gone].id;
        fs::remove_file(dir.path().join(roll)).unwrap();
        // No pass in between: the roll is parked, and nothing knows it is gone.
        let next = dir.path().join("0.log.20260612-100002");
        fs::write(&next, "next line\nand another\n").unwrap();
        hand_inode_of(&next, &mut follower, gone);
        let read = sink.regions.len();
        follower.scan(&mut sink);
        follower.read_all(&mut sink);
        let lines: Vec<u8> = sink.regions[read..]
            .iter()
            .flat_map(|(_, r)| r.clone())
            .collect();
        assert_eq!(
            String::from_utf8_lossy(&lines),
            "next line\nand another\n",
            "the new file's lines, each once"
        );
        assert_eq!(follower.stats.truncations, 0, "nothing was truncated");
        assert!(
            sink.regions[read..].iter().all(|(id, _)| *id != roll_id),
            "read as a file of its own, not as the roll"
        );
        assert!(
            follower.files.iter().any(|f| f.id == roll_id && f.vanished),
            "the roll is gone, kept only for its grace period"
        );
    }

    /// A parked roll written to, then compressed and deleted by the kubelet's next rotation
    /// before a pass opened it again (descriptors starved, every file past the budget parked):
    /// what it had not read is read once, from its `.gz`, and nothing is counted lost. Its
    /// `.gz` is known by the roll's first bytes, and is read by no one else.
    #[test]
    fn a_parked_file_compressed_and_deleted_is_finished_from_its_gz() {
        let roll = "0.log.20260612-100001";
        let files = [(roll, "roll line\n"), ("0.log", "log line\n")];
        let (dir, mut follower, mut sink, i) = with_parked(&files, roll);
        let id = follower.files[i].id;
        write_and_compress(&dir.path().join(roll), b"late line\nanother\n");
        let read = sink.regions.len();
        two_passes(&mut follower, &mut sink);
        assert_eq!(
            sink.regions[read..],
            [(id, b"late line\nanother\n".to_vec())],
            "the lines it had not read, once, as its own"
        );
        assert_eq!(follower.stats.file_errors_vanished, 0, "nothing lost");
        assert!(follower.files[i].vanished);
    }

    /// The same with the freed inode number given to the pod's next `0.log` before any pass
    /// found the parked `0.log` gone (renamed, written, compressed and deleted meanwhile): the
    /// new file is at the parked file's own path with other first bytes. What the old file had
    /// not read is read from its `.gz`, then the new file from its start, each line once.
    #[test]
    fn a_parked_file_whose_number_is_reused_at_its_path_is_finished_from_its_gz() {
        let (dir, mut follower, mut sink, i) = with_parked(&[("0.log", "first line\n")], "0.log");
        let (log, roll) = (
            dir.path().join("0.log"),
            dir.path().join("0.log.20260612-100001"),
        );
        fs::rename(&log, &roll).unwrap();
        write_and_compress(&roll, b"late line\n");
        fs::write(&log, "new line\n").unwrap();
        hand_inode_of(&log, &mut follower, i);
        let read = sink.regions.len();
        two_passes(&mut follower, &mut sink);
        let lines: Vec<u8> = sink.regions[read..]
            .iter()
            .flat_map(|(_, r)| r.clone())
            .collect();
        assert_eq!(String::from_utf8_lossy(&lines), "late line\nnew line\n");
    }

    /// The file on a parked roll's freed number listed twice by one scan (two names of one
    /// file, as a rename between the `stat`s of two paths shows it): the roll is given up once,
    /// and the file followed once, its lines read once.
    #[test]
    fn a_new_file_on_a_parked_files_number_listed_twice_is_followed_once() {
        let (dir, mut follower, mut sink, _, next) = number_reused();
        fs::hard_link(&next, dir.path().join("0.log.20260612-100003")).unwrap();
        let read = sink.bytes();
        two_passes(&mut follower, &mut sink);
        assert_eq!(sink.bytes() - read, "next line\n".len(), "read once");
    }

    /// A roll given up while parked waits out its grace period, and is saved with the inode
    /// number the pod's next file has now: a restart resumes that file from its own entry, not
    /// from the roll's (read again from its start, every line twice).
    #[test]
    fn a_restart_resumes_a_new_file_from_its_entry_not_the_given_up_files() {
        let (dir, mut follower, mut sink, gone, _) = number_reused();
        follower.scan(&mut sink);
        follower.read_all(&mut sink);
        assert!(follower.files[gone].vanished);
        let saved = follower.save();
        let entries = saved.files.into_iter().map(|(_, f)| f).collect();
        let config = FollowConfig::for_test(&dir.path().join("0.log*"), Duration::ZERO);
        let mut restarted = Follower::new(config, entries, saved.orphans, false);
        restarted.remember(Some(saved.since), saved.heads);
        let mut again = Recorder::default();
        restarted.scan(&mut again);
        restarted.read_all(&mut again);
        assert_eq!(again.bytes(), 0, "nothing read twice");
    }

    /// The twin: a parked file renamed (the kubelet's `0.log` to `0.log.<time>`) is found on its
    /// number under its new name, starting as it did: the same file, resumed at its offset, and
    /// only the lines written since are read.
    #[test]
    fn a_parked_file_renamed_is_resumed_where_it_was() {
        let (dir, mut follower, mut sink, i) = with_parked(&[("0.log", "first line\n")], "0.log");
        let id = follower.files[i].id;
        let roll = dir.path().join("0.log.20260612-100001");
        fs::rename(dir.path().join("0.log"), &roll).unwrap();
        let mut late = fs::OpenOptions::new().append(true).open(&roll).unwrap();
        std::io::Write::write_all(&mut late, b"late line\n").unwrap();
        let read = sink.regions.len();
        follower.scan(&mut sink);
        follower.read_all(&mut sink);
        assert_eq!(sink.regions[read..], [(id, b"late line\n".to_vec())]);
        assert_eq!(follower.files[i].path, roll, "found renamed");
        assert!(!follower.files[i].vanished);
        assert_eq!(follower.stats.truncations, 0);
    }
}
