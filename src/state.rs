//! The state file: file offsets and identities together with the counting state that those
//! offsets produced, written atomically.
//!
//! Owns the versioned on-disk format and the write protocol: serialise to `<path>.tmp`, fsync,
//! rename over `<path>`, fsync the directory. A crash at any point leaves either the old or the
//! new state whole, never a mix. [`probe`] checks at start-up that this can work at all, since
//! a state that is never saved means counting everything again after a restart. Because the snapshot is taken between two lines on the reading
//! thread, restoring counters and resuming at the offsets applies every later line exactly once.
//!
//! Each stage owns the type of its part of an entry: the follower its [`FileState`] (identity,
//! offset, fragment) and its orphan fragments, the pipeline its [`SourceState`] (container
//! partials), the accountant its [`AccountState`]. This module only composes them; the JSON
//! layout of an entry is the union of its parts' fields.
//!
//! The file holds counters and log excerpts: it is created with mode 0600, and its temp file is
//! created anew (`O_CREAT|O_EXCL`, which never follows a symlink planted at that name).
//!
//! A state file that cannot be used (corrupt, unreadable, written by a newer version) never stops
//! the exporter: [`open`] moves it aside as `<path>.bad-<UTC time>` for a human to look at, and
//! the exporter starts fresh. Each such [`Fault`] is counted and logged once by the caller.
//!
//! **Not here:** when to write (`crate::run`), matching entries to files
//! ([`crate::input::follow`]).
//!
//! Cold: every few seconds.

use std::borrow::Cow;
use std::collections::HashSet;
use std::fs::{self, File, OpenOptions};
use std::hash::{BuildHasher, RandomState};
use std::io::{self, Write};
use std::os::unix::fs::OpenOptionsExt;
use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};
use thiserror::Error;

use crate::account::labels::REDACTED;
use crate::account::AccountState;
use crate::input::follow::{FileState, KnownHeads};
use crate::input::rejoin::Orphan;
use crate::pipeline::SourceState;
use crate::redact::{holds_secret, shared_redactor};

/// A state file that cannot be used.
#[derive(Debug, Error)]
pub enum SnapshotError {
    #[error("cannot read state file {path}: {error}")]
    Read { path: PathBuf, error: io::Error },
    #[error("state file {path} is corrupt: {error}")]
    Corrupt {
        path: PathBuf,
        error: serde_json::Error,
    },
    #[error("state file {path} was written by a newer version (state version {version})")]
    Newer { path: PathBuf, version: String },
    #[error("cannot write state file {path}: {error}")]
    Unwritable { path: PathBuf, error: io::Error },
}

/// One followed file: where the follower was, and what the pipeline held there.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct FileEntry {
    #[serde(flatten)]
    pub file: FileState,
    #[serde(flatten)]
    pub source: SourceState,
}

/// Version 1 of the state. Written, it borrows the counting state (the largest part: every
/// execution in flight) instead of copying it; read, it owns it.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct StateV1<'a> {
    /// Seconds since the epoch.
    pub written_at: f64,
    pub files: Vec<FileEntry>,
    /// Fragments of files that are gone, waiting for the file that continues them.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub orphans: Vec<Orphan>,
    pub account: Cow<'a, AccountState>,
    /// Length of the audit file when the snapshot was taken, so that the audit records of lines
    /// read again after a crash can be cut from it (`None` without an audit file).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub audit_len: Option<u64>,
    /// Seconds since the epoch of the first start: a roll no state recorded is read from its
    /// start only if modified after it (`None` in states written before it was kept).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub since: Option<f64>,
    /// The identities and first bytes of files whose lines were counted and that are still on
    /// disk, by directory: what tells their compressed copies from rolls no state recorded.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub heads: Vec<KnownHeads>,
}

impl StateV1<'_> {
    /// Makes the state hold no raw secret: a path that holds one becomes `redacted` (the file is
    /// still found by its identity), and a fragment or container partial that holds one is
    /// redacted (a line joined from it then counts with the marker in place of the secret).
    /// Ids are already digests, label values already passed the label policy. Paths `clean`
    /// knows from the last write are not asked about again; it learns this write's.
    pub fn scrub(&mut self, clean: &mut CleanPaths) {
        let mut seen = HashSet::with_capacity(clean.known.len());
        let mut path = |p: &mut String| {
            let key = clean.hasher.hash_one(p.as_str());
            if clean.known.contains(&key) || !holds_secret(p) {
                seen.insert(key);
            } else {
                *p = REDACTED.to_string();
            }
        };
        for entry in &mut self.files {
            path(&mut entry.file.path);
            for p in [&mut entry.file.sequence_path, &mut entry.file.first_path]
                .into_iter()
                .flatten()
            {
                path(p);
            }
            if let Some(fragment) = &mut entry.file.fragment {
                scrub_bytes(fragment);
            }
            for partial in &mut entry.source.partials {
                scrub_bytes(&mut partial.content);
            }
        }
        for orphan in &mut self.orphans {
            for p in [&mut orphan.path, &mut orphan.sequence_path] {
                if p.to_str().is_none_or(holds_secret) {
                    *p = PathBuf::from(REDACTED);
                }
            }
            scrub_bytes(&mut orphan.fragment);
        }
        for known in &mut self.heads {
            path(&mut known.dir);
        }
        clean.known = seen;
    }
}

/// The paths the last state write held that hold no secret, by a keyed hash (the key is this
/// process's, so no path can be made to match another's). A write asks the redactor only about
/// paths it did not write last time: a thousand old rolls are not scanned again every interval
/// (the redactor's own memory of clean texts is smaller than that). Holds what the last write
/// held, never more.
#[derive(Default)]
pub struct CleanPaths {
    hasher: RandomState,
    known: HashSet<u64>,
}

/// Redacts `bytes` in place if they hold a secret; leaves them byte for byte otherwise.
fn scrub_bytes(bytes: &mut Vec<u8>) {
    let text = String::from_utf8_lossy(bytes);
    if holds_secret(&text) {
        let mut tally = Default::default();
        *bytes = shared_redactor()
            .redact(&text, &mut tally)
            .into_owned()
            .into_bytes();
    }
}

/// The state file, tagged by version so that later versions can still read this one.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "version")]
pub enum StateFile<'a> {
    #[serde(rename = "1")]
    V1(StateV1<'a>),
}

/// A fault in the exporter's data met at start-up: counted (`fault` label), logged once, never
/// fatal. A closed set.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Fault {
    /// The state file is not a state (truncated, not JSON, not this layout): set aside.
    StateCorrupt,
    /// The state file cannot be read (permissions, a directory, an I/O error): set aside.
    StateUnreadable,
    /// The state file was written by a newer version of the exporter: set aside.
    StateNewer,
    /// The state cannot be written (read-only or full volume, missing directory): counts start
    /// over after a restart until it can.
    StateUnwritable,
    /// A `--path` glob's directory does not exist (yet).
    LogDirMissing,
}

impl Fault {
    pub const ALL: [Fault; 5] = [
        Fault::StateCorrupt,
        Fault::StateUnreadable,
        Fault::StateNewer,
        Fault::StateUnwritable,
        Fault::LogDirMissing,
    ];

    /// The `fault` label value.
    pub fn as_str(self) -> &'static str {
        match self {
            Fault::StateCorrupt => "state_corrupt",
            Fault::StateUnreadable => "state_unreadable",
            Fault::StateNewer => "state_newer",
            Fault::StateUnwritable => "state_unwritable",
            Fault::LogDirMissing => "log_dir_missing",
        }
    }
}

/// How many times each [`Fault`] was met.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Faults([u64; Fault::ALL.len()]);

impl Faults {
    pub fn count(&mut self, fault: Fault) {
        self.0[fault as usize] += 1;
    }

    /// Every fault with its count, zeros included, in [`Fault::ALL`] order.
    pub fn iter(&self) -> impl Iterator<Item = (Fault, u64)> + '_ {
        Fault::ALL.into_iter().map(|f| (f, self.0[f as usize]))
    }

    /// The faults met, by label, comma-separated (empty if none).
    pub fn names(&self) -> String {
        let met: Vec<&str> = self
            .iter()
            .filter(|&(_, n)| n > 0)
            .map(|(f, _)| f.as_str())
            .collect();
        met.join(",")
    }
}

impl SnapshotError {
    /// The fault this error is, for the self-metric.
    pub fn fault(&self) -> Fault {
        match self {
            SnapshotError::Read { .. } => Fault::StateUnreadable,
            SnapshotError::Corrupt { .. } => Fault::StateCorrupt,
            SnapshotError::Newer { .. } => Fault::StateNewer,
            SnapshotError::Unwritable { .. } => Fault::StateUnwritable,
        }
    }
}

/// A state that could not be used, moved aside.
#[derive(Debug)]
pub struct SetAside {
    pub error: SnapshotError,
    /// Where it went; `Err` if it could not be moved (it is then overwritten by the next write).
    pub moved_to: io::Result<PathBuf>,
}

/// Reads the state file like [`read`]; one that cannot be used is moved aside as
/// `<path>.bad-<UTC time>` and reported, and the start is fresh (`Ok(None)`).
pub fn open(path: &Path, now: f64) -> (Option<StateV1<'static>>, Option<SetAside>) {
    match read(path) {
        Ok(state) => (state, None),
        Err(error) => {
            let mut name = path.file_name().unwrap_or_default().to_os_string();
            name.push(format!(".bad-{}", utc_stamp(now)));
            let aside = path.with_file_name(name);
            let moved_to = fs::rename(path, &aside).map(|()| aside);
            (None, Some(SetAside { error, moved_to }))
        }
    }
}

/// `20261124T073518Z` for `secs` since the epoch (UTC, to the second).
pub fn utc_stamp(secs: f64) -> String {
    let secs = secs.max(0.0) as i64;
    let (days, rem) = (secs.div_euclid(86_400), secs.rem_euclid(86_400));
    let (year, month, day) = crate::decode::time::civil_from_days(days);
    format!(
        "{year:04}{month:02}{day:02}T{:02}{:02}{:02}Z",
        rem / 3600,
        rem / 60 % 60,
        rem % 60
    )
}

/// Just the version tag of a state file.
#[derive(Deserialize)]
struct VersionOnly {
    version: serde_json::Value,
}

/// Reads the state file; `Ok(None)` if there is none yet.
pub fn read(path: &Path) -> Result<Option<StateV1<'static>>, SnapshotError> {
    let bytes = match fs::read(path) {
        Ok(bytes) => bytes,
        Err(e) if e.kind() == io::ErrorKind::NotFound => return Ok(None),
        Err(error) => {
            return Err(SnapshotError::Read {
                path: path.to_path_buf(),
                error,
            })
        }
    };
    match serde_json::from_slice::<StateFile>(&bytes) {
        Ok(StateFile::V1(state)) => Ok(Some(state)),
        Err(error) => match serde_json::from_slice::<VersionOnly>(&bytes) {
            // A version tag this build does not know, in an otherwise well-formed file.
            Ok(VersionOnly { version }) if version != "1" => Err(SnapshotError::Newer {
                path: path.to_path_buf(),
                version: version.to_string(),
            }),
            _ => Err(SnapshotError::Corrupt {
                path: path.to_path_buf(),
                error,
            }),
        },
    }
}

/// Checks that the state can be written beside `path`: creates `<path>.tmp`, writes a byte and
/// syncs it (a full volume refuses the byte, not the empty file), removes it.
pub fn probe(path: &Path) -> Result<(), SnapshotError> {
    let tmp = tmp_path(path);
    let written = create_tmp(&tmp).and_then(|mut file| {
        file.write_all(b"{")?;
        file.sync_all()
    });
    let _ = fs::remove_file(&tmp);
    written.map_err(|error| SnapshotError::Unwritable {
        path: path.to_path_buf(),
        error,
    })
}

/// Writes the state atomically: temp file, fsync, rename, fsync the directory. Returns the bytes
/// written.
pub fn write(path: &Path, state: &StateFile<'_>) -> io::Result<u64> {
    let tmp = tmp_path(path);
    let written = {
        let mut file = create_tmp(&tmp)?;
        // Few large writes: each write is an inotify event for whoever watches the directory
        // (the exporter itself, when the state file is beside the logs).
        let mut out = io::BufWriter::with_capacity(WRITE_BUFFER_BYTES, &mut file);
        serde_json::to_writer(&mut out, state)?;
        out.flush()?;
        drop(out);
        file.sync_all()?;
        file.metadata()?.len()
    };
    fs::rename(&tmp, path)?;
    let dir = path
        .parent()
        .filter(|d| !d.as_os_str().is_empty())
        .unwrap_or(Path::new("."));
    File::open(dir)?.sync_all()?;
    Ok(written)
}

/// Bytes handed to each `write` of the state file: a 1.7 MB state is some thirty writes, not two
/// hundred, and the buffer adds 64 KiB to the peak RSS while it is written (256 KiB added more
/// than the writes saved).
const WRITE_BUFFER_BYTES: usize = 64 * 1024;

/// Creates the temp file anew, readable by the owner only. Whatever is at its name (a leftover
/// of a crash, or a planted symlink) is removed first, never followed.
fn create_tmp(tmp: &Path) -> io::Result<File> {
    match fs::remove_file(tmp) {
        Err(e) if e.kind() != io::ErrorKind::NotFound => return Err(e),
        _ => {}
    }
    OpenOptions::new()
        .write(true)
        .create_new(true)
        .mode(0o600)
        .open(tmp)
}

fn tmp_path(path: &Path) -> PathBuf {
    let mut name = path.file_name().unwrap_or_default().to_os_string();
    name.push(".tmp");
    path.with_file_name(name)
}

/// The state: the follower's offsets, what the pipeline held at them, and the counters they
/// produced, taken together between two reads (what `run` writes, and the model test saves).
/// It borrows the counting state: a copy of every execution in flight was most of `run`'s peak
/// memory.
#[cfg(test)]
pub(crate) fn compose<'a>(
    follower: &mut crate::input::follow::Follower,
    pipeline: &'a crate::pipeline::Pipeline,
) -> StateFile<'a> {
    compose_remembering(follower, pipeline, &mut CleanPaths::default())
}

/// [`compose`], asking the redactor only about paths `clean` does not know from the last write
/// (what `run` writes every interval).
pub(crate) fn compose_remembering<'a>(
    follower: &mut crate::input::follow::Follower,
    pipeline: &'a crate::pipeline::Pipeline,
    clean: &mut CleanPaths,
) -> StateFile<'a> {
    let saved = follower.save();
    let files = saved
        .files
        .into_iter()
        .map(|(id, file)| FileEntry {
            file,
            source: pipeline.save_source(id),
        })
        .collect();
    let mut state = StateV1 {
        written_at: crate::account::wall_now(),
        files,
        orphans: saved.orphans,
        account: std::borrow::Cow::Borrowed(pipeline.accountant().state()),
        audit_len: pipeline.audit_len(),
        since: Some(saved.since),
        heads: saved.heads,
    };
    state.scrub(clean); // no raw secret in the state file
    StateFile::V1(state)
}

#[cfg(test)]
mod tests {
    use std::os::unix::fs::PermissionsExt;

    use super::*;
    use crate::input::frame::SavedPartial;
    use crate::input::identity::{Inode, Signature};
    use crate::input::roll::Direction;

    fn sample() -> StateFile<'static> {
        StateFile::V1(StateV1 {
            written_at: 1.5,
            files: vec![FileEntry {
                file: FileState {
                    path: "/var/log/a.log".into(),
                    inode: Inode { dev: 1, ino: 2 },
                    signature: Signature { len: 3, hash: 4 },
                    offset: 5,
                    fragment: Some(b"{\"lev".to_vec()),
                    sequence_path: None,
                    first_path: Some("/var/log/b.log".into()),
                    edge: None,
                    size: Some(9),
                    rotated: true,
                    ended: false,
                },
                source: SourceState {
                    partials: vec![SavedPartial {
                        stderr: false,
                        discarding: false,
                        content: b"{\"a\"".to_vec(),
                    }],
                },
            }],
            orphans: vec![Orphan {
                path: "/var/log/current.log".into(),
                sequence_path: "/var/log/app.3.log".into(),
                fragment: b"{\"x".to_vec(),
                direction: Some(Direction::Up),
            }],
            account: Cow::Owned(AccountState::default()),
            audit_len: Some(6),
            since: Some(1.0),
            heads: vec![KnownHeads {
                dir: "/var/log".into(),
                heads: vec![crate::input::follow::Head {
                    inode: Inode { dev: 1, ino: 7 },
                    signature: Signature { len: 8, hash: 9 },
                }],
            }],
        })
    }

    /// A state of files at `paths`, nothing else in it.
    fn of_paths(paths: &[&str]) -> StateV1<'static> {
        let StateFile::V1(mut state) = sample();
        let entry = state.files.pop().unwrap();
        state.orphans.clear();
        state.files = paths
            .iter()
            .map(|p| {
                let mut e = entry.clone();
                (e.file.path, e.file.first_path) = (p.to_string(), None);
                (e.file.fragment, e.source.partials) = (None, Vec::new());
                e
            })
            .collect();
        state
    }

    #[test]
    fn a_write_asks_the_redactor_only_about_paths_the_last_write_did_not_hold() {
        use crate::redact::scanned::take_longest;
        let secret = "/var/log/ghp_aB3dE5fG7hJ9kL1mN3pQ5rS7tU9vW1xY3zA5.log";
        assert!(holds_secret(secret));
        let (a, b) = ("/var/log/a.log", "/var/log/bb.log");
        let paths =
            |s: &StateV1| -> Vec<String> { s.files.iter().map(|e| e.file.path.clone()).collect() };
        let mut clean = CleanPaths::default();
        take_longest();
        let mut first = of_paths(&[a, secret]);
        first.scrub(&mut clean);
        assert_eq!(take_longest(), secret.len());
        assert_eq!(paths(&first), [a, REDACTED]);
        // `a` is known clean; the secret is asked about again (never remembered), and so is `b`.
        let mut second = of_paths(&[a, b]);
        second.scrub(&mut clean);
        assert_eq!(take_longest(), b.len());
        let mut third = of_paths(&[a, b, secret]);
        third.scrub(&mut clean);
        assert_eq!(take_longest(), secret.len());
        assert_eq!(paths(&third), [a, b, REDACTED]);
        let mut fourth = of_paths(&[b, a]);
        fourth.scrub(&mut clean);
        assert_eq!(take_longest(), 0, "every path was in the last write, clean");
        // What the last write did not hold is forgotten: `a` is asked about again.
        let (mut fifth, mut sixth) = (of_paths(&[b]), of_paths(&[a]));
        fifth.scrub(&mut clean);
        sixth.scrub(&mut clean);
        assert_eq!(take_longest(), a.len());
    }

    #[test]
    fn is_private_and_never_follows_a_planted_link() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("state.json");
        let victim = dir.path().join("victim");
        fs::write(&victim, b"precious").unwrap();
        std::os::unix::fs::symlink(&victim, tmp_path(&path)).unwrap();
        probe(&path).unwrap();
        write(&path, &sample()).unwrap();
        assert_eq!(fs::read(&victim).unwrap(), b"precious");
        let mode = fs::metadata(&path).unwrap().permissions().mode() & 0o777;
        assert_eq!(mode, 0o600);
    }

    #[test]
    fn writes_atomically_and_reads_back() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("state.json");
        assert_eq!(read(&path).unwrap(), None);
        write(&path, &sample()).unwrap();
        assert!(!tmp_path(&path).exists());
        let StateFile::V1(want) = sample();
        assert_eq!(read(&path).unwrap(), Some(want));
        let text = fs::read_to_string(&path).unwrap();
        assert!(text.starts_with(r#"{"version":"1""#), "{text}");
    }

    #[test]
    fn probe_tells_whether_the_state_can_be_written() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("state.json");
        probe(&path).unwrap();
        assert!(!tmp_path(&path).exists());
        let error = probe(&dir.path().join("missing/state.json"))
            .unwrap_err()
            .to_string();
        assert!(error.starts_with("cannot write state file"), "{error}");
    }

    #[test]
    fn a_state_that_cannot_be_used_is_set_aside_with_its_fault() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("state.json");
        let now = 1_795_000_000.0; // 2026-11-18T11:06:40Z
        let cases: [(&[u8], Fault, &str); 3] = [
            (b"{not json", Fault::StateCorrupt, "is corrupt"),
            (
                br#"{"version":"2","files":{}}"#,
                Fault::StateNewer,
                "newer version (state version \"2\")",
            ),
            (br#"{"version":"1"}"#, Fault::StateCorrupt, "is corrupt"),
        ];
        for (bytes, fault, message) in cases {
            fs::write(&path, bytes).unwrap();
            let (state, aside) = open(&path, now);
            let aside = aside.expect("set aside");
            assert!(state.is_none());
            assert_eq!(aside.error.fault(), fault);
            assert!(aside.error.to_string().contains(message), "{}", aside.error);
            let moved = aside.moved_to.unwrap();
            assert_eq!(moved, dir.path().join("state.json.bad-20261118T110640Z"));
            assert_eq!(fs::read(&moved).unwrap(), bytes);
            assert!(!path.exists());
        }
        fs::create_dir(&path).unwrap(); // unreadable: a directory
        let (_, aside) = open(&path, now + 1.0);
        assert_eq!(aside.unwrap().error.fault(), Fault::StateUnreadable);
        assert!(dir.path().join("state.json.bad-20261118T110641Z").is_dir());
        let (state, aside) = open(&path, now); // nothing there now: a first start
        assert!(state.is_none() && aside.is_none());
    }

    #[test]
    fn utc_stamps() {
        assert_eq!(utc_stamp(0.0), "19700101T000000Z");
        assert_eq!(utc_stamp(951_782_400.0), "20000229T000000Z");
        assert_eq!(utc_stamp(1_795_000_000.9), "20261118T110640Z");
    }

    #[test]
    fn faults_are_named_and_counted() {
        let mut faults = Faults::default();
        assert_eq!(faults.names(), "");
        faults.count(Fault::LogDirMissing);
        faults.count(Fault::StateNewer);
        assert_eq!(faults.names(), "state_newer,log_dir_missing");
        assert_eq!(faults.iter().map(|(_, n)| n).sum::<u64>(), 2);
    }
}
