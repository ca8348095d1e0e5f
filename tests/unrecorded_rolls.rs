//! Rolls no state recorded, with the real logrotate (`create`, `compress`, `delaycompress`) and
//! the built binary: a roll created, filled, renamed and compressed while the exporter was frozen
//! (SIGSTOP), or while it could not write its state and was then killed with SIGKILL, is found
//! beside the log and read from its start. Both must end exact, and the restart must never serve
//! a count below one already served.
//!
//! Each denial line carries no correlation key: a line read twice would count twice, a line
//! lost would be missing.
//!
//! And the order holds: a roll read at once from its `.gz` comes after the unread end of the
//! older file the exporter was following when it froze, so an execution's denials there are
//! counted with their reason before its record in the roll.

#[path = "live/mod.rs"]
mod live;

use std::fs;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::Duration;

use live::*;

const RECOVERED: &str = "denials_exporter_rolls_recovered_total";
const WRITES: &str = "denials_exporter_state_writes_total";

/// The real logrotate, or `None` where it is not installed (the test says so and passes: CI
/// installs it, `.ci/run`).
fn logrotate_bin() -> Option<PathBuf> {
    ["/usr/sbin/logrotate", "/usr/bin/logrotate"]
        .iter()
        .map(PathBuf::from)
        .find(|p| p.exists())
}

/// A logrotate configuration for `dir/app.log`, as the docs recommend it.
struct Rotator {
    bin: PathBuf,
    conf: PathBuf,
    status: PathBuf,
}

impl Rotator {
    fn new(work: &Path, logs: &Path) -> Option<Rotator> {
        let Some(bin) = logrotate_bin() else {
            eprintln!("logrotate is not installed: skipped (apt-get install logrotate)");
            return None;
        };
        let conf = work.join("logrotate.conf");
        fs::write(
            &conf,
            format!(
                "{}/app.log {{\n    rotate 8\n    create\n    compress\n    delaycompress\n    missingok\n}}\n",
                logs.display()
            ),
        )
        .unwrap();
        Some(Rotator {
            bin,
            conf,
            status: work.join("logrotate.status"),
        })
    }

    /// One forced rotation (`-f`, as a cron job with `size 0` would).
    fn rotate(&self) {
        run_tool(
            Command::new(&self.bin)
                .arg("-f")
                .arg("-s")
                .arg(&self.status)
                .arg(&self.conf),
        );
    }
}

/// The rolls in `dir`, for failure messages.
fn listing(dir: &Path) -> String {
    let mut names: Vec<String> = fs::read_dir(dir)
        .unwrap()
        .flatten()
        .map(|e| e.file_name().to_string_lossy().into_owned())
        .collect();
    names.sort();
    names.join(" ")
}

/// A work directory holding `logs/`, and logrotate configured for `logs/app.log` (`None` where
/// logrotate is not installed).
fn logs_and_rotator() -> Option<(tempfile::TempDir, PathBuf, Rotator)> {
    let work = tempfile::tempdir().unwrap();
    let logs = work.path().join("logs");
    fs::create_dir(&logs).unwrap();
    let rotator = Rotator::new(work.path(), &logs)?;
    Some((work, logs, rotator))
}

/// `run --path <log>` with a state file in `work`.
fn with_state(work: &Path, log: &Path) -> Launch {
    Launch::new(work, log)
        .fast()
        .arg("--state-file")
        .arg(work.join("state.json").display().to_string())
}

#[test]
fn a_roll_made_and_compressed_while_frozen_is_read() {
    let wf = "frozen";
    let Some((work, logs, rotator)) = logs_and_rotator() else {
        return;
    };
    let log = logs.join("app.log");
    Writer::open(&log).denials(wf, 10);
    let exporter = with_state(work.path(), &log).start();
    exporter.wait_denials(wf, 10);
    // Frozen, as a paused container or a starved process is, across three rotations: the file
    // the second one creates is filled, renamed, and compressed before the exporter runs again.
    exporter.freeze();
    rotator.rotate();
    Writer::open(&log).denials(wf, 10);
    rotator.rotate();
    rotator.rotate();
    exporter.thaw();
    exporter.wait_denials(wf, 20);
    std::thread::sleep(Duration::from_millis(500));
    exporter.assert_denials(wf, 20);
    assert_eq!(
        exporter.value(RECOVERED, &[]),
        1.0,
        "the compressed roll (the empty one after it holds nothing to read): {}",
        listing(&logs)
    );
}

/// A denial of the execution `execution` in `workflow`, refused by a permission rule.
fn rule_denial(workflow: &str, execution: &str, tool_use: &str) -> String {
    format!(
        "{{\"level\":40,\"time\":1781251200139,\"executionId\":\"{execution}\",\"workflow\":\"{workflow}\",\
         \"event\":\"agent.permission.denied\",\"toolName\":\"Bash\",\"toolUseId\":\"{tool_use}\",\
         \"decisionReasonType\":\"rule\",\"decisionReason\":\"Denied by rule Bash(git push:*)\",\
         \"msg\":\"agent permission denied\"}}\n"
    )
}

/// The completed line of the execution `execution`, listing the denials `tool_uses`.
fn record(workflow: &str, execution: &str, tool_uses: &[String]) -> String {
    let denials: Vec<String> = tool_uses
        .iter()
        .map(|t| format!("{{\"toolName\":\"Bash\",\"toolUseId\":\"{t}\"}}"))
        .collect();
    format!(
        "{{\"level\":30,\"time\":1781251200999,\"executionId\":\"{execution}\",\"workflow\":\"{workflow}\",\
         \"sdkMsgType\":\"result\",\"subtype\":\"success\",\"numTurns\":3,\"permissionDenialCount\":{},\
         \"permissionDenials\":[{}],\"msg\":\"Claude Agent SDK execution completed\"}}\n",
        tool_uses.len(),
        denials.join(",")
    )
}

/// Frozen while its writer goes on: the file followed (`app.log`) gets an execution's denials
/// after the last read, logrotate renames it, the writer reopens and writes the execution's
/// record to the new file, which two more rotations compress (`app.log.2.gz`) before the
/// exporter runs again. The roll is found at the scan the thaw's events cause and read at once;
/// the older file's unread end must come first, or the record would book the denials as
/// `reason="unknown"` before their own lines.
#[test]
fn a_compressed_roll_is_read_after_the_older_files_unread_end() {
    let wf = "frozen_order";
    let Some((work, logs, rotator)) = logs_and_rotator() else {
        return;
    };
    let log = logs.join("app.log");
    let mut older = Writer::open(&log);
    older.denials("warm_up", 1);
    let exporter = with_state(work.path(), &log).start();
    exporter.wait_denials("warm_up", 1);
    exporter.freeze();
    rotator.rotate();
    // The writer appends to the renamed file until it reopens the path (after logrotate's
    // postrotate signal): these lines are in no file the exporter saw written.
    let tool_uses: Vec<String> = (0..3).map(|i| format!("toolu_frozen_{i}")).collect();
    for tool_use in &tool_uses {
        older.write(&rule_denial(wf, "exec_frozen", tool_use));
    }
    Writer::open(&log).write(&(noise() + &record(wf, "exec_frozen", &tool_uses)));
    rotator.rotate();
    rotator.rotate();
    exporter.thaw();
    exporter.wait_value(
        "agent_executions_total",
        &[("workflow", wf), ("outcome", "success")],
        1.0,
    );
    exporter.wait_denials(wf, 3);
    std::thread::sleep(Duration::from_millis(300));
    let m = exporter.metrics();
    assert_eq!(
        sum(&m, DENIALS, &[("workflow", wf), ("reason", "unknown")]),
        0.0,
        "the record was read before the denials it lists; files: {}\n{m}",
        listing(&logs)
    );
    assert_eq!(
        sum(&m, DENIALS, &[("workflow", wf), ("reason", "rule")]),
        3.0
    );
    assert_eq!(exporter.value(RECOVERED, &[]), 1.0, "{}", listing(&logs));
}

/// The state directory made unusable (a file where the directory was: every write fails, also
/// for root), and usable again.
fn break_dir(dir: &Path) {
    fs::rename(dir, dir.with_extension("away")).unwrap();
    fs::write(dir, b"not a directory").unwrap();
}

fn mend_dir(dir: &Path) {
    fs::remove_file(dir).unwrap();
    fs::rename(dir.with_extension("away"), dir).unwrap();
}

#[test]
fn a_restart_after_failed_state_writes_serves_no_less_and_ends_exact() {
    let wf = "unwritable";
    let work = tempfile::tempdir().unwrap();
    let logs = work.path().join("logs");
    let state_dir = work.path().join("state");
    fs::create_dir(&logs).unwrap();
    fs::create_dir(&state_dir).unwrap();
    let Some(rotator) = Rotator::new(work.path(), &logs) else {
        return;
    };
    let log = logs.join("app.log");
    let launch = Launch::new(work.path(), &log)
        .fast()
        .arg("--state-file")
        .arg(state_dir.join("state.json").display().to_string())
        .args(["--state-interval", "0.3"]);
    Writer::open(&log).denials(wf, 10);
    let mut exporter = launch.start();
    exporter.wait_denials(wf, 10);
    let ok = exporter.value(WRITES, &[("result", "ok")]);
    exporter.wait_value_at_least(WRITES, &[("result", "ok")], ok + 1.0); // the 10 are saved
    break_dir(&state_dir);
    rotator.rotate();
    Writer::open(&log).denials(wf, 10);
    exporter.wait_denials(wf, 20);
    exporter.wait_value_at_least(WRITES, &[("result", "error")], 1.0);
    let served = exporter.denials(wf);
    exporter.crash();
    rotator.rotate();
    rotator.rotate();
    mend_dir(&state_dir);
    let exporter = launch.start();
    // Ready means the backlog was read: the first scrape must not be below the last one served.
    let first = exporter.denials(wf);
    assert!(
        first >= served,
        "served {served} before the crash, {first} after the restart; files: {}",
        listing(&logs)
    );
    std::thread::sleep(Duration::from_millis(500));
    exporter.assert_denials(wf, 20);
    assert!(exporter.value(RECOVERED, &[]) >= 1.0);
}

#[test]
fn the_state_is_written_again_soon_after_it_can_be() {
    let wf = "retry";
    let work = tempfile::tempdir().unwrap();
    let state_dir = work.path().join("state");
    fs::create_dir(&state_dir).unwrap();
    let log = work.path().join("app.log");
    Writer::open(&log).denials(wf, 1);
    // A state interval far longer than the test: only the retries can write it.
    let exporter = Launch::new(work.path(), &log)
        .fast()
        .arg("--state-file")
        .arg(state_dir.join("state.json").display().to_string())
        .args(["--state-interval", "1h"])
        .start();
    break_dir(&state_dir);
    exporter.signal("HUP"); // a write now, which fails
    exporter.wait_value_at_least(WRITES, &[("result", "error")], 1.0);
    let ok = exporter.value(WRITES, &[("result", "ok")]);
    mend_dir(&state_dir);
    // Retried within a second of the fault's end (the backoff is capped at 1 s), not in an hour.
    assert!(
        wait_until(Duration::from_secs(3), || {
            exporter.value(WRITES, &[("result", "ok")]) > ok
        }),
        "the state was not written again after the directory came back"
    );
}
