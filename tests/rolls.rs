//! Numbered rolls as pino-roll leaves them, read by the built binary over real files:
//!
//! * a backlog of rolls whose modification times tie (Linux stamps files with a coarse clock)
//!   is read in roll order, so an execution's mid-stream denial in `app.9.log` is counted
//!   before its record in `app.10.log` and the record reveals nothing more;
//! * a line cut at a roll boundary (pino-roll under load) is joined again and counted with its
//!   reason, live and across a restart whose state holds the fragment of a roll that is gone;
//! * logrotate's numbers count the other way (`app.log.1` is the newest roll): a backlog of them,
//!   their mtimes showing it, is read `app.log.3`, `app.log.2`, `app.log.1`, `app.log`, and a
//!   line cut between two of them is joined in that order.

#[path = "live/mod.rs"]
mod live;

use std::fs::{self, File};
use std::path::Path;
use std::time::{Duration, SystemTime};

use live::*;

fn denial_line(execution: &str, tool_use: &str) -> String {
    format!(
        "{{\"level\":40,\"time\":1781251200139,\"executionId\":\"{execution}\",\"workflow\":\"rolls\",\
         \"event\":\"agent.permission.denied\",\"toolName\":\"Bash\",\"toolUseId\":\"{tool_use}\",\
         \"decisionReasonType\":\"hook\",\"msg\":\"agent permission denied\"}}\n"
    )
}

fn record_line(execution: &str, tool_use: &str) -> String {
    format!(
        "{{\"level\":30,\"time\":1781251200999,\"executionId\":\"{execution}\",\"workflow\":\"rolls\",\
         \"sdkMsgType\":\"result\",\"subtype\":\"success\",\"numTurns\":3,\"permissionDenialCount\":1,\
         \"permissionDenials\":[{{\"toolName\":\"Bash\",\"toolUseId\":\"{tool_use}\"}}],\
         \"msg\":\"Claude Agent SDK execution completed\"}}\n"
    )
}

fn set_mtime(path: &Path, at: SystemTime) {
    File::options()
        .write(true)
        .open(path)
        .and_then(|f| f.set_modified(at))
        .expect("setting the modification time");
}

fn by_reason(exporter: &Exporter, reason: &str) -> f64 {
    sum(
        &exporter.metrics(),
        "permission_denials_total",
        &[("reason", reason)],
    )
}

/// Finding 1 of the exactly-once issue: equal mtimes made `app.10.log` sort before
/// `app.9.log`, and the record in the newer roll counted its denial again as `unknown`.
#[test]
fn a_backlog_of_rolls_with_tied_mtimes_is_read_in_roll_order() {
    let dir = tempfile::tempdir().unwrap();
    let tie = SystemTime::now() - Duration::from_secs(60);
    for n in 1..=11 {
        let path = dir.path().join(format!("app.{n}.log"));
        let mut text = noise();
        if n >= 9 {
            // Each execution's denial is in one roll and its record in the next.
            text += &denial_line(&format!("exec_{n}"), &format!("toolu_{n}"));
        }
        if n >= 10 {
            text += &record_line(&format!("exec_{}", n - 1), &format!("toolu_{}", n - 1));
        }
        fs::write(&path, text).unwrap();
        set_mtime(&path, tie);
    }
    let exporter = Launch::new(dir.path(), &dir.path().join("*.log"))
        .fast()
        .start();
    exporter.wait_denials("rolls", 3);
    assert_eq!(
        by_reason(&exporter, "unknown"),
        0.0,
        "{}",
        exporter.metrics()
    );
    assert_eq!(by_reason(&exporter, "hook"), 3.0);
}

/// Waits until `n` executions of the workflow `rolls` completed.
fn wait_executions(exporter: &Exporter, n: f64) {
    exporter.wait_value(
        "agent_executions_total",
        &[("workflow", "rolls"), ("outcome", "success")],
        n,
    );
}

/// The two pieces of a cut line made one line: no bad line, one rejoined.
fn assert_one_line_rejoined(m: &str) {
    assert_eq!(
        sample(m, LINES, &[("outcome", "malformed")]),
        Some(0.0),
        "{m}"
    );
    assert_eq!(
        sample(m, "denials_exporter_lines_rejoined_total", &[]),
        Some(1.0),
        "{m}"
    );
}

/// The denial line starts at the end of `app.1.log` and ends at the start of `app.2.log`.
fn cut(line: &str) -> (&str, &str) {
    line.split_at(line.find("permission.de").unwrap() + "permission.de".len())
}

#[test]
fn a_line_cut_at_a_roll_boundary_is_joined_again() {
    let dir = tempfile::tempdir().unwrap();
    let (one, two) = (dir.path().join("app.1.log"), dir.path().join("app.2.log"));
    let line = denial_line("exec_a", "toolu_a");
    let (head, tail) = cut(&line);
    let mut w1 = Writer::open(&one);
    w1.write(&noise());
    w1.write(head);
    let exporter = Launch::new(dir.path(), &dir.path().join("*.log"))
        .fast()
        .start();
    // pino-roll moves on: the rest of the line opens the next roll.
    let mut w2 = Writer::open(&two);
    w2.write(tail);
    w2.write(&record_line("exec_a", "toolu_a"));
    w2.write(&noise());
    wait_executions(&exporter, 1.0);
    exporter.wait_denials("rolls", 1);
    assert_eq!(by_reason(&exporter, "hook"), 1.0, "{}", exporter.metrics());
    let m = exporter.metrics();
    assert_one_line_rejoined(&m);
}

/// Two pieces that do not make one line stay two bad lines, as before.
#[test]
fn pieces_that_do_not_fit_are_not_joined() {
    let dir = tempfile::tempdir().unwrap();
    let (one, two) = (dir.path().join("app.1.log"), dir.path().join("app.2.log"));
    let line = denial_line("exec_b", "toolu_b");
    let (head, _) = cut(&line);
    fs::write(&one, noise() + head).unwrap();
    let exporter = Launch::new(dir.path(), &dir.path().join("*.log"))
        .fast()
        .start();
    fs::write(
        &two,
        "\"x\":1}\n".to_string() + &denial_line("exec_c", "toolu_c"),
    )
    .unwrap();
    exporter.wait_denials("rolls", 1);
    exporter.wait_value(LINES, &[("outcome", "malformed")], 2.0);
    let m = exporter.metrics();
    assert_eq!(
        sample(&m, "denials_exporter_lines_rejoined_total", &[]),
        Some(0.0),
        "{m}"
    );
}

/// The fragment is in the state file: the roll that held it is deleted while the exporter is
/// down (pino-roll's `limit.count`), and the next roll still completes it.
#[test]
fn a_fragment_survives_a_restart_after_its_roll_is_deleted() {
    let dir = tempfile::tempdir().unwrap();
    let logs = dir.path().join("logs");
    fs::create_dir(&logs).unwrap();
    let state = dir.path().join("state.json");
    let (one, two) = (logs.join("app.1.log"), logs.join("app.2.log"));
    let line = denial_line("exec_d", "toolu_d");
    let (head, tail) = cut(&line);
    fs::write(&one, noise() + head).unwrap();
    let launch = Launch::new(dir.path(), &logs.join("*.log"))
        .fast()
        .args(["--state-file", &state.display().to_string()]);
    let mut exporter = launch.start();
    exporter.signal("TERM");
    assert!(
        exporter.wait_exit(TIMEOUT).is_some_and(|s| s.success()),
        "{}",
        exporter.stderr()
    );
    let saved = fs::read_to_string(&state).unwrap();
    assert!(saved.contains("\"fragment\""), "{saved}");

    fs::write(&two, tail.to_string() + &noise()).unwrap();
    fs::remove_file(&one).unwrap();
    let exporter = launch.start();
    exporter.wait_denials("rolls", 1);
    assert_eq!(by_reason(&exporter, "hook"), 1.0, "{}", exporter.metrics());
    let m = exporter.metrics();
    assert_eq!(
        sample(&m, LINES, &[("outcome", "malformed")]),
        Some(0.0),
        "{m}"
    );
}

/// logrotate's rolls of `app.log` as it leaves them: `app.log.N` last written `N` rotations
/// ago, so the lower the number the later its mtime. `texts[0]` is `app.log`.
fn logrotate_backlog(dir: &Path, texts: &[String]) {
    let now = SystemTime::now();
    for (n, text) in texts.iter().enumerate() {
        let path = match n {
            0 => dir.join("app.log"),
            n => dir.join(format!("app.log.{n}")),
        };
        fs::write(&path, text).unwrap();
        set_mtime(&path, now - Duration::from_secs(3600 * (n as u64 + 1)));
    }
}

/// Read by roll number counting up, `app.log.1` came before `app.log.2`: each execution's
/// record was applied before its denial in the older roll, and the record counted that denial
/// again as `unknown`.
#[test]
fn a_logrotate_backlog_is_read_oldest_roll_first() {
    let dir = tempfile::tempdir().unwrap();
    logrotate_backlog_counts_once(dir.path(), dir.path());
}

/// The same through a symlinked directory: the rolls are followed by their real names, and
/// their direction must be known under those names too.
#[test]
fn a_logrotate_backlog_through_a_symlinked_directory_is_read_oldest_roll_first() {
    let dir = tempfile::tempdir().unwrap();
    let logs = dir.path().join("logs");
    fs::create_dir(&logs).unwrap();
    let link = dir.path().join("link");
    std::os::unix::fs::symlink(&logs, &link).unwrap();
    logrotate_backlog_counts_once(&logs, &link);
}

/// Writes a backlog in `dir`, follows it from its beginning through `glob_dir`, checks each
/// execution's denial counted once, as its mid-stream reason.
fn logrotate_backlog_counts_once(dir: &Path, glob_dir: &Path) {
    // Each execution's denial is in one file and its record in the next newer one.
    let texts: Vec<String> = (0..=3)
        .map(|n| {
            let mut text = noise();
            if n >= 1 {
                text += &denial_line(&format!("exec_{n}"), &format!("toolu_{n}"));
            }
            if n <= 2 {
                let older = n + 1;
                text += &record_line(&format!("exec_{older}"), &format!("toolu_{older}"));
            }
            text + &noise()
        })
        .collect();
    logrotate_backlog(dir, &texts);
    let exporter = Launch::new(dir, &glob_dir.join("app.log*")).fast().start();
    wait_executions(&exporter, 3.0);
    exporter.wait_denials("rolls", 3);
    let m = exporter.metrics();
    assert_eq!(by_reason(&exporter, "unknown"), 0.0, "{m}");
    assert_eq!(by_reason(&exporter, "hook"), 3.0, "{m}");
    exporter.assert_denials("rolls", 3);
}

/// A line cut between `app.log.3` and `app.log.2` (the writer moved on mid-line, and logrotate
/// numbered both since) is one denial, not two bad lines.
#[test]
fn a_line_cut_between_logrotate_rolls_is_joined_in_their_order() {
    let dir = tempfile::tempdir().unwrap();
    let line = denial_line("exec_e", "toolu_e");
    let (head, tail) = cut(&line);
    let texts = [
        noise(),
        noise() + &record_line("exec_e", "toolu_e"),
        tail.to_string() + &noise(),
        noise() + head,
    ];
    logrotate_backlog(dir.path(), &texts);
    let exporter = Launch::new(dir.path(), &dir.path().join("app.log*"))
        .fast()
        .start();
    wait_executions(&exporter, 1.0);
    exporter.wait_denials("rolls", 1);
    let m = exporter.metrics();
    assert_eq!(by_reason(&exporter, "hook"), 1.0, "{m}");
    assert_eq!(by_reason(&exporter, "unknown"), 0.0, "{m}");
    assert_one_line_rejoined(&m);
}
