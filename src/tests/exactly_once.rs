//! The model-based test of exactly-once counting: seeded schedules of writer
//! operations and exporter crashes against real files, checked against a model of what was
//! written.
//!
//! Owns the generator and executor ([`schedule`]), the writers ([`writer`]: pino-roll rolls,
//! kubelet's symlinked rolls, logrotate's rename + create out of the glob, with its rolls
//! gzipped at once or one rotation later, or the kubelet's timestamped renames of the same file,
//! copytruncate and delete while open, lines written in pieces and cut across rolls), the model
//! of which lines must be counted ([`model`]), and the exporter as `run`'s reading thread drives
//! it ([`exporter`]): the first scan and the state written right after it, wake-ups (with and
//! without a rescan), state writes, crashes at any point between them (a crash in the middle of a
//! read is one between two state writes: nothing of it survives), a crash after the first scan
//! and before the first state write, a crash between writing the temp state file and renaming
//! it, a shutdown that stops a read at a chunk boundary and writes the final state, restarts
//! with the state file and without it (`--read-from beginning` or `end`).
//!
//! After every wake-up that rescans, and at the end of each schedule once the writers are quiet,
//! `permission_denials_total` by reason must equal the model's (so `unknown` only where no
//! mid-stream denial of the record's execution could be read); counters never go below the last
//! state write across a restart; the follower holds no more files than are on disk.
//!
//! `EXACTLY_ONCE_SCHEDULES=N` runs N schedules (default [`DEFAULT_SCHEDULES`]);
//! `EXACTLY_ONCE_SEED=S` replays the one seed S (a failure prints its seed and its schedule);
//! `EXACTLY_ONCE_TRACE=1` prints every step with the counts and the model's files, and the
//! follower's log. With
//! `--nocapture`, a summary of what the schedules exercised.
//!
//! **Not here:** inotify and the run loop's timing (`crate::run`): a wake-up is what matters.

mod exporter;
mod model;
mod schedule;
mod writer;

use schedule::{Op, Run};

/// What the schedules exercised: operations, and lines by fate.
type Tally = std::collections::BTreeMap<String, u64>;

/// Schedules per `cargo test` run: 25 to 40 s on this 2-core box, unoptimised, under load.
const DEFAULT_SCHEDULES: u64 = 2000;

/// Schedules that once failed, written down (a seed's schedule changes with the generator).
fn regressions() -> Vec<(&'static str, u64, Vec<Op>)> {
    use model::Kind::Plain;
    use Op::*;
    let start = Start {
        drop_state: false,
        end: false,
    };
    vec![
        (
            // A file resumed by inode under its rotated name forgot the path it was followed under,
            // so the new file at that path no longer completed its cut line: the line was lost.
            "a line cut by rename + create while the exporter is down is joined after the restart",
            68,
            vec![
                start.clone(),
                Partial {
                    w: 2,
                    kind: Plain,
                    cut: 100,
                },
                ScanRead,
                Save,
                RenameCreate { keep: 1 },
                Crash,
                start.clone(),
            ],
        ),
        (
            // A roll never read (kubelet rolled twice between two scans) lay between a roll's last
            // piece and the next one's first: the two pieces of different lines made valid JSON,
            // and a line that was never written was counted.
            "pieces of rolls that are not consecutive are not joined",
            868,
            vec![
                start.clone(),
                Partial {
                    w: 1,
                    kind: Plain,
                    cut: 26, // inside "executor-0": any two such pieces make valid JSON
                },
                ScanRead,
                Roll { w: 1, keep: None },
                Partial {
                    w: 1,
                    kind: Plain,
                    cut: 26,
                },
                Roll { w: 1, keep: None },
                ScanRead,
            ],
        ),
        (
            // The state entry of a file followed through a symlink kept only the symlink's
            // path: gone at the restart, its fragment became an orphan with no roll number,
            // which the path alone let any later roll at the symlink continue, across a roll
            // never read.
            "a fragment of a symlinked roll gone at a restart keeps its roll number",
            5408,
            vec![
                start.clone(),
                Partial {
                    w: 1,
                    kind: Plain,
                    cut: 26,
                },
                ScanRead,
                Save,
                Crash,
                Roll { w: 1, keep: None },
                Partial {
                    w: 1,
                    kind: Plain,
                    cut: 26,
                },
                Roll {
                    w: 1,
                    keep: Some(0),
                },
                start,
            ],
        ),
    ]
}

/// Generated schedules that once failed, by seed: they replay only while the generator draws
/// as it does now (a change to it makes them other schedules, still worth running).
const REGRESSION_SEEDS: &[(&str, u64)] = &[(
    // Two files rotated away by logrotate, both in the state (a long grace kept the first):
    // resumed at the restart, they were put in roll order by their new names (`svc.log.1`
    // before `svc.log.2`, newest first), not in the order they were read in, so the file at the
    // path took the older one for its predecessor, and the line cut between was lost.
    "files resumed at a restart keep their saved order",
    23692,
)];

/// Phantom lines the follower cannot rule out: a fragment waiting for its successor is joined
/// to the head of a later file, and two pieces of different lines make valid JSON. The generator
/// does not produce these (see `model` and `schedule`); they fail today.
fn known_limitations() -> Vec<(&'static str, u64, Vec<Op>)> {
    use model::Kind::Plain;
    use Op::*;
    let start = Start {
        drop_state: false,
        end: false,
    };
    let piece = Partial {
        w: 2,
        kind: Plain,
        cut: 26, // inside "executor-0": any two such pieces make valid JSON
    };
    vec![
        (
            // The state kept a fragment; after the crash the file grew (the line was finished,
            // another begun) and was deleted before the restart: the stale fragment is joined
            // to the rest of the other line at the head of the new file.
            "a stale state fragment of a file deleted while the exporter was down",
            0,
            vec![
                start.clone(),
                piece.clone(),
                ScanRead,
                Save,
                Complete { w: 2 },
                piece.clone(),
                Crash,
                DeleteOpen { w: 2 },
                start.clone(),
            ],
        ),
        (
            // Rotated twice while down: the file between was never seen, so the fragment of
            // the first is joined to the head of the third.
            "two renames + create while the exporter was down, the middle file never seen",
            0,
            vec![
                start.clone(),
                piece.clone(),
                ScanRead,
                Save,
                Crash,
                RenameCreate { keep: 3 },
                piece,
                RenameCreate { keep: 3 },
                start,
            ],
        ),
    ]
}

/// Runs the schedule of `seed` (generated, or `ops` when given) in a fresh directory (on tmpfs
/// when there is one: state writes fsync); `Err` carries the seed, what went wrong and the
/// schedule.
fn run_seed(seed: u64, ops: Option<&[Op]>) -> Result<Tally, String> {
    if std::env::var_os("EXACTLY_ONCE_TRACE").is_some() {
        let _ = tracing_subscriber::fmt()
            .with_env_filter("denials_exporter=debug")
            .with_test_writer()
            .try_init();
    }
    let shm = std::path::Path::new("/dev/shm");
    let dir = if shm.is_dir() {
        tempfile::tempdir_in(shm)
    } else {
        tempfile::tempdir()
    }
    .expect("a temporary directory");
    let mut run = Run::new(dir.path());
    let result = match ops {
        Some(ops) => run.replay(ops),
        None => run.schedule(seed),
    };
    let replay = match ops {
        Some(_) => "the written-down schedule below".to_string(),
        None => format!("EXACTLY_ONCE_SEED={seed} cargo test --lib exactly_once"),
    };
    result.map(|()| run.tally.clone()).map_err(|error| {
        format!(
            "seed {seed}: {error}\nreplay: {replay}\nschedule:\n{}",
            run.describe()
        )
    })
}

fn env_u64(name: &str) -> Option<u64> {
    let value = std::env::var(name).ok()?;
    Some(
        value
            .parse()
            .unwrap_or_else(|_| panic!("{name}={value:?} is not a number")),
    )
}

#[test]
fn exactly_once_under_generated_schedules() {
    let seeds: Vec<u64> = match env_u64("EXACTLY_ONCE_SEED") {
        Some(seed) => vec![seed],
        None => (0..env_u64("EXACTLY_ONCE_SCHEDULES").unwrap_or(DEFAULT_SCHEDULES)).collect(),
    };
    let mut tally = Tally::new();
    let started = std::time::Instant::now();
    for &seed in &seeds {
        match run_seed(seed, None) {
            Ok(one) => {
                for (what, n) in one {
                    *tally.entry(what).or_default() += n;
                }
            }
            Err(failure) => panic!("{failure}"),
        }
    }
    // Shown with --nocapture: what the schedules exercised.
    eprintln!(
        "exactly_once: {} schedules in {:.1?}",
        seeds.len(),
        started.elapsed()
    );
    for (what, n) in tally {
        eprintln!("  {n:8} {what}");
    }
}

#[test]
fn exactly_once_regressions() {
    for (name, seed, ops) in regressions() {
        if let Err(failure) = run_seed(seed, Some(&ops)) {
            panic!("regression {name:?}: {failure}");
        }
    }
    for (name, seed) in REGRESSION_SEEDS {
        if let Err(failure) = run_seed(*seed, None) {
            panic!("regression {name:?}: {failure}");
        }
    }
}

#[test]
#[ignore = "known limitation: a waiting fragment can be joined to an unrelated head"]
fn exactly_once_known_limitations() {
    let failures: Vec<String> = known_limitations()
        .into_iter()
        .filter_map(|(name, seed, ops)| {
            let failure = run_seed(seed, Some(&ops)).err()?;
            Some(format!("known limitation {name:?}: {failure}"))
        })
        .collect();
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}
