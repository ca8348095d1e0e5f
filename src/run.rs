//! `denials-exporter run`: the sidecar. Follows the log files, keeps the state file, serves HTTP.
//!
//! Two threads of work: the *reading thread* owns the [`Follower`] and the [`Pipeline`] (no lock)
//! and is the only one that feeds the pipeline and writes the state file, so offsets and counters
//! always describe the same lines; after each batch it publishes an immutable snapshot of the
//! counters for HTTP, so a scrape never waits for reading, nor reading for a scrape. The tokio
//! runtime serves HTTP and waits for signals. The reading thread wakes on
//! an inotify event (then reads every file to its end), on the periodic stat (then also expands
//! the globs and checks for truncation: this catches missed or overflowed events, symlink swaps,
//! NFS and overlayfs), and on shutdown (then writes the state and returns; a read in progress
//! stops at the next chunk boundary, so a large backlog never delays the final state write).
//!
//! With `--poll`, or when inotify cannot be set up (e.g. the watch limit), only the periodic
//! stat drives reading.
//!
//! **Not here:** following files ([`crate::input::follow`]), the HTTP routes
//! ([`crate::output::http`]), the state format ([`crate::state`]).

use std::future::Future;
use std::net::SocketAddr;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::mpsc::{self, Receiver, RecvTimeoutError, Sender};
use std::sync::Arc;
use std::task::Poll;
use std::thread;
use std::time::{Duration, Instant};

use anyhow::{bail, Context, Result};
use notify::{RecommendedWatcher, RecursiveMode, Watcher};
use tokio::net::TcpListener;
use tracing::{debug, error, info, warn};

use crate::account::{wall_now, AccountState, Accountant};
use crate::cli::{ReadFrom, RunArgs};
use crate::config::Config;
use crate::input::follow::{FollowConfig, Follower, StartAt};
use crate::input::identity::Inode;
use crate::output::audit::AuditWriter;
use crate::output::exposition::RunStats;
use crate::output::http::{self, Published, Shared, View};
use crate::output::recent::RecentDenials;
use crate::output::web::{Web, WebOptions};
use crate::pipeline::Pipeline;
use crate::state::{self, FileEntry, StateFile, StateV1};

/// What wakes the reading thread.
enum Wake {
    Fs(notify::Result<notify::Event>),
    /// SIGHUP: reopen the audit log, expand the globs and set up the watches again, write the
    /// state.
    Hangup,
    Shutdown,
}

/// Runs the sidecar until SIGTERM or SIGINT.
pub fn run(mut args: RunArgs) -> Result<()> {
    let config = Config::from_args(&args.pipeline)?;
    let mut demo_dir = None;
    if args.demo {
        let dir = crate::run::demo::start()?;
        args.paths = vec![format!("{}/*.log", dir.path().display())];
        demo_dir = Some(dir);
    }
    if args.paths.is_empty() {
        bail!("no --path given: name the log files to follow");
    }
    for pattern in &args.paths {
        glob::Pattern::new(pattern).with_context(|| format!("invalid --path glob {pattern:?}"))?;
    }
    if !(args.stat_interval > 0.0 && args.state_interval > 0.0) {
        bail!("--stat-interval and --state-interval must be positive");
    }
    let addrs = args
        .listen_addresses
        .iter()
        .map(|a| {
            a.parse::<SocketAddr>()
                .with_context(|| format!("invalid --web.listen-address {a:?}"))
        })
        .collect::<Result<Vec<_>>>()?;
    if !args.telemetry_path.starts_with('/') {
        bail!(
            "--web.telemetry-path must start with '/', got {:?}",
            args.telemetry_path
        );
    }

    let write_timeout = Duration::try_from_secs_f64(args.write_timeout)
        .ok()
        .filter(|t| !t.is_zero());
    let (Some(write_timeout), 1..) = (write_timeout, args.max_connections) else {
        bail!("--web.max-connections and --web.write-timeout must be positive");
    };
    let web = Web::new(WebOptions {
        config_file: args.web_config_file.as_deref(),
        max_connections: args.max_connections,
        write_timeout,
    })?;

    if let Some(path) = &args.state_file {
        state::probe(path)?;
    }
    let restored = match &args.state_file {
        None => None,
        Some(path) => match state::read(path) {
            Ok(state) => state,
            Err(error) if args.state_reset_on_error => {
                warn!(%error, "starting with empty state");
                None
            }
            Err(error) => return Err(error.into()),
        },
    };
    let fresh = restored.is_none();
    let (account_state, entries, orphans, audit_len) = match restored {
        Some(state) => {
            info!(
                files = state.files.len(),
                denials = state.account.metrics.denials_total(),
                "state restored"
            );
            (
                state.account.into_owned(),
                state.files,
                state.orphans,
                state.audit_len,
            )
        }
        None => (AccountState::default(), Vec::new(), Vec::new(), None),
    };
    let audit = match &config.audit_log {
        Some(path) => Some(
            AuditWriter::open_at(path, audit_len)
                .with_context(|| format!("cannot open audit log {}", path.display()))?,
        ),
        None => None,
    };
    let stop_reading = Arc::new(AtomicBool::new(false));
    let follow_config = FollowConfig {
        patterns: args.paths.clone(),
        start_at: match args.read_from {
            ReadFrom::Beginning => StartAt::Beginning,
            ReadFrom::End => StartAt::End,
        },
        max_line_bytes: config.limits.max_line_bytes,
        stop: stop_reading.clone(),
        rotated_grace: crate::input::follow::ROTATED_GRACE,
        read_chunk_bytes: crate::input::follow::READ_CHUNK_BYTES,
    };
    let mut accountant = Accountant::with_state(config, account_state);
    accountant.set_exemplars(true); // `/metrics` serves them in OpenMetrics
    let mut pipeline = Pipeline::new(accountant, audit, args.recent_denials);
    let mut file_states = Vec::with_capacity(entries.len());
    pipeline.restore_sources(entries.into_iter().map(|entry| {
        let inode = entry.file.inode;
        file_states.push(entry.file);
        (inode, entry.source)
    }));
    let shared = Arc::new(Shared::new(
        args.telemetry_path.clone(),
        View {
            files: Vec::new(),
            recent: RecentDenials::new(args.recent_denials),
        },
    ));

    let runtime = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(1)
        .on_thread_start(|| {
            // Scrapes wait for a core more than they compute: wake these threads first.
            if !crate::sched::prefer_low_latency() {
                debug!("the kernel keeps the default scheduling slice for HTTP threads");
            }
        })
        .enable_all()
        .build()
        .context("cannot start the async runtime")?;
    let listeners = runtime.block_on(async {
        let mut listeners = Vec::new();
        for addr in &addrs {
            let listener = TcpListener::bind(addr)
                .await
                .with_context(|| format!("cannot listen on {addr}"))?;
            info!(address = %listener.local_addr().unwrap_or(*addr), "serving HTTP");
            listeners.push(listener);
        }
        anyhow::Ok(listeners)
    })?;
    crate::output::connection::raise_fd_limit(); // after the last start-up error

    // Install the SIGTERM/SIGINT handlers now, before the reading thread can report ready: a
    // signal that arrives once we are ready must stop us cleanly, never kill us by default.
    let mut shutdown = Box::pin(crate::signal::shutdown());
    let signalled = runtime.block_on(std::future::poll_fn(|cx| {
        Poll::Ready(shutdown.as_mut().poll(cx).is_ready())
    }));
    let mut hangups = runtime
        .block_on(async { crate::signal::hangups() })
        .context("cannot install the SIGHUP handler")?;

    let (wake_tx, wake_rx) = mpsc::channel();
    let reader = {
        let shared = shared.clone();
        let wake_tx = wake_tx.clone();
        let loop_config = ReadLoop {
            stat_interval: Duration::from_secs_f64(args.stat_interval),
            state_interval: Duration::from_secs_f64(args.state_interval),
            state_file: args.state_file.clone(),
            poll: args.poll,
        };
        thread::Builder::new()
            .name("reader".into())
            .spawn(move || {
                shared.healthy.store(true, Ordering::Release);
                let follower = Follower::new(follow_config, file_states, orphans, fresh);
                let reader = Reader {
                    follower,
                    pipeline,
                    stats: RunStats::default(),
                    published_at: None,
                    watched: Vec::new(),
                    root_removed: false,
                };
                let result = loop_config.run(reader, &shared, wake_tx, wake_rx);
                shared.healthy.store(false, Ordering::Release);
                result
            })
            .context("cannot start the reading thread")?
    };

    runtime.block_on(http::serve(listeners, shared.clone(), web, async move {
        let forward_hangups = async {
            while hangups.recv().await.is_some() {
                info!("SIGHUP received: reopening the audit log, rescanning, writing the state");
                let _ = wake_tx.send(Wake::Hangup);
            }
        };
        if !signalled {
            tokio::select! {
                () = shutdown => {}
                () = forward_hangups => {}
            }
        }
        stop_reading.store(true, Ordering::Release); // interrupts a long read
        let _ = wake_tx.send(Wake::Shutdown);
    }));
    let result = reader
        .join()
        .unwrap_or_else(|_| Err(anyhow::anyhow!("the reading thread panicked")));
    drop(demo_dir);
    result
}

/// Settings of the reading thread's loop.
struct ReadLoop {
    stat_interval: Duration,
    state_interval: Duration,
    state_file: Option<PathBuf>,
    poll: bool,
}

/// What the reading thread owns.
struct Reader {
    follower: Follower,
    pipeline: Pipeline,
    /// The sidecar's own counters (the follower keeps its own).
    stats: RunStats,
    /// When the counters were last published, if ever.
    published_at: Option<Instant>,
    /// The watched directories and their identities when the watches were set up.
    watched: Vec<(PathBuf, Option<Inode>)>,
    /// inotify said a watched directory was removed.
    root_removed: bool,
}

/// The shortest time between two state writes made because a new identity was learned.
const IDENTITY_STATE_GAP: Duration = Duration::from_millis(100);

/// Counters unchanged since the last publication are published again at least this often (the
/// file lag gauges move without reading).
const REPUBLISH: Duration = Duration::from_secs(1);

impl ReadLoop {
    fn run(
        self,
        mut r: Reader,
        shared: &Shared,
        wake_tx: Sender<Wake>,
        wake_rx: Receiver<Wake>,
    ) -> Result<()> {
        let mut watcher = if self.poll {
            None
        } else {
            self.watch(&mut r, &wake_tx, true)
        };
        r.stats.inotify = watcher.is_some();
        r.follower.scan(&mut r.pipeline);
        // The first state write, as soon as the offsets to start from are known: a crash from
        // now on restarts from a state, never fresh (a fresh start cannot find the files rotated
        // out of the globs since). A failure is counted and logged; the interval tries again.
        let _ = self.save(&mut r);
        r.follower.read_all(&mut r.pipeline);
        r.publish(shared, true);
        shared.ready.store(true, Ordering::Release);
        let (mut last_scan, mut last_state) = (Instant::now(), Instant::now());
        // Identities known as of the last state write, and when a new one last caused a write.
        let (mut saved_identities, mut identity_write) = (r.follower.identities(), None::<Instant>);
        loop {
            let next_scan = last_scan + self.stat_interval;
            let timeout = next_scan.saturating_duration_since(Instant::now());
            let (mut rescan, mut hangup) = (false, false);
            let read_before = r.pipeline.accountant().metrics().read_bytes;
            match wake_rx.recv_timeout(timeout) {
                Ok(Wake::Shutdown) | Err(RecvTimeoutError::Disconnected) => break,
                Ok(wake) => {
                    let mut wake = Some(wake);
                    // Drain what else is queued: one read to the end serves them all.
                    while let Some(w) = wake.take().or_else(|| wake_rx.try_recv().ok()) {
                        match w {
                            Wake::Shutdown => return self.finish(&mut r, shared),
                            Wake::Fs(event) => rescan |= self.on_event(event, &mut r),
                            Wake::Hangup => hangup = true,
                        }
                    }
                }
                Err(RecvTimeoutError::Timeout) => {}
            }
            if hangup {
                if let Err(error) = r.pipeline.reopen_audit() {
                    error!(%error, "cannot reopen the audit log; denials are still counted");
                }
                if !self.poll {
                    watcher = self.watch(&mut r, &wake_tx, false);
                }
                rescan = true;
            }
            if rescan || Instant::now() >= next_scan {
                r.follower.scan(&mut r.pipeline);
                last_scan = Instant::now();
                if watcher.is_some() && r.watched_roots_changed() {
                    // A watched directory was deleted (and maybe made again): its watch is gone.
                    r.stats.watch_rearms += 1;
                    warn!("a watched directory was replaced; setting up inotify again");
                    watcher = self.watch(&mut r, &wake_tx, false);
                    if watcher.is_none() {
                        r.stats.watcher_fallbacks += 1;
                    }
                } else if watcher.is_none() && !self.poll {
                    // A root that did not exist may now; a failure was already counted.
                    watcher = self.watch(&mut r, &wake_tx, false);
                }
                r.stats.inotify = watcher.is_some();
            }
            r.follower.read_all(&mut r.pipeline);
            // A file followed for the first time, or the first bytes of one created empty, are
            // written into the state soon (at most ten such writes a second): renamed out of the
            // globs (and compressed) before the next interval and then a crash, it could only be
            // found again by that identity in the state.
            let identity = r.follower.identities() != saved_identities
                && identity_write.is_none_or(|at| at.elapsed() >= IDENTITY_STATE_GAP);
            if hangup || identity || last_state.elapsed() >= self.state_interval {
                // A failure is counted and logged; the next interval tries again.
                let _ = self.save(&mut r);
                last_state = Instant::now();
                identity_write = identity.then_some(last_state).or(identity_write);
                saved_identities = r.follower.identities();
            }
            let changed = r.pipeline.accountant().metrics().read_bytes != read_before;
            r.publish(shared, changed);
        }
        self.finish(&mut r, shared)
    }

    /// Sets up inotify on every pattern's root; `None` (polling) if that fails, which counts as
    /// a fallback when `first` (later retries of the same fallback are not counted again).
    fn watch(
        &self,
        r: &mut Reader,
        wake_tx: &Sender<Wake>,
        first: bool,
    ) -> Option<RecommendedWatcher> {
        r.root_removed = false;
        r.watched = r
            .follower
            .watch_roots()
            .into_iter()
            .map(|(root, _)| {
                let identity = std::fs::metadata(&root).ok().map(|m| Inode::of(&m));
                (root, identity)
            })
            .collect();
        let watcher = self.try_watch(&r.follower, wake_tx, first);
        match (&watcher, first) {
            (None, true) => r.stats.watcher_fallbacks += 1,
            (Some(_), false) => info!("watching with inotify again"),
            _ => {}
        }
        watcher
    }

    fn try_watch(
        &self,
        follower: &Follower,
        wake_tx: &Sender<Wake>,
        first: bool,
    ) -> Option<RecommendedWatcher> {
        let tx = wake_tx.clone();
        let mut watcher = match notify::recommended_watcher(move |event| {
            let _ = tx.send(Wake::Fs(event));
        }) {
            Ok(w) => w,
            Err(error) => {
                if first {
                    warn!(%error, "cannot set up inotify; polling instead");
                }
                return None;
            }
        };
        for (root, recursive) in follower.watch_roots() {
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

    /// Notes a filesystem event; returns true if the globs should be expanded again.
    fn on_event(&self, event: notify::Result<notify::Event>, r: &mut Reader) -> bool {
        match event {
            Ok(event) => {
                use notify::EventKind::{Create, Modify, Remove};
                if event.need_rescan() {
                    r.stats.watcher_errors += 1; // the queue overflowed
                    warn!("inotify queue overflowed; rescanning");
                    return true;
                }
                if matches!(event.kind, Remove(_))
                    && event
                        .paths
                        .iter()
                        .any(|p| r.watched.iter().any(|(root, _)| p == root))
                {
                    r.root_removed = true; // its watch went with it, whatever comes back
                }
                matches!(
                    event.kind,
                    Create(_) | Remove(_) | Modify(notify::event::ModifyKind::Name(_))
                )
            }
            Err(error) => {
                r.stats.watcher_errors += 1;
                warn!(%error, "inotify error; rescanning");
                true
            }
        }
    }

    /// Writes the state file: offsets, what the pipeline held at them, and the counters they
    /// produced, taken together between two reads. Returns whether it was written.
    fn save(&self, r: &mut Reader) -> bool {
        let Some(path) = &self.state_file else {
            return true;
        };
        let state = compose_state(&mut r.follower, &r.pipeline);
        match state::write(path, &state) {
            Ok(()) => {
                r.stats.state_writes_ok += 1;
                r.stats.state_last_write = wall_now();
                true
            }
            Err(e) => {
                r.stats.state_writes_error += 1;
                error!(path = %path.display(), error = %e, "cannot write the state file");
                false
            }
        }
    }

    /// The final state write: a failure is an error exit, since the next start would count
    /// again what was read since the last good write.
    fn finish(&self, r: &mut Reader, shared: &Shared) -> Result<()> {
        let written = self.save(r);
        r.publish(shared, true);
        if !written {
            bail!("cannot write the final state; the next start re-reads from the last good state");
        }
        if self.state_file.is_some() {
            info!("state written; reading stopped");
        } else {
            info!("reading stopped");
        }
        Ok(())
    }
}

/// The state: the follower's offsets, what the pipeline held at them, and the counters they
/// produced, taken together between two reads (also what the model test saves). It borrows the
/// counting state: a copy of every execution in flight was most of `run`'s peak memory.
pub(crate) fn compose_state<'a>(follower: &mut Follower, pipeline: &'a Pipeline) -> StateFile<'a> {
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
        written_at: wall_now(),
        files,
        orphans: saved.orphans,
        account: std::borrow::Cow::Borrowed(pipeline.accountant().state()),
        audit_len: pipeline.audit_len(),
    };
    state.scrub(); // no raw secret in the state file
    StateFile::V1(state)
}

impl Reader {
    /// Whether a watched directory is no longer the one watched (deleted, or made anew).
    fn watched_roots_changed(&self) -> bool {
        self.root_removed
            || self
                .watched
                .iter()
                .any(|(root, armed)| std::fs::metadata(root).ok().map(|m| Inode::of(&m)) != *armed)
    }

    /// Publishes the counters for HTTP (when they `changed`, or their lag gauges may have) and
    /// the latest audit records for the recent-denials ring.
    fn publish(&mut self, shared: &Shared, changed: bool) {
        let kept = self.pipeline.take_kept();
        let due = self.published_at.is_none_or(|at| at.elapsed() >= REPUBLISH);
        if !(changed || due || !kept.is_empty()) {
            return;
        }
        let accountant = self.pipeline.accountant();
        let mut run = self.stats.clone();
        run.follow = self.follower.stats();
        // A path is a label value and shown on `/`: one that holds a secret is `redacted`
        // (lags of paths that become one name are summed, so no series repeats).
        // A path seen before is not scanned again: the redactor remembers recent clean texts.
        let mut lags: std::collections::BTreeMap<String, u64> = Default::default();
        for (path, lag) in std::mem::take(&mut run.follow.files) {
            *lags
                .entry(crate::account::label_value(&path).to_string())
                .or_default() += lag;
        }
        run.follow.files = lags.into_iter().collect();
        let files = run.follow.files.clone();
        shared.publish(Published {
            generation: 0, // set by `publish`
            metrics: accountant.metrics().clone(),
            gauges: accountant.gauges(),
            run,
        });
        self.published_at = Some(Instant::now());
        let mut view = shared.view.lock().expect("view lock");
        view.files = files;
        view.recent.extend(&kept);
    }
}

pub mod demo {
    //! `run --demo`: writes the bundled example log, line by line, into a temporary directory,
    //! again and again with fresh execution ids, so a newcomer sees `/metrics` move.

    use std::io::Write;
    use std::time::Duration;

    use anyhow::{Context, Result};

    const EXAMPLE: &str = include_str!("../examples/executor.log");

    /// Starts the writer; the directory lives as long as the returned handle.
    pub fn start() -> Result<tempfile::TempDir> {
        let dir = tempfile::Builder::new()
            .prefix("denials-exporter-demo")
            .tempdir()
            .context("cannot create the demo directory")?;
        let path = dir.path().join("executor.log");
        std::fs::File::create(&path)
            .with_context(|| format!("cannot create {}", path.display()))?;
        tracing::info!(path = %path.display(), "demo: writing the example log, one line every 300 ms");
        std::thread::Builder::new()
            .name("demo-writer".into())
            .spawn(move || {
                for round in 0u64.. {
                    for line in EXAMPLE.lines() {
                        let line = line
                            .replace("exec_01", &format!("exec_{round:02}"))
                            .replace("toolu_01", &format!("toolu_{round:02}"));
                        let Ok(mut file) = std::fs::OpenOptions::new().append(true).open(&path)
                        else {
                            return;
                        };
                        if writeln!(file, "{line}").is_err() {
                            return;
                        }
                        std::thread::sleep(Duration::from_millis(300));
                    }
                }
            })
            .context("cannot start the demo writer")?;
        Ok(dir)
    }
}
