//! Which paths to follow: the globs expanded, oldest first; and where a file went.
//!
//! Owns the order files are opened in (modification time, then roll order within a sequence,
//! symlinks last and left out when their target is listed, or is a file beside them that the
//! same glob matches), the directories to watch, and the
//! search by identity for a state entry's file rotated away while the exporter was down, renamed
//! out of the globs or compressed ([`locate`]).
//!
//! **Not here:** following what it finds ([`super::open`]), what a roll sequence is
//! ([`crate::input::roll`]).
//!
//! Cold: per scan, a few `stat`s per matching path; at start-up, one listing of each directory
//! a state entry the globs no longer match was in (again only if it changed meanwhile), and a
//! ≤1 KiB decompression per gzip file there.

use std::collections::btree_map::Entry;
use std::collections::{BTreeMap, BTreeSet};
use std::fs::{self, File};
use std::path::{Path, PathBuf};
use std::time::SystemTime;

use tracing::warn;

use super::FileState;
use crate::input::compressed::{decompressed_head, holds_edge};
use crate::input::identity::Inode;
use crate::input::roll::{self, Directions, Sequence};
use crate::input::watch::Root;

/// The paths the globs match, oldest first (by modification time, and by roll number within
/// a roll sequence, in the direction its members' modification times show), symlinks last,
/// and a symlink left out when its target is listed too or will be
/// ([`leads_to_a_sibling_match`]); each with what `stat` said of it
/// (`None` if it could not be stat'ed). One `lstat` per path (a symlink's target is stat'ed
/// too): it is the `stat` of any other path.
pub(super) fn matching_paths(
    patterns: &[String],
    directions: &mut Directions,
) -> Vec<(PathBuf, Option<Stat>)> {
    let mut paths = Vec::new();
    for pattern in patterns {
        match glob::glob(pattern) {
            Ok(entries) => paths.extend(entries.flatten()),
            Err(error) => warn!(%pattern, %error, "invalid --path glob"),
        }
    }
    paths.sort();
    paths.dedup();
    let looked: Vec<(PathBuf, Option<fs::Metadata>)> = paths
        .into_iter()
        .map(|path| {
            let lstat = fs::symlink_metadata(&path).ok();
            (path, lstat)
        })
        .collect();
    let is_link =
        |lstat: &Option<fs::Metadata>| lstat.as_ref().is_some_and(|m| m.file_type().is_symlink());
    // A symlink whose target is listed too (sorted: a binary search) is followed as the target;
    // one whose target a glob matches beside it is left to the listing that has the target
    // ([`leads_to_a_sibling_match`]).
    let compiled: Vec<glob::Pattern> = patterns
        .iter()
        .filter_map(|p| glob::Pattern::new(&lexical(Path::new(p)).to_string_lossy()).ok())
        .collect();
    let mut real_dirs = BTreeMap::new();
    let shadowed: Vec<bool> = looked
        .iter()
        .map(|(path, lstat)| {
            is_link(lstat)
                && (leads_to_a_sibling_match(path, &compiled, &mut real_dirs)
                    || fs::canonicalize(path).is_ok_and(|target| {
                        looked
                            .binary_search_by(|(p, _)| p.cmp(&target))
                            .is_ok_and(|i| !is_link(&looked[i].1))
                    }))
        })
        .collect();
    let mut keyed: Vec<Keyed> = looked
        .into_iter()
        .zip(shadowed)
        .filter(|(_, shadowed)| !shadowed)
        .map(|((path, lstat), _)| {
            let symlink = is_link(&lstat);
            let meta = if symlink {
                fs::metadata(&path).ok()
            } else {
                lstat
            };
            let mtime = meta
                .as_ref()
                .and_then(|m| m.modified().ok())
                .unwrap_or(SystemTime::UNIX_EPOCH);
            let sequence = (!symlink)
                .then(|| Sequence::of_real(&path, &mut real_dirs))
                .flatten();
            (symlink, mtime, path, sequence, meta.as_ref().map(Stat::of))
        })
        .collect();
    keyed.sort_by(|a, b| (a.0, a.1, &a.2).cmp(&(b.0, b.1, &b.2)));
    directions.learn(&keyed, |k| k.3.as_ref(), |k| k.1);
    roll::order(&mut keyed, |k| k.3.as_ref(), directions);
    keyed.into_iter().map(|k| (k.2, k.4)).collect()
}

/// Whether the symlink `link` (a glob's match) leads to a file in its own directory whose name
/// the glob that matched `link` matches too (pino-roll's `current.log` -> `executor.3.log`): that
/// file is followed under its own name, as a member of its roll sequence, once a listing has it.
/// Never through the link: pino-roll re-points it at each roll, before the new roll exists, and
/// a scan that opens it after a listing taken one or two rolls earlier would open a roll newer
/// than one it never listed, and read it first (its record before an older roll's denial).
/// Looks at the link's first hop only (`readlink`: the target need not exist yet); a link into
/// another directory (the kubelet's) costs that `readlink` and no more.
fn leads_to_a_sibling_match(
    link: &Path,
    patterns: &[glob::Pattern],
    real_dirs: &mut BTreeMap<PathBuf, PathBuf>,
) -> bool {
    let Some(target) = fs::read_link(link).ok() else {
        return false;
    };
    let Some(name) = target.file_name() else {
        return false;
    };
    let sibling = link.with_file_name(name);
    let options = glob::MatchOptions {
        require_literal_separator: true,
        ..glob::MatchOptions::new()
    };
    let matched = |path: &Path| {
        let path = lexical(path);
        patterns.iter().any(|p| p.matches_path_with(path, options))
    };
    // The names first: a directory is resolved only for a link whose target's name matches.
    if !(matched(link) && matched(&sibling)) {
        return false;
    }
    let link_dir = link.parent().unwrap_or(Path::new(""));
    match target.parent().filter(|dir| !dir.as_os_str().is_empty()) {
        None => true,
        Some(dir) if dir.is_absolute() => dir == roll::real_dir(link_dir, real_dirs),
        Some(dir) => {
            let there = roll::real_dir(&link_dir.join(dir), real_dirs).clone();
            &there == roll::real_dir(link_dir, real_dirs)
        }
    }
}

/// `path` without a leading `./`, as the glob crate lists the matches of `./dir/*.log`.
fn lexical(path: &Path) -> &Path {
    path.strip_prefix(".").unwrap_or(path)
}

/// A path as [`matching_paths`] orders it: symlink, modification time, path, roll sequence,
/// and its `stat`.
type Keyed = (bool, SystemTime, PathBuf, Option<Sequence>, Option<Stat>);

/// What a scan needs of a path's `stat` (kept for every path until the scan is done: a few
/// bytes, not the whole `stat`).
#[derive(Debug, Clone, Copy)]
pub(super) struct Stat {
    pub(super) is_file: bool,
    pub(super) inode: Inode,
    pub(super) changed: Changed,
}

/// A file's status change time (seconds, nanoseconds): set anew when an inode is reused by a new
/// file, so an identity remembered with it is not taken for the new file's.
pub(super) type Changed = (i64, i64);

/// The status change time of `meta`.
pub(super) fn changed(meta: &fs::Metadata) -> Changed {
    use std::os::unix::fs::MetadataExt;
    (meta.ctime(), meta.ctime_nsec())
}

impl Stat {
    pub(super) fn of(meta: &fs::Metadata) -> Stat {
        Stat {
            is_file: meta.is_file(),
            inode: Inode::of(meta),
            changed: changed(meta),
        }
    }
}

/// Where a state entry's file is at a restart: the file itself, open, not only its name. A
/// rotation may rename the rolls between the lookup and the read (logrotate shifts every
/// `.N.gz` up one), and the name would then lead to another file.
#[derive(Debug)]
pub(super) enum Located {
    /// A regular file with its identity (device, inode, first bytes) and at least its offset.
    Plain(PathBuf, File),
    /// No regular file has its identity, but a gzip file whose decompressed head has its first
    /// bytes does: rotated and compressed while the exporter was down.
    Compressed(PathBuf, File),
    /// No file has its identity.
    Gone,
}

/// How many times an entry is looked up while the directories it is looked up in keep changing
/// under the lookup (each time, they are listed again).
const LOOKUPS: usize = 4;

/// What one restart learned of the directories its entries are looked up in, each listed once
/// (again only when it changed) and each gzip file's decompressed head read once however many
/// entries look; and the gzip files already taken by an entry.
#[derive(Debug, Default)]
pub(super) struct Lookup {
    listings: BTreeMap<PathBuf, Listing>,
    /// By identity and size, not by name: a rename moves a name to another file.
    heads: BTreeMap<(Inode, u64), Option<Vec<u8>>>,
    taken: BTreeSet<Inode>,
}

/// A directory's regular files, each `stat()`ed, and the directory's modification time read
/// before they were listed (a change after it shows as a different time).
#[derive(Debug)]
struct Listing {
    mtime: Option<SystemTime>,
    files: Vec<(PathBuf, fs::Metadata)>,
}

impl Listing {
    /// Lists `dir` (on overlayfs the inode readdir reports may differ from stat's: each file is
    /// `stat()`ed).
    fn of(dir: &Path) -> Listing {
        let mtime = dir_mtime(dir);
        let files = fs::read_dir(dir).map_or_else(
            |_| Vec::new(),
            |entries| {
                entries
                    .flatten()
                    .filter_map(|dirent| {
                        let path = dirent.path();
                        let meta = fs::symlink_metadata(&path).ok()?;
                        meta.is_file().then_some((path, meta))
                    })
                    .collect()
            },
        );
        Listing { mtime, files }
    }
}

fn dir_mtime(dir: &Path) -> Option<SystemTime> {
    fs::metadata(dir).and_then(|m| m.modified()).ok()
}

impl Lookup {
    /// The regular files of `dirs`, each directory listed once (until [`Lookup::relist`]).
    fn listed(&mut self, dirs: &[PathBuf]) -> Vec<(PathBuf, fs::Metadata)> {
        dirs.iter()
            .flat_map(|dir| {
                self.listings
                    .entry(dir.clone())
                    .or_insert_with(|| Listing::of(dir))
                    .files
                    .clone()
            })
            .collect()
    }

    /// Lists again those of `dirs` that changed since they were listed; whether any did.
    fn relist(&mut self, dirs: &[PathBuf]) -> bool {
        let mut changed = false;
        for dir in dirs {
            let stale = self
                .listings
                .get(dir)
                .is_some_and(|listing| listing.mtime.is_none() || listing.mtime != dir_mtime(dir));
            if stale {
                self.listings.insert(dir.clone(), Listing::of(dir));
                changed = true;
            }
        }
        changed
    }

    /// The decompressed head of the gzip file listed at `path` with `meta`, read once; `None`
    /// if it is not one, or if the path no longer leads to that file.
    fn head(&mut self, path: &Path, meta: &fs::Metadata) -> Option<&[u8]> {
        let key = (Inode::of(meta), meta.len());
        match self.heads.entry(key) {
            Entry::Occupied(read) => read.into_mut().as_deref(),
            Entry::Vacant(unread) => unread
                .insert(decompressed_head(&open_as(path, key)?))
                .as_deref(),
        }
    }
}

/// `path` opened, if it still leads to the file of identity and size `key`.
fn open_as(path: &Path, key: (Inode, u64)) -> Option<File> {
    let file = File::open(path).ok()?;
    let meta = file.metadata().ok()?;
    ((Inode::of(&meta), meta.len()) == key).then_some(file)
}

/// Looks a state entry's file up by identity among the files of the directory of the entry's
/// path and, if that path is a symlink, of its current target's (where the kubelet and pino-roll
/// rotate), whatever the globs match: first a regular file with its inode that still fits it
/// (first bytes, size), then a gzip file whose decompressed head has its first bytes (if it had
/// any when saved: an empty file's `.gz` cannot be told from another's). Not found in listings
/// that changed meanwhile (a rotation running beside the restart), it is looked up again.
pub(super) fn locate(entry: &FileState, lookup: &mut Lookup) -> Located {
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
    for _ in 0..LOOKUPS {
        if let Some(found) = find(entry, &dirs, lookup) {
            return found;
        }
        if !lookup.relist(&dirs) {
            break;
        }
    }
    Located::Gone
}

/// One look for `entry`'s file in the listings of `dirs` as `lookup` has them.
fn find(entry: &FileState, dirs: &[PathBuf], lookup: &mut Lookup) -> Option<Located> {
    let listed = lookup.listed(dirs);
    let fits = |path: &Path| {
        let file = File::open(path).ok()?;
        let meta = file.metadata().ok()?;
        let fits = Inode::of(&meta) == entry.inode
            && meta.len() >= entry.offset
            && entry.signature.matches(&file).unwrap_or(false);
        fits.then_some(file)
    };
    for (path, meta) in &listed {
        if Inode::of(meta) == entry.inode {
            if let Some(file) = fits(path) {
                return Some(Located::Plain(path.clone(), file));
            }
        }
    }
    if entry.signature.len == 0 {
        return None; // empty when saved: no head to know its `.gz` by
    }
    for (path, meta) in &listed {
        let inode = Inode::of(meta);
        if lookup.taken.contains(&inode) {
            continue;
        }
        if !lookup
            .head(path, meta)
            .is_some_and(|head| entry.signature.matches_head(head))
        {
            continue;
        }
        // The head was read from this very file; the name must still lead to it. Rolls of one
        // log may all begin alike: the bytes where reading stopped must be there too, else this
        // is a later roll, and reading it from the entry's offset would skip what it holds.
        if let Some(file) = open_as(path, (inode, meta.len())) {
            if entry.edge.is_some_and(|edge| !holds_edge(&file, &edge)) {
                continue;
            }
            lookup.taken.insert(inode);
            return Some(Located::Compressed(path.clone(), file));
        }
    }
    None
}

pub(super) fn is_symlink(path: &Path) -> bool {
    fs::symlink_metadata(path).is_ok_and(|m| m.file_type().is_symlink())
}

/// The root to watch for a pattern ([`watch_root`]), with the names its last component matches
/// there when it is not recursive.
pub(super) fn root(pattern: &str) -> Root {
    let (dir, recursive) = watch_root(pattern);
    let names = (!recursive)
        .then(|| Path::new(pattern).file_name()?.to_str())
        .flatten()
        .and_then(|name| glob::Pattern::new(name).ok());
    Root {
        dir,
        recursive,
        names,
    }
}

/// The directory to watch for a pattern (the directory it looks in: its components before the
/// first with a wildcard), and whether it must be watched recursively (a glob in a directory
/// component).
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
    use std::os::unix::fs::symlink;

    use super::*;
    use crate::input::follow::{append_for_test as append, following_for_test as following};

    /// The kubelet deletes a roll's `.gz` and the runtime creates `0.log` in the same instant,
    /// and the new file may get the inode the `.gz` had: it is read, not skipped as the gzip
    /// file that inode once was (whose status change time it does not have).
    #[test]
    fn a_new_file_on_the_inode_of_a_skipped_gzip_file_is_read() {
        use crate::input::follow::{FollowConfig, Follower, Recorder};
        use std::time::Duration;
        let dir = tempfile::tempdir().unwrap();
        let log = dir.path().join("0.log");
        fs::write(&log, "{\"a\":1}\n").unwrap();
        let meta = fs::metadata(&log).unwrap();
        let config = FollowConfig::for_test(&dir.path().join("0.log*"), Duration::ZERO);
        let mut follower = Follower::new(config, Vec::new(), Vec::new(), false);
        // What a scan before the rotation remembered of the `.gz` on this inode.
        let (seconds, nanos) = changed(&meta);
        follower
            .compressed
            .insert(Inode::of(&meta), (seconds - 60, nanos));
        let mut sink = Recorder::default();
        follower.scan(&mut sink);
        follower.read_all(&mut sink);
        assert_eq!(sink.bytes(), "{\"a\":1}\n".len());
        assert!(
            follower.compressed.is_empty(),
            "the stale identity is let go"
        );
    }

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

    /// pino-roll at a roll: `reopen(next)` (the file is created when the open completes),
    /// then `current.log` re-pointed to it at once, before the file may exist.
    fn repoint(dir: &Path, target: &str) {
        let link = dir.join("current.log");
        let _ = fs::remove_file(&link);
        symlink(target, &link).unwrap();
    }

    /// pino-roll rolls twice while a scan runs: `current.log` is re-pointed to `executor.2.log`
    /// before that file exists (the glob lists it dangling), then, before the scan opens the
    /// symlink, the writer fills `executor.2.log` (an execution's denial), rolls again and
    /// writes `executor.3.log` (its record). The scan must not follow `executor.3.log` through
    /// the symlink before `executor.2.log`, which it has not listed: the record would reach the
    /// counters before the denial (counted `unknown` instead of `hook`).
    #[test]
    fn a_roll_reached_through_the_symlink_is_not_read_before_an_older_roll_not_listed() {
        let dir = tempfile::tempdir().unwrap();
        let one = dir.path().join("executor.1.log");
        fs::write(&one, "a1\n").unwrap();
        repoint(dir.path(), "executor.1.log");
        let (mut follower, mut sink) = following(&dir.path().join("*.log"));
        // The next roll begins: the symlink first, the file not yet.
        repoint(dir.path(), "executor.2.log");
        follower.beside_glob = Some(|dir| {
            // Between the glob's listing and the scan's opening of `current.log`.
            fs::write(dir.join("executor.2.log"), "b1 denial\n").unwrap();
            repoint(dir, "executor.3.log");
            fs::write(dir.join("executor.3.log"), "c1 record\n").unwrap();
        });
        append(&one, "a2\n");
        follower.scan(&mut sink);
        follower.read_all(&mut sink);
        // The next wake-ups: `executor.2.log`'s creation is seen.
        for _ in 0..2 {
            follower.scan(&mut sink);
            follower.read_all(&mut sink);
        }
        let order: Vec<&[u8]> = sink.regions.iter().map(|(_, r)| r.as_slice()).collect();
        assert_eq!(
            order,
            [&b"a1\n"[..], b"a2\n", b"b1 denial\n", b"c1 record\n"],
            "every roll in roll order"
        );
    }
}
