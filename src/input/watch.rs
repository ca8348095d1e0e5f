//! inotify for the live follower: watches on the directories the globs start from, set up
//! again when a watched directory is replaced, and given up for polling when they cannot be.
//!
//! Owns [`Watch`]: the watcher, the identities of the directories it watches, and its
//! counters. Invariant: while [`Watch::is_armed`], every root of the globs is watched as the
//! directory that is at its path now, or [`Watch::roots_changed`] says it is not.
//!
//! **Not here:** what an event makes the reader do (the command, `crate::run`), reading files
//! ([`super::follow`]), the periodic stat that finds what inotify missed (the follower's scan).
//!
//! Also says which roots inotify can be trusted on ([`Watch::reliable_roots`]: local
//! filesystems) and which files an event says were written.
//!
//! Cost: per event, a match on its kind; per scan, a `stat` per root. Off with `--poll`.

use std::path::{Path, PathBuf};
use std::sync::Arc;

use notify::{RecommendedWatcher, RecursiveMode, Watcher as _};
use tracing::{info, warn};

use super::identity::Inode;

/// Where events go: called on inotify's thread.
pub type OnEvent = Arc<dyn Fn(notify::Result<notify::Event>) + Send + Sync>;

/// A directory the globs start from: watched, and what its events may change.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Root {
    pub dir: PathBuf,
    /// A glob in a directory component: everything under `dir` is watched.
    pub recursive: bool,
    /// The names a glob matches in `dir` (not recursive): a file created, renamed or deleted
    /// under another name (the state file's temp file, say) changes nothing the globs match.
    pub names: Option<glob::Pattern>,
}

impl Root {
    /// Watches `dir`, any change in it possibly one the globs match.
    #[cfg(test)]
    pub fn dir(dir: impl Into<PathBuf>, recursive: bool) -> Root {
        Root {
            dir: dir.into(),
            recursive,
            names: None,
        }
    }

    /// Whether a file created, renamed or deleted at `path` may change what the globs match:
    /// `Some(false)` only for a path directly in this (not recursive) root whose name its glob
    /// does not match; `None` when the path is not this root's to judge.
    fn concerns(&self, path: &Path) -> Option<bool> {
        let within = if self.recursive {
            path.starts_with(&self.dir)
        } else {
            path.parent() == Some(self.dir.as_path())
        };
        if !within {
            return None;
        }
        let (Some(names), Some(name)) = (&self.names, path.file_name().and_then(|n| n.to_str()))
        else {
            return Some(true);
        };
        Some(names.matches_with(name, glob::MatchOptions::new()))
    }
}

/// Whether a file created, renamed or deleted at `path` may change what the globs of `roots`
/// match: a path outside every root (a root itself) does; one inside them only if a glob of a
/// root it is in may match it.
fn concerns(roots: &[Root], path: &Path) -> bool {
    let mut judged = roots
        .iter()
        .filter_map(|root| root.concerns(path))
        .peekable();
    judged.peek().is_none() || judged.any(|concerns| concerns)
}

/// The follower's counters of inotify trouble (self-metrics).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct WatchStats {
    /// inotify errors and queue overflows.
    pub errors: u64,
    /// Switches from inotify to polling.
    pub fallbacks: u64,
    /// Watches set up again because a watched directory was replaced.
    pub rearms: u64,
}

/// The inotify watches on the roots of the globs, or none (polling).
pub struct Watch {
    watcher: Option<RecommendedWatcher>,
    on_event: OnEvent,
    /// The watched directories and their identities when the watches were set up.
    watched: Vec<(PathBuf, Option<Inode>)>,
    /// The roots as last armed: what their events may change.
    roots: Vec<Root>,
    /// inotify said a watched directory was removed.
    root_removed: bool,
    pub stats: WatchStats,
}

impl Watch {
    /// No watches yet; events will go to `on_event`.
    pub fn new(on_event: OnEvent) -> Watch {
        Watch {
            watcher: None,
            on_event,
            watched: Vec::new(),
            roots: Vec::new(),
            root_removed: false,
            stats: WatchStats::default(),
        }
    }

    /// Whether inotify watches are set up (false: only the periodic stat finds changes).
    pub fn is_armed(&self) -> bool {
        self.watcher.is_some()
    }

    /// Sets up inotify on every root (`(directory, recursive)`); polling if that fails, which
    /// counts as a fallback when `first` (later retries of the same fallback are not counted
    /// again, nor logged).
    pub fn arm(&mut self, roots: Vec<Root>, first: bool) {
        self.root_removed = false;
        self.watched = roots
            .iter()
            .map(|root| {
                let identity = std::fs::metadata(&root.dir).ok().map(|m| Inode::of(&m));
                (root.dir.clone(), identity)
            })
            .collect();
        self.roots = roots.clone();
        self.watcher = self.try_arm(roots, first);
        match (self.watcher.is_some(), first) {
            (false, true) => self.stats.fallbacks += 1,
            (true, false) => info!("watching with inotify again"),
            _ => {}
        }
    }

    fn try_arm(&self, roots: Vec<Root>, first: bool) -> Option<RecommendedWatcher> {
        let on_event = self.on_event.clone();
        let mut watcher = match notify::recommended_watcher(move |event| on_event(event)) {
            Ok(w) => w,
            Err(error) => {
                if first {
                    warn!(%error, "cannot set up inotify; polling instead");
                }
                return None;
            }
        };
        for Root {
            dir: root,
            recursive,
            ..
        } in roots
        {
            let mode = if recursive {
                RecursiveMode::Recursive
            } else {
                RecursiveMode::NonRecursive
            };
            if !Path::new(&root).exists() {
                if first {
                    info!(root = %root.display(), "directory does not exist yet; polling until it does");
                }
                return None;
            }
            if let Err(error) = watcher.watch(&root, mode) {
                if first {
                    warn!(root = %root.display(), %error, "cannot watch directory; polling instead");
                }
                return None;
            }
        }
        Some(watcher)
    }

    /// After a scan: sets the watches up again when a watched directory was replaced (counted;
    /// a failure then counts as a fallback), or when polling because a root did not exist yet.
    pub fn recheck(&mut self, roots: Vec<Root>) {
        if self.is_armed() && self.roots_changed() {
            // A watched directory was deleted (and maybe made again): its watch is gone.
            self.stats.rearms += 1;
            warn!("a watched directory was replaced; setting up inotify again");
            self.arm(roots, false);
            if !self.is_armed() {
                self.stats.fallbacks += 1;
            }
        } else if !self.is_armed() {
            // A root that did not exist may now; a failure was already counted.
            self.arm(roots, false);
        }
    }

    /// The watched roots inotify reports every change under (`(dir, recursive)`): none while
    /// polling, and none on a filesystem whose changes may come from elsewhere (NFS, SMB, FUSE,
    /// 9p, Ceph, overlayfs), where only the periodic stat sees them; and whether that is all
    /// of `roots`.
    pub fn reliable_roots(&self, roots: Vec<Root>) -> (Vec<Root>, bool) {
        if !self.is_armed() {
            return (Vec::new(), false);
        }
        let all = roots.len();
        let reliable: Vec<_> = roots
            .into_iter()
            .filter(|root| is_local(&root.dir))
            .collect();
        let every = all > 0 && reliable.len() == all;
        (reliable, every)
    }

    /// Notes a filesystem event, adding the paths of files it says were written to `written`;
    /// returns true if the globs should be expanded again: a file created, renamed or deleted
    /// under a name they may match (not, say, the state file's temp file beside the logs, which
    /// would make every state write cost a scan of every file).
    pub fn note(
        &mut self,
        event: notify::Result<notify::Event>,
        written: &mut Vec<PathBuf>,
    ) -> bool {
        match event {
            Ok(event) => {
                use notify::event::{AccessKind, AccessMode, ModifyKind};
                use notify::EventKind::{Access, Create, Modify, Remove};
                let wrote = matches!(
                    event.kind,
                    Create(_)
                        | Modify(
                            ModifyKind::Data(_)
                                | ModifyKind::Any
                                | ModifyKind::Metadata(_)
                                | ModifyKind::Other
                        )
                        | Access(AccessKind::Close(AccessMode::Write))
                );
                if wrote {
                    written.extend(event.paths.iter().cloned());
                }
                if event.need_rescan() {
                    self.stats.errors += 1; // the queue overflowed
                    warn!("inotify queue overflowed; rescanning");
                    return true;
                }
                if matches!(event.kind, Remove(_))
                    && event
                        .paths
                        .iter()
                        .any(|p| self.watched.iter().any(|(root, _)| p == root))
                {
                    self.root_removed = true; // its watch went with it, whatever comes back
                }
                matches!(
                    event.kind,
                    Create(_) | Remove(_) | Modify(notify::event::ModifyKind::Name(_))
                ) && (event.paths.is_empty()
                    || event.paths.iter().any(|p| concerns(&self.roots, p)))
            }
            Err(error) => {
                self.stats.errors += 1;
                warn!(%error, "inotify error; rescanning");
                true
            }
        }
    }

    /// Whether a watched directory is no longer the one watched (deleted, or made anew).
    pub fn roots_changed(&self) -> bool {
        self.root_removed
            || self
                .watched
                .iter()
                .any(|(root, armed)| std::fs::metadata(root).ok().map(|m| Inode::of(&m)) != *armed)
    }
}

/// Whether inotify sees every change of files under `dir`: the filesystem is local (changes
/// made on another host, or below an overlay, are not reported).
fn is_local(dir: &Path) -> bool {
    const REMOTE: [i64; 13] = [
        0x6969,      // NFS
        0x517B,      // SMB
        0xFF53_4D42, // CIFS
        0xFE53_4D42, // SMB2
        0x6573_5546, // FUSE
        0x0102_1997, // 9p
        0x00C3_6400, // Ceph
        0x794C_7630, // overlayfs
        0x5346_414F, // AFS
        0x7375_7245, // Coda
        0x0116_1970, // GFS2
        0x7461_636F, // OCFS2
        0x0BD0_0BD0, // Lustre
    ];
    let Ok(c_path) = std::ffi::CString::new(dir.as_os_str().as_encoded_bytes()) else {
        return false;
    };
    let mut stat: libc::statfs = unsafe { std::mem::zeroed() };
    // SAFETY: a NUL-terminated path and a zeroed statfs the call fills.
    if unsafe { libc::statfs(c_path.as_ptr(), &mut stat) } != 0 {
        return false;
    }
    #[allow(clippy::unnecessary_cast)] // f_type's width differs between targets
    let kind = stat.f_type as i64;
    !REMOTE.contains(&kind)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_replaced_root_is_noticed_and_watched_again() {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path().join("logs");
        std::fs::create_dir(&root).unwrap();
        let mut watch = Watch::new(Arc::new(|_| {}));
        watch.arm(vec![Root::dir(&root, false)], true);
        assert!(watch.is_armed() && !watch.roots_changed());
        // Moved away and made anew (the old one kept, so the new one cannot reuse its inode).
        std::fs::rename(&root, dir.path().join("old")).unwrap();
        std::fs::create_dir(&root).unwrap();
        assert!(watch.roots_changed(), "a new directory under the old name");
        watch.recheck(vec![Root::dir(&root, false)]);
        assert!(watch.is_armed() && !watch.roots_changed());
        assert_eq!(watch.stats.rearms, 1);
    }

    #[test]
    fn a_missing_root_falls_back_to_polling_once_and_arms_when_it_appears() {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path().join("later");
        let mut watch = Watch::new(Arc::new(|_| {}));
        watch.arm(vec![Root::dir(&root, false)], true);
        assert!(!watch.is_armed());
        watch.recheck(vec![Root::dir(&root, false)]);
        assert_eq!(watch.stats.fallbacks, 1, "a retry is not another fallback");
        std::fs::create_dir(&root).unwrap();
        watch.recheck(vec![Root::dir(&root, false)]);
        assert!(watch.is_armed());
    }

    #[test]
    fn only_names_the_globs_may_match_make_a_rescan() {
        use notify::event::{CreateKind, EventKind, ModifyKind, RemoveKind, RenameMode};
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path().to_path_buf();
        let mut watch = Watch::new(Arc::new(|_| {}));
        let roots = vec![crate::input::follow::Follower::new(
            crate::input::follow::FollowConfig::for_test(
                &root.join("app*.log"),
                std::time::Duration::ZERO,
            ),
            Vec::new(),
            Vec::new(),
            true,
        )
        .watch_roots()
        .remove(0)];
        watch.arm(roots, true);
        let mut written = Vec::new();
        let mut note = |kind: EventKind, paths: &[&str]| {
            let event = paths
                .iter()
                .fold(notify::Event::new(kind), |e, p| e.add_path(root.join(p)));
            watch.note(Ok(event), &mut written)
        };
        let create = EventKind::Create(CreateKind::File);
        let rename = EventKind::Modify(ModifyKind::Name(RenameMode::Both));
        let remove = EventKind::Remove(RemoveKind::File);
        // The state file written beside the logs: its temp file created, renamed over it.
        assert!(!note(create, &["state.json.tmp"]));
        assert!(!note(rename, &["state.json.tmp", "state.json"]));
        assert!(!note(remove, &["other.txt"]));
        // A log created, rotated away (from a matching name), deleted; one renamed into a name.
        assert!(note(create, &["app.2.log"]));
        assert!(note(rename, &["app.log", "app.log.1"]));
        assert!(note(rename, &["tmp.txt", "app.log"]));
        assert!(note(remove, &["app.1.log"]));
        // The root itself, and anything outside it, always.
        assert!(note(remove, &[""]));
        assert!(note(create, &["sub/app.log"]));
    }
}
