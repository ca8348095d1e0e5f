//! What a wake-up reads: the files an inotify event named, and a paced sweep of the files
//! inotify does not watch reliably, so that the cost of a write is that of the file written, not
//! of every file followed.
//!
//! Owns [`Follower::touch`] (an event's path marks its file due, found through the index by path
//! the hot set keeps, [`super::hot`]), [`Follower::watch_with`] (which directories inotify watches
//! reliably: a file is *watched* when its path is no symlink and its directory is one of them, or
//! under a recursive one) and [`Follower::sweep`] (each tick marks the next slice of the files
//! that are not watched, so each is looked at once per stat interval, never all at once).
//!
//! **Not here:** which directories are watched and which filesystems inotify can be trusted on
//! (`crate::input::watch`), reading the files marked ([`super::pass`]).
//!
//! Cold: per event, a hash lookup; per tick, one flag per file of the slice.

use std::path::Path;

use super::hot::path_key;
use super::paths::is_symlink;
use super::{Followed, Follower};
use crate::input::watch::Root;

impl Follower {
    /// The directories inotify watches reliably (`(dir, recursive)`), none when it does not
    /// (polling): the files under them are read when an event names them, and left out of the
    /// sweep.
    pub fn watch_with(&mut self, roots: Vec<Root>) {
        if roots == self.watched_roots {
            return; // files opened since were judged when opened
        }
        self.watched_roots = roots;
        for i in 0..self.files.len() {
            self.files[i].watched = self.is_watched(&self.files[i].path);
        }
        self.count_unwatched();
    }

    /// Counts the files that are not watched reliably (after a scan, or new roots).
    pub(super) fn count_unwatched(&mut self) {
        self.unwatched = self.files.iter().filter(|f| !f.watched).count();
    }

    /// Whether a file followed under `path` is watched by inotify reliably.
    pub(super) fn is_watched(&self, path: &Path) -> bool {
        let Some(dir) = path.parent() else {
            return false;
        };
        self.watched_roots
            .iter()
            .any(|root| dir == root.dir || (root.recursive && dir.starts_with(&root.dir)))
            && !is_symlink(path)
    }

    /// An event named `path`: the file followed under it (or read through it) is read at the
    /// next [`Follower::read_due`]. A path no file is followed by (a file not followed yet, or
    /// one the globs do not match) costs a hash lookup: the scan its creation causes follows it.
    pub fn touch(&mut self, path: &Path) {
        let named = |f: &Followed| f.path == path || f.sequence_path == path;
        let found = match self.hot.index.get(&path_key(path)) {
            None => None, // no file is followed by that path
            Some(&i) => match self.files.get(i) {
                Some(f) if named(f) => (!f.rotated).then_some(i),
                // Another path with the same key: looked for.
                _ => self.files.iter().position(|f| !f.rotated && named(f)),
            },
        };
        if let Some(i) = found {
            self.mark_due(i);
        }
    }

    /// One tick of the sweep: marks due the next `1 / slices` of the files, those inotify does
    /// not watch reliably; returns how many it marked.
    pub fn sweep(&mut self, slices: usize) -> usize {
        let n = self.files.len();
        if n == 0 {
            return 0;
        }
        let slice = n.div_ceil(slices.max(1));
        let mut marked = 0;
        for k in 0..slice {
            let i = (self.sweep_cursor + k) % n;
            if !self.files[i].watched {
                self.mark_due(i);
                marked += 1;
            }
        }
        self.sweep_cursor = (self.sweep_cursor + slice) % n;
        marked
    }

    /// Whether some followed file is not watched reliably (then the sweep has work).
    pub fn has_unwatched(&self) -> bool {
        self.unwatched > 0
    }
}
