//! The exporter under test: the real [`Follower`] and [`Pipeline`], driven as `crate::run`'s
//! reading thread drives them, without threads or inotify: a wake-up is `scan` + `read_all`, a
//! state write is composed by the function `run` uses, a crash drops both.

use std::fs;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, OnceLock};
use std::time::Duration;

use crate::account::{AccountState, Accountant};
use crate::config::Config;
use crate::input::follow::{FileId, FollowConfig, Follower, Opened, Sink, StartAt};
use crate::pipeline::Pipeline;
use crate::state::{self, StateFile};
use crate::vocab::Reason;

use super::model::Counts;

/// Bytes per read: a line (about 300 bytes) often straddles two.
const READ_CHUNK_BYTES: usize = 1024;

pub struct Exporter {
    follower: Follower,
    pipeline: Pipeline,
    /// The follower's stop flag (set on shutdown).
    stop: Arc<AtomicBool>,
    /// Started from a state file.
    pub resumed: bool,
}

impl Exporter {
    /// Starts as `run` does: from the state file at `state` if there is one, else fresh at
    /// `start_at`; rotated files are kept for `grace` once read to their end; at most
    /// `descriptors` files are open at once (the others parked), if given.
    pub fn start(
        pattern: &str,
        state: &Path,
        start_at: StartAt,
        grace: Duration,
        descriptors: Option<usize>,
    ) -> Exporter {
        let restored = state::read(state).expect("the state file is readable");
        let fresh = restored.is_none();
        if fresh {
            // A first start reads a roll no state recorded that was written up to 10 ms before
            // it (file times lag the clock by up to a tick). The model takes every file written
            // before a first start as older: that long passes first.
            std::thread::sleep(Duration::from_millis(11));
        }
        let (account, entries, orphans, since, heads) = match restored {
            Some(s) => (s.account.into_owned(), s.files, s.orphans, s.since, s.heads),
            None => (
                AccountState::default(),
                Vec::new(),
                Vec::new(),
                None,
                Vec::new(),
            ),
        };
        let stop = Arc::new(AtomicBool::new(false));
        let follow = FollowConfig {
            patterns: vec![pattern.to_string()],
            start_at,
            max_line_bytes: config().limits.max_line_bytes,
            stop: stop.clone(),
            rotated_grace: grace,
            read_chunk_bytes: READ_CHUNK_BYTES,
            max_file_series: crate::cli::defaults::MAX_FILE_SERIES,
        };
        let mut pipeline = Pipeline::new(Accountant::with_state(config(), account), None, 0);
        let mut file_states = Vec::with_capacity(entries.len());
        pipeline.restore_sources(entries.into_iter().map(|entry| {
            let inode = entry.file.inode;
            file_states.push(entry.file);
            (inode, entry.source)
        }));
        let mut follower = Follower::new(follow, file_states, orphans, fresh);
        follower.remember(since, heads);
        if let Some(n) = descriptors {
            follower.cap_fd_budget(n);
        }
        Exporter {
            follower,
            pipeline,
            stop,
            resumed: !fresh,
        }
    }

    /// What `run` does first: the first scan, the first state write (as soon as the offsets
    /// to start from are known), then reading every file to its end. Returns the total saved.
    pub fn first_wake(&mut self, state: &Path) -> u64 {
        self.follower.scan(&mut self.pipeline);
        self.save(state);
        let saved = self.counts().total();
        self.follower.read_all(&mut self.pipeline);
        saved
    }

    /// Killed after the first scan, before the first state write: nothing of it survives.
    pub fn crash_before_first_write(mut self) {
        self.follower.scan(&mut self.pipeline);
    }

    /// A wake-up with a rescan (a create or rename event, or the periodic stat).
    pub fn scan_read(&mut self) {
        self.follower.scan(&mut self.pipeline);
        self.follower.read_all(&mut self.pipeline);
    }

    /// A wake-up without a rescan (a modify event).
    pub fn read(&mut self) {
        self.follower.read_all(&mut self.pipeline);
    }

    /// The state, as `ReadLoop::save` composes it (the same function).
    fn compose(&mut self) -> StateFile<'_> {
        crate::state::compose(&mut self.follower, &self.pipeline)
    }

    pub fn save(&mut self, state: &Path) {
        let composed = self.compose();
        state::write(state, &composed).expect("the state is written");
    }

    /// The state written to the temp file, and the process gone before the rename.
    pub fn save_torn(mut self, state: &Path) {
        let composed = self.compose();
        fs::write(tmp_path(state), serde_json::to_vec(&composed).unwrap()).unwrap();
    }

    /// SIGTERM in the middle of a read: the stop flag is set once `after` regions of lines were
    /// handed up, reading stops at the next chunk boundary, and the final state is written.
    /// Returns the total it saved.
    pub fn shutdown(mut self, state: &Path, after: usize) -> u64 {
        let mut sink = Stopping {
            inner: &mut self.pipeline,
            stop: &self.stop,
            left: after,
        };
        self.follower.read_all(&mut sink);
        self.save(state);
        self.counts().total()
    }

    pub fn counts(&self) -> Counts {
        let mut counts = Counts::default();
        for (key, n) in &self.pipeline.accountant().metrics().denials {
            match key.reason {
                Reason::Rule => counts.rule += n,
                Reason::Hook => counts.hook += n,
                Reason::Unknown => counts.unknown += n,
                _ => counts.other += n,
            }
        }
        counts
    }

    /// Lines the follower joined across two files.
    pub fn rejoined(&self) -> u64 {
        self.follower.stats().rejoined
    }

    /// Saved files the follower found only compressed and finished from their `.gz`.
    pub fn finished_compressed(&self) -> u64 {
        self.follower.stats().compressed_finished
    }

    /// Files followed, orphan fragments held.
    pub fn held(&self) -> (usize, usize) {
        self.follower.held()
    }
}

/// The pipeline, with the stop flag set after a number of regions.
struct Stopping<'a> {
    inner: &'a mut Pipeline,
    stop: &'a AtomicBool,
    left: usize,
}

impl Sink for Stopping<'_> {
    fn opened(&mut self, file: &Opened<'_>) {
        Sink::opened(self.inner, file);
    }

    fn lines(&mut self, id: FileId, region: &[u8]) {
        Sink::lines(self.inner, id, region);
        self.left = self.left.saturating_sub(1);
        if self.left == 0 {
            self.stop.store(true, Ordering::Release);
        }
    }

    fn oversized(&mut self, id: FileId, count: u64) {
        Sink::oversized(self.inner, id, count);
    }

    fn unterminated(&mut self, id: FileId, fragment: &[u8]) {
        Sink::unterminated(self.inner, id, fragment);
    }

    fn reset(&mut self, id: FileId) {
        Sink::reset(self.inner, id);
    }

    fn closed(&mut self, id: FileId) {
        Sink::closed(self.inner, id);
    }

    fn is_whole_line(&self, line: &[u8]) -> bool {
        Sink::is_whole_line(self.inner, line)
    }
}

/// The default configuration, compiled once: its regexes take most of a start, unoptimised.
fn config() -> Config {
    static CONFIG: OnceLock<Config> = OnceLock::new();
    CONFIG.get_or_init(Config::default).clone()
}

fn tmp_path(state: &Path) -> PathBuf {
    let mut name = state.file_name().unwrap().to_os_string();
    name.push(".tmp");
    state.with_file_name(name)
}
