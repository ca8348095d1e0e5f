//! The model: every line as written (in which files, whole or not), and the little the model
//! must know of the exporter to tell which lines it can still reach.
//!
//! A line is *expected* (counted exactly once) when it is whole and not *out*. A line is out when
//! the exporter cannot count it without guessing, which the real world decides, not the follower:
//!
//! * `--read-from end` on a fresh start: every line already whole at the first scan is skipped.
//! * a piece of it is in a file the exporter can no longer reach, past what it holds of that file:
//!   at a scan, a file that neither matches the globs nor is followed (a roll deleted or rotated
//!   away before the exporter saw it, or while it was down and not in the state file). After a
//!   crash, what it holds of a file is what the last state write held (`durable_len`), and a file
//!   is followed again at the first scan only if it matches, or is a state entry still on disk.
//! * copytruncate: the lines of the copy past what the exporter had read (it never reads the copy).
//!
//! A fresh start (no state file) forgets everything: counters restart at zero, and so does the
//! expectation (every line becomes expected again, then the rules above are applied anew).
//!
//! Everything else must be counted exactly once: rolls, cut lines, renames (out of the globs too,
//! logrotate's numbered and the kubelet's timestamped names), rolls compressed at once or one
//! rotation later (a saved file found only as its `.gz` is finished from it), deleted-while-open
//! files, restarts with a state, crashes at any point (before the first state write too),
//! records in a later roll than their denial.
//!
//! What the generator does not do, because no follower could be exact about it (the phantoms are
//! written down in `exactly_once_known_limitations`): delete a file whose state fragment is stale
//! ([`MFile::may_unlink`]); rename away, truncate or delete svc's file before the state knows it
//! and its head ([`MFile::head_settled`]: files without roll numbers give no other way to tell
//! a file's successor); rename a truncated file away before the state caught up
//! ([`MFile::unsettled`]); make a file unreachable after a shutdown stopped a read somewhere
//! ([`Model::uncertain`]), or shut down while a compressed file was empty when the exporter
//! last saw it ([`Model::may_shut_down`]); cut a line just before its newline (see the writer).
//!
//! A compressed file is reached at a restart through its state entry only if the entry hashed
//! some of its first bytes (it was not empty when saved): an empty file's `.gz` cannot be told
//! from another's.

use std::path::PathBuf;

pub type FileKey = usize;
pub type LineKey = usize;

/// What a line is.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Kind {
    Noise,
    /// A mid-stream denial without a correlation key: read twice, counted twice.
    Plain,
    /// Execution `x`'s mid-stream denial (`reason="hook"`).
    ExecDenial(u32),
    /// Execution `x`'s record, listing the same tool use id.
    ExecRecord(u32),
}

/// Where part of a line is: in `file`, ending at byte `end`.
#[derive(Debug, Clone)]
pub struct Piece {
    pub file: FileKey,
    pub end: u64,
}

#[derive(Debug, Clone)]
pub struct MLine {
    pub kind: Kind,
    /// Its newline is written.
    pub whole: bool,
    /// Not expected (skipped by `--read-from end`, or lost with an unreachable file).
    pub out: bool,
    pub pieces: Vec<Piece>,
}

#[derive(Debug, Clone)]
pub struct MFile {
    pub path: PathBuf,
    pub len: u64,
    /// Its path matches the globs (itself, or as the target of a matching symlink).
    pub in_glob: bool,
    pub unlinked: bool,
    /// The running exporter follows it (or followed it and let it go, read to its end).
    pub followed: bool,
    /// Bytes the running exporter holds (read, or fragment kept).
    pub read_len: u64,
    /// Bytes the last state write held.
    pub durable_len: u64,
    /// The last state write has an entry that still fits it.
    pub in_entries: bool,
    /// The end of its last newline.
    pub last_nl: u64,
    /// The end of every newline.
    nls: Vec<u64>,
    /// Lines with a piece in it.
    pub lines: Vec<LineKey>,
    /// Truncated, and no state written since a scan noticed it: whether the state entry fits
    /// the new content depends on what the follower had signed (an empty signature fits
    /// anything), so whether it reads the file again, if it is renamed away while the exporter
    /// is down, is not the model's to say. The writer does not rename it away until it settles.
    pub unsettled: bool,
    /// Scanned since it was truncated.
    rescanned: bool,
    /// Rotated away and gzipped (a new file holding its bytes; the plain one deleted).
    pub compressed: bool,
    /// Bytes the running exporter last saw it hold (what its signature covers).
    seen_len: u64,
    /// The last state write's entry has a signature of its first bytes: it was not empty then,
    /// so its `.gz` can be recognised.
    signed: bool,
}

impl MFile {
    pub fn new(path: PathBuf, in_glob: bool) -> MFile {
        MFile {
            path,
            len: 0,
            in_glob,
            unlinked: false,
            followed: false,
            read_len: 0,
            durable_len: 0,
            in_entries: false,
            last_nl: 0,
            nls: Vec::new(),
            lines: Vec::new(),
            unsettled: false,
            rescanned: false,
            compressed: false,
            seen_len: 0,
            signed: false,
        }
    }

    fn matching(&self) -> bool {
        self.in_glob && !self.unlinked
    }

    /// The last state write kept a fragment of it (it held the file up to inside a line).
    pub fn durable_fragment(&self) -> bool {
        self.durable_len > 0 && !self.nls.contains(&self.durable_len)
    }

    /// Whether the state holds it past its first line when that line is the rest of a line
    /// cut by a rotation: until then, losing its head (renamed away unknown, truncated,
    /// deleted) would leave the predecessor's fragment waiting for a later file's head.
    pub fn head_settled(&self, lines: &[MLine], key: FileKey) -> bool {
        let Some(&first) = self.lines.first() else {
            return true;
        };
        let pieces = &lines[first].pieces;
        let cut_here = pieces.len() > 1 && pieces[0].file != key;
        !cut_here
            || pieces
                .iter()
                .find(|p| p.file == key)
                .is_some_and(|p| self.durable_len >= p.end)
    }

    /// The last state write's entry has a signature of its first bytes.
    pub fn signed(&self) -> bool {
        self.signed
    }

    /// Whether deleting it keeps the model exact: not if the state's fragment of it is stale
    /// (it grew after the state write). Gone at a restart, its fragment is joined to whatever
    /// the next file begins with, and two pieces of different lines can make valid JSON.
    pub fn may_unlink(&self) -> bool {
        !(self.durable_fragment() && self.len > self.durable_len)
    }
}

/// What the first scan after a start does.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum First {
    Fresh { end: bool },
    FromState,
}

/// The expected (or actual) `permission_denials_total`, by reason.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Counts {
    pub rule: u64,
    pub hook: u64,
    pub unknown: u64,
    /// Any other reason (never expected).
    pub other: u64,
}

impl Counts {
    pub fn total(&self) -> u64 {
        self.rule + self.hook + self.unknown + self.other
    }
}

#[derive(Debug, Default)]
pub struct Model {
    pub files: Vec<MFile>,
    pub lines: Vec<MLine>,
    pub up: bool,
    pub has_state: bool,
    /// The state was written by a shutdown in the middle of a read: it holds more than
    /// `durable_len` of some files, how much the model does not know. Until the next state
    /// write, the writer makes no file unreachable (no deletion, truncation).
    pub uncertain: bool,
    first: Option<First>,
}

impl Model {
    pub fn add_file(&mut self, path: PathBuf, in_glob: bool) -> FileKey {
        self.files.push(MFile::new(path, in_glob));
        self.files.len() - 1
    }

    pub fn add_line(&mut self, kind: Kind) -> LineKey {
        self.lines.push(MLine {
            kind,
            whole: false,
            out: false,
            pieces: Vec::new(),
        });
        self.lines.len() - 1
    }

    /// `len` bytes of `line` appended to `file`; `ends` if they end the line.
    pub fn append(&mut self, file: FileKey, line: LineKey, len: u64, ends: bool) {
        let f = &mut self.files[file];
        let start = f.len;
        f.len += len;
        if ends {
            f.last_nl = f.len;
            f.nls.push(f.len);
        }
        if f.lines.last() != Some(&line) {
            f.lines.push(line);
        }
        let l = &mut self.lines[line];
        l.pieces.push(Piece {
            file,
            end: start + len,
        });
        l.whole |= ends;
    }

    /// The exporter expanded the globs.
    pub fn scan(&mut self) {
        assert!(self.up);
        match self.first.take() {
            Some(First::Fresh { end: true }) => {
                for l in &mut self.lines {
                    l.out |= l.whole;
                }
                for f in &mut self.files {
                    if f.matching() {
                        f.read_len = f.last_nl;
                    }
                }
            }
            Some(First::FromState) => {
                for f in &mut self.files {
                    // A compressed file is finished from its `.gz`: from its saved offset when
                    // the state has its head, else read whole as a roll no state recorded (its
                    // saved offset is then 0: nothing of it was read when the state was written).
                    if f.in_entries && !f.unlinked {
                        f.followed = true;
                        if f.compressed {
                            f.read_len = f.len; // finished from its `.gz` by the scan itself
                        }
                    }
                }
            }
            Some(First::Fresh { end: false }) | None => {}
        }
        for f in &mut self.files {
            f.followed |= f.matching();
            f.rescanned |= f.followed;
            if f.followed && !f.compressed {
                f.seen_len = f.len;
            }
        }
        for k in 0..self.files.len() {
            let f = &self.files[k];
            if f.followed || f.matching() {
                continue;
            }
            let read_len = f.read_len;
            for &line in &f.lines {
                let l = &mut self.lines[line];
                if l.pieces.iter().any(|p| p.file == k && p.end > read_len) {
                    l.out = true;
                }
            }
        }
    }

    /// The exporter read every file it follows to its end.
    pub fn read(&mut self) {
        assert!(self.up);
        for f in &mut self.files {
            if f.followed {
                f.read_len = f.len;
                f.seen_len = f.len;
            }
        }
    }

    /// The exporter wrote its state.
    pub fn save(&mut self) {
        assert!(self.up);
        self.uncertain = false;
        for f in &mut self.files {
            // What it accounted for survives in the counters, even of a file it no longer
            // follows (the copy of a copytruncate holds what it read before the truncation).
            f.unsettled &= !(f.followed && f.rescanned);
            f.in_entries = f.followed && !f.unsettled;
            f.signed = f.seen_len > 0;
            f.durable_len = f.read_len;
        }
        self.has_state = true;
    }

    /// The first state write, after the first scan of a start: what a save writes, but the
    /// offsets restored are as uncertain as they were (see `uncertain`).
    pub fn first_save(&mut self) {
        let uncertain = self.uncertain;
        self.save();
        self.uncertain = uncertain;
    }

    /// A shutdown in the middle of a read: some of what was appended since the last read is
    /// in the state, and the model takes none of it (see `uncertain`).
    pub fn shutdown(&mut self) {
        self.save();
        self.uncertain = true;
        self.crash();
    }

    /// Whether a shutdown in the middle of a read keeps the model exact: not while a deleted
    /// file has bytes unread (how many of them the state holds is unknown, and nothing else
    /// will ever hold them), or a compressed one was empty when last seen.
    pub fn may_shut_down(&self) -> bool {
        !self.files.iter().any(|f| {
            f.followed && f.unlinked && f.read_len < f.len
                // Nor while a compressed file was empty when last seen: whether the state gets
                // a signature of its head (and its `.gz` can be found) depends on the read.
                || f.followed && f.compressed && f.seen_len == 0 && f.len > 0
        })
    }

    pub fn crash(&mut self) {
        self.up = false;
        for f in &mut self.files {
            f.followed = false;
            f.read_len = f.durable_len;
        }
    }

    /// The exporter starts: from its state file, or fresh (`end`: `--read-from end`).
    pub fn start(&mut self, drop_state: bool, end: bool) {
        assert!(!self.up);
        self.up = true;
        if drop_state || !self.has_state {
            self.has_state = false;
            for l in &mut self.lines {
                l.out = false;
            }
            for f in &mut self.files {
                f.read_len = 0;
                f.durable_len = 0;
                f.in_entries = false;
            }
            self.first = Some(First::Fresh { end });
        } else {
            self.first = Some(First::FromState);
        }
    }

    /// copytruncate of `file`: its content moves to the new file `copy` (outside the globs),
    /// and the lines there past what the exporter had read are lost; `file` is empty again.
    pub fn copy_truncate(&mut self, file: FileKey, copy: FileKey) {
        let (read_len, moved) = {
            let f = &mut self.files[file];
            let moved = std::mem::take(&mut f.lines);
            let read_len = f.read_len;
            let c = (f.len, f.last_nl, f.durable_len);
            f.len = 0;
            f.last_nl = 0;
            f.nls.clear();
            f.read_len = 0;
            f.durable_len = 0;
            f.unsettled = true;
            f.rescanned = false;
            f.in_entries = false;
            let nls = std::mem::take(&mut f.nls);
            let g = &mut self.files[copy];
            (g.len, g.last_nl, g.durable_len) = c;
            g.nls = nls;
            g.read_len = read_len;
            (read_len, moved)
        };
        for &line in &moved {
            let l = &mut self.lines[line];
            for p in &mut l.pieces {
                if p.file == file {
                    p.file = copy;
                    l.out |= p.end > read_len;
                }
            }
        }
        self.files[copy].lines = moved;
    }

    pub fn expected(&self) -> Counts {
        let mut counts = Counts::default();
        let mut denied = std::collections::BTreeSet::new();
        let mut recorded = std::collections::BTreeSet::new();
        for l in self.lines.iter().filter(|l| l.whole && !l.out) {
            match l.kind {
                Kind::Noise => {}
                Kind::Plain => counts.rule += 1,
                Kind::ExecDenial(x) => {
                    denied.insert(x);
                }
                Kind::ExecRecord(x) => {
                    recorded.insert(x);
                }
            }
        }
        counts.hook = denied.len() as u64;
        counts.unknown = recorded.difference(&denied).count() as u64;
        counts
    }
}
