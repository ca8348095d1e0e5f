//! The built binary across stops and restarts with `--state-file`: a crash (SIGKILL) mid-stream,
//! a clean SIGTERM, state entries that no longer fit their file, rotation while stopped, and
//! `--read-from end`. A state file that cannot be used: `tests/startup.rs`.
//!
//! Every denial line carries no correlation key, so a line read twice would count twice; the
//! final value of `permission_denials_total` must equal the number of denial lines written.
//! Restarts use `--read-from end` where that shows the state was used: without it, a known file
//! would be skipped instead of resumed.

#[path = "live/mod.rs"]
mod live;

use std::fs;
use std::os::unix::fs::MetadataExt;
use std::path::Path;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};

use live::*;

fn launch(dir: &Path, state: &Path) -> Launch {
    Launch::new(dir, &dir.join("*.log"))
        .fast()
        .arg("--state-file")
        .arg(state.display().to_string())
}

/// The offset the state file holds for `log`, if it holds one.
fn saved_offset(state: &Path, log: &Path) -> Option<u64> {
    let text = fs::read_to_string(state).ok()?;
    let json: serde_json::Value = serde_json::from_str(&text).ok()?;
    let want = log.display().to_string();
    json["files"]
        .as_array()?
        .iter()
        .find(|f| f["path"].as_str() == Some(&want))
        .and_then(|f| f["offset"].as_u64())
}

/// The offset the state file holds for the file with inode `ino`, if it holds one.
fn saved_offset_of_inode(state: &Path, ino: u64) -> Option<u64> {
    let text = fs::read_to_string(state).ok()?;
    let json: serde_json::Value = serde_json::from_str(&text).ok()?;
    json["files"]
        .as_array()?
        .iter()
        .find(|f| f["inode"]["ino"].as_u64() == Some(ino))
        .and_then(|f| f["offset"].as_u64())
}

/// Waits until the state file says `log` was read through `offset`.
fn wait_saved(exporter: &Exporter, state: &Path, log: &Path, offset: u64) {
    assert!(
        wait_until(TIMEOUT, || saved_offset(state, log) == Some(offset)),
        "state file never reached offset {offset} of {}: {:?}\n{}",
        log.display(),
        fs::read_to_string(state),
        exporter.stderr()
    );
}

fn len(path: &Path) -> u64 {
    fs::metadata(path).unwrap().len()
}

/// SIGTERM, then the exit status, which must come within a few seconds.
fn stop(exporter: &mut Exporter) {
    let started = Instant::now();
    exporter.signal("TERM");
    let status = exporter
        .wait_exit(Duration::from_secs(10))
        .unwrap_or_else(|| panic!("no exit within 10 s of SIGTERM\n{}", exporter.stderr()));
    assert!(status.success(), "{status}\n{}", exporter.stderr());
    let took = started.elapsed();
    assert!(
        took < Duration::from_secs(5),
        "SIGTERM took {took:?} to stop"
    );
}

#[test]
fn a_crash_and_restart_mid_stream_count_every_line_once() {
    let wf = "crash";
    let dir = tempfile::tempdir().unwrap();
    let (log, state) = (dir.path().join("app.log"), dir.path().join("state.json"));
    let launch = launch(dir.path(), &state).args(["--state-interval", "0.2"]);
    let mut w = Writer::open(&log);
    w.denials(wf, 20);
    let mut exporter = launch.start();
    exporter.wait_denials(wf, 20);
    wait_saved(&exporter, &state, &log, len(&log));

    // More lines and half a line, then a crash; the rest arrives while it is down.
    w.denials(wf, 10);
    let line = denial(wf);
    let (head, tail) = line.split_at(50);
    w.write(head);
    exporter.wait_denials(wf, 30);
    exporter.crash();
    w.write(tail);
    w.denials(wf, 5);
    let mut written = 36;
    let restarted = launch.clone().args(["--read-from", "end"]);
    exporter = restarted.start();
    // No reset: the restored counters are there from the first scrape on.
    assert!(exporter.denials(wf) >= 20.0, "{}", exporter.stderr());
    exporter.wait_denials(wf, written);

    // Crashes while a writer is busy: each restart resumes from the last state written.
    let stop_writing = Arc::new(AtomicBool::new(false));
    let lines_written = Arc::new(AtomicUsize::new(0));
    let writer = {
        let (stop_writing, lines_written) = (stop_writing.clone(), lines_written.clone());
        let mut w = Writer::open(&log);
        std::thread::spawn(move || {
            while !stop_writing.load(Ordering::Relaxed) {
                w.denials("crash", 10);
                lines_written.fetch_add(10, Ordering::Relaxed);
                std::thread::sleep(Duration::from_millis(5));
            }
        })
    };
    for _ in 0..3 {
        let before = exporter.denials(wf);
        exporter.wait_at_least("progress before the crash", before + 100.0, |m| {
            sum(m, DENIALS, &[("workflow", wf)])
        });
        exporter.crash();
        std::thread::sleep(Duration::from_millis(100)); // the writer goes on meanwhile
        exporter = restarted.start();
    }
    stop_writing.store(true, Ordering::Relaxed);
    writer.join().unwrap();
    written += lines_written.load(Ordering::Relaxed) as u64;
    exporter.wait_denials(wf, written);
    let m = exporter.metrics();
    assert_eq!(sample(&m, LINES, &[("outcome", "malformed")]), Some(0.0));
}

#[test]
fn sigterm_writes_the_state_and_exits_zero() {
    let wf = "sigterm";
    let dir = tempfile::tempdir().unwrap();
    let (log, state) = (dir.path().join("app.log"), dir.path().join("state.json"));
    let launch = launch(dir.path(), &state).args(["--state-interval", "3600"]);
    let mut w = Writer::open(&log);
    w.denials(wf, 7);
    let mut exporter = launch.start();
    exporter.wait_denials(wf, 7);
    // Only the state written at start-up, before the first read: no periodic write yet.
    assert_eq!(saved_offset(&state, &log), Some(0), "no periodic write yet");
    stop(&mut exporter);
    assert_eq!(saved_offset(&state, &log), Some(len(&log)));
    let text = fs::read_to_string(&state).unwrap();
    assert!(text.starts_with(r#"{"version":"1""#), "{text}");
    assert!(!dir.path().join("state.json.tmp").exists());

    // The state is used: a file it knows resumes (with --read-from end it would be skipped).
    w.denials(wf, 3);
    let mut exporter = launch.clone().args(["--read-from", "end"]).start();
    exporter.wait_denials(wf, 10);
    w.denials(wf, 2);
    exporter.wait_denials(wf, 12);
    stop(&mut exporter);

    // SIGINT (Ctrl-C) stops it cleanly too.
    let mut exporter = launch.start();
    exporter.wait_denials(wf, 12);
    exporter.signal("INT");
    let status = exporter.wait_exit(Duration::from_secs(10)).expect("exit");
    assert!(status.success(), "{status}\n{}", exporter.stderr());
}

#[test]
fn a_state_entry_that_no_longer_fits_is_dropped() {
    let wf = "stale";
    let dir = tempfile::tempdir().unwrap();
    let (log, state) = (dir.path().join("app.log"), dir.path().join("state.json"));
    let launch = launch(dir.path(), &state).args(["--state-interval", "3600"]);
    let mut w = Writer::open(&log);
    w.denials(wf, 4);
    let mut exporter = launch.start();
    exporter.wait_denials(wf, 4);
    stop(&mut exporter);
    let offset = saved_offset(&state, &log).unwrap();

    // Rewritten in place (same inode), with other first bytes and more bytes than the offset:
    // only the signature tells. Read per --read-from (beginning): all 6 lines count.
    let inode = fs::metadata(&log).unwrap().ino();
    let rewritten = noise() + &denials(wf, 6);
    fs::write(&log, &rewritten).unwrap();
    assert_eq!(fs::metadata(&log).unwrap().ino(), inode);
    assert!(len(&log) >= offset);
    let mut exporter = launch.start();
    exporter.wait_denials(wf, 4 + 6);
    assert!(
        exporter.stderr().contains("no longer fits"),
        "{}",
        exporter.stderr()
    );
    stop(&mut exporter);

    // Truncated below the saved offset: dropped. With a state, --read-from end does not apply:
    // what was written after the truncation, while stopped, counts.
    let w2 = fs::OpenOptions::new().write(true).open(&log).unwrap();
    w2.set_len(0).unwrap();
    w.denials(wf, 1);
    assert!(len(&log) < saved_offset(&state, &log).unwrap());
    let mut exporter = launch.clone().args(["--read-from", "end"]).start();
    assert!(
        exporter.stderr().contains("no longer fits"),
        "{}",
        exporter.stderr()
    );
    exporter.wait_denials(wf, 11);
    w.denials(wf, 2);
    exporter.wait_denials(wf, 13);
    stop(&mut exporter);
}

#[test]
fn read_from_end_skips_what_files_never_seen_already_hold() {
    let wf = "from_end";
    let dir = tempfile::tempdir().unwrap();
    let state = dir.path().join("state.json");
    let (a, b, c) = (
        dir.path().join("a.log"),
        dir.path().join("b.log"),
        dir.path().join("c.log"),
    );
    let mut wa = Writer::open(&a);
    wa.denials(wf, 5);
    let line = denial(wf);
    let (head, tail) = line.split_at(30);
    wa.write(head); // an unfinished line: it ends after start-up, so it counts
    let launch = launch(dir.path(), &state).args(["--state-interval", "3600"]);
    let mut exporter = launch.clone().args(["--read-from", "end"]).start();
    exporter.assert_denials(wf, 0);
    wa.write(tail);
    exporter.wait_denials(wf, 1);
    wa.denials(wf, 2);
    exporter.wait_denials(wf, 3);
    // A file appearing while running is read from its start.
    let mut wb = Writer::open(&b);
    wb.denials(wf, 4);
    exporter.wait_denials(wf, 7);
    stop(&mut exporter);

    // While stopped: known files grow, and a new one appears with content. --read-from end
    // applies only to the first start: with a state, a file it does not know was written while
    // the exporter was down, and every line of it counts.
    wa.denials(wf, 1);
    wb.denials(wf, 1);
    let mut wc = Writer::open(&c);
    wc.denials(wf, 3);
    let mut exporter = launch.clone().args(["--read-from", "end"]).start();
    exporter.wait_denials(wf, 12);
    wc.denials(wf, 1);
    exporter.wait_denials(wf, 13);
    exporter.assert_denials(wf, 13);
    stop(&mut exporter);
}

#[test]
fn rotation_while_stopped_loses_nothing() {
    let wf = "rotated_stopped";
    let dir = tempfile::tempdir().unwrap();
    let (log, state) = (dir.path().join("app.log"), dir.path().join("state.json"));
    let launch = launch(dir.path(), &state).args(["--state-interval", "0.2"]);
    let mut old = Writer::open(&log);
    old.denials(wf, 5);
    let mut exporter = launch.start();
    exporter.wait_denials(wf, 5);
    stop(&mut exporter);

    // logrotate runs while the exporter is down: the unread end of the old file must count.
    old.denials(wf, 3);
    fs::rename(&log, dir.path().join("app.log.1")).unwrap();
    drop(old);
    let mut new = Writer::open(&log);
    new.denials(wf, 4);
    let mut exporter = launch.start();
    exporter.wait_denials(wf, 12);
    exporter.wait_value(ROTATIONS, &[], 1.0);
    exporter.wait_value(FILES_FOLLOWED, &[], 1.0);
    exporter.assert_denials(wf, 12);

    // A crash while a renamed file is still being drained: the state holds it under its old
    // name; after the restart it is found by inode and drained from its offset.
    fs::rename(&log, dir.path().join("app.log.2")).unwrap();
    let mut newer = Writer::open(&log);
    new.denials(wf, 2);
    exporter.wait_denials(wf, 14);
    // Wait until the state lists the renamed file read to its end; a noise line now and then
    // keeps it from being let go meanwhile, however slow this machine is.
    let renamed = dir.path().join("app.log.2");
    let inode = fs::metadata(&renamed).unwrap().ino();
    let mut last_noise = Instant::now();
    let listed = wait_until(TIMEOUT, || {
        if last_noise.elapsed() > Duration::from_secs(1) {
            new.write(&noise());
            last_noise = Instant::now();
        }
        saved_offset_of_inode(&state, inode) == Some(len(&renamed))
    });
    assert!(listed, "{:?}", fs::read_to_string(&state));
    exporter.crash();
    new.denials(wf, 3); // unread when the exporter comes back
    newer.denials(wf, 1);
    let exporter = launch.clone().args(["--read-from", "end"]).start();
    exporter.wait_denials(wf, 18);
    exporter.wait_value(FILES_FOLLOWED, &[], 1.0);
    exporter.assert_denials(wf, 18);
}

/// The kubelet layout: the glob matches symlinks (`containers/*.log`) to files in another
/// directory (`pods/…/0.log`), which the kubelet rotates there (`0.log` → `0.log.<time>`). A
/// rotation while the exporter is down must not lose the end of the old file.
#[test]
fn rotation_behind_a_symlink_while_stopped_loses_nothing() {
    let wf = "kubelet_stopped";
    let dir = tempfile::tempdir().unwrap();
    let (containers, pods) = (dir.path().join("containers"), dir.path().join("pods"));
    fs::create_dir(&containers).unwrap();
    fs::create_dir(&pods).unwrap();
    let (target, link) = (pods.join("0.log"), containers.join("app.log"));
    let state = dir.path().join("state.json");
    let launch = Launch::new(dir.path(), &containers.join("*.log"))
        .fast()
        .args(["--state-file", &state.display().to_string()]);
    let mut old = Writer::open(&target);
    old.denials(wf, 5);
    swap_symlink(&target, &link);
    let mut exporter = launch.start();
    exporter.wait_denials(wf, 5);
    stop(&mut exporter);

    old.denials(wf, 3);
    fs::rename(&target, pods.join("0.log.20260101-000000")).unwrap();
    let mut new = Writer::open(&target);
    new.denials(wf, 4);
    let exporter = launch.clone().args(["--read-from", "end"]).start();
    // The old file is drained; the new 0.log, written while stopped, is read from its start
    // (--read-from end applies only when there is no state).
    exporter.wait_denials(wf, 12);
    new.denials(wf, 1);
    exporter.wait_denials(wf, 13);
    exporter.wait_value(FILES_FOLLOWED, &[], 1.0);
    exporter.assert_denials(wf, 13);
}

/// SIGTERM while a large backlog is being read: reading stops between two lines, the state is
/// written for exactly what was read, and the exit comes within a few seconds. The restart then
/// reads the rest, and the total is exact.
#[test]
fn sigterm_during_a_long_backlog_stops_promptly() {
    let wf = "backlog";
    let dir = tempfile::tempdir().unwrap();
    let (log, state) = (dir.path().join("app.log"), dir.path().join("state.json"));
    let mut text = String::with_capacity(41 << 20);
    let mut total = 0u64;
    while text.len() < 40 << 20 {
        for _ in 0..99 {
            text.push_str(&noise());
        }
        text.push_str(&denial(wf));
        total += 1;
    }
    fs::write(&log, &text).unwrap();
    let launch = launch(dir.path(), &state).args(["--state-interval", "3600"]);
    let mut exporter = launch.start_serving();
    let was_reading = get(exporter.addr, "/-/ready").is_ok_and(|r| r.status == 503);
    stop(&mut exporter);

    let offset = saved_offset(&state, &log).expect("an entry for the file") as usize;
    assert!(offset <= text.len());
    assert!(
        offset == 0 || text.as_bytes()[offset - 1] == b'\n',
        "offset inside a line"
    );
    if was_reading {
        assert!(offset < text.len(), "stopped before the end of the backlog");
    }
    let json: serde_json::Value =
        serde_json::from_str(&fs::read_to_string(&state).unwrap()).unwrap();
    let metrics = &json["account"]["metrics"];
    assert_eq!(metrics["read_bytes"].as_u64(), Some(offset as u64));
    let saved_denials: u64 = metrics["denials"]
        .as_array()
        .unwrap()
        .iter()
        .map(|pair| pair[1].as_u64().unwrap())
        .sum();
    let read_denials = text[..offset].matches("agent.permission.denied").count() as u64;
    assert_eq!(saved_denials, read_denials);

    let exporter = launch.start();
    exporter.wait_denials(wf, total);
}

/// SIGHUP (what logrotate's `postrotate` sends) no longer kills the exporter without a state
/// write: it reopens the audit log at its path, rescans, and writes the state.
#[test]
fn sighup_reopens_the_audit_log_and_writes_the_state() {
    let wf = "hangup";
    let dir = tempfile::tempdir().unwrap();
    let (log, state) = (dir.path().join("app.log"), dir.path().join("state.json"));
    let audit = dir.path().join("audit.jsonl");
    let launch = launch(dir.path(), &state).args([
        "--state-interval",
        "3600",
        "--audit-log",
        &audit.display().to_string(),
    ]);
    let mut w = Writer::open(&log);
    w.denials(wf, 2);
    let mut exporter = launch.start();
    exporter.wait_denials(wf, 2);
    // Only the state written at start-up, before the first read: no periodic write yet.
    assert_eq!(saved_offset(&state, &log), Some(0), "no periodic write yet");
    let rotated = dir.path().join("audit.jsonl.1");
    fs::rename(&audit, &rotated).unwrap();
    exporter.signal("HUP");
    assert!(
        wait_until(TIMEOUT, || saved_offset(&state, &log) == Some(len(&log))
            && audit.exists()),
        "SIGHUP wrote no state or did not reopen the audit log\n{}",
        exporter.stderr()
    );
    assert!(exporter.try_wait().is_none(), "SIGHUP stopped the exporter");
    w.denials(wf, 1);
    exporter.wait_denials(wf, 3);
    assert!(wait_until(TIMEOUT, || fs::read_to_string(&audit)
        .is_ok_and(|t| t.lines().count() == 1)));
    assert_eq!(fs::read_to_string(&rotated).unwrap().lines().count(), 2);
    stop(&mut exporter);
}

/// After a failed final state write, shutdown still logged "state written" and exited 0: the
/// next start would then count again what was read since the last good write, silently.
#[test]
fn a_failed_final_state_write_is_an_error_exit() {
    let wf = "final_write";
    let dir = tempfile::tempdir().unwrap();
    let sub = dir.path().join("state");
    fs::create_dir(&sub).unwrap();
    let state = sub.join("state.json");
    Writer::open(&dir.path().join("app.log")).denials(wf, 1);
    let mut exporter = launch(dir.path(), &state)
        .args(["--state-interval", "3600"])
        .start();
    exporter.wait_denials(wf, 1);
    fs::remove_dir_all(&sub).unwrap();
    exporter.signal("TERM");
    let status = exporter
        .wait_exit(Duration::from_secs(10))
        .expect("exits after SIGTERM");
    assert!(!status.success(), "{status}\n{}", exporter.stderr());
    let stderr = exporter.stderr();
    assert!(stderr.contains("cannot write the final state"), "{stderr}");
    assert!(!stderr.contains("state written"), "{stderr}");
}

const LOST_FILES: &str = "denials_exporter_lost_files_total";
const LOST_BYTES: &str = "denials_exporter_lost_bytes_total";
const DROPPED: &str = "denials_exporter_state_entries_dropped_total";
const LOST_WARNING: &str = "deleted before they were read";

/// pino-roll's numbered rolls in a temporary directory: `app.1.log` and `app.2.log`, followed
/// with a state written every 0.2 s.
struct Rolls {
    dir: tempfile::TempDir,
    first: std::path::PathBuf,
    second: std::path::PathBuf,
    state: std::path::PathBuf,
    launch: Launch,
}

impl Rolls {
    fn new() -> Rolls {
        let dir = tempfile::tempdir().unwrap();
        let (first, second) = (dir.path().join("app.1.log"), dir.path().join("app.2.log"));
        let state = dir.path().join("state.json");
        let launch = launch(dir.path(), &state).args(["--state-interval", "0.2"]);
        Rolls {
            first,
            second,
            state,
            launch,
            dir,
        }
    }

    /// Waits until the state holds `log` read to its end, then kills the exporter.
    fn crash_once_saved(&self, mut exporter: Exporter, log: &Path) {
        wait_saved(&exporter, &self.state, log, len(log));
        exporter.crash();
    }

    /// The first roll deleted while the exporter is down (pino-roll's `limit.count`), then a
    /// restart: its entry dropped, `denials` counted, `lost` files claimed.
    fn restart_without_first(&self, wf: &str, denials: u64, lost: f64) -> Exporter {
        fs::remove_file(&self.first).unwrap();
        let exporter = self.launch.start();
        exporter.wait_denials(wf, denials);
        exporter.wait_value(DROPPED, &[], 1.0);
        exporter.assert_denials(wf, denials);
        let stderr = exporter.stderr();
        assert_eq!(exporter.value(LOST_FILES, &[]), lost, "{stderr}");
        assert_eq!(stderr.contains(LOST_WARNING), lost > 0.0, "{stderr}");
        assert!(self.dir.path().exists());
        exporter
    }
}

/// pino-roll's numbered rolls (a line cut between them): the writer moved on to the next roll,
/// whose first line was read after the end of the first, before the last state write; the first
/// roll is then deleted while the exporter is down. Nothing was lost, and no file is claimed
/// lost.
#[test]
fn a_roll_its_writer_moved_on_from_deleted_while_down_is_not_claimed_lost() {
    let wf = "roll_done";
    let rolls = Rolls::new();
    let mut w = Writer::open(&rolls.first);
    w.denials(wf, 5);
    let line = denial(wf);
    let (head, tail) = line.split_at(40);
    w.write(head);
    let exporter = rolls.launch.start();
    exporter.wait_denials(wf, 5);
    let mut next = Writer::open(&rolls.second);
    next.write(tail);
    next.denials(wf, 3);
    exporter.wait_denials(wf, 9);
    rolls.crash_once_saved(exporter, &rolls.second);

    next.denials(wf, 2);
    let exporter = rolls.restart_without_first(wf, 11, 0.0);
    assert_eq!(exporter.value(LOST_BYTES, &[]), 0.0);
}

/// The same rolls, but the first was still being written when the state was last written: its
/// writer appended to it after that (lines no state holds), then moved on, and the roll was
/// deleted while the exporter was down. Those lines are lost, and the file is claimed lost.
#[test]
fn a_roll_written_after_the_last_state_write_and_deleted_while_down_is_lost() {
    let wf = "roll_lost";
    let rolls = Rolls::new();
    let mut w = Writer::open(&rolls.first);
    w.denials(wf, 5);
    let exporter = rolls.launch.start();
    exporter.wait_denials(wf, 5);
    rolls.crash_once_saved(exporter, &rolls.first);

    w.denials(wf, 3); // after the last state write: only the deleted roll held them
    Writer::open(&rolls.second).denials(wf, 2);
    rolls.restart_without_first(wf, 7, 1.0);
}

/// A roll its writer had moved on from, then appended to again (a second writer, or one that
/// went back) after its next roll began: that it was done no longer holds. Written to after the
/// last state write and deleted while the exporter is down, it is claimed lost.
#[test]
fn a_roll_written_again_after_its_next_began_is_claimed_lost_when_deleted_while_down() {
    let wf = "roll_again";
    let rolls = Rolls::new();
    let mut w = Writer::open(&rolls.first);
    w.denials(wf, 5);
    let exporter = rolls.launch.start();
    exporter.wait_denials(wf, 5);
    Writer::open(&rolls.second).denials(wf, 2);
    exporter.wait_denials(wf, 7);
    w.denials(wf, 1); // the first roll written again
    exporter.wait_denials(wf, 8);
    rolls.crash_once_saved(exporter, &rolls.first);

    w.denials(wf, 3); // after the last state write: only the deleted roll held them
    rolls.restart_without_first(wf, 8, 1.0);
}

/// The kubelet's own layout, followed by a glob that matches its rolls too (`0.log*`): `0.log` is
/// renamed to `0.log.<time>` (still matched, so followed on under its new name), the runtime
/// writes its last line there and reopens `0.log`. Read to its end and saved, the roll is then
/// deleted while the exporter is down (the kubelet compresses it and later deletes the `.gz`, as
/// a burst of lines does in moments). Its writer had moved on when it was renamed away: nothing
/// was lost, and no file is claimed lost.
#[test]
fn a_renamed_roll_the_globs_still_match_deleted_while_down_is_not_claimed_lost() {
    let wf = "kubelet_roll_done";
    let dir = tempfile::tempdir().unwrap();
    let (live, roll) = (
        dir.path().join("0.log"),
        dir.path().join("0.log.20260101-000001"),
    );
    let state = dir.path().join("state.json");
    let launch = Launch::new(dir.path(), &dir.path().join("0.log*"))
        .fast()
        .args(["--state-file", &state.display().to_string()])
        .args(["--state-interval", "0.2"]);
    let mut w = Writer::open(&live);
    w.denials(wf, 5);
    let exporter = launch.start();
    exporter.wait_denials(wf, 5);
    fs::rename(&live, &roll).unwrap();
    w.denials(wf, 1); // the runtime's late line, before it reopens 0.log
    let mut next = Writer::open(&live);
    next.denials(wf, 3);
    exporter.wait_denials(wf, 9);
    wait_saved(&exporter, &state, &roll, len(&roll));
    wait_saved(&exporter, &state, &live, len(&live));
    let mut exporter = exporter;
    exporter.crash();

    fs::remove_file(&roll).unwrap();
    next.denials(wf, 2);
    let exporter = launch.start();
    exporter.wait_denials(wf, 11);
    exporter.wait_value(DROPPED, &[], 1.0);
    exporter.assert_denials(wf, 11);
    let stderr = exporter.stderr();
    assert_eq!(exporter.value(LOST_FILES, &[]), 0.0, "{stderr}");
    assert!(!stderr.contains(LOST_WARNING), "{stderr}");
}
