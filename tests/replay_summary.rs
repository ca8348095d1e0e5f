//! `replay` ends with one summary line on stderr (files, bytes, lines by outcome, denials,
//! seconds), and draws no progress bar when stderr is not a terminal (the bar itself is
//! unit-tested in `src/replay.rs`).

mod common;

use common::{fixture, run};

#[test]
fn replay_prints_one_summary_line_and_no_bar_off_a_terminal() {
    let log = fixture("claude-code-hook.log");
    let bytes = std::fs::metadata(&log).unwrap().len();
    let out = run(&[log.to_str().unwrap(), log.to_str().unwrap()]);
    assert!(out.status.success());
    let stderr = String::from_utf8(out.stderr).unwrap();
    let lines: Vec<&str> = stderr
        .lines()
        .filter(|l| l.starts_with("replay: "))
        .collect();
    assert_eq!(lines.len(), 1, "{stderr}");
    let line = lines[0];
    assert!(
        line.starts_with(&format!("replay: 2 files, {} bytes, lines ", 2 * bytes)),
        "{line}"
    );
    for outcome in [
        "counted=",
        "duplicate=",
        "malformed=",
        "ignored=",
        "non_utf8=",
    ] {
        assert!(line.contains(outcome), "{outcome} in {line}");
    }
    let stdout = String::from_utf8(out.stdout).unwrap();
    let denials: f64 = stdout
        .lines()
        .filter(|l| l.starts_with("permission_denials_total{"))
        .map(|l| l.rsplit(' ').next().unwrap().parse::<f64>().unwrap())
        .sum();
    assert!(line.contains(&format!(", {denials} denials, ")), "{line}");
    assert!(line.ends_with(" s"), "{line}");
    assert!(!stderr.contains('\r'), "no bar off a terminal: {stderr:?}");
}
