//! Starting to follow a file, from its state entry if one fits, else from its beginning (or, at
//! the first start with `--read-from end`, its last line); past the descriptor budget it waits
//! parked ([`super::park`]) for its turn to be read.
//!
//! At start-up, a state-file entry whose file no longer matches the globs (rotated away while
//! the exporter was down, or during its grace period) is looked up by identity in its directory
//! (and in its symlink target's), whatever the globs match: found plain, it is drained from its
//! saved offset and let go like any rotated file; found only compressed, it is finished from its
//! `.gz` ([`super::finish`]); not found, the entry is dropped and counted. A file that starts
//! with the gzip magic bytes is never followed as lines.
//!
//! **Not here:** reading its lines ([`super::drain`]), choosing which paths to open
//! ([`super::paths`]).
//!
//! Cold: once per file opened.

use std::fs::{self, File};
use std::io::{ErrorKind, Seek, SeekFrom};
use std::os::unix::fs::FileExt;
use std::path::{Path, PathBuf};

use tracing::{debug, info, warn};

use super::followed::{Followed, Start};
use super::paths::{locate, Located, Lookup};
use super::FileState;
use super::{Follower, Opened, Sink, StartAt, FD_RESERVE};
use crate::input::chunk::LineBuffer;
use crate::input::compressed::is_gzip;
use crate::input::identity::{Inode, Signature};
use crate::input::rejoin::Orphan;
use crate::input::roll::Sequence;

impl Follower {
    /// State entries that matched no file of the globs, looked up by identity in their
    /// directory ([`locate`]): a file still there under another name (rotated while we were
    /// down, or during its grace period) is drained from its saved offset; a file found only
    /// compressed is finished from its `.gz` at once; an entry whose file is gone is dropped
    /// (counted), keeping its fragment as an orphan. Returns how many were resumed (now the
    /// first files).
    pub(super) fn resume_rotated(&mut self, sink: &mut impl Sink) -> usize {
        let entries = std::mem::take(&mut self.restored);
        let lost = (self.stats.lost_files, self.stats.lost_bytes);
        let before = self.files.len();
        let mut lookup = Lookup::default();
        for entry in entries {
            match locate(&entry, &mut lookup) {
                Located::Plain(path, file) => {
                    info!(path = %entry.path, now = %path.display(), "file rotated while stopped; draining it");
                    self.restored.push(entry);
                    if self.follow(&path, file, sink, Found::Rotated).is_some() {
                        self.stats.rotations += 1;
                    }
                }
                // Compressed rolls are older than every plain file of their log: finished now,
                // before any other file is read.
                Located::Compressed(gz, file) => self.finish_compressed(entry, &gz, file, sink),
                Located::Gone => self.drop_entry(entry, sink),
            }
        }
        self.restored.clear(); // what open() did not take did not fit, and it said so
        let (files, bytes) = (
            self.stats.lost_files - lost.0,
            self.stats.lost_bytes - lost.1,
        );
        if files > 0 {
            warn!(files, at_least_bytes = bytes,
                  "files deleted before they were read to their end (rotated away, or removed with their pod, while the exporter was down): their unread lines are lost");
        }

        // Files rotated away while we were down are older than any the globs match: read them
        // first.
        let resumed = self.files.split_off(before);
        let count = resumed.len();
        self.files.splice(0..0, resumed);
        count
    }

    /// A state entry no file in its directory has the identity of: dropped and counted; its
    /// fragment is kept as an orphan for the file that continues it.
    pub(super) fn drop_entry(&mut self, entry: FileState, sink: &mut impl Sink) {
        self.stats.state_entries_dropped += 1;
        // What was read of it is counted: a copy of it (copytruncate's) is no roll to read.
        self.unrecorded
            .remember(Path::new(&entry.path), entry.inode, entry.signature);
        let at_path = fs::metadata(&entry.path).is_ok_and(|m| Inode::of(&m) == entry.inode);
        if at_path {
            warn!(path = %entry.path, saved_offset = entry.offset,
                  "state entry no longer fits its file (rewritten or truncated, or its inode reused by a new file); dropped");
        } else {
            // Lost: bytes known unread, or a file its writer may still have been writing when
            // saved whose directory is still there (its rotation deleted it). Not lost: a file
            // whose writer had moved on to its next roll and that was read to its end after
            // that (`ended`; its last unterminated piece is the entry's fragment, kept below).
            // A directory gone is a pod deleted: what it wrote after the last state write
            // cannot be known, and is not claimed.
            let unread = entry
                .size
                .unwrap_or(entry.offset)
                .saturating_sub(entry.offset);
            let dir_gone = Path::new(&entry.path).parent().is_some_and(|d| !d.exists());
            let lost = !entry.ended && (unread > 0 || !(entry.rotated || dir_gone));
            info!(path = %entry.path, lost, unread,
                  "state entry for a file that is gone (no file in its directory has its identity); dropped");
            if lost {
                self.stats.lost_files += 1;
                self.stats.lost_bytes += unread;
            }
        }
        if let Some(fragment) = entry.fragment.clone() {
            self.keep_entry_fragment(&entry, fragment, sink);
        }
    }

    /// Keeps the unterminated end of a state entry's file, which is no longer followed, as an
    /// orphan for the file that continues it.
    pub(super) fn keep_entry_fragment(
        &mut self,
        entry: &FileState,
        fragment: Vec<u8>,
        sink: &mut impl Sink,
    ) {
        let sequence_path = PathBuf::from(entry.sequence_path.as_deref().unwrap_or(&entry.path));
        let direction = Sequence::of(&sequence_path).and_then(|s| self.directions.known(&s));
        self.keep_orphan(
            Orphan {
                path: PathBuf::from(entry.first_path()),
                sequence_path,
                fragment,
                direction,
            },
            sink,
        );
    }

    /// Opens `path`, a glob's match, and follows it, resuming from its state entry if one fits.
    /// Returns the identity of what was opened, `None` if it is not followed.
    pub(super) fn open(&mut self, path: &Path, sink: &mut impl Sink) -> Option<Inode> {
        let file = match self.open_path(path) {
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
        self.follow(path, file, sink, Found::Globbed)
    }

    /// Follows `file`, a roll of the log at `log` no state recorded, found at `path`
    /// ([`super::unrecorded`]), from its start, as a rotated file: read to its end, then let go.
    pub(super) fn open_unrecorded(
        &mut self,
        path: &Path,
        log: &Path,
        file: File,
        sink: &mut impl Sink,
    ) -> Option<Inode> {
        self.follow(path, file, sink, Found::Unrecorded(log))
    }

    /// Follows `file`, just opened at `path`, found as `found` says.
    fn follow(
        &mut self,
        path: &Path,
        file: File,
        sink: &mut impl Sink,
        found: Found<'_>,
    ) -> Option<Inode> {
        let rotated = found != Found::Globbed;
        let (Ok(meta), Ok(signature)) = (file.metadata(), Signature::of(&file)) else {
            self.stats.file_errors_read += 1;
            return None;
        };
        let inode = Inode::of(&meta);
        if self.followed.contains(&inode) {
            return Some(inode); // already followed (the path was swapped under us)
        }
        if is_gzip(&file) {
            self.skip_compressed(inode, super::paths::changed(&meta), path);
            return None;
        }
        let size = meta.len();
        let mut offset = None;
        let mut resumed_fragment = None;
        let mut edge = None;
        let mut ended_at = None;
        let mut first_path = match found {
            Found::Unrecorded(log) => log.to_path_buf(),
            _ => path.to_path_buf(),
        };
        // The first entry of its inode that fits it: a file given up while parked is saved
        // with an inode number a new file may have now, whose own entry comes later. An entry
        // of its inode that does not fit (the number reused, or the file rewritten in place)
        // stays to be looked up by identity (its content may be in a compressed roll), and is
        // dropped, said and counted, only if no file has it.
        let fits = |e: &FileState| {
            e.inode == inode && e.offset <= size && e.signature.matches(&file).unwrap_or(false)
        };
        if let Some(i) = self.restored.iter().position(fits) {
            // remove, not swap_remove: the entries left are resumed in their saved order (the
            // order they were read in), which is also the order of their rotations.
            let entry = self.restored.remove(i);
            offset = Some(entry.offset);
            edge = entry.edge;
            // Its writer had moved on, and it has not grown since.
            let saved_end = entry.offset + entry.fragment.as_ref().map_or(0, |f| f.len() as u64);
            ended_at = (entry.ended && size == saved_end).then_some(size);
            resumed_fragment = entry.fragment.clone().map(|f| (entry.offset, f));
            // Found under its rotated name, it is still the file of the path it was followed
            // under: a new file there continues it (rename + create while down).
            first_path = PathBuf::from(entry.first_path());
        }
        let resumed = offset.is_some();
        let skip_existing = self.fresh && !self.started && self.config.start_at == StartAt::End;
        let offset = match (offset, rotated, skip_existing) {
            (Some(offset), _, _) => offset,
            (None, true, _) if found == Found::Rotated => return None,
            (None, true, _) => 0,
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
        let id = self.next_id;
        self.next_id += 1;
        sink.opened(&Opened {
            id,
            path,
            inode,
            resumed,
        });
        let start = Start {
            offset,
            size,
            first_path,
            edge,
            resumed_fragment,
            rotated,
            ended_at,
        };
        let mut f = Followed::new(id, path, file, (inode, signature), buffer, start);
        f.watched = self.is_watched(path);
        f.active = self.tick();
        self.files.push(f);
        self.open_count += 1;
        self.followed.insert(inode);
        self.mark_due(self.files.len() - 1);
        // Past the budget: an idle file gives its descriptor, or this one waits parked, to be
        // read when its turn comes.
        if !self.fit_budget(None, self.fd_budget) {
            self.park(self.files.len() - 1);
        }
        Some(inode)
    }
}

/// How a file to follow was found.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Found<'a> {
    /// A glob matches it.
    Globbed,
    /// A state entry's file, found by identity under another name at a restart: followed only
    /// from that entry.
    Rotated,
    /// A roll no state recorded of the log at this path, beside it: read from its start.
    Unrecorded(&'a Path),
}

/// Files the follower may hold open: the open files limit minus [`FD_RESERVE`] (at least 16).
pub(super) fn fd_budget() -> usize {
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
