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
//!   a rewrite). Reading restarts at 0.
//!
//! Every wake-up (an inotify event, or the periodic stat) means "read every file to its end",
//! never "one line". Offsets advance only past complete lines ([`LineBuffer`]), and the pipeline
//! is fed on this same thread, so offsets and counters always describe the same lines.
//!
//! **Not here:** inotify plumbing and the loop (`crate::run`), what lines mean.
//!
//! Cold per wake-up (one `fstat` per file); hot inside [`Follower::read_all`].

use std::collections::BTreeSet;
use std::fs::{self, File};
use std::io::{Seek, SeekFrom};
use std::os::unix::fs::{FileExt, MetadataExt};
use std::path::{Path, PathBuf};
use std::sync::Mutex;
use std::time::{Duration, Instant};

use tracing::{debug, info, warn};

use super::chunk::LineBuffer;
use super::identity::{Inode, Signature};
use crate::account::snapshot::FileState;
use crate::cli::ReadFrom;
use crate::output::exposition::RunStats;
use crate::pipeline::{Pipeline, Source};

/// How long a rotated or deleted file, read to its end, is kept open for late writes.
pub const ROTATED_GRACE: Duration = Duration::from_secs(5);

/// Settings of the follower.
#[derive(Debug, Clone)]
pub struct FollowConfig {
    pub patterns: Vec<String>,
    /// Where to start in files never seen before that exist at start-up.
    pub read_from: ReadFrom,
    pub max_line_bytes: usize,
}

/// One followed file.
#[derive(Debug)]
struct Followed {
    path: PathBuf,
    file: File,
    inode: Inode,
    signature: Signature,
    buffer: LineBuffer,
    source: Source,
    /// Position of the descriptor: bytes read from the file so far.
    read_pos: u64,
    /// Last size seen by fstat.
    size: u64,
    /// The path no longer leads here (renamed away or deleted).
    rotated: bool,
    /// When a rotated file was first seen at its end without growth.
    drained_since: Option<Instant>,
}

/// Follows the files matching the patterns.
#[derive(Debug)]
pub struct Follower {
    config: FollowConfig,
    files: Vec<Followed>,
    /// State-file entries not yet matched to a file.
    restored: Vec<FileState>,
    /// Set once the first scan ran: later files are new and read from their beginning.
    started: bool,
    stats: RunStats,
    /// Paths that matched and could not be opened (logged once each).
    unopenable: BTreeSet<PathBuf>,
}

impl Follower {
    pub fn new(config: FollowConfig, restored: Vec<FileState>) -> Follower {
        Follower {
            config,
            files: Vec::new(),
            restored,
            started: false,
            stats: RunStats::default(),
            unopenable: BTreeSet::new(),
        }
    }

    /// The directories to watch: the part of each pattern before its first glob character.
    pub fn watch_roots(&self) -> Vec<(PathBuf, bool)> {
        self.config.patterns.iter().map(|p| watch_root(p)).collect()
    }

    pub fn stats(&mut self) -> &mut RunStats {
        &mut self.stats
    }

    /// The follower's counters, with each file's lag.
    pub fn run_stats(&self) -> RunStats {
        let mut stats = self.stats.clone();
        stats.files = self
            .files
            .iter()
            .map(|f| {
                (
                    f.path.display().to_string(),
                    f.size.saturating_sub(f.buffer.committed()),
                )
            })
            .collect();
        stats
    }

    /// Expands the patterns: opens new files, notices rotated ones, checks for truncation.
    pub fn scan(&mut self, pipeline: &Mutex<Pipeline>) {
        let mut present: BTreeSet<Inode> = BTreeSet::new();
        for path in self.matching_paths() {
            let Ok(meta) = fs::metadata(&path) else {
                continue;
            };
            if !meta.is_file() {
                continue;
            }
            let inode = Inode::of(&meta);
            present.insert(inode);
            if let Some(f) = self.files.iter_mut().find(|f| f.inode == inode) {
                if f.rotated {
                    f.rotated = false; // it came back under a matching name
                }
                if !is_symlink(&path) {
                    f.path = path; // a rename keeps the offset; remember the new name
                }
                continue;
            }
            self.open(&path, inode, pipeline);
        }
        for f in &mut self.files {
            if !f.rotated && !present.contains(&f.inode) {
                f.rotated = true;
                self.stats.rotations += 1;
                debug!(path = %f.path.display(), "file rotated away; draining it");
            }
        }
        self.check_truncation();
        if !self.started {
            self.started = true;
            for entry in self.restored.drain(..) {
                info!(path = %entry.path, "state entry for a file that is gone; dropped");
            }
        }
    }

    /// Reads every followed file to its end, feeding the pipeline; lets go of rotated files that
    /// stayed drained for the grace period.
    pub fn read_all(&mut self, pipeline: &Mutex<Pipeline>) {
        let now = Instant::now();
        let mut i = 0;
        while i < self.files.len() {
            let f = &mut self.files[i];
            let grew = read_to_end(f, pipeline, &mut self.stats);
            if let Ok(meta) = f.file.metadata() {
                f.size = meta.len();
                if meta.nlink() == 0 && !f.rotated {
                    f.rotated = true;
                    self.stats.rotations += 1;
                }
            }
            if f.rotated && !grew && f.read_pos >= f.size {
                let since = *f.drained_since.get_or_insert(now);
                if now.duration_since(since) >= ROTATED_GRACE {
                    debug!(path = %f.path.display(), "rotated file drained; letting go");
                    self.files.swap_remove(i);
                    continue;
                }
            } else {
                f.drained_since = None;
            }
            i += 1;
        }
    }

    /// Entries for the state file; call between reads (all complete lines were fed).
    pub fn save(&mut self) -> Vec<FileState> {
        self.files
            .iter_mut()
            .map(|f| {
                if f.signature.is_short() {
                    if let Ok(sig) = Signature::of(&f.file) {
                        f.signature = sig;
                    }
                }
                FileState {
                    path: f.path.display().to_string(),
                    inode: f.inode,
                    signature: f.signature,
                    offset: f.buffer.committed(),
                    partials: f.source.save_partials(),
                }
            })
            .collect()
    }

    /// Paths currently followed.
    pub fn paths(&self) -> Vec<PathBuf> {
        self.files.iter().map(|f| f.path.clone()).collect()
    }

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
        paths
    }

    fn open(&mut self, path: &Path, inode: Inode, pipeline: &Mutex<Pipeline>) {
        let file = match File::open(path) {
            Ok(file) => file,
            Err(error) => {
                if self.unopenable.insert(path.to_path_buf()) {
                    self.stats.file_errors_open += 1;
                    warn!(path = %path.display(), %error, "cannot open log file; will retry");
                }
                return;
            }
        };
        self.unopenable.remove(path);
        let (Ok(meta), Ok(signature)) = (file.metadata(), Signature::of(&file)) else {
            self.stats.file_errors_read += 1;
            return;
        };
        let size = meta.len();
        let config = pipeline
            .lock()
            .expect("pipeline lock")
            .accountant()
            .config()
            .clone();
        let mut source = Source::new(&path.display().to_string(), &config);
        let mut offset = None;
        if let Some(i) = self.restored.iter().position(|e| e.inode == inode) {
            let entry = self.restored.swap_remove(i);
            let fits = entry.offset <= size && entry.signature.matches(&file).unwrap_or(false);
            if fits {
                source.restore_partials(&entry.partials);
                offset = Some(entry.offset);
            } else {
                warn!(path = %path.display(), saved_offset = entry.offset, size,
                      "state entry no longer fits its file (rewritten or truncated); dropped");
            }
        }
        let offset = match (offset, self.started, self.config.read_from) {
            (Some(offset), _, _) => offset,
            (None, false, ReadFrom::End) => last_line_end(&file, size),
            (None, _, _) => 0,
        };
        let mut buffer = LineBuffer::new(self.config.max_line_bytes);
        buffer.reset(offset);
        let mut file = file;
        if let Err(error) = file.seek(SeekFrom::Start(offset)) {
            self.stats.file_errors_read += 1;
            warn!(path = %path.display(), %error, "cannot seek log file");
            return;
        }
        info!(path = %path.display(), offset, "following");
        self.files.push(Followed {
            path: path.to_path_buf(),
            file,
            inode,
            signature,
            buffer,
            source,
            read_pos: offset,
            size,
            rotated: false,
            drained_since: None,
        });
    }

    /// A size below our position, or changed first bytes, means the file was truncated or
    /// rewritten: start over at 0.
    fn check_truncation(&mut self) {
        for f in &mut self.files {
            let Ok(meta) = f.file.metadata() else {
                continue;
            };
            let shrunk = meta.len() < f.read_pos;
            let rewritten =
                !shrunk && f.read_pos > 0 && !f.signature.matches(&f.file).unwrap_or(true);
            if !(shrunk || rewritten) {
                continue;
            }
            self.stats.truncations += 1;
            warn!(path = %f.path.display(), offset = f.read_pos, size = meta.len(), "file truncated; reading from its start");
            f.buffer.reset(0);
            f.read_pos = 0;
            f.size = meta.len();
            f.signature = Signature::of(&f.file).unwrap_or(Signature { len: 0, hash: 0 });
            if f.file.seek(SeekFrom::Start(0)).is_err() {
                self.stats.file_errors_read += 1;
            }
        }
    }
}

/// Reads one file to its end. Returns true if anything was read.
fn read_to_end(f: &mut Followed, pipeline: &Mutex<Pipeline>, stats: &mut RunStats) -> bool {
    let mut grew = false;
    loop {
        let filled = match f.buffer.fill(&mut f.file) {
            Ok(filled) => filled,
            Err(error) => {
                stats.file_errors_read += 1;
                warn!(path = %f.path.display(), %error, "cannot read log file");
                return grew;
            }
        };
        f.read_pos += filled.read as u64;
        if filled.read == 0 && filled.oversized == 0 && f.buffer.lines().is_empty() {
            return grew;
        }
        grew = true;
        let mut pipeline = pipeline.lock().expect("pipeline lock");
        pipeline.oversized(&mut f.source, filled.oversized);
        pipeline.lines(&mut f.source, f.buffer.lines());
        f.buffer.consume();
        drop(pipeline);
        if filled.read == 0 {
            return grew;
        }
    }
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
