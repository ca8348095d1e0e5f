//! Rolls no state recorded: a roll of a followed log that was created, filled and rotated away
//! (and maybe compressed) while the follower could not see it (the process stopped, starved or
//! down, or its state unwritable and then a crash), found beside the log and read from its start.
//!
//! Owns [`Unrecorded`]: the wall time of the first start (`since`), the heads of the files whose
//! lines were already handed up and that may still be on disk ([`Head`]: identity and first
//! bytes, by directory), and which files of each directory were already judged. At the end of
//! every scan, each directory of a followed file that changed since it was last looked at is
//! listed; a regular file there whose name continues a followed log's name (`app.log.2.gz`,
//! `0.log.20261129-101500`), not followed (a compressed one even where a glob matches it), is read
//! from its start when all of these hold:
//!
//! * it was modified after the first start (a roll from before it is never read: `--read-from`
//!   and the old behaviour for old rolls hold);
//! * its identity is unknown: no followed file, state entry or remembered head has its inode
//!   (plain) or its first bytes (compressed: the decompressed head);
//! * it is not empty, and compressed, it decompresses whole (looked at again later otherwise).
//!
//! A compressed roll is read at once, after the older files of its directory (followed before
//! the scan that found it, or resumed from the state) are read to their end; a plain one is
//! followed as a rotated file, read after those and before the files the globs match now (it
//! was rotated away from them). So a roll is read in its place among its log's files: found by
//! the scan that opens the file after it (a directory whose names change while it is listed is
//! listed again at once), and a roll listed both plain and compressed is read once, plain.
//!
//! Why this is exact: the state holds offsets and the counters they produced together, so a
//! file no state (nor this process) recorded contributed nothing to the counters: all its lines
//! are owed. And a file whose lines were counted is known: followed, in the state, or remembered
//! here with its compressed copy (a head stays remembered while a file with its inode is in its
//! directory, so the `.gz` made of a roll keeps it known across restarts for as long as it is
//! kept). Read this way, a roll is counted in `denials_exporter_rolls_recovered_total`.
//!
//! **Not here:** the state entries' own files ([`super::open`], [`super::finish`]), what lines
//! mean.
//!
//! Cold: per scan, one `stat` per directory of followed files; a listing (one `stat` per file)
//! only of those that changed; a ≤1 KiB decompression per new compressed roll, a full one per
//! roll read.

use std::collections::{BTreeMap, BTreeSet};
use std::ffi::OsString;
use std::fs::{self, File};
use std::os::unix::fs::DirEntryExt;
use std::path::{Path, PathBuf};
use std::time::{Duration, SystemTime};

use serde::{Deserialize, Serialize};
use tracing::{info, warn};

use super::paths::{changed, Changed};
use super::{FileState, Follower, Sink};
use crate::input::compressed::{decompressed_head, is_gzip, is_whole};
use crate::input::identity::{self, Inode, PrefixHashes, Signature, SIGNATURE_BYTES};

/// A file whose lines were handed up (or that is known not to be owed any): its identity and
/// its first bytes.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct Head {
    pub inode: Inode,
    pub signature: Signature,
}

/// The heads remembered in one directory, as the state file holds them.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct KnownHeads {
    pub dir: String,
    pub heads: Vec<Head>,
}

/// A directory's mtime this recent may still change within the same clock tick: it is listed
/// again at the next scan.
const SETTLED_AFTER: Duration = Duration::from_secs(1);

/// How many times a directory whose names changed while it was judged is listed again at once;
/// past them it is listed again at the next scan.
const RELISTS: usize = 3;

/// What the follower knows of the rolls beside its files ([module docs](self)).
#[derive(Debug)]
pub(super) struct Unrecorded {
    /// Seconds since the epoch of the first start: rolls modified before it are never read.
    pub(super) since: f64,
    heads: BTreeMap<PathBuf, Vec<Head>>,
    /// The files of each directory already judged, with their status change time (a rename or
    /// a new file on a reused inode is judged again).
    judged: BTreeMap<PathBuf, BTreeMap<Inode, Changed>>,
    /// Each directory's mtime when it was last listed and nothing in it was left undecided.
    listed: BTreeMap<PathBuf, SystemTime>,
    /// Run once, after the next listing of a directory and before its files are judged: what a
    /// rotator does meanwhile (a unit test's).
    #[cfg(test)]
    pub(super) beside_listing: Option<fn(&Path)>,
}

impl Default for Unrecorded {
    fn default() -> Self {
        Unrecorded {
            since: file_clock_now(),
            heads: BTreeMap::new(),
            judged: BTreeMap::new(),
            listed: BTreeMap::new(),
            #[cfg(test)]
            beside_listing: None,
        }
    }
}

/// How far a file's mtime may be behind the clock when it is written: Linux stamps files from
/// a coarse clock, a tick (up to 10 ms) behind the precise one. The first start is taken this
/// much earlier, so that a roll written just after it is never taken for one from before it (a
/// roll last written within this before it is read, if no state recorded it).
const FILE_CLOCK_LAG: Duration = Duration::from_millis(10);

/// Now, as the earliest mtime a file written from now on can have (seconds since the epoch).
fn file_clock_now() -> f64 {
    wall_secs(SystemTime::now() - FILE_CLOCK_LAG)
}

fn wall_secs(at: SystemTime) -> f64 {
    at.duration_since(SystemTime::UNIX_EPOCH)
        .map_or(0.0, |d| d.as_secs_f64())
}

/// The real directory of `path` (where its rolls are, as followed files name it).
fn real_dir(path: &Path) -> PathBuf {
    let dir = path
        .parent()
        .filter(|d| !d.as_os_str().is_empty())
        .unwrap_or(Path::new("."));
    fs::canonicalize(dir).unwrap_or_else(|_| dir.to_path_buf())
}

impl Unrecorded {
    /// Remembers that the file `inode` at `path` with first bytes `signature` was handed up.
    pub(super) fn remember(&mut self, path: &Path, inode: Inode, signature: Signature) {
        if signature.len == 0 {
            return; // no first bytes: a copy of it cannot be told from another empty file
        }
        let heads = self.heads.entry(real_dir(path)).or_default();
        let head = Head { inode, signature };
        if !heads.contains(&head) {
            heads.push(head);
        }
    }

    /// The heads to save, by directory.
    pub(super) fn saved(&self) -> Vec<KnownHeads> {
        self.heads
            .iter()
            .filter(|(_, heads)| !heads.is_empty())
            .map(|(dir, heads)| KnownHeads {
                dir: dir.to_string_lossy().into_owned(),
                heads: heads.clone(),
            })
            .collect()
    }

    /// Takes what a state saved: the first start, and the heads.
    pub(super) fn restore(&mut self, since: f64, saved: Vec<KnownHeads>) {
        self.since = since;
        for KnownHeads { dir, heads } in saved {
            self.heads
                .entry(PathBuf::from(dir))
                .or_default()
                .extend(heads);
        }
    }
}

/// Whether the file name `name` is a roll of the log named `log`: the log's name continued by a
/// roll number or time (`app.log.2.gz`, `0.log.20261129-101500`), never a temp file.
fn is_roll_of(name: &str, log: &str) -> bool {
    name.strip_prefix(log).is_some_and(|rest| {
        rest.starts_with(['.', '-', '_'])
            && rest.bytes().any(|b| b.is_ascii_digit())
            && !rest.ends_with(".tmp")
    })
}

/// Whether one of two files' first bytes begins the other's: a file and its copy, one of them
/// read while it was shorter.
fn same_start(a: &[u8], b: &[u8]) -> bool {
    a.starts_with(b) || b.starts_with(a)
}

/// The files in `dir` by name and inode number, as one `readdir` shows them (no `stat`): what
/// tells whether the directory changed while it was judged. `None` if it cannot be listed.
fn entries(dir: &Path) -> Option<Vec<(OsString, u64)>> {
    let mut entries: Vec<(OsString, u64)> = fs::read_dir(dir)
        .ok()?
        .flatten()
        .map(|e| (e.file_name(), e.ino()))
        .collect();
    entries.sort_unstable();
    Some(entries)
}

/// The first bytes of `file` (at most [`SIGNATURE_BYTES`]; none if it cannot be read).
fn first_bytes(file: &File) -> Vec<u8> {
    identity::first_bytes(file, SIGNATURE_BYTES as u64).unwrap_or_default()
}

/// The signature of `file`'s first bytes ([`Signature::of`]; an unreadable file signs as empty,
/// which is known by nothing).
fn head_of(file: &File) -> Signature {
    Signature::of(file).unwrap_or_else(|_| Signature::of_head(&[]))
}

/// A file of a directory found unrecorded, to be read.
struct Owed {
    path: PathBuf,
    /// The log it is a roll of (what continues it).
    log: PathBuf,
    file: File,
    inode: Inode,
    mtime: SystemTime,
    /// The decompressed head, for a compressed roll.
    gz_head: Option<Vec<u8>>,
}

impl Follower {
    /// Reads the rolls no state recorded beside the followed files ([module docs](self)). The
    /// first `older` files (followed before this scan, or resumed from the state) are older than
    /// any roll found now: a roll read at once comes after what they hold unread.
    pub(super) fn read_unrecorded(&mut self, sink: &mut impl Sink, older: usize) {
        // Each directory with the names of the logs followed there.
        let mut logs: BTreeMap<PathBuf, BTreeSet<String>> = BTreeMap::new();
        for f in &self.files {
            // Followed files are named by their real paths: the parent is a real directory.
            let (Some(dir), Some(name)) = (
                f.sequence_path.parent(),
                f.sequence_path.file_name().and_then(|n| n.to_str()),
            ) else {
                continue;
            };
            logs.entry(dir.to_path_buf())
                .or_default()
                .insert(name.to_string());
        }
        // Directories with heads and no followed file are listed too, to forget the heads of
        // files deleted there; those gone are forgotten.
        self.unrecorded
            .heads
            .retain(|dir, heads| !heads.is_empty() && (logs.contains_key(dir) || dir.is_dir()));
        for dir in self.unrecorded.heads.keys() {
            logs.entry(dir.clone()).or_default();
        }
        let now = SystemTime::now();
        let mut owed = Vec::new();
        for (dir, names) in logs {
            let Ok(mtime) = fs::metadata(&dir).and_then(|m| m.modified()) else {
                continue;
            };
            if self.unrecorded.listed.get(&dir) == Some(&mtime) {
                continue;
            }
            let settled = self.judge_dir(&dir, &names, &mut owed);
            let recent = now.duration_since(mtime).unwrap_or_default() < SETTLED_AFTER;
            if settled && !recent {
                self.unrecorded.listed.insert(dir, mtime);
            } else {
                self.unrecorded.listed.remove(&dir);
            }
        }
        // Oldest first: a log's compressed rolls before its plain ones.
        owed.sort_by(|a, b| (a.mtime, &a.path).cmp(&(b.mtime, &b.path)));
        // A compressed roll is read at once, a plain one in its place in the read order (after
        // the older files): the older files of a compressed roll's directory are read to their
        // end first. What a frozen exporter had not read of the file it followed was written
        // before the rolls that came after it (an execution's denials there, its record in
        // the roll).
        let compressed_dirs: BTreeSet<&Path> = owed
            .iter()
            .filter(|roll| roll.gz_head.is_some())
            .filter_map(|roll| roll.log.parent())
            .collect();
        for i in 0..older {
            let dir = self.files[i].sequence_path.parent();
            if dir.is_some_and(|dir| compressed_dirs.contains(dir)) {
                self.read_ahead(i, sink);
            }
        }
        for roll in owed {
            self.read_owed(roll, sink);
        }
    }

    /// Lists `dir`, judges each file there that continues one of `names` and was not judged
    /// since it last changed, and forgets the heads of files no longer there. Files owed are
    /// added to `owed`, each once; returns false if one was left undecided (a `.gz` not yet
    /// whole, or the copy of a plain roll owed too).
    ///
    /// A directory whose names changed while it was judged (a rotation beside the listing
    /// shifts every roll up one name: `app.log.1` is compressed and gone, its `.gz` now
    /// `app.log.2.gz`) is listed again at once, so that no roll is missed by this scan and
    /// found by a later one, after the newer files it opened were read.
    fn judge_dir(&mut self, dir: &Path, names: &BTreeSet<String>, owed: &mut Vec<Owed>) -> bool {
        let Some(mut listing) = entries(dir) else {
            return true;
        };
        let first = owed.len();
        for _ in 0..=RELISTS {
            #[cfg(test)]
            if let Some(beside) = self.unrecorded.beside_listing.take() {
                beside(dir);
            }
            let settled = self.judge_entries(dir, &listing, names, owed);
            let Some(now) = entries(dir) else {
                return true;
            };
            if now == listing {
                self.forget_gone(dir, &listing);
                return self.keep_once(dir, owed, first) && settled;
            }
            listing = now;
        }
        self.keep_once(dir, owed, first);
        false // still changing: listed again at the next scan
    }

    /// Judges the files of `listing`, `dir`'s ([`Follower::judge_dir`]).
    fn judge_entries(
        &mut self,
        dir: &Path,
        listing: &[(OsString, u64)],
        names: &BTreeSet<String>,
        owed: &mut Vec<Owed>,
    ) -> bool {
        let since = self.unrecorded.since;
        let old_judged = self.unrecorded.judged.remove(dir).unwrap_or_default();
        let mut judged = BTreeMap::new();
        let mut settled = true;
        for (name, _) in listing {
            let path = dir.join(name);
            let Ok(meta) = fs::symlink_metadata(&path) else {
                continue;
            };
            if !meta.is_file() {
                continue;
            }
            let inode = Inode::of(&meta);
            let Some(name) = name.to_str() else { continue };
            let Some(log) = names.iter().find(|log| is_roll_of(name, log)) else {
                continue;
            };
            if self.followed.contains(&inode) {
                continue;
            }
            let log = dir.join(log);
            let status = changed(&meta);
            if old_judged.get(&inode) == Some(&status) {
                judged.insert(inode, status);
                continue;
            }
            let mtime = meta.modified().unwrap_or(SystemTime::UNIX_EPOCH);
            let Ok(file) = File::open(&path) else {
                continue;
            };
            if wall_secs(mtime) < since {
                // From before the first start: never read, nor a `.gz` made of it later.
                if !is_gzip(&file) {
                    self.unrecorded.remember(&path, inode, head_of(&file));
                }
                judged.insert(inode, status);
                continue;
            }
            if meta.len() == 0 {
                settled = false; // nothing to read or know it by yet: looked at again
                continue;
            }
            let gz_head = is_gzip(&file).then(|| decompressed_head(&file).unwrap_or_default());
            let known = match &gz_head {
                Some(head) => self.knows_head(dir, head),
                // Not followed, whatever a glob matches: a scan may have `stat()`ed the path
                // it is listed at (or its old name) and then opened the file after it.
                None => self.knows_plain(dir, inode, &file),
            };
            if !known
                && gz_head
                    .as_ref()
                    .is_some_and(|h| h.is_empty() || !is_whole(&file))
            {
                settled = false; // a `.gz` still being written: looked at again
                continue;
            }
            judged.insert(inode, status);
            if known {
                // Known by its own identity from now on: the file it was made of (a `.gz`'s
                // plain file, a copy's original) may go first.
                let head = gz_head
                    .as_deref()
                    .map_or_else(|| head_of(&file), Signature::of_head);
                self.unrecorded.remember(&path, inode, head);
                continue;
            }
            owed.push(Owed {
                path,
                log,
                file,
                inode,
                mtime,
                gz_head,
            });
        }
        self.unrecorded.judged.insert(dir.to_path_buf(), judged);
        settled
    }

    /// Forgets the heads of `dir` whose file is not in `listing`, two listings alike: a file
    /// renamed while the directory was listed or judged (logrotate shifting every roll up one
    /// name) is missing from one listing or from the stats of its names, and its head must stay,
    /// or its `.gz` would be read again as a roll never counted.
    fn forget_gone(&mut self, dir: &Path, listing: &[(OsString, u64)]) {
        if let Some(heads) = self.unrecorded.heads.get_mut(dir) {
            heads.retain(|h| listing.iter().any(|(_, ino)| *ino == h.inode.ino));
        }
    }

    /// Keeps once each roll of `dir` owed (`owed[first..]`): a file judged again after a rename
    /// is dropped, and so is the `.gz` of a plain roll owed too (logrotate removes the plain file
    /// once its `.gz` is whole: a listing may see both). The `.gz` is judged again later, known
    /// by then by the plain roll read. Returns false if one was dropped that way.
    fn keep_once(&mut self, dir: &Path, owed: &mut Vec<Owed>, first: usize) -> bool {
        let mut seen = BTreeSet::new();
        let plain_heads: Vec<Vec<u8>> = owed[first..]
            .iter()
            .filter(|roll| roll.gz_head.is_none())
            .map(|roll| first_bytes(&roll.file))
            .collect();
        let mut copies = Vec::new();
        let mut at = 0;
        owed.retain(|roll| {
            at += 1;
            if at <= first {
                return true;
            }
            let copy = roll.gz_head.as_deref().is_some_and(|head| {
                plain_heads
                    .iter()
                    .any(|plain| !plain.is_empty() && same_start(head, plain))
            });
            if copy {
                copies.push(roll.inode);
            }
            !copy && seen.insert(roll.inode)
        });
        if let Some(judged) = self.unrecorded.judged.get_mut(dir) {
            judged.retain(|inode, _| !copies.contains(inode));
        }
        copies.is_empty()
    }

    /// Whether the decompressed `head` of a compressed roll in `dir` is the first bytes of a file
    /// whose lines were handed up: followed, a state entry not yet matched, or remembered.
    fn knows_head(&self, dir: &Path, head: &[u8]) -> bool {
        let prefixes = PrefixHashes::of(head);
        let known = |s: &Signature| s.len > 0 && prefixes.starts_with(s);
        // A followed file signed short (empty, or not read since it grew) is known by the first
        // bytes it holds now: its `.gz` can be made before the follower reads it.
        let holds = |f: &super::Followed| {
            f.signature.is_short()
                && f.file.as_ref().is_some_and(|file| {
                    let now = first_bytes(file);
                    !now.is_empty() && same_start(head, &now)
                })
        };
        self.files
            .iter()
            .any(|f| known(&f.signature) || f.earlier_heads.iter().any(known) || holds(f))
            || self.restored.iter().any(|e| known(&e.signature))
            || self
                .unrecorded
                .heads
                .get(dir)
                .is_some_and(|heads| heads.iter().any(|h| known(&h.signature)))
    }

    /// Whether the plain file `inode` in `dir` is one whose lines were handed up, or a copy of
    /// one (copytruncate's: its first bytes are a known file's).
    fn knows_plain(&self, dir: &Path, inode: Inode, file: &File) -> bool {
        self.knows_head(dir, &first_bytes(file))
            || self.restored.iter().any(|e| e.inode == inode)
            || self.unrecorded.heads.get(dir).is_some_and(|heads| {
                heads
                    .iter()
                    .any(|h| h.inode == inode && h.signature.matches(file).unwrap_or(false))
            })
    }

    /// Reads a roll found unrecorded from its start: compressed, at once; plain, followed as a
    /// rotated file (read to its end, then let go).
    fn read_owed(&mut self, roll: Owed, sink: &mut impl Sink) {
        let Owed {
            path,
            log,
            file,
            inode,
            gz_head,
            ..
        } = roll;
        let Some(head) = gz_head else {
            info!(path = %path.display(), "a roll no state recorded (written while the exporter could not see it); reading it from its start");
            if self.open_unrecorded(&path, &log, file, sink).is_some() {
                self.stats.rolls_recovered += 1;
            }
            return;
        };
        let signature = Signature::of_head(&head);
        let entry = FileState {
            path: path.to_string_lossy().into_owned(),
            inode,
            signature,
            offset: 0,
            fragment: None,
            sequence_path: Some(log.to_string_lossy().into_owned()),
            first_path: Some(log.to_string_lossy().into_owned()),
            edge: None,
            size: None,
            rotated: true,
            ended: false,
        };
        info!(path = %path.display(), "a compressed roll no state recorded (written and compressed while the exporter could not see it); reading it from its start");
        match self.read_compressed(&entry, &path, file, sink) {
            Ok(()) => {
                self.stats.rolls_recovered += 1;
                self.unrecorded.remember(&path, inode, signature);
            }
            Err(error) => {
                self.stats.file_errors_read += 1;
                warn!(path = %path.display(), %error, "cannot read a compressed roll no state recorded");
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use std::fs;
    use std::time::{Duration, SystemTime};

    use crate::input::compressed::gzip;
    use crate::input::follow::{FollowConfig, Follower, Recorder};

    fn lines(tag: &str, n: usize) -> Vec<u8> {
        (0..n)
            .flat_map(|i| format!("{tag} line {i:02}\n").into_bytes())
            .collect()
    }

    fn text(sink: &Recorder) -> String {
        let bytes: Vec<u8> = sink.regions.iter().flat_map(|(_, r)| r.clone()).collect();
        String::from_utf8(bytes).unwrap()
    }

    /// Beside the followed `app.log`: a roll compressed before the first start (skipped), one
    /// made after it of a file read and let go (known by its head: skipped), one no state
    /// recorded (read whole, once), and files that are no rolls of it.
    #[test]
    fn only_rolls_made_since_the_first_start_of_files_never_read_are_read() {
        let dir = tempfile::tempdir().unwrap();
        let name = |n: &str| dir.path().join(n);
        gzip(&name("app.log.9.gz"), &lines("before the start", 5));
        let hour_ago = SystemTime::now() - Duration::from_secs(3600);
        fs::File::options()
            .write(true)
            .open(name("app.log.9.gz"))
            .unwrap()
            .set_modified(hour_ago)
            .unwrap();
        fs::write(name("app.log"), lines("first", 3)).unwrap();
        let (mut follower, mut sink) = following(&name("app.log"));
        follower.scan(&mut sink);
        follower.read_all(&mut sink);
        assert_eq!(text(&sink), String::from_utf8(lines("first", 3)).unwrap());
        // Rotated (read to its end, let go), then compressed: its `.gz` is known.
        fs::rename(name("app.log"), name("app.log.1")).unwrap();
        fs::write(name("app.log"), b"").unwrap();
        follower.scan(&mut sink);
        follower.read_all(&mut sink);
        follower.read_all(&mut sink); // the grace (zero) is over: let go
        gzip(&name("app.log.1.gz"), &fs::read(name("app.log.1")).unwrap());
        fs::remove_file(name("app.log.1")).unwrap();
        // A roll never seen: created, filled and compressed while the follower did not look.
        gzip(&name("app.log.2.gz"), &lines("unseen", 4));
        fs::write(name("app.log.state"), lines("not a roll", 1)).unwrap();
        gzip(&name("other.log.3.gz"), &lines("another log", 1));
        std::thread::sleep(Duration::from_millis(20)); // a new mtime for the directory
        sink.regions.clear();
        follower.scan(&mut sink);
        follower.read_all(&mut sink);
        assert_eq!(text(&sink), String::from_utf8(lines("unseen", 4)).unwrap());
        assert_eq!(follower.stats.rolls_recovered, 1);
        // Judged once: a later scan reads nothing again, nor does a restart from its state.
        sink.regions.clear();
        follower.scan(&mut sink);
        follower.read_all(&mut sink);
        assert_eq!(text(&sink), "");
        let saved = follower.save();
        let entries = saved.files.into_iter().map(|(_, f)| f).collect();
        let config = FollowConfig::for_test(&name("app.log"), Duration::ZERO);
        let mut restarted = Follower::new(config, entries, saved.orphans, false);
        restarted.remember(Some(saved.since), saved.heads);
        restarted.scan(&mut sink);
        restarted.read_all(&mut sink);
        assert_eq!(text(&sink), "");
        assert_eq!(restarted.stats.rolls_recovered, 0);
    }

    /// A follower that has read `app.log` (3 lines "a") in `dir`, and was then frozen while
    /// logrotate moved it to `app.log.2`, a roll it never saw was made (`app.log.1`, 4 lines
    /// "r") and the writer went on in a new `app.log` (2 lines "b").
    /// A follower of `pattern` on its first start, no grace after a file's end, and its sink.
    fn following(pattern: &std::path::Path) -> (Follower, Recorder) {
        let config = FollowConfig::for_test(pattern, Duration::ZERO);
        (
            Follower::new(config, Vec::new(), Vec::new(), true),
            Recorder::default(),
        )
    }

    fn frozen_across_rotations(dir: &std::path::Path) -> (Follower, Recorder) {
        let name = |n: &str| dir.join(n);
        fs::write(name("app.log"), lines("a", 3)).unwrap();
        let (mut follower, mut sink) = following(&name("app.log"));
        follower.scan(&mut sink);
        follower.read_all(&mut sink);
        fs::rename(name("app.log"), name("app.log.2")).unwrap();
        fs::write(name("app.log.1"), lines("r", 4)).unwrap();
        fs::write(name("app.log"), lines("b", 2)).unwrap();
        std::thread::sleep(Duration::from_millis(20)); // a new mtime for the directory
        sink.regions.clear();
        (follower, sink)
    }

    /// logrotate's next run, beside the exporter's listing: `app.log.1` compressed (the `.gz`
    /// whole, then the plain file removed), every roll shifted up one name, a new `app.log`.
    fn rotate_with_delaycompress(dir: &std::path::Path) {
        let name = |n: &str| dir.join(n);
        gzip(&name("app.log.1.gz"), &fs::read(name("app.log.1")).unwrap());
        fs::remove_file(name("app.log.1")).unwrap();
        fs::rename(name("app.log.2"), name("app.log.3")).unwrap();
        fs::rename(name("app.log.1.gz"), name("app.log.2.gz")).unwrap();
        fs::rename(name("app.log"), name("app.log.1")).unwrap();
        fs::write(name("app.log"), b"").unwrap();
    }

    /// The roll a rotation beside the listing moved from a name not yet judged (`app.log.1`) to
    /// one not listed (`app.log.2.gz`) is found by listing again at once: read by the scan that
    /// opened the newer `app.log`, before it, not by a later scan after it.
    #[test]
    fn a_roll_renamed_during_the_listing_is_read_before_the_newer_file() {
        let dir = tempfile::tempdir().unwrap();
        let (mut follower, mut sink) = frozen_across_rotations(dir.path());
        follower.unrecorded.beside_listing = Some(rotate_with_delaycompress);
        follower.scan(&mut sink);
        follower.read_all(&mut sink);
        follower.scan(&mut sink);
        follower.read_all(&mut sink);
        let expected = [lines("r", 4), lines("b", 2)].concat();
        assert_eq!(text(&sink), String::from_utf8(expected).unwrap());
        assert_eq!(follower.stats.rolls_recovered, 1);
    }

    /// logrotate shifts the `.gz` of a roll already counted up one name while the directory is
    /// listed (after the listing, before its names are looked at): its head is kept, and the
    /// `.gz` under its new name is not read again.
    #[test]
    fn a_counted_rolls_gz_renamed_during_the_listing_is_not_read_again() {
        let dir = tempfile::tempdir().unwrap();
        let name = |n: &str| dir.path().join(n);
        fs::write(name("app.log"), lines("a", 3)).unwrap();
        let (mut follower, mut sink) = following(&name("app.log"));
        let pass = |follower: &mut Follower, sink: &mut Recorder| {
            std::thread::sleep(Duration::from_millis(20)); // a new mtime for the directory
            follower.scan(sink);
            follower.read_all(sink);
            follower.read_all(sink); // the grace (zero) is over: let go
        };
        pass(&mut follower, &mut sink);
        fs::rename(name("app.log"), name("app.log.1")).unwrap();
        fs::write(name("app.log"), b"").unwrap();
        pass(&mut follower, &mut sink);
        gzip(&name("app.log.1.gz"), &fs::read(name("app.log.1")).unwrap());
        fs::remove_file(name("app.log.1")).unwrap();
        pass(&mut follower, &mut sink); // the `.gz` judged: known by its own inode from now on
        fs::write(name("app.log.state"), b"").unwrap(); // the directory changed
        follower.unrecorded.beside_listing = Some(|dir| {
            fs::rename(dir.join("app.log.1.gz"), dir.join("app.log.2.gz")).unwrap();
        });
        pass(&mut follower, &mut sink);
        pass(&mut follower, &mut sink);
        assert_eq!(text(&sink), String::from_utf8(lines("a", 3)).unwrap());
        assert_eq!(follower.stats.rolls_recovered, 0);
    }

    /// The kubelet rotating beside a scan, between the `stat` of the paths its glob
    /// (`0.log*`) matches and their opening: `0.log` was `stat()`ed as one file (written while
    /// the follower was frozen, never seen) and opened as the next, the first now a roll
    /// (`0.log.<time>`) under a name the scan had not listed. The roll is read, in its place,
    /// and not taken for a file the scan follows: known by nothing, its `.gz` would never be
    /// read (the chaos soak, seed 336792680: a pod's whole roll, 1,695 lines, lost uncounted).
    #[test]
    fn a_roll_rotated_between_the_stat_and_the_open_of_its_path_is_read() {
        let dir = tempfile::tempdir().unwrap();
        let name = |n: &str| dir.path().join(n);
        fs::write(name("0.log"), lines("a", 3)).unwrap();
        let (mut follower, mut sink) = following(&name("0.log*"));
        follower.scan(&mut sink);
        follower.read_all(&mut sink);
        // Frozen: `0.log` rotated, a new `0.log` written.
        fs::rename(name("0.log"), name("0.log.20260612-100001")).unwrap();
        fs::write(name("0.log"), lines("b", 4)).unwrap();
        // A new mtime for the directory. Thawed: rotated again between the scan's `stat` of
        // `0.log` and its `open`.
        std::thread::sleep(Duration::from_millis(20));
        follower.beside_glob = Some(|dir| {
            fs::rename(dir.join("0.log"), dir.join("0.log.20260612-100002")).unwrap();
            fs::write(dir.join("0.log"), lines("c", 2)).unwrap();
        });
        follower.scan(&mut sink);
        follower.read_all(&mut sink);
        // The next rotation compresses the roll before the next scan.
        let roll = name("0.log.20260612-100002");
        gzip(&name("0.log.20260612-100002.gz"), &fs::read(&roll).unwrap());
        fs::remove_file(&roll).unwrap();
        std::thread::sleep(Duration::from_millis(20));
        for _ in 0..2 {
            follower.scan(&mut sink);
            follower.read_all(&mut sink);
        }
        let expected = [lines("a", 3), lines("b", 4), lines("c", 2)].concat();
        assert_eq!(text(&sink), String::from_utf8(expected).unwrap());
        assert_eq!(follower.stats.rolls_recovered, 1);
    }

    /// A listing between the end of the compression and the removal of the plain file sees a
    /// roll no state recorded twice, plain and as its `.gz`: it is read once.
    #[test]
    fn a_roll_listed_both_plain_and_compressed_is_read_once() {
        let dir = tempfile::tempdir().unwrap();
        let (mut follower, mut sink) = frozen_across_rotations(dir.path());
        let roll = fs::read(dir.path().join("app.log.1")).unwrap();
        gzip(&dir.path().join("app.log.1.gz"), &roll);
        follower.scan(&mut sink);
        follower.read_all(&mut sink);
        fs::remove_file(dir.path().join("app.log.1")).unwrap();
        std::thread::sleep(Duration::from_millis(20));
        for _ in 0..2 {
            follower.scan(&mut sink);
            follower.read_all(&mut sink);
        }
        let expected = [lines("r", 4), lines("b", 2)].concat();
        assert_eq!(text(&sink), String::from_utf8(expected).unwrap());
        assert_eq!(follower.stats.rolls_recovered, 1);
    }
}
