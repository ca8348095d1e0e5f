//! The live follower: makes a set of glob patterns look like one perpetual source of lines,
//! across rotation, truncation, deletion and restarts.
//!
//! Owns one [`Followed`] per file *identity* (device + inode), not per path, so a file renamed by
//! logrotate keeps its offset, a symlink (`current.log`, `/var/log/pods`) and its target are one
//! file, and a numbered roll (`app.1.log` → `app.2.log`) is simply a new file. The words:
//!
//! * **rotation**: the path no longer leads to a file we follow (renamed away, or deleted while
//!   open). We keep reading the open descriptor; the file is let go only after it was read to its
//!   end and stayed there for the grace period, so no timer ever abandons unread bytes.
//! * **truncation**: the size dropped below our offset, or the first bytes changed (copytruncate,
//!   a rewrite). Reading restarts at 0. Checked before every read of a file whose size changed
//!   (and on every scan), so bytes written after a truncation are never read from the old offset.
//! * **order**: new files are opened, and read, oldest first: by modification time, and within a
//!   roll sequence by roll number, up or down as the sequence's mtimes show ([`super::roll`]:
//!   pino-roll's `app.2.log` follows `app.1.log`, logrotate's `app.log.1` follows `app.log.2`),
//!   so an execution's denials in an older roll are counted before its record in a newer one.
//! * **rejoin**: a line a writer cut across two rolls is joined again ([`super::rejoin`]).
//!
//! Every wake-up (an inotify event, or the periodic stat) means "read every file to its end",
//! never "one line". Offsets advance only past complete lines ([`LineBuffer`]), and everything
//! read is handed to a [`Sink`] on this same thread before the offset moves, so the stage above
//! can keep its counters and these offsets describing the same lines.
//!
//! At start-up, a state-file entry whose file no longer matches the globs (rotated away while
//! the exporter was down, or during its grace period) is looked for by inode in its directory
//! (and in its symlink target's); if found and still fitting, it is drained from its saved
//! offset and let go like any rotated file, so a restart during rotation loses nothing.
//!
//! A leaf: it knows files and bytes, never JSON, counters or HTTP. **Not here:** inotify
//! plumbing and the loop (`crate::run`), what lines mean (the [`Sink`]).
//!
//! Cold per wake-up (one `fstat` per file, plus a ≤1 KiB signature read when its size changed);
//! hot inside [`Follower::read_all`].

use std::collections::{BTreeMap, BTreeSet};
use std::fs::{self, File};
use std::io::{ErrorKind, Seek, SeekFrom};
use std::os::unix::fs::{FileExt, MetadataExt};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant, SystemTime};

use serde::{Deserialize, Serialize};
use tracing::{debug, info, warn};

use super::chunk::LineBuffer;
use super::identity::{Edge, Inode, Signature};
use super::rejoin::{self, Orphan, Verdict, MAX_ORPHANS};
use super::roll::{self, Directions, Sequence};

/// Bytes asked for per read of a followed file. Smaller than replay's: a follower reads what
/// was appended since the last wake-up, and many files must stay cheap.
pub const READ_CHUNK_BYTES: usize = 64 * 1024;

/// File descriptors the follower leaves for everything else (HTTP connections, the state and
/// audit files, inotify): it follows at most the open files limit minus these.
pub const FD_RESERVE: u64 = 128;

/// How long a rotated or deleted file, read to its end, is kept open for late writes.
pub const ROTATED_GRACE: Duration = Duration::from_secs(5);

/// Names one followed file for the [`Sink`], for as long as it is followed. Never 0.
pub type FileId = u64;

/// The id of an orphan fragment handed up with no file left to name.
pub const NO_FILE: FileId = 0;

/// Where to start in a file never seen before that exists at the first start.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum StartAt {
    Beginning,
    End,
}

/// What the follower hands up, in the order it read it.
pub trait Sink {
    /// `file` is followed from now on.
    fn opened(&mut self, file: &Opened<'_>);
    /// Complete lines of `id`, each ending in `\n`.
    fn lines(&mut self, id: FileId, region: &[u8]);
    /// Lines of `id` skipped whole for being longer than the cap.
    fn oversized(&mut self, id: FileId, count: u64);
    /// A last line that never got its newline (see [`super::rejoin`]); `id` may be [`NO_FILE`].
    fn unterminated(&mut self, id: FileId, fragment: &[u8]);
    /// `id` was truncated or rewritten: reading restarts at its beginning.
    fn reset(&mut self, id: FileId);
    /// `id` is no longer followed.
    fn closed(&mut self, id: FileId);
    /// Whether `line` (without its newline) is one whole line: decides rejoins.
    fn is_whole_line(&self, line: &[u8]) -> bool;
}

/// A file the follower started to follow.
#[derive(Debug)]
pub struct Opened<'a> {
    pub id: FileId,
    pub path: &'a Path,
    pub inode: Inode,
    /// Resumed from a state-file entry (whatever the stage above saved for it applies).
    pub resumed: bool,
}

/// Settings of the follower.
#[derive(Debug, Clone)]
pub struct FollowConfig {
    pub patterns: Vec<String>,
    /// Where to start in files never seen before that exist at start-up, when there is no
    /// state (with a state, every file it does not know is new and read from its beginning).
    pub start_at: StartAt,
    pub max_line_bytes: usize,
    /// Set when shutting down: reading stops at the next chunk boundary (between two complete
    /// lines), so that a large backlog never delays the final state write.
    pub stop: Arc<AtomicBool>,
    /// How long a rotated or deleted file, read to its end, is kept open for late writes
    /// ([`ROTATED_GRACE`]; the model test uses zero).
    pub rotated_grace: Duration,
    /// Bytes asked for per read ([`READ_CHUNK_BYTES`]; the model test uses less, so that lines
    /// straddle reads, and an unoptimised build does not spend its time zeroing buffers).
    pub read_chunk_bytes: usize,
}

/// Where one followed file was: its state-file entry.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct FileState {
    pub path: String,
    pub inode: Inode,
    pub signature: Signature,
    /// Byte offset after the last line accounted for.
    pub offset: u64,
    /// The unterminated bytes after `offset`, kept in case the file is gone at the restart and
    /// a successor's head still needs them ([`super::rejoin`]).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub fragment: Option<Vec<u8>>,
    /// The name that placed it in a roll sequence when that was not `path` (a symlink's
    /// target): what an orphan of its fragment is judged by if the file is gone at the restart.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub sequence_path: Option<String>,
}

/// What the follower saves: its files and the orphan fragments.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Saved {
    pub files: Vec<(FileId, FileState)>,
    pub orphans: Vec<Orphan>,
}

/// The follower's own counters.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct FollowStats {
    /// Followed files and their lag in bytes.
    pub files: Vec<(String, u64)>,
    pub rotations: u64,
    pub truncations: u64,
    pub file_errors_open: u64,
    pub file_errors_read: u64,
    pub file_errors_vanished: u64,
    /// Lines joined across two files ([`super::rejoin`]).
    pub rejoined: u64,
    /// Paths the globs match now that cannot be opened (permissions, the fd limit).
    pub unopenable: u64,
}

/// One followed file.
#[derive(Debug)]
struct Followed {
    id: FileId,
    path: PathBuf,
    /// The path it was first followed under (what a rename + create reuses).
    first_path: PathBuf,
    /// The name that places it in a roll sequence (a symlink's target).
    sequence_path: PathBuf,
    sequence: Option<Sequence>,
    file: File,
    inode: Inode,
    signature: Signature,
    buffer: LineBuffer,
    /// Position of the descriptor: bytes read from the file so far.
    read_pos: u64,
    /// Last size seen by fstat.
    size: u64,
    /// The bytes before `read_pos` when reading last stopped, checked on every scan.
    edge: Option<Edge>,
    /// The path no longer leads here (renamed away or deleted).
    rotated: bool,
    /// When a rotated file was first seen at its end without growth.
    drained_since: Option<Instant>,
    /// Read from 0 and its first line not yet judged against a predecessor's fragment.
    head_unjudged: bool,
    /// A successor's head was judged against this file's fragment.
    superseded: bool,
}

/// Follows the files matching the patterns.
#[derive(Debug)]
pub struct Follower {
    config: FollowConfig,
    files: Vec<Followed>,
    /// State-file entries not yet matched to a file.
    restored: Vec<FileState>,
    /// No state was restored: `start_at` applies to the files found by the first scan.
    fresh: bool,
    /// Set once the first scan ran: later files are new and read from their beginning.
    started: bool,
    orphans: Vec<Orphan>,
    /// Which way each roll sequence counts, as the last scan's files showed it.
    directions: Directions,
    next_id: FileId,
    stats: FollowStats,
    /// Paths that matched and could not be opened (logged once each).
    unopenable: BTreeSet<PathBuf>,
    /// Files that may be open at once, from the open files limit at the last scan.
    fd_budget: usize,
}

impl Follower {
    /// A follower resuming from `restored` (a state file's entries; `fresh` if there was none).
    pub fn new(
        config: FollowConfig,
        restored: Vec<FileState>,
        orphans: Vec<Orphan>,
        fresh: bool,
    ) -> Follower {
        Follower {
            config,
            files: Vec::new(),
            restored,
            fresh,
            started: false,
            orphans,
            directions: Directions::default(),
            next_id: 1,
            stats: FollowStats::default(),
            unopenable: BTreeSet::new(),
            fd_budget: fd_budget(),
        }
    }

    /// What the follower holds: files followed, orphan fragments (for the model test's bound).
    #[cfg(test)]
    pub fn held(&self) -> (usize, usize) {
        (self.files.len(), self.orphans.len())
    }

    /// The directories to watch: the part of each pattern before its first glob character.
    pub fn watch_roots(&self) -> Vec<(PathBuf, bool)> {
        self.config.patterns.iter().map(|p| watch_root(p)).collect()
    }

    /// The follower's counters, with each file's lag. A rotated file still being drained is
    /// named `<path> (rotated)` (its old name: the new one is unknown), and files sharing a name
    /// are summed, so every name appears once (a `path` label must not repeat).
    pub fn stats(&self) -> FollowStats {
        let mut stats = self.stats.clone();
        let mut lags: BTreeMap<String, u64> = BTreeMap::new();
        for f in &self.files {
            let mut name = f.path.display().to_string();
            if f.rotated {
                name.push_str(" (rotated)");
            }
            *lags.entry(name).or_default() += f.size.saturating_sub(f.buffer.committed());
        }
        stats.files = lags.into_iter().collect();
        stats.unopenable = self.unopenable.len() as u64;
        stats
    }

    /// Expands the patterns: opens new files, notices rotated ones, checks for truncation.
    pub fn scan(&mut self, sink: &mut impl Sink) {
        let mut present: BTreeSet<Inode> = BTreeSet::new();
        let opened_before = self.files.len();
        let paths = self.matching_paths();
        self.unopenable.retain(|p| paths.contains(p)); // a path gone is no longer unopenable
        self.fd_budget = fd_budget();
        for path in paths {
            let meta = match fs::metadata(&path) {
                Ok(meta) => meta,
                Err(error) => {
                    // Listed by the glob, gone at stat (a dangling symlink is not "vanished").
                    if error.kind() == ErrorKind::NotFound && !is_symlink(&path) {
                        self.stats.file_errors_vanished += 1;
                        debug!(path = %path.display(), "file vanished before it could be opened");
                    }
                    continue;
                }
            };
            if !meta.is_file() {
                continue;
            }
            let inode = Inode::of(&meta);
            present.insert(inode);
            if let Some(f) = self.files.iter_mut().find(|f| f.inode == inode) {
                if f.rotated {
                    f.rotated = false; // it came back under a matching name
                    f.drained_since = None;
                }
                if !is_symlink(&path) && f.path != path {
                    // Named as open() names it, so that it is in the sequence it was learned in.
                    f.sequence_path = fs::canonicalize(&path).unwrap_or_else(|_| path.clone());
                    f.sequence = Sequence::of(&f.sequence_path);
                    f.path = path; // a rename keeps the offset; remember the new name
                }
                continue;
            }
            if let Some(opened) = self.open(&path, sink, false) {
                // The path may have been swapped between stat and open: what counts is the
                // identity of what was opened.
                present.insert(opened);
            }
        }
        for f in &mut self.files {
            if !f.rotated && !present.contains(&f.inode) {
                f.rotated = true;
                self.stats.rotations += 1;
                debug!(path = %f.path.display(), "file rotated away; draining it");
            }
        }
        let mut resumed = 0;
        if !self.started {
            self.started = true;
            resumed = self.resume_rotated(sink);
        }
        // Files opened now are read after those already followed, each sequence in roll order;
        // files resumed from the state keep the order they were read in before (their names
        // were given by a rotation: logrotate's `.1` is newer than its `.2`).
        roll::order(
            &mut self.files[opened_before + resumed..],
            |f| f.sequence.as_ref(),
            &self.directions,
        );
        for f in &mut self.files {
            if check_truncation(f, &mut self.stats, true) {
                sink.reset(f.id);
            }
        }
    }

    /// State entries that matched no file of the globs: if the file is still in its directory
    /// under another name (rotated while we were down, or during its grace period), drain it
    /// from the saved offset; otherwise drop the entry, keeping its fragment as an orphan.
    /// Returns how many were resumed (now the first files).
    fn resume_rotated(&mut self, sink: &mut impl Sink) -> usize {
        let entries = std::mem::take(&mut self.restored);
        let before = self.files.len();
        for entry in entries {
            let Some(path) = find_by_inode(&entry) else {
                info!(path = %entry.path, "state entry for a file that is gone; dropped");
                if let Some(fragment) = entry.fragment {
                    let sequence_path =
                        PathBuf::from(entry.sequence_path.as_deref().unwrap_or(&entry.path));
                    let direction =
                        Sequence::of(&sequence_path).and_then(|s| self.directions.known(&s));
                    self.keep_orphan(
                        Orphan {
                            path: PathBuf::from(&entry.path),
                            sequence_path,
                            fragment,
                            direction,
                        },
                        sink,
                    );
                }
                continue;
            };
            info!(path = %entry.path, now = %path.display(), "file rotated while stopped; draining it");
            self.restored.push(entry);
            if self.open(&path, sink, true).is_some() {
                self.stats.rotations += 1;
            }
        }
        self.restored.clear(); // what open() did not take did not fit, and it said so

        // Files rotated away while we were down are older than any the globs match: read them
        // first.
        let resumed = self.files.split_off(before);
        let count = resumed.len();
        self.files.splice(0..0, resumed);
        count
    }

    /// Reads every followed file to its end, handing what it read to `sink`; lets go of rotated
    /// files that stayed drained for the grace period.
    pub fn read_all(&mut self, sink: &mut impl Sink) {
        let now = Instant::now();
        let mut i = 0;
        while i < self.files.len() {
            if self.config.stop.load(Ordering::Acquire) {
                return;
            }
            let (before, rest) = self.files.split_at_mut(i);
            let f = &mut rest[0];
            let mut reading = Reading {
                before,
                orphans: &mut self.orphans,
                directions: &self.directions,
                stats: &mut self.stats,
                stop: &self.config.stop,
            };
            if check_truncation(f, reading.stats, false) {
                sink.reset(f.id);
            }
            let mut read = reading.drain(f, sink);
            if read.rewritten && check_truncation(f, reading.stats, true) {
                sink.reset(f.id);
                read = reading.drain(f, sink);
            }
            let grew = read.grew;
            if let Ok(meta) = f.file.metadata() {
                f.size = meta.len();
                if meta.nlink() == 0 && !f.rotated {
                    f.rotated = true;
                    self.stats.rotations += 1;
                }
            }
            widen_signature(f);
            f.edge = Edge::at(&f.file, f.read_pos).ok().flatten();
            f.buffer.release_if_idle();
            if f.rotated && !grew && f.read_pos >= f.size {
                let since = *f.drained_since.get_or_insert(now);
                if now.duration_since(since) >= self.config.rotated_grace {
                    debug!(path = %f.path.display(), "rotated file drained; letting go");
                    let f = self.files.remove(i); // keep the others in the order they were opened
                    self.let_go(f, sink);
                    continue;
                }
            } else {
                f.drained_since = None;
            }
            i += 1;
        }
    }

    /// A drained rotated file leaves: its fragment is handed up if a successor was judged
    /// against it, else kept as an orphan for one.
    fn let_go(&mut self, mut f: Followed, sink: &mut impl Sink) {
        f.buffer.consume();
        if let Some(fragment) = f.buffer.tail().map(<[u8]>::to_vec) {
            if f.superseded {
                sink.unterminated(f.id, &fragment);
            } else {
                let orphan = Orphan {
                    path: f.first_path.clone(),
                    sequence_path: f.sequence_path.clone(),
                    fragment,
                    direction: f.sequence.as_ref().and_then(|s| self.directions.known(s)),
                };
                self.keep_orphan(orphan, sink);
            }
        }
        sink.closed(f.id);
    }

    fn keep_orphan(&mut self, orphan: Orphan, sink: &mut impl Sink) {
        self.orphans.push(orphan);
        if self.orphans.len() > MAX_ORPHANS {
            let oldest = self.orphans.remove(0);
            sink.unterminated(NO_FILE, &oldest.fragment);
        }
    }

    /// Entries for the state file; call between reads (all complete lines were handed up).
    pub fn save(&mut self) -> Saved {
        let files = self
            .files
            .iter_mut()
            .map(|f| {
                widen_signature(f);
                f.buffer.consume();
                let state = FileState {
                    path: f.path.display().to_string(),
                    inode: f.inode,
                    signature: f.signature,
                    offset: f.buffer.committed(),
                    fragment: f.buffer.tail().map(<[u8]>::to_vec),
                    sequence_path: (f.sequence_path != f.path)
                        .then(|| f.sequence_path.display().to_string()),
                };
                (f.id, state)
            })
            .collect();
        Saved {
            files,
            orphans: self.orphans.clone(),
        }
    }

    /// The paths the globs match, oldest first (by modification time, and by roll number within
    /// a roll sequence, in the direction its members' modification times show), symlinks last,
    /// and a symlink left out when its target is listed too.
    fn matching_paths(&mut self) -> Vec<PathBuf> {
        let mut paths = Vec::new();
        for pattern in &self.config.patterns {
            match glob::glob(pattern) {
                Ok(entries) => paths.extend(entries.flatten()),
                Err(error) => warn!(%pattern, %error, "invalid --path glob"),
            }
        }
        paths.sort();
        paths.dedup();
        let listed: BTreeSet<PathBuf> = paths.iter().filter(|p| !is_symlink(p)).cloned().collect();
        let mut real_dirs = BTreeMap::new();
        let mut keyed: Vec<(bool, SystemTime, PathBuf, Option<Sequence>)> = paths
            .into_iter()
            .filter_map(|path| {
                let symlink = is_symlink(&path);
                if symlink && fs::canonicalize(&path).is_ok_and(|target| listed.contains(&target)) {
                    return None; // its target is followed under its own name
                }
                let mtime = fs::metadata(&path)
                    .and_then(|m| m.modified())
                    .unwrap_or(SystemTime::UNIX_EPOCH);
                let sequence = (!symlink)
                    .then(|| Sequence::of_real(&path, &mut real_dirs))
                    .flatten();
                Some((symlink, mtime, path, sequence))
            })
            .collect();
        keyed.sort_by(|a, b| (a.0, a.1, &a.2).cmp(&(b.0, b.1, &b.2)));
        self.directions.learn(&keyed, |k| k.3.as_ref(), |k| k.1);
        roll::order(&mut keyed, |k| k.3.as_ref(), &self.directions);
        keyed.into_iter().map(|k| k.2).collect()
    }

    /// Opens `path` and follows it, resuming from its state entry if one fits. Returns the
    /// identity of what was opened, `None` if it is not followed. A `rotated` file (found by
    /// [`Follower::resume_rotated`]) is followed only from a fitting state entry.
    fn open(&mut self, path: &Path, sink: &mut impl Sink, rotated: bool) -> Option<Inode> {
        if self.files.len() >= self.fd_budget {
            if self.unopenable.insert(path.to_path_buf()) {
                self.stats.file_errors_open += 1;
                warn!(path = %path.display(), followed = self.files.len(),
                      "not opening: every descriptor the open files limit leaves is in use; will retry");
            }
            return None;
        }
        let file = match File::open(path) {
            Ok(file) => file,
            Err(error) if error.kind() == ErrorKind::NotFound => {
                self.stats.file_errors_vanished += 1;
                debug!(path = %path.display(), "file vanished before it could be opened");
                return None;
            }
            Err(error) => {
                if self.unopenable.insert(path.to_path_buf()) {
                    self.stats.file_errors_open += 1;
                    warn!(path = %path.display(), %error, "cannot open log file; will retry");
                }
                return None;
            }
        };
        self.unopenable.remove(path);
        let (Ok(meta), Ok(signature)) = (file.metadata(), Signature::of(&file)) else {
            self.stats.file_errors_read += 1;
            return None;
        };
        let inode = Inode::of(&meta);
        if self.files.iter().any(|f| f.inode == inode) {
            return Some(inode); // already followed (the path was swapped under us)
        }
        let size = meta.len();
        let mut offset = None;
        let mut first_path = path.to_path_buf();
        if let Some(i) = self.restored.iter().position(|e| e.inode == inode) {
            // remove, not swap_remove: the entries left are resumed in their saved order (the
            // order they were read in), which is also the order their rotations happened.
            let entry = self.restored.remove(i);
            let fits = entry.offset <= size && entry.signature.matches(&file).unwrap_or(false);
            if fits {
                offset = Some(entry.offset);
                // Found under its rotated name, it is still the file of the path it was
                // followed under: a new file there continues it (rename + create while down).
                first_path = PathBuf::from(entry.path);
            } else if Path::new(&entry.path) == path {
                warn!(path = %path.display(), saved_offset = entry.offset, size,
                      "state entry no longer fits its file (rewritten or truncated); dropped");
            } else {
                // The saved file is gone and its inode was reused by another one (pino-roll
                // deletes old rolls): nothing is wrong.
                debug!(path = %path.display(), saved = %entry.path, "inode reused by a new file");
            }
        }
        let resumed = offset.is_some();
        let skip_existing = self.fresh && !self.started && self.config.start_at == StartAt::End;
        let offset = match (offset, rotated, skip_existing) {
            (Some(offset), _, _) => offset,
            (None, true, _) => return None,
            (None, false, true) => last_line_end(&file, size),
            (None, false, false) => 0,
        };
        let mut buffer =
            LineBuffer::with_chunk(self.config.max_line_bytes, self.config.read_chunk_bytes);
        buffer.reset(offset);
        let mut file = file;
        if let Err(error) = file.seek(SeekFrom::Start(offset)) {
            self.stats.file_errors_read += 1;
            warn!(path = %path.display(), %error, "cannot seek log file");
            return None;
        }
        info!(path = %path.display(), offset, "following");
        let sequence_path = fs::canonicalize(path).unwrap_or_else(|_| path.to_path_buf());
        let id = self.next_id;
        self.next_id += 1;
        sink.opened(&Opened {
            id,
            path,
            inode,
            resumed,
        });
        self.files.push(Followed {
            id,
            path: path.to_path_buf(),
            first_path,
            sequence: Sequence::of(&sequence_path),
            sequence_path,
            file,
            inode,
            signature,
            buffer,
            read_pos: offset,
            size,
            edge: None,
            rotated,
            drained_since: None,
            head_unjudged: offset == 0,
            superseded: false,
        });
        Some(inode)
    }
}

/// What reading one file may touch besides the file: the files read before it (its possible
/// predecessors), the orphan fragments, the roll directions, the counters, the stop flag.
struct Reading<'a> {
    before: &'a mut [Followed],
    orphans: &'a mut Vec<Orphan>,
    directions: &'a Directions,
    stats: &'a mut FollowStats,
    stop: &'a AtomicBool,
}

impl Reading<'_> {
    /// Reads `f` to its end, or until `stop` is set, handing every complete line to `sink`.
    fn drain(&mut self, f: &mut Followed, sink: &mut impl Sink) -> Drain {
        let mut grew = false;
        loop {
            let filled = match f.buffer.fill(&mut f.file) {
                Ok(filled) => filled,
                Err(error) => {
                    self.stats.file_errors_read += 1;
                    warn!(path = %f.path.display(), %error, "cannot read log file");
                    return Drain {
                        grew,
                        rewritten: false,
                    };
                }
            };
            f.read_pos += filled.read as u64;
            if filled.read == 0 && filled.oversized == 0 && f.buffer.lines().is_empty() {
                return Drain {
                    grew,
                    rewritten: false,
                };
            }
            // The bytes just read count only if the file still starts as it did: a copytruncate
            // and rewrite between our last check and this read would otherwise hand us the middle
            // of new content as if it followed the old.
            if filled.read > 0 && !f.signature.matches(&f.file).unwrap_or(true) {
                return Drain {
                    grew,
                    rewritten: true,
                };
            }
            grew = true;
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
            if filled.read == 0 || self.stop.load(Ordering::Acquire) {
                return Drain {
                    grew,
                    rewritten: false,
                };
            }
        }
    }

    /// Judges `f`'s first line against its predecessor's fragment ([`super::rejoin`]); returns
    /// how many bytes of `f`'s region the join took (0 if none).
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
        let renamed = || {
            self.before
                .iter()
                .rposition(|g| g.rotated && g.first_path == f.path)
        };
        if let Some(p) = older_roll.or_else(renamed) {
            let p = &mut self.before[p];
            p.superseded = true;
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
struct Drain {
    /// Something was read.
    grew: bool,
    /// The file's first bytes changed under the read: what was read was not handed up.
    rewritten: bool,
}

/// Notices a truncation or a rewrite of `f` and restarts it at 0; returns true if it did.
///
/// A size below our position means truncated. Changed first bytes, or changed bytes just before
/// our position, mean rewritten (copytruncate followed by as many writes as we had read, before
/// we looked, as a poll interval allows): checked when `check_prefix` (the periodic scan, and
/// after a read found the prefix changed under it).
fn check_truncation(f: &mut Followed, stats: &mut FollowStats, check_prefix: bool) -> bool {
    let Ok(meta) = f.file.metadata() else {
        return false;
    };
    let size = meta.len();
    let shrunk = size < f.read_pos;
    let rewritten = !shrunk
        && f.read_pos > 0
        && check_prefix
        && (!f.signature.matches(&f.file).unwrap_or(true)
            || f.edge
                .is_some_and(|e| e.offset == f.read_pos && !e.holds(&f.file).unwrap_or(true)));
    if !(shrunk || rewritten) {
        return false;
    }
    stats.truncations += 1;
    warn!(path = %f.path.display(), offset = f.read_pos, size, "file truncated; reading from its start");
    f.buffer.reset(0);
    f.read_pos = 0;
    f.size = size;
    f.drained_since = None;
    f.edge = None;
    f.head_unjudged = false; // new content, not the rest of anything
    f.signature = Signature::of(&f.file).unwrap_or(Signature { len: 0, hash: 0 });
    if f.file.seek(SeekFrom::Start(0)).is_err() {
        stats.file_errors_read += 1;
    }
    true
}

/// A file created empty or short: widen its signature as it grows (up to 1 KiB), so that a
/// later rewrite of its first bytes is still noticed — but only while what it covered is still
/// there (a rewrite is for [`check_truncation`] to notice, not to be signed).
fn widen_signature(f: &mut Followed) {
    if !f.signature.is_short() || f.size <= f.signature.len {
        return;
    }
    if f.signature.matches(&f.file).unwrap_or(false) {
        if let Ok(signature) = Signature::of(&f.file) {
            f.signature = signature;
        }
    }
}

/// The path of the regular file with a state entry's identity that still fits the entry
/// (signature, size), looked for in the directory of the entry's path and, if that path is a
/// symlink, in the directory of its current target (where kubelet and pino-roll rotate).
fn find_by_inode(entry: &FileState) -> Option<PathBuf> {
    let path = Path::new(&entry.path);
    let mut dirs: Vec<PathBuf> = path.parent().map(Path::to_path_buf).into_iter().collect();
    if let Some(target_dir) = fs::canonicalize(path)
        .ok()
        .and_then(|t| t.parent().map(Path::to_path_buf))
    {
        dirs.push(target_dir);
    }
    for dir in &mut dirs {
        if dir.as_os_str().is_empty() {
            dir.push(".");
        }
    }
    dirs.dedup();
    dirs.iter().find_map(|dir| find_in_dir(dir, entry))
}

fn find_in_dir(dir: &Path, entry: &FileState) -> Option<PathBuf> {
    // Every entry is stat()ed: on overlayfs the inode readdir reports may differ from stat's.
    for dirent in fs::read_dir(dir).ok()?.flatten() {
        let path = dirent.path();
        let Ok(meta) = fs::symlink_metadata(&path) else {
            continue;
        };
        if !meta.is_file() || Inode::of(&meta) != entry.inode {
            continue;
        }
        let fits = File::open(&path).is_ok_and(|file| {
            meta.len() >= entry.offset && entry.signature.matches(&file).unwrap_or(false)
        });
        return fits.then_some(path);
    }
    None
}

/// Files the follower may hold open: the open files limit minus [`FD_RESERVE`] (at least 16).
fn fd_budget() -> usize {
    let limit = rustix::process::getrlimit(rustix::process::Resource::Nofile).current;
    let limit = limit.unwrap_or(u64::MAX);
    usize::try_from(limit.saturating_sub(FD_RESERVE).max(16)).unwrap_or(usize::MAX)
}

/// The offset after the last newline of a file (where `--read-from end` starts), looking back at
/// most 1 MiB; 0 if there is none.
fn last_line_end(file: &File, size: u64) -> u64 {
    let from = size.saturating_sub(1 << 20);
    let mut buf = vec![0u8; (size - from) as usize];
    match file.read_exact_at(&mut buf, from) {
        Ok(()) => memchr::memrchr(b'\n', &buf).map_or(from, |i| from + i as u64 + 1),
        Err(_) => size,
    }
}

fn is_symlink(path: &Path) -> bool {
    fs::symlink_metadata(path).is_ok_and(|m| m.file_type().is_symlink())
}

/// The directory to watch for a pattern, and whether it must be watched recursively (a glob in
/// a directory component).
pub fn watch_root(pattern: &str) -> (PathBuf, bool) {
    let path = Path::new(pattern);
    let mut root = PathBuf::new();
    let mut components = path.components().peekable();
    while let Some(c) = components.next() {
        let text = c.as_os_str().to_string_lossy();
        if text.contains(['*', '?', '[']) {
            let recursive = components.peek().is_some();
            return (root, recursive);
        }
        if components.peek().is_none() {
            break; // the last component is the file itself
        }
        root.push(c);
    }
    if root.as_os_str().is_empty() {
        root.push(".");
    }
    (root, false)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn watch_roots_stop_at_the_first_glob() {
        assert_eq!(
            watch_root("/var/log/executor/*.log"),
            (PathBuf::from("/var/log/executor"), false)
        );
        assert_eq!(
            watch_root("/var/log/pods/*/*/*.log"),
            (PathBuf::from("/var/log/pods"), true)
        );
        assert_eq!(
            watch_root("/var/log/app.log"),
            (PathBuf::from("/var/log"), false)
        );
        assert_eq!(watch_root("app.log"), (PathBuf::from("."), false));
    }
}
