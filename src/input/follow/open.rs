//! Starting to follow a file: opened within the descriptor budget, from its state entry if one
//! fits, else from its beginning (or, at the first start with `--read-from end`, its last line).
//!
//! At start-up, a state-file entry whose file no longer matches the globs (rotated away while
//! the exporter was down, or during its grace period) is looked for by inode in its directory
//! (and in its symlink target's); if found and still fitting, it is drained from its saved
//! offset and let go like any rotated file, so a restart during rotation loses nothing.
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

use super::paths::find_by_inode;
use super::{Followed, Follower, Opened, Sink, StartAt, FD_RESERVE};
use crate::input::chunk::LineBuffer;
use crate::input::identity::{Inode, Signature};
use crate::input::rejoin::Orphan;
use crate::input::roll::Sequence;

impl Follower {
    /// State entries that matched no file of the globs: if the file is still in its directory
    /// under another name (rotated while we were down, or during its grace period), drain it
    /// from the saved offset; otherwise drop the entry, keeping its fragment as an orphan.
    /// Returns how many were resumed (now the first files).
    pub(super) fn resume_rotated(&mut self, sink: &mut impl Sink) -> usize {
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

    /// Opens `path` and follows it, resuming from its state entry if one fits. Returns the
    /// identity of what was opened, `None` if it is not followed. A `rotated` file (found by
    /// [`Follower::resume_rotated`]) is followed only from a fitting state entry.
    pub(super) fn open(
        &mut self,
        path: &Path,
        sink: &mut impl Sink,
        rotated: bool,
    ) -> Option<Inode> {
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
