//! The hot set: which followed files a wake-up and a publication must look at, so that their
//! cost is that of the files that changed, not of every file followed.
//!
//! Owns [`Hot`]: the files due at the next pass (an event named them, the sweep or a scan asked,
//! or they still have something to do: rotated, or bytes not yet read), the files that lag or
//! were rotated (what the lag series are made of besides the quiet files' names), and the
//! lookups that make both cheap: each file's position by id, by the paths an event names it by,
//! and the files in name order. The lookups are rebuilt when the files' layout changes (a scan,
//! a file let go), never per wake-up. Invariant: a file whose `due` flag is set is in the due
//! list, and a file that lags or is rotated is in the notable set as of its last read.
//!
//! **Not here:** reading the files ([`super::pass`]), what an event or the sweep marks
//! ([`super::sweep`]), the lag series themselves ([`super::report`]).
//!
//! Cold: per wake-up, a hash lookup per file due; per layout change, a sort of the paths.

use std::collections::{HashMap, HashSet};
use std::path::Path;

use super::{FileId, Followed, Follower};

/// What the follower keeps to find the files that changed without looking at the others.
#[derive(Debug, Default)]
pub(super) struct Hot {
    /// Files to read at the next pass (an id may repeat; a file let go since is skipped).
    due: Vec<FileId>,
    /// Files that lag (bytes not accounted for yet) or were rotated away, as of their last read.
    pub(super) notable: HashSet<FileId>,
    /// The rotated files among them: while there is none (the common case), a read of a file
    /// has no renamed predecessor to catch up first and looks at no other file.
    pub(super) rotated: HashSet<FileId>,
    /// Each file's position in the follower's list.
    pub(super) slots: HashMap<FileId, usize>,
    /// Each file's position by a hash of the paths an event may name it by ([`path_key`]), files
    /// under their name winning over rotated ones that had it: no copy of every path.
    pub(super) index: HashMap<u64, usize>,
    /// The files' ids, by path.
    pub(super) by_name: Vec<FileId>,
    /// Files a pass looked at since the start (what the tests count, never time).
    pub(super) looked_at: u64,
    /// Layout changes so far ([`Follower::relayout`]): part of what the lag series are made of.
    pub(super) layouts: u64,
}

impl Follower {
    /// Marks the `i`th file to be read at the next pass.
    pub(super) fn mark_due(&mut self, i: usize) {
        let f = &mut self.files[i];
        if !f.due {
            f.due = true;
            self.hot.due.push(f.id);
        }
    }

    /// Keeps the `i`th file for the next pass as well when it still has something to do.
    pub(super) fn keep_if_pending(&mut self, i: usize) {
        if self.files[i].pending() {
            self.hot.due.push(self.files[i].id);
        }
    }

    /// The positions of the files due, in the order they are read (their place in the list),
    /// each once; the due list is emptied.
    pub(super) fn take_due(&mut self) -> Vec<usize> {
        let mut at: Vec<usize> = std::mem::take(&mut self.hot.due)
            .into_iter()
            .filter_map(|id| self.hot.slots.get(&id).copied())
            .collect();
        at.sort_unstable();
        at.dedup();
        at
    }

    /// Puts the files `ids` back on the due list (a pass stopped before them).
    pub(super) fn put_back(&mut self, ids: Vec<FileId>) {
        self.hot.due.extend(ids);
    }

    /// Notes whether the `i`th file lags or was rotated, after anything that may change either.
    pub(super) fn note(&mut self, i: usize) {
        let f = &self.files[i];
        if f.rotated || f.lag() > 0 {
            self.hot.notable.insert(f.id);
        } else {
            self.hot.notable.remove(&f.id);
        }
        if f.rotated {
            self.hot.rotated.insert(f.id);
        } else {
            self.hot.rotated.remove(&f.id);
        }
    }

    /// Whether a rotated file may be held (one let go during a pass is forgotten at its end).
    pub(super) fn holds_rotated(&self) -> bool {
        !self.hot.rotated.is_empty()
    }

    /// After a change of the files' layout (files opened, renamed, reordered or let go): the
    /// lookups are rebuilt, every file is noted again, and those with something left to do are
    /// due. Costs a pass over the files and a sort of their paths: per scan, not per wake-up.
    pub(super) fn relayout(&mut self) {
        let hot = &mut self.hot;
        hot.layouts += 1;
        hot.slots = self
            .files
            .iter()
            .enumerate()
            .map(|(i, f)| (f.id, i))
            .collect();
        hot.index = index(&self.files);
        let mut by_name: Vec<(&[u8], FileId)> = self
            .files
            .iter()
            .map(|f| (f.path.as_os_str().as_encoded_bytes(), f.id))
            .collect();
        by_name.sort_unstable();
        hot.by_name = by_name.into_iter().map(|(_, id)| id).collect();
        hot.notable.clear();
        hot.rotated.clear();
        for i in 0..self.files.len() {
            self.note(i);
            self.keep_if_pending(i);
        }
    }

    /// Files a pass has looked at since the start.
    #[cfg(test)]
    pub(crate) fn looked_at(&self) -> u64 {
        self.hot.looked_at
    }
}

/// Each file by the paths an event may name it by, files under their name winning over rotated
/// ones that had it.
fn index(files: &[Followed]) -> HashMap<u64, usize> {
    let mut index = HashMap::with_capacity(files.len());
    for rotated in [true, false] {
        for (i, f) in files
            .iter()
            .enumerate()
            .filter(|(_, f)| f.rotated == rotated)
        {
            index.insert(path_key(&f.sequence_path), i);
            index.insert(path_key(&f.path), i);
        }
    }
    index
}

/// The key of `path` in the index: a hash (the same for paths that are equal). Two paths of
/// one hash are told apart by the file the key leads to ([`Follower::touch`]).
pub(super) fn path_key(path: &Path) -> u64 {
    use std::hash::{Hash, Hasher};
    let mut hasher = std::collections::hash_map::DefaultHasher::new();
    path.hash(&mut hasher);
    hasher.finish()
}

#[cfg(test)]
mod tests {
    use std::fs;
    use std::path::Path;
    use std::time::Duration;

    use crate::input::follow::append_for_test as append;
    use crate::input::follow::{FollowConfig, Follower, Recorder};

    /// A follower of `n` files `NNNN.log` of one line each, all read, the directory's roots
    /// watched reliably (no sweep).
    fn followed(dir: &Path, n: usize) -> (Follower, Recorder) {
        for k in 0..n {
            fs::write(dir.join(format!("{k:04}.log")), "old line\n").unwrap();
        }
        let config = FollowConfig::for_test(&dir.join("*.log"), Duration::from_secs(3600));
        let mut follower = Follower::new(config, Vec::new(), Vec::new(), true);
        follower.watch_with(vec![crate::input::watch::Root::dir(dir, false)]);
        let mut sink = Recorder::default();
        follower.scan(&mut sink);
        follower.read_all(&mut sink);
        assert_eq!(sink.bytes(), n * "old line\n".len());
        (follower, sink)
    }

    #[test]
    fn a_wake_with_one_written_file_among_a_thousand_looks_at_that_one_only() {
        let dir = tempfile::tempdir().unwrap();
        let (mut follower, mut sink) = followed(dir.path(), 1000);
        let written = dir.path().join("0500.log");
        for round in 1..=3 {
            let (looked, read) = (follower.looked_at(), sink.bytes());
            append(&written, "new line\n");
            follower.touch(&written);
            // An event for a path no file is followed by (the state file's temp file).
            follower.touch(&dir.path().join("state.json.tmp"));
            follower.read_due(&mut sink);
            assert_eq!(
                sink.bytes() - read,
                "new line\n".len(),
                "round {round}: the line is read"
            );
            assert_eq!(
                follower.looked_at() - looked,
                1,
                "round {round}: one file looked at"
            );
        }
        // A wake-up that names nothing looks at nothing.
        let looked = follower.looked_at();
        follower.read_due(&mut sink);
        assert_eq!(follower.looked_at(), looked);
    }

    #[test]
    fn a_file_left_unfinished_is_read_again_without_an_event_then_leaves_the_due_list() {
        let dir = tempfile::tempdir().unwrap();
        let (mut follower, mut sink) = followed(dir.path(), 100);
        let written = dir.path().join("0042.log");
        append(&written, "more\n");
        follower.touch(&written);
        // A shutdown's flag stops the pass before the file: it stays due.
        follower
            .config
            .stop
            .store(true, std::sync::atomic::Ordering::Release);
        follower.read_due(&mut sink);
        follower
            .config
            .stop
            .store(false, std::sync::atomic::Ordering::Release);
        let (looked, read) = (follower.looked_at(), sink.bytes());
        follower.read_due(&mut sink);
        assert_eq!((sink.bytes() - read, follower.looked_at() - looked), (5, 1));
        follower.read_due(&mut sink);
        assert_eq!(
            follower.looked_at() - looked,
            1,
            "read to its end: no longer due"
        );
    }
}
