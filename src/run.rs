//! `denials-exporter run`: the sidecar. Follows the log files, keeps the state file, serves HTTP.
//!
//! Two threads of work: the *reading thread* owns the [`Follower`] and the [`Pipeline`] (no lock)
//! and is the only one that feeds the pipeline and writes the state file, so offsets and counters
//! always describe the same lines; after each batch it publishes an immutable snapshot of the
//! counters for HTTP, so a scrape never waits for reading, nor reading for a scrape: a change
//! at once, a burst of them at most once per gap ([`pacing`]). The tokio
//! runtime serves HTTP and waits for signals. The reading thread wakes on
//! an inotify event (then reads the files it names to their end; a create, rename or delete also
//! expands the globs), on a tick of the sweep (then reads the next slice of the files inotify
//! does not watch reliably: symlinks to other directories, NFS, overlayfs), on the periodic
//! stat (then also expands the globs and checks for truncation: every stat interval, or every
//! thirtieth when inotify watches every root reliably), and on shutdown (then writes the state and
//! returns; a read in progress stops at the next chunk boundary, so a large backlog never delays
//! the final state write). An inotify overflow or error, or SIGHUP, reads every file.
//!
//! Start-up fails only on the configuration (flags, the web config, a port that cannot be had):
//! whatever the data, it serves `/-/healthy` at once. A state file that cannot be used is set
//! aside ([`crate::state::open`]), one that cannot be written and a glob whose directory is missing
//! are [`Fault`]s, each counted and logged once. Logged at the ends: one start line, a warning per
//! glob that matches nothing, one line when the backlog has been read.
//!
//! With `--poll`, or when inotify cannot be set up (e.g. the watch limit), only the periodic
//! stat drives reading.
//!
//! **Not here:** following files ([`crate::input::follow`]), the HTTP routes
//! ([`crate::web`]), the state format ([`crate::state`]).

mod pacing;

use std::future::Future;
use std::path::PathBuf;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::mpsc::{self, Receiver, RecvTimeoutError};
use std::sync::Arc;
use std::task::Poll;
use std::thread;
use std::time::{Duration, Instant};

use anyhow::{bail, Context, Result};
use tokio::net::TcpListener;
use tracing::{debug, error, info, warn};

use crate::account::{wall_now, AccountState, Accountant};
use crate::audit::AuditWriter;
use crate::cli::ReadFrom;
use crate::config::{Listen, RunConfig};
use crate::exposition::RunStats;
use crate::input::follow::{FollowConfig, FollowStats, Follower, KnownHeads, LagKey, StartAt};
use crate::input::rejoin::Orphan;
use crate::input::watch::Watch;
use crate::pipeline::Pipeline;
use crate::state::{self, Fault, Faults, FileEntry};
use crate::web::{self, Published, RecentDenials, Shared, View, Web, WebOptions};
use pacing::{Pacing, REPUBLISH};

/// What wakes the reading thread.
enum Wake {
    Fs(notify::Result<notify::Event>),
    /// SIGHUP: reopen the audit log, expand the globs and set up the watches again, write the
    /// state.
    Hangup,
    Shutdown,
}

/// Runs the sidecar until SIGTERM or SIGINT.
pub fn run(mut settings: RunConfig) -> Result<()> {
    let config = settings.pipeline.clone();
    let mut demo_dir = None;
    if settings.demo {
        let dir = crate::demo::start()?;
        settings.paths = vec![format!("{}/*.log", dir.path().display())];
        demo_dir = Some(dir);
    }
    let web = Web::new(WebOptions {
        config_file: settings.web_config_file.as_deref(),
        max_connections: settings.max_connections,
        write_timeout: settings.write_timeout,
    })?;

    let runtime = start_runtime()?;
    let listeners = bind(&runtime, &settings.listen_addresses)?;
    let addresses: Vec<String> = listeners
        .iter()
        .filter_map(|l| l.local_addr().ok())
        .map(|a| a.to_string())
        .collect();
    info!(
        version = env!("CARGO_PKG_VERSION"),
        globs = settings.paths.join(","),
        state_file = settings
            .state_file
            .as_deref()
            .map_or("none".into(), |p| p.display().to_string()),
        read_from = match settings.read_from {
            ReadFrom::Beginning => "beginning",
            ReadFrom::End => "end",
        },
        listen = addresses.join(","),
        "denials-exporter starting"
    );
    let mut faults = Faults::default();
    check_globs(&settings.paths, &mut faults);
    let Restored {
        account: account_state,
        entries,
        orphans,
        audit_len,
        fresh,
        since,
        heads,
    } = restore(&settings, &mut faults);
    let audit = match &config.audit_log {
        Some(path) => Some(
            AuditWriter::open_at(path, audit_len)
                .with_context(|| format!("cannot open audit log {}", path.display()))?,
        ),
        None => None,
    };
    let stop_reading = Arc::new(AtomicBool::new(false));
    let follow_config = FollowConfig {
        patterns: settings.paths.clone(),
        start_at: match settings.read_from {
            ReadFrom::Beginning => StartAt::Beginning,
            ReadFrom::End => StartAt::End,
        },
        max_line_bytes: config.limits.max_line_bytes,
        stop: stop_reading.clone(),
        rotated_grace: crate::input::follow::ROTATED_GRACE,
        read_chunk_bytes: crate::input::follow::READ_CHUNK_BYTES,
        max_file_series: settings.max_file_series,
    };
    let mut accountant = Accountant::with_state(config, account_state);
    accountant.set_exemplars(true); // `/metrics` serves them in OpenMetrics
    let mut pipeline = Pipeline::new(accountant, audit, settings.recent_denials);
    let mut file_states = Vec::with_capacity(entries.len());
    pipeline.restore_sources(entries.into_iter().map(|entry| {
        let inode = entry.file.inode;
        file_states.push(entry.file);
        (inode, entry.source)
    }));
    let shared = Arc::new(
        Shared::new(
            settings.telemetry_path.clone(),
            View {
                files: Vec::new(),
                recent: RecentDenials::new(settings.recent_denials),
            },
        )
        .with_globs(settings.paths.clone())
        .with_state_file(settings.state_file.is_some()),
    );

    web::raise_fd_limit(); // after the last start-up error

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
            stat_interval: settings.stat_interval,
            state_interval: settings.state_interval,
            state_file: settings.state_file.clone(),
            poll: settings.poll,
        };
        thread::Builder::new()
            .name("reader".into())
            .spawn(move || {
                shared.healthy.store(true, Ordering::Release);
                let mut follower = Follower::new(follow_config, file_states, orphans, fresh);
                follower.remember(since, heads);
                let watch = Watch::new(Arc::new(move |event| {
                    let _ = wake_tx.send(Wake::Fs(event));
                }));
                let reader = Reader {
                    follower,
                    pipeline,
                    stats: RunStats::default(),
                    pacing: Pacing::default(),
                    watch,
                    faults,
                    state_failing: false,
                    state_bytes: 0,
                    lag_series: Default::default(),
                    clean_paths: Default::default(),
                };
                let result = loop_config.run(reader, &shared, wake_rx);
                shared.healthy.store(false, Ordering::Release);
                result
            })
            .context("cannot start the reading thread")?
    };

    prefer_low_latency(); // this thread now runs the runtime
    runtime.block_on(web::serve(listeners, shared.clone(), web, async move {
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

/// What the state file held at start-up, or a fresh start.
struct Restored {
    account: AccountState,
    entries: Vec<FileEntry>,
    orphans: Vec<Orphan>,
    /// The audit file's length when the state was written.
    audit_len: Option<u64>,
    /// No state: the first start (where `--read-from` applies).
    fresh: bool,
    /// When the first start was, if the state says.
    since: Option<f64>,
    /// The heads of files counted that may still be on disk.
    heads: Vec<KnownHeads>,
}

/// Reads the state file, if one is configured. Nothing in it stops the start: a state that
/// cannot be used is moved aside and the start is fresh, a state that cannot be written is a
/// fault counted and logged (each once, in `faults`), and the exporter comes up regardless.
fn restore(settings: &RunConfig, faults: &mut Faults) -> Restored {
    let fresh = Restored {
        account: AccountState::default(),
        entries: Vec::new(),
        orphans: Vec::new(),
        audit_len: None,
        fresh: true,
        since: None,
        heads: Vec::new(),
    };
    let Some(path) = &settings.state_file else {
        return fresh;
    };
    if let Err(error) = state::probe(path) {
        faults.count(error.fault());
        error!(%error, "the state cannot be written: counts start over after a restart until it can");
    }
    let (state, aside) = state::open(path, wall_now());
    if let Some(aside) = aside {
        faults.count(aside.error.fault());
        match aside.moved_to {
            Ok(to) => {
                error!(error = %aside.error, moved_to = %to.display(), "state file set aside; starting fresh")
            }
            Err(e) => {
                error!(error = %aside.error, "state file unusable and cannot be moved aside ({e}); starting fresh")
            }
        }
    }
    let Some(state) = state else {
        return fresh;
    };
    info!(
        files = state.files.len(),
        denials = state.account.metrics.denials_total(),
        "state restored"
    );
    Restored {
        account: state.account.into_owned(),
        entries: state.files,
        orphans: state.orphans,
        audit_len: state.audit_len,
        fresh: false,
        since: state.since,
        heads: state.heads,
    }
}

/// Warns once for each glob that matches nothing now, naming the directory it looked in; a
/// missing directory is a [`Fault::LogDirMissing`].
fn check_globs(patterns: &[String], faults: &mut Faults) {
    for pattern in patterns {
        let matched = glob::glob(pattern).is_ok_and(|mut paths| paths.next().is_some());
        if matched {
            continue;
        }
        let (dir, _) = crate::input::follow::watch_root(pattern);
        if dir.is_dir() {
            warn!(glob = %pattern, dir = %dir.display(), "glob matches nothing yet; files that appear later are followed");
        } else {
            faults.count(Fault::LogDirMissing);
            warn!(glob = %pattern, dir = %dir.display(), "glob matches nothing: its directory does not exist (yet)");
        }
    }
}

/// The tokio runtime that serves HTTP: one thread, the main thread once it is up (the reading
/// thread does the rest), and a pool for the blocking answers, every one of them asking for a
/// short CPU slice. A single-threaded runtime, not a multi-threaded one with one worker: the
/// same concurrency, one thread fewer, and none of the work-stealing scheduler, whose task
/// statistics alone made the binary load `libm` (what that cost `run`'s RSS is in
/// docs/performance.md).
fn start_runtime() -> Result<tokio::runtime::Runtime> {
    tokio::runtime::Builder::new_current_thread()
        .on_thread_start(prefer_low_latency)
        .enable_all()
        .build()
        .context("cannot start the async runtime")
}

/// Scrapes wait for a core more than they compute: the threads that answer them are woken first.
fn prefer_low_latency() {
    if !crate::sched::prefer_low_latency() {
        debug!("the kernel keeps the default scheduling slice for HTTP threads");
    }
}

/// Listens on every address, or fails naming the one that cannot be had.
fn bind(runtime: &tokio::runtime::Runtime, addrs: &[Listen]) -> Result<Vec<TcpListener>> {
    runtime.block_on(async {
        let mut listeners = Vec::new();
        for &addr in addrs {
            let listener = web::server::bind(addr)
                .await
                .with_context(|| format!("cannot listen on {addr}"))?;
            listeners.push(listener);
        }
        anyhow::Ok(listeners)
    })
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
    /// When the counters are published ([`pacing`]).
    pacing: Pacing,
    /// inotify on the roots of the globs (never armed with `--poll`).
    watch: Watch,
    /// Data faults met at start-up.
    faults: Faults,
    /// The last state write failed (the failure was logged; the next ones are not until one
    /// succeeds).
    state_failing: bool,
    /// The size of the last state written.
    state_bytes: u64,
    /// The per-file lag series last published.
    lag_series: LagLabels,
    /// Paths the last state write held that hold no secret.
    clean_paths: state::CleanPaths,
}

/// Per-file lag series: a path (or its label value) and its lag in bytes.
type LagSeries = Arc<Vec<(String, u64)>>;

/// The lag series last published: what the follower made them from ([`LagKey`]), the series as
/// it gave them, and with their paths made label values. While their key holds (old rolls beside
/// the file being written), a publication neither asks the follower for them again nor copies
/// them: it shares them.
#[derive(Default)]
struct LagLabels {
    key: Option<LagKey>,
    given: LagSeries,
    labelled: LagSeries,
    followed: u64,
    lag_others: u64,
}

impl LagLabels {
    /// Puts the follower's lag series, with `followed` and `lag_others`, into `follow` (its
    /// counters); whether the series changed since the last ones. A path is a label value and
    /// shown on `/`: one that holds a secret is `redacted` (lags of paths that become one name
    /// are summed, so no series repeats). A path seen before is not scanned again: the
    /// redactor remembers recent clean texts.
    fn update(&mut self, follower: &Follower, follow: &mut FollowStats) -> bool {
        let key = follower.lag_key();
        let mut changed = false;
        if self.key.as_ref() != Some(&key) {
            let fresh = follower.stats();
            (self.followed, self.lag_others) = (fresh.followed, fresh.lag_others);
            if fresh.files != self.given {
                let mut lags: std::collections::BTreeMap<String, u64> = Default::default();
                for (path, lag) in fresh.files.iter() {
                    *lags
                        .entry(crate::redact::label_value(path).to_string())
                        .or_default() += lag;
                }
                self.labelled = Arc::new(lags.into_iter().collect());
                self.given = fresh.files;
                changed = true;
            }
            self.key = Some(key);
        }
        follow.files = self.labelled.clone();
        (follow.followed, follow.lag_others) = (self.followed, self.lag_others);
        changed
    }
}

/// The most bytes a second the state file is written with in steady state: a state larger than
/// `--state-interval` times this is written once per its size over this instead (a 6 MB state
/// every 12 s, not every 5 s). Writes are atomic snapshots, so a longer gap weakens nothing: a
/// crash re-reads a few more seconds of lines, which the rolls kept still hold.
const STATE_BYTES_PER_SECOND: u64 = 512 * 1024;

/// How long after a failed state write the next is tried; each failure doubles it, up to
/// [`RETRY_LAST`] (or the state interval, if shorter).
const RETRY_FIRST: Duration = Duration::from_millis(100);
const RETRY_LAST: Duration = Duration::from_secs(1);

/// How often path label sets whose files are gone are looked at for expiry.
const EXPIRY_EVERY: Duration = Duration::from_secs(1);

/// Ticks of the sweep per stat interval: each looks at this fraction of the files inotify does
/// not watch reliably, so no tick stats them all at once.
const SWEEP_SLICES: usize = 10;

/// Stat intervals between two expansions of the globs when inotify watches every root reliably
/// (its create, rename and delete events expand them at once): a safety net only.
const SCAN_EVERY_WATCHED: u32 = 30;

impl ReadLoop {
    fn run(self, mut r: Reader, shared: &Shared, wake_rx: Receiver<Wake>) -> Result<()> {
        if !self.poll {
            r.watch.arm(r.follower.watch_roots(), true);
        }
        r.stats.inotify = r.watch.is_armed();
        let mut all_watched = r.watch_reliably();
        r.follower.scan(&mut r.pipeline);
        // The first state write, as soon as the offsets to start from are known: a crash from
        // now on restarts from a state, never fresh (a fresh start cannot find the files rotated
        // out of the globs since). A failure is counted and logged; the interval tries again.
        let _ = self.save(&mut r);
        let mut saved_moves = r.moves();
        let started = Instant::now();
        r.follower.read_all(&mut r.pipeline);
        let follow = r.follower.stats();
        info!(
            files = follow.files.len(),
            bytes = r.pipeline.accountant().metrics().read_bytes,
            seconds = format!("{:.3}", started.elapsed().as_secs_f64()),
            faults = r.faults.names(),
            "backlog read"
        );
        let backlog = r.pipeline.accountant().metrics().lines_read;
        r.publish(shared, backlog);
        shared.ready.store(true, Ordering::Release);
        let (mut last_scan, mut last_state) = (Instant::now(), Instant::now());
        let mut last_tick = Instant::now();
        let tick = self.stat_interval / SWEEP_SLICES as u32;
        // How long after a failed state write the next is tried.
        let mut retry_gap = RETRY_FIRST;
        let mut written = Vec::new();
        let mut last_expiry = Instant::now();
        loop {
            // Every root watched reliably: its events say what changed, and a scan now and
            // then is only a safety net. Else the globs are expanded every stat interval.
            let scan_every = if all_watched {
                self.stat_interval * SCAN_EVERY_WATCHED
            } else {
                self.stat_interval
            };
            let next_scan = last_scan + scan_every;
            let mut deadline = next_scan.min(Instant::now() + REPUBLISH);
            if r.follower.has_unwatched() {
                deadline = deadline.min(last_tick + tick);
            }
            if let Some(held) = r.pacing.deadline() {
                deadline = deadline.min(held);
            }
            if r.state_failing {
                deadline = deadline.min(last_state + retry_gap);
            }
            let timeout = deadline.saturating_duration_since(Instant::now());
            let (mut rescan, mut hangup) = (false, false);
            let lines_before = r.pipeline.accountant().metrics().lines_read;
            let errors_before = r.watch.stats.errors;
            match wake_rx.recv_timeout(timeout) {
                Ok(Wake::Shutdown) | Err(RecvTimeoutError::Disconnected) => break,
                Ok(wake) => {
                    let mut wake = Some(wake);
                    // Drain what else is queued: one read to the end serves them all.
                    while let Some(w) = wake.take().or_else(|| wake_rx.try_recv().ok()) {
                        match w {
                            Wake::Shutdown => return self.finish(&mut r, shared),
                            Wake::Fs(event) => rescan |= r.watch.note(event, &mut written),
                            Wake::Hangup => hangup = true,
                        }
                    }
                }
                Err(RecvTimeoutError::Timeout) => {}
            }
            for path in written.drain(..) {
                r.follower.touch(&path);
            }
            if hangup {
                if let Err(error) = r.pipeline.reopen_audit() {
                    error!(%error, "cannot reopen the audit log; denials are still counted");
                }
                if !self.poll {
                    r.watch.arm(r.follower.watch_roots(), false);
                }
                rescan = true;
            }
            // Every file is read after a signal, an inotify error or overflow (events were
            // lost), and at each scan while polling; else only those events or the sweep name.
            let mut read_all = hangup || r.watch.stats.errors != errors_before;
            if rescan || Instant::now() >= next_scan {
                // The periodic scan is the safety net for lost events: every file is looked at.
                read_all |= !rescan;
                r.follower.scan(&mut r.pipeline);
                last_scan = Instant::now();
                if !self.poll {
                    r.watch.recheck(r.follower.watch_roots());
                }
                r.stats.inotify = r.watch.is_armed();
                all_watched = r.watch_reliably();
                read_all |= !r.watch.is_armed();
            }
            if r.follower.has_unwatched() && Instant::now() >= last_tick + tick {
                r.follower.sweep(SWEEP_SLICES);
                last_tick = Instant::now();
            }
            if read_all {
                r.follower.read_all(&mut r.pipeline);
            } else {
                r.follower.read_due(&mut r.pipeline);
            }
            // The interval's write only when something it holds moved: an idle exporter of
            // thousands of files does not serialize them all every interval. A file followed for
            // the first time waits for it too: rotated away (and compressed) before it and then
            // a crash, it is a roll no state recorded, found and read from its start at the
            // restart (`crate::input::follow`), as the counters written hold none of its lines.
            // After a failed write, the next tries come at once, then further apart.
            // A large state is written less often than every interval, so that its writes stay
            // within a byte budget.
            let moved = r.state_failing || r.moves() != saved_moves;
            let retry = r.state_failing && last_state.elapsed() >= retry_gap;
            let gap = self.state_interval.max(Duration::from_secs_f64(
                r.state_bytes as f64 / STATE_BYTES_PER_SECOND as f64,
            ));
            if hangup || retry || (moved && last_state.elapsed() >= gap) {
                // A failure is counted and logged.
                retry_gap = match self.save(&mut r) {
                    true => RETRY_FIRST,
                    false => (retry_gap * 2).min(self.state_interval.min(RETRY_LAST)),
                };
                last_state = Instant::now();
                saved_moves = r.moves();
            }
            let mut lines = r.pipeline.accountant().metrics().lines_read - lines_before;
            // A deleted pod's series go once its logs have been gone for the grace period: a
            // change to publish, like lines read.
            if last_expiry.elapsed() >= EXPIRY_EVERY {
                lines = lines.max(u64::from(r.pipeline.expire_paths(wall_now()) > 0));
                last_expiry = Instant::now();
            }
            r.publish(shared, lines);
        }
        self.finish(&mut r, shared)
    }

    /// Writes the state file: offsets, what the pipeline held at them, and the counters they
    /// produced, taken together between two reads. Returns whether it was written.
    fn save(&self, r: &mut Reader) -> bool {
        let Some(path) = &self.state_file else {
            return true;
        };
        let state = state::compose_remembering(&mut r.follower, &r.pipeline, &mut r.clean_paths);
        match state::write(path, &state) {
            Ok(bytes) => {
                r.state_bytes = bytes;
                r.stats.state_writes_ok += 1;
                r.stats.state_last_write = wall_now();
                if std::mem::take(&mut r.state_failing) {
                    info!(path = %path.display(), "the state file is written again");
                }
                true
            }
            Err(e) => {
                r.stats.state_writes_error += 1;
                if std::mem::replace(&mut r.state_failing, true) {
                    debug!(path = %path.display(), error = %e, "cannot write the state file");
                } else {
                    error!(path = %path.display(), error = %e, "cannot write the state file; further failures are only counted until a write succeeds");
                }
                false
            }
        }
    }

    /// The final state write: a failure is an error exit, since the next start would count
    /// again what was read since the last good write.
    fn finish(&self, r: &mut Reader, shared: &Shared) -> Result<()> {
        // A file deleted while open is read to its end first: no restart could read the rest.
        r.follower.read_deleted(&mut r.pipeline);
        let written = self.save(r);
        r.pacing.force(); // the last counters go out now
        r.publish(shared, 0);
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

impl Reader {
    /// What the state holds moves with: bytes read, and the follower's files.
    fn moves(&self) -> (u64, u64) {
        let read = self.pipeline.accountant().metrics().read_bytes;
        (read, self.follower.changes())
    }

    /// Tells the follower which roots inotify watches reliably; returns whether all of them.
    fn watch_reliably(&mut self) -> bool {
        let (reliable, all) = self.watch.reliable_roots(self.follower.watch_roots());
        self.follower.watch_with(reliable);
        all
    }

    /// Publishes the counters for HTTP (when they `changed`, or their lag gauges may have) and
    /// the latest audit records for the recent-denials ring.
    fn publish(&mut self, shared: &Shared, lines: u64) {
        // A change goes out at once; a burst at most once per gap, however often reading wakes
        // ([`pacing`]).
        if !self.pacing.due(Instant::now(), lines) {
            return;
        }
        let kept = self.pipeline.take_kept();
        let accountant = self.pipeline.accountant();
        let mut run = self.stats.clone();
        run.follow = self.follower.counters();
        run.watcher_errors = self.watch.stats.errors;
        run.watcher_fallbacks = self.watch.stats.fallbacks;
        run.watch_rearms = self.watch.stats.rearms;
        run.faults = self.faults.iter().map(|(f, n)| (f.as_str(), n)).collect();
        let changed = self.lag_series.update(&self.follower, &mut run.follow);
        let files = changed.then(|| run.follow.files.to_vec());
        shared.publish(Published {
            generation: 0, // set by `publish`
            metrics: accountant.metrics().clone(),
            gauges: accountant.gauges(),
            run,
        });
        self.pacing.published(Instant::now());
        let mut view = shared.view.lock().expect("view lock");
        if let Some(files) = files {
            view.files = files;
        }
        view.recent.extend(&kept);
    }
}
