//! Figures the docs state about what the exporter serves, held to what the built binary serves:
//! the samples of a replay and of a live `run` on the bundled example (docs/counting.md). When
//! a family or a series is added, this fails until the docs say the new count.

#[path = "live/mod.rs"]
mod live;

use std::path::Path;
use std::process::Command;

use live::*;

/// The number docs/counting.md gives right after `before`.
fn stated(before: &str) -> usize {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("docs/counting.md");
    let text = std::fs::read_to_string(&path).unwrap().replace('\n', " ");
    let at = text
        .find(before)
        .unwrap_or_else(|| panic!("docs/counting.md no longer says {before:?}"));
    let digits: String = text[at + before.len()..]
        .chars()
        .take_while(char::is_ascii_digit)
        .collect();
    digits
        .parse()
        .unwrap_or_else(|_| panic!("no number after {before:?}"))
}

fn samples(exposition: &str) -> usize {
    exposition
        .lines()
        .filter(|l| !l.is_empty() && !l.starts_with('#'))
        .count()
}

fn example() -> std::path::PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("examples/executor.log")
}

#[test]
fn a_replay_of_the_example_prints_the_samples_the_docs_say() {
    let out = Command::new(BIN)
        .arg("replay")
        .arg(example())
        .output()
        .unwrap();
    assert!(out.status.success());
    let printed = samples(&String::from_utf8(out.stdout).unwrap());
    assert_eq!(printed, stated("on the bundled example a replay prints "));
}

#[test]
fn a_live_run_on_the_example_serves_the_samples_the_docs_say() {
    let dir = tempfile::tempdir().unwrap();
    let log = dir.path().join("executor.log");
    std::fs::copy(example(), &log).unwrap();
    let size = std::fs::metadata(&log).unwrap().len() as f64;
    let exporter = Launch::new(dir.path(), &dir.path().join("*.log"))
        .fast()
        .start();
    exporter.wait_for("the whole example read", size, |m| {
        sum(m, "denials_exporter_read_bytes_total", &[])
    });
    let served = samples(&exporter.metrics());
    assert_eq!(
        served,
        stated("and a live `run` following it serves "),
        "{}",
        exporter.metrics()
    );
}
