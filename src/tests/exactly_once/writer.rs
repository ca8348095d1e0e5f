//! The writers: real files in a temporary directory, changed the way loggers and rotators change
//! them, each change also told to the [`Model`].
//!
//! Three writers share `logs/`, followed with the glob `logs/*.log`:
//!
//! * **pino**: pino-roll's numbered rolls `logs/app.N.log`, a `logs/current.log` symlink moved to
//!   the newest (removed and created again), the oldest roll deleted now and then (`limit.count`).
//! * **kube**: rolls `data/pod.N.log` outside the globs, reached only through the symlink
//!   `logs/pod.log`, swapped atomically (a new link renamed over it), as kubelet does.
//! * **svc**: one `logs/svc.log`, rotated by logrotate: rename + create (`svc.log.1`, … outside
//!   the globs, shifted, the oldest deleted), copytruncate, or deleted while open and created
//!   again; with `compress` (rolls gzipped into `svc.log.N.gz`, the newest at once, or one
//!   rotation later with `delaycompress`). Or, for a whole schedule, by the kubelet instead:
//!   `svc.log` renamed to `svc.log.<YYYYMMDD-hhmmss>` (no shifting), every roll but the newest
//!   gzipped, the oldest deleted.
//!
//! A line can be written in two pieces; a roll or rotation between them puts the rest at the
//! start of the new file (a cut line). Nothing is written to a file after it was rolled, renamed
//! or deleted: a writer moves on at once.

use std::fs::{self, OpenOptions};
use std::io::Write;
use std::os::unix::fs::symlink;
use std::path::{Path, PathBuf};

use flate2::write::GzEncoder;
use flate2::Compression;

use super::model::{FileKey, Kind, LineKey, Model};

/// Log times start here (2026-06-12), one millisecond per line: no execution goes idle.
const TIME_BASE: u64 = 1_781_251_200_000;

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Style {
    Pino,
    Kube,
    Svc,
}

/// Who rotates svc's file, for a whole schedule.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Rotator {
    /// Numbered rolls, shifted at every rotation (`svc.log.1` is the newest).
    Logrotate,
    /// Timestamped rolls, never renamed again (`svc.log.20260612-000003`).
    Kubelet,
}

#[derive(Debug)]
pub struct Writer {
    pub style: Style,
    pub current: FileKey,
    /// The number of the current roll (pino, kube).
    roll: u64,
    /// Older files still on disk, oldest first (rolls; svc's rotated files).
    pub older: Vec<FileKey>,
    /// A line whose first piece is written: its line and the rest.
    pub pending: Option<(LineKey, Vec<u8>)>,
    /// Executions whose denial is written and record not yet.
    pub open_execs: Vec<u32>,
}

/// The directory tree and the writers.
pub struct World {
    pub root: PathBuf,
    pub model: Model,
    pub writers: Vec<Writer>,
    pub rotator: Rotator,
    seq: u64,
    next_exec: u32,
    /// Rotations of svc's file so far (the kubelet's timestamps).
    rotations: u64,
}

impl World {
    pub fn new(root: &Path) -> World {
        fs::create_dir_all(root.join("logs")).unwrap();
        fs::create_dir_all(root.join("data")).unwrap();
        let mut world = World {
            root: root.to_path_buf(),
            model: Model::default(),
            writers: Vec::new(),
            rotator: Rotator::Logrotate,
            seq: 0,
            next_exec: 0,
            rotations: 0,
        };
        for style in [Style::Pino, Style::Kube, Style::Svc] {
            let mut w = Writer {
                style,
                current: 0,
                roll: 1,
                older: Vec::new(),
                pending: None,
                open_execs: Vec::new(),
            };
            w.current = world.create(style, 1);
            world.writers.push(w);
        }
        world
    }

    pub fn pattern(&self) -> String {
        format!("{}/logs/*.log", self.root.display())
    }

    fn path_of(&self, style: Style, roll: u64) -> PathBuf {
        match style {
            Style::Pino => self.root.join(format!("logs/app.{roll}.log")),
            Style::Kube => self.root.join(format!("data/pod.{roll}.log")),
            Style::Svc => self.root.join("logs/svc.log"),
        }
    }

    /// Creates the (new, empty) current file of a writer and points its symlink at it.
    fn create(&mut self, style: Style, roll: u64) -> FileKey {
        let path = self.path_of(style, roll);
        fs::File::create(&path).unwrap();
        let key = self.model.add_file(path.clone(), style != Style::Kube);
        match style {
            Style::Pino => {
                let link = self.root.join("logs/current.log");
                let _ = fs::remove_file(&link);
                symlink(path.file_name().unwrap(), &link).unwrap();
            }
            Style::Kube => {
                let link = self.root.join("logs/pod.log");
                let tmp = self.root.join("logs/pod.log.tmp");
                symlink(&path, &tmp).unwrap();
                fs::rename(&tmp, &link).unwrap();
                for f in &mut self.model.files {
                    f.in_glob &= !f.path.starts_with(self.root.join("data"));
                }
                self.model.files[key].in_glob = true;
            }
            Style::Svc => {}
        }
        key
    }

    fn write(&mut self, file: FileKey, line: LineKey, bytes: &[u8], ends: bool) {
        let f = &self.model.files[file];
        assert!(!f.unlinked);
        let mut out = OpenOptions::new().append(true).open(&f.path).unwrap();
        out.write_all(bytes).unwrap();
        self.model.append(file, line, bytes.len() as u64, ends);
    }

    /// A new line of `kind` (a denial opens an execution; a record closes the oldest open one).
    fn new_line(&mut self, w: usize, kind: Kind) -> (LineKey, Vec<u8>) {
        let kind = match kind {
            Kind::ExecDenial(_) => {
                let x = self.next_exec;
                self.next_exec += 1;
                self.writers[w].open_execs.push(x);
                Kind::ExecDenial(x)
            }
            Kind::ExecRecord(_) if !self.writers[w].open_execs.is_empty() => {
                Kind::ExecRecord(self.writers[w].open_execs.remove(0))
            }
            Kind::ExecRecord(_) => Kind::Noise,
            kind => kind,
        };
        self.seq += 1;
        let bytes = line_text(kind, self.seq).into_bytes();
        (self.model.add_line(kind), bytes)
    }

    /// Appends whole lines (finishing a pending one first).
    pub fn append(&mut self, w: usize, kinds: &[Kind]) {
        self.complete(w);
        for &kind in kinds {
            let (line, bytes) = self.new_line(w, kind);
            let file = self.writers[w].current;
            self.write(file, line, &bytes, true);
        }
    }

    /// Writes the first bytes of a new line (at least up to its time, `cut` more), the rest
    /// later. The rest is more than the newline: a first piece that is the whole object is
    /// counted from either file (an unterminated last line), when it is handed up, which the
    /// model does not follow.
    pub fn partial(&mut self, w: usize, kind: Kind, cut: usize) {
        self.complete(w);
        let (line, bytes) = self.new_line(w, kind);
        let from = time_end(&bytes);
        let cut = from + cut % (bytes.len() - 1 - from);
        let file = self.writers[w].current;
        self.write(file, line, &bytes[..cut], false);
        self.writers[w].pending = Some((line, bytes[cut..].to_vec()));
    }

    /// Writes the rest of a pending line, if any, to the current file.
    pub fn complete(&mut self, w: usize) {
        if let Some((line, rest)) = self.writers[w].pending.take() {
            let file = self.writers[w].current;
            self.write(file, line, &rest, true);
        }
    }

    /// pino-roll / kubelet: a new numbered roll, the symlink moved to it, the rest of a pending
    /// line at its start; then the oldest rolls deleted down to `keep` older ones.
    pub fn roll(&mut self, w: usize, keep: Option<usize>) {
        let style = self.writers[w].style;
        assert_ne!(style, Style::Svc);
        self.writers[w].roll += 1;
        let roll = self.writers[w].roll;
        let old = self.writers[w].current;
        self.writers[w].older.push(old);
        self.writers[w].current = self.create(style, roll);
        self.complete(w);
        if let Some(keep) = keep {
            self.unlink_oldest(w, keep);
        }
    }

    fn unlink(&mut self, file: FileKey) {
        let f = &mut self.model.files[file];
        fs::remove_file(&f.path).unwrap();
        f.unlinked = true;
    }

    /// logrotate's numbering: `svc.log.N` → `svc.log.N+1` (`.gz` kept), the oldest beyond
    /// `keep` deleted. The kubelet renames nothing: it deletes the oldest beyond `keep`.
    fn shift(&mut self, w: usize, keep: usize) {
        if self.rotator == Rotator::Logrotate {
            let older = self.writers[w].older.clone();
            // Oldest (highest number) first, so that no rename lands on a file still there.
            for (i, &file) in older.iter().enumerate() {
                let f = &self.model.files[file];
                let gz = if f.compressed { ".gz" } else { "" };
                let to = self
                    .root
                    .join(format!("logs/svc.log.{}{gz}", older.len() - i + 1));
                let f = &mut self.model.files[file];
                fs::rename(&f.path, &to).unwrap();
                f.path = to;
            }
        }
        self.unlink_oldest(w, keep);
    }

    /// Where svc's file goes when it is rotated away.
    fn rotated_name(&mut self) -> PathBuf {
        self.rotations += 1;
        match self.rotator {
            Rotator::Logrotate => self.root.join("logs/svc.log.1"),
            Rotator::Kubelet => self
                .root
                .join(format!("logs/svc.log.20260612-{:06}", self.rotations)),
        }
    }

    /// gzips svc's older files that are not yet, but the newest with `delay`: the plain file
    /// is replaced by `<name>.gz`, as logrotate's `compress` and the kubelet do.
    pub fn compress(&mut self, w: usize, delay: bool) {
        let older = self.writers[w].older.clone();
        let upto = older.len() - usize::from(delay && !older.is_empty());
        for &file in &older[..upto] {
            let f = &self.model.files[file];
            if f.compressed {
                continue;
            }
            let mut name = f.path.clone().into_os_string();
            name.push(".gz");
            let to = PathBuf::from(name);
            let plain = fs::read(&f.path).unwrap();
            let mut out = GzEncoder::new(fs::File::create(&to).unwrap(), Compression::fast());
            out.write_all(&plain).unwrap();
            out.finish().unwrap();
            fs::remove_file(&f.path).unwrap();
            let f = &mut self.model.files[file];
            f.path = to;
            f.compressed = true;
        }
    }

    /// Deletes the oldest older files down to `keep`, stopping at one the model cannot follow
    /// exactly once deleted ([`super::model::MFile::may_unlink`]).
    fn unlink_oldest(&mut self, w: usize, keep: usize) {
        while self.writers[w].older.len() > keep
            && self.model.files[self.writers[w].older[0]].may_unlink()
        {
            let oldest = self.writers[w].older.remove(0);
            self.unlink(oldest);
        }
    }

    /// logrotate `create` (or the kubelet): rename away, create anew, the writer reopens; then,
    /// with `compress`, the older files gzipped (`Some(delay)`).
    pub fn rename_create(&mut self, w: usize, keep: usize, compress: Option<bool>) {
        self.shift(w, keep);
        let old = self.writers[w].current;
        let to = self.rotated_name();
        let f = &mut self.model.files[old];
        fs::rename(&f.path, &to).unwrap();
        f.path = to;
        f.in_glob = false;
        self.writers[w].older.push(old);
        self.writers[w].current = self.create(Style::Svc, 0);
        self.complete(w);
        if let Some(delay) = compress {
            self.compress(w, delay);
        }
    }

    /// logrotate `copytruncate`: copy to `svc.log.1`, truncate to 0. Only between whole lines.
    pub fn copy_truncate(&mut self, w: usize, keep: usize) {
        self.complete(w);
        self.shift(w, keep);
        let file = self.writers[w].current;
        let from = self.model.files[file].path.clone();
        let to = self.rotated_name();
        fs::copy(&from, &to).unwrap();
        OpenOptions::new()
            .write(true)
            .open(&from)
            .unwrap()
            .set_len(0)
            .unwrap();
        let copy = self.model.add_file(to, false);
        self.model.copy_truncate(file, copy);
        self.writers[w].older.push(copy);
    }

    /// The file is deleted while the writer (and the exporter) hold it open; the writer then
    /// opens a new one at the same path.
    pub fn delete_open(&mut self, w: usize) {
        let old = self.writers[w].current;
        self.unlink(old);
        let style = self.writers[w].style;
        let roll = self.writers[w].roll;
        self.writers[w].current = self.create(style, roll);
        self.complete(w);
    }
}

/// The pino line of `kind`, with its unique `seq` and time.
pub fn line_text(kind: Kind, seq: u64) -> String {
    let time = TIME_BASE + seq;
    match kind {
        Kind::Noise => format!(
            "{{\"level\":30,\"time\":{time},\"pid\":4242,\"hostname\":\"executor-0\",\"seq\":{seq},\"msg\":\"sdk message\"}}\n"
        ),
        Kind::Plain => format!(
            "{{\"level\":40,\"time\":{time},\"pid\":4242,\"hostname\":\"executor-0\",\"component\":\"executor\",\
             \"workflow\":\"model\",\"event\":\"agent.permission.denied\",\"toolName\":\"Bash\",\
             \"decisionReasonType\":\"rule\",\"decisionReason\":\"Denied by rule\",\"seq\":{seq},\
             \"message\":\"Permission to use Bash has been denied.\",\"msg\":\"agent permission denied\"}}\n"
        ),
        Kind::ExecDenial(x) => format!(
            "{{\"level\":40,\"time\":{time},\"executionId\":\"exec_{x}\",\"workflow\":\"model\",\
             \"event\":\"agent.permission.denied\",\"toolName\":\"Bash\",\"toolUseId\":\"toolu_{x}\",\
             \"decisionReasonType\":\"hook\",\"seq\":{seq},\"msg\":\"agent permission denied\"}}\n"
        ),
        Kind::ExecRecord(x) => format!(
            "{{\"level\":30,\"time\":{time},\"executionId\":\"exec_{x}\",\"workflow\":\"model\",\
             \"sdkMsgType\":\"result\",\"subtype\":\"success\",\"numTurns\":3,\"permissionDenialCount\":1,\
             \"permissionDenials\":[{{\"toolName\":\"Bash\",\"toolUseId\":\"toolu_{x}\"}}],\"seq\":{seq},\
             \"msg\":\"Claude Agent SDK execution completed\"}}\n"
        ),
    }
}

/// The end of a line's time value: cuts are made after it, so that no two lines share the
/// first piece (a fragment joined to another line's rest would be a different, real line).
fn time_end(bytes: &[u8]) -> usize {
    let at = memchr::memmem::find(bytes, b"\"time\":").unwrap() + 7;
    at + bytes[at..]
        .iter()
        .take_while(|b| b.is_ascii_digit())
        .count()
}
