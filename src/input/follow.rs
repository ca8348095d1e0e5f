//! The live follower: makes a set of glob patterns look like one perpetual source of lines,
//! across rotation, truncation, deletion and restarts.
//!
//! Owns the [`Follower`] and everything the stage above sees of it (the [`Sink`] it reports to,
//! its settings, what it saves and counts). The follower holds one [`Followed`] per file
//! *identity* (device + inode), not per path, so a file renamed by logrotate keeps its offset, a
//! symlink (`current.log`, `/var/log/pods`) and its target are one file, and a numbered roll
//! (`app.1.log` → `app.2.log`) is simply a new file. The words:
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
//!   A roll written to after a pass read it, and before the next roll began, is read to its end
//!   before the next roll's first bytes are handed up ([`drain`]).
//! * **rejoin**: a line a writer cut across two rolls is joined again ([`super::rejoin`]).
//!
//! Every wake-up means "read to its end every file that may have changed", never "one line":
//! the files an inotify event named, those a paced sweep looks at (the ones inotify does not
//! watch reliably), rotated files until they are let go; every file after a scan when polling.
//! Past the open files limit, files read to their end are closed (parked) and opened again when
//! they change, so any number of files is read in turn. Offsets advance only past complete
//! lines ([`LineBuffer`](super::chunk::LineBuffer)), and everything
//! read is handed to a [`Sink`] on this same thread before the offset moves, so the stage above
//! can keep its counters and these offsets describing the same lines.
//!
//! [`Followed`] is one file and what it does by itself (notice a truncation, sign its first
//! bytes, give back and take again its descriptor, say its lag and its state entry); the
//! [`Follower`] is the set of them: their order, predecessors and rejoins, the descriptor
//! budget, which to read. The follower's parts, in the order a wake-up meets them:
//!
//! * [`paths`]: which paths the globs match, oldest first; where a rotated file went.
//! * [`open`]: starting to follow a file, fresh or from its state entry, or, at a restart,
//!   wherever in its directory the entry's file now is.
//! * [`finish`]: a state entry's file, or a parked file gone, found only compressed: read from
//!   its `.gz`.
//! * [`pass`]: one pass over the followed files: which to read, parked ones opened again.
//! * [`park`]: closing files read to their end past the descriptor budget, opening them again
//!   when they change.
//! * [`sweep`]: which files a wake-up reads: those events name, a slice of the others per tick.
//! * [`hot`]: the files due and those that lag, kept so that a wake-up and a publication cost
//!   the files that changed, never a loop over every file.
//! * [`drain`]: reading one file to its end, and judging its first line against a predecessor.
//! * [`report`]: what the follower shows of itself between reads: its state-file entries and
//!   its counters.
//!
//! It knows files and bytes, never JSON, counters or HTTP. **Not here:** inotify
//! ([`super::watch`]: the follower is told which paths an event named, [`Follower::touch`], and
//! which directories are watched reliably, [`Follower::watch_with`]), the loop that wakes it
//! (`crate::run`), what lines mean (the [`Sink`]).
//!
//! Cold per wake-up (one `fstat` per file due, plus ≤1 KiB signature reads; nothing per file
//! not due); per scan, a few `stat`s per matching path and a sort of the paths; hot inside
//! [`Follower::read_all`] and [`Follower::read_due`].

mod drain;
mod finish;
mod followed;
mod hot;
mod open;
mod park;
mod pass;
mod paths;
mod report;
mod sweep;
mod unrecorded;

use std::collections::{BTreeMap, BTreeSet};
use std::fs;
use std::io::ErrorKind;
use std::path::{Path, PathBuf};
use std::sync::atomic::AtomicBool;
use std::sync::Arc;
use std::time::Duration;

use serde::{Deserialize, Serialize};
use tracing::debug;

use super::identity::{Edge, Inode, Signature};
use super::rejoin::{Orphan, MAX_ORPHANS};
use super::roll::{self, Directions};
use super::watch::Root;
use followed::Followed;
use open::fd_budget;
pub use paths::watch_root;
use paths::{is_symlink, matching_paths, Stat};
pub use report::LagKey;
#[cfg(test)]
pub use unrecorded::Head;
pub use unrecorded::KnownHeads;

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
    /// How many files (those with the most lag) [`Follower::stats`] names; the others are
    /// summed, so a directory of thousands of rolls does not make thousands of series
    /// (`--max-file-series`).
    pub max_file_series: usize,
}

#[cfg(test)]
impl FollowConfig {
    /// A follower's settings for unit tests: one glob, read from the beginning, small reads.
    pub(crate) fn for_test(pattern: &std::path::Path, rotated_grace: Duration) -> FollowConfig {
        FollowConfig {
            patterns: vec![pattern.display().to_string()],
            start_at: StartAt::Beginning,
            max_line_bytes: 1 << 20,
            stop: Arc::new(AtomicBool::new(false)),
            rotated_grace,
            read_chunk_bytes: 1024,
            max_file_series: usize::MAX,
        }
    }
}

/// What unit tests hand the follower: records the regions of lines handed up, in order.
#[cfg(test)]
#[derive(Default)]
pub(crate) struct Recorder {
    pub regions: Vec<(FileId, Vec<u8>)>,
    /// Run once, when the next file is opened: something a writer or rotator does meanwhile.
    pub on_open: Option<Box<dyn FnOnce()>>,
}

#[cfg(test)]
impl Recorder {
    /// The bytes of lines handed up so far.
    pub(crate) fn bytes(&self) -> usize {
        self.regions.iter().map(|(_, r)| r.len()).sum()
    }
}

/// For unit tests: a follower of `pattern` (a long grace after a rotated file's end) that has
/// found and read every file there, and what it read.
#[cfg(test)]
pub(crate) fn following_for_test(pattern: &std::path::Path) -> (Follower, Recorder) {
    let config = FollowConfig::for_test(pattern, Duration::from_secs(3600));
    let mut follower = Follower::new(config, Vec::new(), Vec::new(), true);
    let mut sink = Recorder::default();
    follower.scan(&mut sink);
    follower.read_all(&mut sink);
    (follower, sink)
}

/// For unit tests: appends `text` to the file at `path`, as a writer does.
#[cfg(test)]
pub(crate) fn append_for_test(path: &std::path::Path, text: &str) {
    use std::io::Write;
    let mut file = fs::OpenOptions::new().append(true).open(path).unwrap();
    file.write_all(text.as_bytes()).unwrap();
}

#[cfg(test)]
impl Sink for Recorder {
    fn opened(&mut self, _: &Opened<'_>) {
        if let Some(on_open) = self.on_open.take() {
            on_open();
        }
    }
    fn lines(&mut self, id: FileId, region: &[u8]) {
        if !region.is_empty() {
            self.regions.push((id, region.to_vec()));
        }
    }
    fn oversized(&mut self, _: FileId, _: u64) {}
    fn unterminated(&mut self, _: FileId, _: &[u8]) {}
    fn reset(&mut self, _: FileId) {}
    fn closed(&mut self, _: FileId) {}
    fn is_whole_line(&self, _: &[u8]) -> bool {
        true
    }
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
    /// The path it was followed under when that was not `path` (it was found renamed at a
    /// restart): a new file there continues it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub first_path: Option<String>,
    /// The bytes before where reading stopped, when known: what tells this file's `.gz` from
    /// another roll of its log with the same first bytes ([`paths::locate`]).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub edge: Option<Edge>,
    /// The file's size when this entry was saved, when larger than `offset`: bytes written and
    /// not yet read, lost if the file is gone at the restart.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub size: Option<u64>,
    /// It was rotated (renamed away, even to a name the globs still match, or deleted while
    /// open) when saved: read to its end, its writer had moved on, and its being gone at the
    /// restart loses nothing.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub rotated: bool,
    /// Its writer had moved on when saved: it was read to its end after the first line of the
    /// next roll of its sequence was read (a writer that rolls by number never writes to a roll
    /// again once it started the next), and had not grown since. Gone at a restart, it lost
    /// nothing: its last unterminated piece, if any, is `fragment`.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub ended: bool,
}

impl FileState {
    /// The path a new file continuing this one appears at.
    pub fn first_path(&self) -> &str {
        self.first_path.as_deref().unwrap_or(&self.path)
    }
}

/// What the follower saves: its files and the orphan fragments.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Saved {
    pub files: Vec<(FileId, FileState)>,
    pub orphans: Vec<Orphan>,
    /// Seconds since the epoch of the first start ([`unrecorded`]).
    pub since: f64,
    /// The heads of files handed up that may still be on disk ([`unrecorded`]).
    pub heads: Vec<KnownHeads>,
}

/// The follower's own counters.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct FollowStats {
    /// Followed files and their lag in bytes: the `max_file_series` with the most lag, by path.
    /// Shared with the publications that show them: unchanged, they are not copied again.
    pub files: Arc<Vec<(String, u64)>>,
    /// Files followed (by name: a rotated file being drained is one more).
    pub followed: u64,
    /// The summed lag of the followed files not in `files`.
    pub lag_others: u64,
    pub rotations: u64,
    pub truncations: u64,
    pub file_errors_open: u64,
    pub file_errors_read: u64,
    pub file_errors_vanished: u64,
    /// Lines joined across two files ([`super::rejoin`]).
    pub rejoined: u64,
    /// Paths the globs match now that cannot be opened (permissions, the fd limit).
    pub unopenable: u64,
    /// Times a file read to its end was closed to stay within the descriptor budget.
    pub parked: u64,
    /// Followed files that hold a descriptor now (the others are parked).
    pub open_files: u64,
    /// Files a glob matched that start with the gzip magic bytes: never read as lines.
    pub compressed_skipped: u64,
    /// State entries whose file was found only compressed at a restart, finished from the `.gz`.
    pub compressed_finished: u64,
    /// State entries dropped at a restart: no file in their directory had their identity.
    pub state_entries_dropped: u64,
    /// State entries whose file was gone at a restart before it was read to its end (deleted
    /// by its rotation, or with its pod, while the exporter was down): their unread lines are
    /// lost.
    pub lost_files: u64,
    /// Bytes known written to those files and not read: a lower bound, as what was written
    /// after the last state write is not known.
    pub lost_bytes: u64,
    /// Rolls no state recorded, found beside a followed file and read from their start
    /// ([`unrecorded`]).
    pub rolls_recovered: u64,
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
    /// Files the globs match that are compressed (skipped, counted once each), with their status
    /// change time: the kubelet deletes a `.gz` and creates a `0.log` in the same instant, and a
    /// new file that reused the inode must not be skipped for the gzip file it replaced.
    compressed: BTreeMap<Inode, paths::Changed>,
    /// Followed files whose first bytes were signed after they were opened empty.
    identities: u64,
    /// Followed files holding a descriptor (not parked).
    open_count: usize,
    /// A budget lower than the open files limit gives (the model test's, to park often).
    fd_cap: usize,
    /// The activity clock ([`Followed::active`]).
    ticks: u64,
    /// The directories inotify watches reliably ([`Follower::watch_with`]).
    watched_roots: Vec<Root>,
    /// The files a wake-up and a publication look at, and the lookups that find them ([`hot`]).
    hot: hot::Hot,
    /// Where the next tick of the sweep starts.
    sweep_cursor: usize,
    /// Files not watched reliably, as of the last scan.
    unwatched: usize,
    /// The identities of the followed files.
    followed: std::collections::HashSet<Inode>,
    /// Files let go or renamed, orphans kept ([`Follower::changes`]).
    changes: u64,
    /// The first start and the heads of files handed up: what finds rolls no state recorded.
    unrecorded: unrecorded::Unrecorded,
    /// Run once, after the next scan's globs were expanded and their paths `stat()`ed and before
    /// any is opened, with the directory of the first pattern: what a rotator does meanwhile (a
    /// unit test's).
    #[cfg(test)]
    beside_glob: Option<fn(&Path)>,
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
            compressed: BTreeMap::new(),
            identities: 0,
            open_count: 0,
            fd_cap: usize::MAX,
            ticks: 0,
            watched_roots: Vec::new(),
            hot: hot::Hot::default(),
            sweep_cursor: 0,
            unwatched: 0,
            followed: std::collections::HashSet::new(),
            changes: 0,
            unrecorded: unrecorded::Unrecorded::default(),
            #[cfg(test)]
            beside_glob: None,
        }
    }

    /// Takes what a state saved besides its entries: the wall time (seconds since the epoch) of
    /// the first start (`None` in a state written before it was saved: this start counts as the
    /// first), and the heads of files handed up ([`unrecorded`]).
    pub fn remember(&mut self, since: Option<f64>, heads: Vec<KnownHeads>) {
        if let Some(since) = since {
            self.unrecorded.restore(since, heads);
        }
    }

    /// Names at most `n` files in [`Follower::stats`] from now on (a test's).
    #[cfg(test)]
    pub fn set_max_file_series(&mut self, n: usize) {
        self.config.max_file_series = n;
    }

    /// Holds at most `n` files open at once, whatever the open files limit (the model test's).
    #[cfg(test)]
    pub fn cap_fd_budget(&mut self, n: usize) {
        self.fd_cap = n;
        self.fd_budget = self.fd_budget.min(n);
    }

    /// A count that moves whenever what [`Follower::save`] returns may have changed other than
    /// by reading: a file followed, let go, rotated, truncated or renamed, an orphan kept.
    pub fn changes(&self) -> u64 {
        self.identities() + self.changes + self.stats.rotations + self.stats.truncations
    }

    /// What the follower holds: files followed, orphan fragments (for the model test's bound).
    #[cfg(test)]
    pub fn held(&self) -> (usize, usize) {
        (self.files.len(), self.orphans.len())
    }

    /// How many times the follower learned an identity the state does not hold yet: a file
    /// followed (opened, resumed or finished from its `.gz`), or the first bytes of one that was
    /// empty (what finds its `.gz` after a restart). A change means the state has them to learn.
    pub fn identities(&self) -> u64 {
        self.next_id - 1 + self.identities
    }

    /// The directories to watch: the part of each pattern before its first glob character;
    /// with the names its glob matches there when not recursive.
    pub fn watch_roots(&self) -> Vec<Root> {
        self.config
            .patterns
            .iter()
            .map(|p| paths::root(p))
            .collect()
    }

    /// Expands the patterns: opens new files, notices rotated ones, checks for truncation.
    pub fn scan(&mut self, sink: &mut impl Sink) {
        let mut present: BTreeSet<Inode> = BTreeSet::new();
        let opened_before = self.files.len();
        let paths = matching_paths(&self.config.patterns, &mut self.directions);
        #[cfg(test)]
        if let Some(beside) = self.beside_glob.take() {
            let pattern = Path::new(&self.config.patterns[0]);
            beside(pattern.parent().unwrap_or(Path::new(".")));
        }
        if !self.unopenable.is_empty() {
            // A path gone is no longer unopenable.
            let listed: std::collections::HashSet<&PathBuf> = paths.iter().map(|p| &p.0).collect();
            self.unopenable.retain(|p| listed.contains(p));
        }
        self.fd_budget = fd_budget().min(self.fd_cap);
        // A parked file gone from its directory claims no identity, and one not yet known gone
        // claims its inode number under another name only with its first bytes ([`park`]): a
        // new file may have that number by now, and is a new file.
        let by_inode: std::collections::HashMap<Inode, usize> = self
            .files
            .iter()
            .enumerate()
            .filter(|(_, f)| !f.vanished)
            .map(|(i, f)| (f.inode, i))
            .collect();
        let mut renamed = Vec::new();
        let mut lookup = paths::Lookup::default();
        for (path, meta) in paths {
            let meta = match meta.map_or_else(|| fs::metadata(&path).map(|m| Stat::of(&m)), Ok) {
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
            if !meta.is_file {
                continue;
            }
            let inode = meta.inode;
            present.insert(inode);
            match self.compressed.get(&inode) {
                Some(changed) if *changed == meta.changed => continue,
                // A new file on the inode of a gzip file since deleted: the gzip file is gone.
                Some(_) => drop(self.compressed.remove(&inode)),
                None => {}
            }
            // Given up earlier in this scan, it claims nothing: the glob may list a file twice,
            // renamed between two of its paths' `stat`s.
            let claimed = by_inode.get(&inode).filter(|&&i| !self.files[i].vanished);
            if let Some(&i) = claimed {
                if self.is_file_at(i, &path) {
                    if self.files[i].found_at(path) {
                        self.mark_due(i);
                        renamed.push(i);
                        self.changes += 1;
                    }
                    continue;
                }
                // Parked and deleted: this is a new file on its number.
                self.finish_gone(i, &mut lookup, sink);
            }
            if let Some(opened) = self.open(&path, sink) {
                // The path may have been swapped between stat and open: what counts is the
                // identity of what was opened.
                present.insert(opened);
            }
        }
        self.compressed.retain(|inode, _| present.contains(inode));
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
        // Rolls no state recorded are older than the files the globs match now (they were
        // rotated away from them): read before them, or an execution's record in the new file
        // would come before its denials in the roll. They are newer than the files followed
        // before this scan or resumed from the state, whose unread ends come first.
        let globbed = self.files.len();
        self.read_unrecorded(sink, opened_before + resumed);
        let recovered = self.files.len() - globbed;
        self.files[opened_before + resumed..].rotate_right(recovered);
        // Files opened now are read after those already followed, each sequence in roll order;
        // files resumed from the state keep the order they were read in before, and rolls no
        // state recorded the order they were last written in (their names were given by a
        // rotation: logrotate's `.1` is newer than its `.2`).
        roll::order(
            &mut self.files[opened_before + resumed + recovered..],
            |f| f.sequence.as_ref(),
            &self.directions,
        );
        for i in renamed {
            self.files[i].watched = self.is_watched(&self.files[i].path);
        }
        self.count_unwatched();
        // Files inotify watches are checked when an event names them.
        for f in self.files.iter_mut().filter(|f| !f.watched) {
            if f.check_truncation(&mut self.stats, true) {
                sink.reset(f.id);
            }
        }
        self.relayout();
    }

    /// A drained rotated file leaves: its fragment is handed up if a successor was judged
    /// against it, else kept as an orphan for one.
    fn let_go(&mut self, mut f: Followed, sink: &mut impl Sink) {
        if !f.vanished {
            // A vanished file gave its inode up when it was found gone: a new file may hold it.
            self.followed.remove(&f.inode);
        }
        self.changes += 1;
        f.widen_signature(); // its whole first bytes: what its `.gz`, if one is made, begins with
        for signature in f.earlier_heads.iter().chain([&f.signature]) {
            self.unrecorded
                .remember(&f.sequence_path, f.inode, *signature);
        }
        if f.file.take().is_some() {
            self.open_count -= 1;
        }
        let (id, superseded) = (f.id, f.superseded);
        if let Some(orphan) = f.into_orphan(&self.directions) {
            if superseded {
                sink.unterminated(id, &orphan.fragment);
            } else {
                self.keep_orphan(orphan, sink);
            }
        }
        sink.closed(id);
    }

    /// A file a glob matched turned out compressed: it is skipped, and counted once.
    fn skip_compressed(&mut self, inode: Inode, changed: paths::Changed, path: &Path) {
        if self.compressed.insert(inode, changed).is_none() {
            self.stats.compressed_skipped += 1;
            debug!(path = %path.display(), "compressed file (gzip magic bytes); not read as lines");
        }
    }

    fn keep_orphan(&mut self, orphan: Orphan, sink: &mut impl Sink) {
        self.changes += 1;
        self.orphans.push(orphan);
        if self.orphans.len() > MAX_ORPHANS {
            let oldest = self.orphans.remove(0);
            sink.unterminated(NO_FILE, &oldest.fragment);
        }
    }
}
