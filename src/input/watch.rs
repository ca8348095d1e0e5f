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
//! Cost: per event, a match on its kind; per scan, a `stat` per root. Off with `--poll`.

use std::path::{Path, PathBuf};
use std::sync::Arc;

use notify::{RecommendedWatcher, RecursiveMode, Watcher as _};
use tracing::{info, warn};

use super::identity::Inode;

/// Where events go: called on inotify's thread.
pub type OnEvent = Arc<dyn Fn(notify::Result<notify::Event>) + Send + Sync>;

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
    pub fn arm(&mut self, roots: Vec<(PathBuf, bool)>, first: bool) {
        self.root_removed = false;
        self.watched = roots
            .iter()
            .map(|(root, _)| {
                let identity = std::fs::metadata(root).ok().map(|m| Inode::of(&m));
                (root.clone(), identity)
            })
            .collect();
        self.watcher = self.try_arm(roots, first);
        match (self.watcher.is_some(), first) {
            (false, true) => self.stats.fallbacks += 1,
            (true, false) => info!("watching with inotify again"),
            _ => {}
        }
    }

    fn try_arm(&self, roots: Vec<(PathBuf, bool)>, first: bool) -> Option<RecommendedWatcher> {
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
        for (root, recursive) in roots {
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
    pub fn recheck(&mut self, roots: Vec<(PathBuf, bool)>) {
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

    /// Notes a filesystem event; returns true if the globs should be expanded again.
    pub fn note(&mut self, event: notify::Result<notify::Event>) -> bool {
        match event {
            Ok(event) => {
                use notify::EventKind::{Create, Modify, Remove};
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
                )
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_replaced_root_is_noticed_and_watched_again() {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path().join("logs");
        std::fs::create_dir(&root).unwrap();
        let mut watch = Watch::new(Arc::new(|_| {}));
        watch.arm(vec![(root.clone(), false)], true);
        assert!(watch.is_armed() && !watch.roots_changed());
        // Moved away and made anew (the old one kept, so the new one cannot reuse its inode).
        std::fs::rename(&root, dir.path().join("old")).unwrap();
        std::fs::create_dir(&root).unwrap();
        assert!(watch.roots_changed(), "a new directory under the old name");
        watch.recheck(vec![(root.clone(), false)]);
        assert!(watch.is_armed() && !watch.roots_changed());
        assert_eq!(watch.stats.rearms, 1);
    }

    #[test]
    fn a_missing_root_falls_back_to_polling_once_and_arms_when_it_appears() {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path().join("later");
        let mut watch = Watch::new(Arc::new(|_| {}));
        watch.arm(vec![(root.clone(), false)], true);
        assert!(!watch.is_armed());
        watch.recheck(vec![(root.clone(), false)]);
        assert_eq!(watch.stats.fallbacks, 1, "a retry is not another fallback");
        std::fs::create_dir(&root).unwrap();
        watch.recheck(vec![(root, false)]);
        assert!(watch.is_armed());
    }
}
