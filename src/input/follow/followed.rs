//! One followed file: its descriptor (none while parked), its identity, how far it was read, and
//! where it stands (rotated away, drained since when, its first line judged or not).
//!
//! Owns [`Followed`] and what one file does by itself: noticing it was truncated or rewritten
//! under us and restarting at 0; widening a short signature as the file grows, so that a later
//! rewrite of its first bytes is still noticed; taking its size and edge after a read; giving back
//! its descriptor (parking) and taking one again; its lag, whether it has something left to do,
//! and its state-file entry.
//!
//! **Not here:** anything about the set of files (the [`Follower`](super::Follower): their order,
//! predecessors and rejoins, the descriptor budget, the hot set), reading its lines
//! ([`super::drain`]), telling the [`Sink`](super::Sink) (the caller does, when a check returns
//! true).
//!
//! Cold: one `fstat` per check, plus a ≤1 KiB read when the prefix is checked or a short
//! signature widened.

use std::fs::{self, File};
use std::io::{Seek, SeekFrom};
use std::os::unix::fs::MetadataExt;
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant, SystemTime};

use tracing::{debug, warn};

use super::paths::{is_symlink, locate, Located, Lookup};
use super::{FileId, FileState, FollowStats};
use crate::input::chunk::LineBuffer;
use crate::input::identity::{Edge, Inode, Signature};
use crate::input::rejoin::Orphan;
use crate::input::roll::{Directions, Sequence};

/// One followed file.
#[derive(Debug)]
pub(super) struct Followed {
    pub(super) id: FileId,
    pub(super) path: PathBuf,
    /// The path it was first followed under (what a rename + create reuses).
    pub(super) first_path: PathBuf,
    /// The name that places it in a roll sequence (a symlink's target).
    pub(super) sequence_path: PathBuf,
    pub(super) sequence: Option<Sequence>,
    /// Its descriptor; `None` while parked ([`super::park`]): read to its end and closed, to be
    /// opened again when a stat or an event says it changed.
    pub(super) file: Option<File>,
    /// Modification time when it was parked: with the size, what says a parked file changed.
    parked_mtime: Option<SystemTime>,
    /// Parked, rotated, and found nowhere: only its grace period is left.
    pub(super) vanished: bool,
    /// Read at the next pass: an event named it, or the sweep or a scan asked
    /// ([`super::sweep`]).
    pub(super) due: bool,
    /// inotify watches its directory reliably: the sweep leaves it to the events.
    pub(super) watched: bool,
    /// When it was last read from or opened, in [`Follower`](super::Follower) ticks: the least
    /// recently active open file is parked first.
    pub(super) active: u64,
    pub(super) inode: Inode,
    pub(super) signature: Signature,
    pub(super) buffer: LineBuffer,
    /// Position of the descriptor: bytes read from the file so far.
    pub(super) read_pos: u64,
    /// Last size seen by fstat.
    pub(super) size: u64,
    /// The bytes before `read_pos` when reading last stopped, checked on every scan.
    edge: Option<Edge>,
    /// The path no longer leads here (renamed away or deleted).
    pub(super) rotated: bool,
    /// When a rotated file was first seen at its end without growth.
    drained_since: Option<Instant>,
    /// Read from 0 and its first line not yet judged against a predecessor's fragment.
    pub(super) head_unjudged: bool,
    /// A successor's head was judged against this file's fragment.
    pub(super) superseded: bool,
    /// The size it had when it was seen read to its end after the next roll of its sequence
    /// began ([`Followed::note_ended`]): its writer had moved on. Saved as the entry's `ended`
    /// while it is still that size.
    ended_at: Option<u64>,
    /// The fragment of the state entry it was resumed from, at that offset: what a state
    /// written before it is read again must keep (the bytes are in the file, not yet in the
    /// buffer).
    resumed_fragment: Option<(u64, Vec<u8>)>,
    /// The signatures it had before it was truncated or rewritten, the latest last (at most
    /// [`EARLIER_HEADS`]): a copy made of it (copytruncate's) is known by them.
    pub(super) earlier_heads: Vec<Signature>,
}

/// How many signatures of a file truncated again and again are kept.
const EARLIER_HEADS: usize = 8;

/// Where a file just opened starts: what its state entry (or its absence) said.
pub(super) struct Start {
    /// The offset its descriptor was moved to.
    pub(super) offset: u64,
    /// Its size when opened.
    pub(super) size: u64,
    /// The path it continues (its state entry's, when found renamed at a restart).
    pub(super) first_path: PathBuf,
    /// The state entry's fragment, at its offset.
    pub(super) resumed_fragment: Option<(u64, Vec<u8>)>,
    /// Found rotated away at a restart: drained, then let go.
    pub(super) rotated: bool,
    /// The state entry's edge, at `offset` when it has one.
    pub(super) edge: Option<Edge>,
    /// The state entry said its writer had moved on, and the file has not grown since: its
    /// size.
    pub(super) ended_at: Option<u64>,
}

impl Followed {
    /// The file `file`, just opened at `path` and moved to `start.offset`; not yet due, watched
    /// nor active (the follower says).
    pub(super) fn new(
        id: FileId,
        path: &Path,
        file: File,
        (inode, signature): (Inode, Signature),
        buffer: LineBuffer,
        start: Start,
    ) -> Followed {
        let sequence_path = fs::canonicalize(path).unwrap_or_else(|_| path.to_path_buf());
        Followed {
            id,
            path: path.to_path_buf(),
            first_path: start.first_path,
            sequence: Sequence::of(&sequence_path),
            sequence_path,
            file: Some(file),
            parked_mtime: None,
            vanished: false,
            due: false,
            watched: false,
            active: 0,
            inode,
            signature,
            buffer,
            read_pos: start.offset,
            size: start.size,
            edge: start.edge,
            rotated: start.rotated,
            drained_since: None,
            head_unjudged: start.offset == 0,
            superseded: false,
            ended_at: start.ended_at,
            resumed_fragment: start.resumed_fragment,
            earlier_heads: Vec::new(),
        }
    }

    /// The scan found it at `path`: no longer rotated, and renamed if `path` is a new name
    /// (not a symlink to it). Returns true if it was renamed.
    pub(super) fn found_at(&mut self, path: PathBuf) -> bool {
        if self.rotated {
            self.rotated = false; // it came back under a matching name
            self.drained_since = None;
        }
        if self.path == path || is_symlink(&path) {
            return false;
        }
        // Named as open() names it, so that it is in the sequence it was learned in.
        self.sequence_path = fs::canonicalize(&path).unwrap_or_else(|_| path.clone());
        self.sequence = Sequence::of(&self.sequence_path);
        self.path = path; // a rename keeps the offset; remember the new name
        true
    }

    /// Notices a truncation or a rewrite and restarts at 0; returns true if it did.
    ///
    /// A size below our position means truncated. Changed first bytes, or changed bytes just
    /// before our position, mean rewritten (copytruncate followed by as many writes as we had
    /// read, before we looked, as a poll interval allows): checked when `check_prefix` (the
    /// periodic scan, and after a read found the prefix changed under it).
    pub(super) fn check_truncation(&mut self, stats: &mut FollowStats, check_prefix: bool) -> bool {
        let Some(file) = &self.file else {
            return false; // parked: checked when it is opened again
        };
        let Ok(meta) = file.metadata() else {
            return false;
        };
        let size = meta.len();
        let shrunk = size < self.read_pos;
        let rewritten = !shrunk
            && self.read_pos > 0
            && check_prefix
            && (!self.signature.matches(file).unwrap_or(true)
                || self
                    .edge
                    .is_some_and(|e| e.offset == self.read_pos && !e.holds(file).unwrap_or(true)));
        if !(shrunk || rewritten) {
            return false;
        }
        stats.truncations += 1;
        warn!(path = %self.path.display(), offset = self.read_pos, size, "file truncated; reading from its start");
        if self.signature.len > 0 {
            if self.earlier_heads.len() == EARLIER_HEADS {
                self.earlier_heads.remove(0);
            }
            self.earlier_heads.push(self.signature);
        }
        self.signature = Signature::of(file).unwrap_or(Signature { len: 0, hash: 0 });
        self.buffer.reset(0);
        self.read_pos = 0;
        self.size = size;
        self.drained_since = None;
        self.edge = None;
        self.head_unjudged = false; // new content, not the rest of anything
        self.resumed_fragment = None;
        self.ended_at = None; // rewritten: written again
        if self
            .file
            .as_mut()
            .is_none_or(|file| file.seek(SeekFrom::Start(0)).is_err())
        {
            stats.file_errors_read += 1;
        }
        true
    }

    /// A file created empty or short: widen its signature as it grows (up to 1 KiB), so that a
    /// later rewrite of its first bytes is still noticed — but only while what it covered is
    /// still there (a rewrite is for [`Followed::check_truncation`] to notice, not to be signed).
    /// Returns true if the file had no signed bytes before and has now (its first bytes are
    /// known).
    pub(super) fn widen_signature(&mut self) -> bool {
        let Some(file) = &self.file else {
            return false; // parked: widened when read again
        };
        if !self.signature.is_short() || self.size <= self.signature.len {
            return false;
        }
        let was_empty = self.signature.len == 0;
        if self.signature.matches(file).unwrap_or(false) {
            if let Ok(signature) = Signature::of(file) {
                self.signature = signature;
            }
        }
        was_empty && self.signature.len > 0
    }

    /// After a read: takes its size again (a file deleted while open counts as rotated), widens
    /// its signature, keeps the edge the next scan checks, and gives back an idle buffer.
    /// Returns true if its first bytes were newly signed.
    pub(super) fn settle(&mut self, stats: &mut FollowStats) -> bool {
        if let Some(meta) = self.file.as_ref().and_then(|file| file.metadata().ok()) {
            self.size = meta.len();
            if meta.nlink() == 0 && !self.rotated {
                self.rotated = true;
                stats.rotations += 1;
            }
        }
        let signed = self.widen_signature();
        self.edge = self
            .file
            .as_ref()
            .and_then(|file| Edge::at(file, self.read_pos).ok().flatten());
        self.buffer.release_if_idle();
        signed
    }

    /// Whether, still under its name, it was read to its end and has neither grown nor shrunk
    /// since: then a wake-up has nothing to read, check or sign in it, and costs one `fstat`.
    /// (A rewrite to the same size is the periodic scan's to notice: the edge kept from the last
    /// read is what it compares.)
    pub(super) fn is_unchanged(&self) -> bool {
        !self.rotated
            && self.read_pos == self.size
            && self.file.as_ref().is_some_and(|file| {
                file.metadata()
                    .is_ok_and(|meta| meta.len() == self.size && meta.nlink() > 0)
            })
    }

    /// Whether it grew past what was read of it: one `fstat`.
    pub(super) fn grew(&self) -> bool {
        self.file
            .as_ref()
            .is_some_and(|file| file.metadata().is_ok_and(|meta| meta.len() > self.read_pos))
    }

    /// Whether it was deleted while we hold it open (no name leads to it): our descriptor is
    /// the only sure way to its unread bytes. One `fstat`; false if parked.
    pub(super) fn is_deleted(&self) -> bool {
        self.file
            .as_ref()
            .is_some_and(|file| file.metadata().is_ok_and(|meta| meta.nlink() == 0))
    }

    /// Bytes not accounted for yet.
    pub(super) fn lag(&self) -> u64 {
        self.size.saturating_sub(self.buffer.committed())
    }

    /// Whether it is read at every pass, named or not: rotated (drained until it is let go), or
    /// with bytes it has not read yet (a read stopped at shutdown's flag).
    pub(super) fn pending(&self) -> bool {
        self.rotated || self.vanished || self.read_pos < self.size
    }

    /// What names its lag series: the path's bytes, and whether it was rotated away from it.
    pub(super) fn series_name(&self) -> (&[u8], bool) {
        (self.path.as_os_str().as_encoded_bytes(), self.rotated)
    }

    /// Rotated and drained, whether it has stayed so for `grace` (the clock starts now if it
    /// had not yet).
    pub(super) fn drained_for(&mut self, now: Instant, grace: Duration) -> bool {
        let since = *self.drained_since.get_or_insert(now);
        now.duration_since(since) >= grace
    }

    /// It grew, or is not drained: a later drain starts its grace period again.
    pub(super) fn not_drained(&mut self) {
        self.drained_since = None;
    }

    /// Whether it may be parked: open, under its name, read to its end as far as we know.
    pub(super) fn parkable(&self) -> bool {
        self.file.is_some() && !self.rotated && self.read_pos >= self.size
    }

    /// Gives back its descriptor, recording its size and modification time (what says it
    /// changed). Returns false if it was parked already.
    pub(super) fn park(&mut self) -> bool {
        let Some(file) = self.file.take() else {
            return false;
        };
        if let Ok(meta) = file.metadata() {
            self.size = meta.len();
            self.parked_mtime = meta.modified().ok();
        }
        self.buffer.release_if_idle();
        debug!(path = %self.path.display(), offset = self.read_pos, "file parked (descriptor closed)");
        true
    }

    /// Whether, parked, `meta` (of its inode, at its path) shows it unchanged, with nothing left
    /// to read.
    pub(super) fn parked_unchanged(&self, meta: &fs::Metadata) -> bool {
        self.read_pos >= self.size
            && meta.len() == self.size
            && meta.modified().ok() == self.parked_mtime
    }

    /// Takes `file`, opened again at `path`, as its descriptor at its offset, if it is the same
    /// file; returns false if it is not (swapped between a stat and the open) or cannot seek.
    pub(super) fn unpark(&mut self, file: File, path: &Path, tick: u64) -> bool {
        let same = file.metadata().is_ok_and(|m| Inode::of(&m) == self.inode);
        let mut file = file;
        if !same || file.seek(SeekFrom::Start(self.read_pos)).is_err() {
            return false;
        }
        debug!(path = %path.display(), offset = self.read_pos, "parked file changed; opened again");
        self.file = Some(file);
        self.parked_mtime = None;
        self.active = tick;
        true
    }

    /// Where it is now that its path no longer leads to it: the path it was opened under (a
    /// symlink's target then) if it still leads to its inode and first bytes, else a file of its
    /// identity in its directory, else the compressed roll made of it ([`locate`]).
    pub(super) fn whereabouts(&self, lookup: &mut Lookup) -> Located {
        let fits = |file: &File| {
            file.metadata()
                .is_ok_and(|m| Inode::of(&m) == self.inode && m.len() >= self.read_pos)
                && self.signature.matches(file).unwrap_or(false)
        };
        if let Some(file) = File::open(&self.sequence_path).ok().filter(fits) {
            return Located::Plain(self.sequence_path.clone(), file);
        }
        let entry = FileState {
            path: self.path.display().to_string(),
            inode: self.inode,
            signature: self.signature,
            offset: self.read_pos,
            fragment: None,
            sequence_path: None,
            first_path: None,
            edge: self.edge.filter(|e| e.offset == self.read_pos),
            size: None,
            rotated: false,
            ended: false,
        };
        locate(&entry, lookup)
    }

    /// Its state-file entry; call between reads (all its complete lines were handed up).
    pub(super) fn state(&mut self) -> FileState {
        self.widen_signature(); // signed now, it is in this state
        self.buffer.consume();
        FileState {
            path: self.path.to_string_lossy().into_owned(),
            inode: self.inode,
            signature: self.signature,
            offset: self.buffer.committed(),
            fragment: self.buffer.tail().map(<[u8]>::to_vec).or_else(|| {
                // Resumed and not read yet: the entry's fragment still holds.
                self.resumed_fragment
                    .as_ref()
                    .filter(|(at, _)| *at == self.read_pos)
                    .map(|(_, fragment)| fragment.clone())
            }),
            sequence_path: (self.sequence_path != self.path)
                .then(|| self.sequence_path.to_string_lossy().into_owned()),
            first_path: (self.first_path != self.path)
                .then(|| self.first_path.to_string_lossy().into_owned()),
            edge: self.edge.filter(|e| e.offset == self.read_pos),
            size: (self.size > self.buffer.committed()).then_some(self.size),
            // Renamed away from the path its writer opens, even to a name the globs still match
            // (the kubelet's `0.log` -> `0.log.<time>`): that writer reopens the path.
            rotated: self.rotated || self.path != self.first_path,
            ended: self
                .ended_at
                .is_some_and(|at| at == self.size && self.read_to() == at),
        }
    }

    /// Where its bytes were read to, counting the fragment of the entry it was resumed from
    /// (in the file past `read_pos`, and in the state) while it is not read yet.
    fn read_to(&self) -> u64 {
        let resumed = self.resumed_fragment.as_ref();
        let resumed = resumed.filter(|(at, _)| *at == self.read_pos);
        self.read_pos + resumed.map_or(0, |(_, fragment)| fragment.len() as u64)
    }

    /// The next roll of its sequence began (its first line was read) and this file was read to
    /// its end before that line is handed up: if it is open and that end is its size now, its
    /// writer had moved on and will not write to it again. One `fstat`, once per roll.
    pub(super) fn note_ended(&mut self) {
        let Some(len) = self
            .file
            .as_ref()
            .and_then(|f| f.metadata().ok())
            .map(|m| m.len())
        else {
            return; // parked: its end is not known to be read
        };
        if len == self.read_pos {
            self.size = len;
            self.ended_at = Some(len);
        }
    }

    /// Let go: its unterminated last piece, as an orphan fragment for a successor (`directions`
    /// says which way its roll sequence counts), or `None` if it ended with a newline.
    pub(super) fn into_orphan(mut self, directions: &Directions) -> Option<Orphan> {
        self.buffer.consume();
        let fragment = self.buffer.tail().map(<[u8]>::to_vec)?;
        Some(Orphan {
            direction: self.sequence.as_ref().and_then(|s| directions.known(s)),
            path: self.first_path,
            sequence_path: self.sequence_path,
            fragment,
        })
    }
}
