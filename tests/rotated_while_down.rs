//! The built binary, killed with SIGKILL, and the real rotators' moves made while it is down:
//! logrotate's rename out of the glob (`--path app.log` alone), its `compress` with and without
//! `delaycompress`, an inode reused by the new file, the kubelet's timestamped renames of CRI
//! logs; and compressed files a glob matches. Every restart must count each denial once.
//!
//! Each denial line carries no correlation key, so a line read twice would count twice and a
//! line lost would be missing: the final `permission_denials_total` must equal the lines written.

#[path = "live/mod.rs"]
mod live;

use std::fs::{self, File};
use std::io::Write;
use std::path::Path;

use flate2::write::GzEncoder;
use flate2::Compression;
use live::*;

const COMPRESSED: &str = "denials_exporter_compressed_files_total";
const DROPPED: &str = "denials_exporter_state_entries_dropped_total";
const RECOVERED: &str = "denials_exporter_rolls_recovered_total";

/// `run --path <one path or glob> --state-file …` with a state interval longer than any test,
/// so that only the state written at start-up and when a new file is followed is on disk.
fn launch(dir: &Path, path: &Path) -> Launch {
    Launch::new(dir, path)
        .fast()
        .arg("--state-file")
        .arg(dir.join("state.json").display().to_string())
        .args(["--state-interval", "3600"])
}

/// What logrotate's `compress` does to a roll: `<path>.gz` written, the plain file removed.
fn gzip(path: &Path) {
    let plain = fs::read(path).unwrap();
    let mut gz_path = path.as_os_str().to_os_string();
    gz_path.push(".gz");
    let mut out = GzEncoder::new(File::create(&gz_path).unwrap(), Compression::default());
    out.write_all(&plain).unwrap();
    out.finish().unwrap();
    fs::remove_file(path).unwrap();
}

/// logrotate `create` with `rotate 4`: `app.log.N[.gz]` → `.N+1`, `app.log` → `app.log.1`, a new
/// `app.log`; the writer's next lines go to the new file.
fn logrotate(dir: &Path) {
    for n in (1..4).rev() {
        for gz in ["", ".gz"] {
            let from = dir.join(format!("app.log.{n}{gz}"));
            if from.exists() {
                fs::rename(&from, dir.join(format!("app.log.{}{gz}", n + 1))).unwrap();
            }
        }
    }
    fs::rename(dir.join("app.log"), dir.join("app.log.1")).unwrap();
    File::create(dir.join("app.log")).unwrap();
}

/// After the moves made while the exporter was down: `new` denials written to the new file at
/// `log`, the exporter started again, and every denial written (`total`) counted once.
fn restart_expecting(launch: &Launch, log: &Path, wf: &str, new: usize, total: u64) -> Exporter {
    let mut w = Writer::open(log);
    w.denials(wf, new);
    let exporter = launch.start();
    exporter.wait_denials(wf, total);
    exporter.assert_denials(wf, total);
    exporter
}

#[test]
fn a_crash_before_the_first_periodic_state_write_restarts_from_the_state() {
    let wf = "early_crash";
    let dir = tempfile::tempdir().unwrap();
    let log = dir.path().join("app.log");
    let launch = launch(dir.path(), &log);
    let mut w = Writer::open(&log);
    w.denials(wf, 5);
    let mut exporter = launch.start();
    exporter.wait_denials(wf, 5);
    // Killed long before the periodic state write: the state written at start-up holds.
    exporter.crash();
    assert!(
        dir.path().join("state.json").exists(),
        "no state at start-up"
    );
    w.denials(wf, 3); // the writer keeps appending until logrotate's signal
    logrotate(dir.path());
    let mut w = Writer::open(&log);
    w.denials(wf, 4);
    let exporter = launch.start();
    exporter.wait_denials(wf, 12);
    w.denials(wf, 1);
    exporter.wait_denials(wf, 13);
    exporter.assert_denials(wf, 13);
}

/// No state write holds the new file before it is rotated out of the glob: it is a roll no state
/// recorded, and the counters written hold none of its lines, so it is read from its start.
#[test]
fn a_file_first_followed_after_the_start_and_rotated_before_a_state_write_is_read_whole() {
    let wf = "new_file";
    let dir = tempfile::tempdir().unwrap();
    let log = dir.path().join("app.log");
    let launch = launch(dir.path(), &log);
    // No file yet at the start (the executor starts after its sidecar).
    let mut exporter = launch.start();
    let mut w = Writer::open(&log);
    w.denials(wf, 5);
    exporter.wait_denials(wf, 5);
    assert!(
        !state_knows(dir.path(), &log),
        "only the interval (an hour) writes the state"
    );
    exporter.crash();
    w.denials(wf, 2);
    logrotate(dir.path());
    let exporter = restart_expecting(&launch, &log, wf, 4, 11);
    assert_eq!(exporter.value(RECOVERED, &[]), 1.0);
}

#[test]
fn a_file_rotated_and_compressed_while_down_is_finished_from_its_gz() {
    let wf = "compressed_while_down";
    let dir = tempfile::tempdir().unwrap();
    let log = dir.path().join("app.log");
    let launch = launch(dir.path(), &log);
    let mut w = Writer::open(&log);
    w.write(&noise().repeat(8)); // a head longer than the 1 KiB signature
    w.denials(wf, 5);
    let mut exporter = launch.start();
    exporter.wait_denials(wf, 5);
    exporter.crash();
    // logrotate's `compress` without `delaycompress`: renamed, then gzipped at once.
    w.denials(wf, 3);
    logrotate(dir.path());
    gzip(&dir.path().join("app.log.1"));
    let exporter = restart_expecting(&launch, &log, wf, 4, 12);
    assert_eq!(exporter.value(COMPRESSED, &[("action", "finished")]), 1.0);
    assert_eq!(exporter.value(DROPPED, &[]), 0.0);
    assert_eq!(exporter.value(LINES, &[("outcome", "malformed")]), 0.0);
}

/// Whether the state file has an entry for the file with `path`'s inode.
fn state_knows(dir: &Path, path: &Path) -> bool {
    use std::os::unix::fs::MetadataExt;
    let ino = fs::metadata(path).unwrap().ino();
    let Ok(text) = fs::read_to_string(dir.join("state.json")) else {
        return false;
    };
    let json: serde_json::Value = serde_json::from_str(&text).unwrap();
    json["files"].as_array().is_some_and(|files| {
        files
            .iter()
            .any(|f| f["inode"]["ino"].as_u64() == Some(ino))
    })
}

/// Created empty, written, rotated and compressed at once, all before any state write held it:
/// its `.gz` is read from its start.
#[test]
fn a_file_created_empty_and_compressed_before_a_state_write_is_read_whole() {
    let wf = "created_empty";
    let dir = tempfile::tempdir().unwrap();
    let log = dir.path().join("app.log");
    let launch = launch(dir.path(), &log);
    // logrotate's `create`: the file is there, empty, when the exporter first follows it.
    File::create(&log).unwrap();
    let mut exporter = launch.start();
    let mut w = Writer::open(&log);
    w.denials(wf, 5);
    exporter.wait_denials(wf, 5);
    exporter.crash();
    w.denials(wf, 3);
    logrotate(dir.path());
    gzip(&dir.path().join("app.log.1")); // `compress` without `delaycompress`
    let exporter = restart_expecting(&launch, &log, wf, 4, 12);
    assert_eq!(exporter.value(RECOVERED, &[]), 1.0);
}

#[test]
fn two_rotations_with_delaycompress_while_down() {
    let wf = "delaycompress";
    let dir = tempfile::tempdir().unwrap();
    let log = dir.path().join("app.log");
    let launch = launch(dir.path(), &log);
    let mut first = Writer::open(&log);
    first.denials(wf, 5);
    let mut exporter = launch.start();
    exporter.wait_denials(wf, 5);
    // Rotated once while up; no state write holds the new file before the crash.
    first.denials(wf, 1);
    logrotate(dir.path());
    let mut second = Writer::open(&log);
    second.denials(wf, 2);
    exporter.wait_denials(wf, 8);
    exporter.crash();
    // Down: rotated again; the first file, now app.log.2, is compressed one rotation late and
    // deleted before the new file is created (where the filesystem reuses inodes, the new
    // app.log takes the first file's: its entry must not be dropped for that).
    second.denials(wf, 3);
    fs::rename(dir.path().join("app.log.1"), dir.path().join("app.log.2")).unwrap();
    fs::rename(&log, dir.path().join("app.log.1")).unwrap();
    gzip(&dir.path().join("app.log.2"));
    let mut newest = Writer::open(&log);
    newest.denials(wf, 4);
    let exporter = launch.start();
    exporter.wait_denials(wf, 15);
    newest.denials(wf, 1);
    exporter.wait_denials(wf, 16);
    exporter.assert_denials(wf, 16);
    assert_eq!(exporter.value(LINES, &[("outcome", "malformed")]), 0.0);
    assert_eq!(
        exporter.value(RECOVERED, &[]),
        1.0,
        "the second file, now app.log.1"
    );
}

#[test]
fn compressed_files_a_glob_matches_are_skipped_not_read_as_lines() {
    let wf = "glob_gz";
    let dir = tempfile::tempdir().unwrap();
    let log = dir.path().join("app.log");
    let launch = launch(dir.path(), &dir.path().join("app.log*"));
    let mut w = Writer::open(&log);
    w.denials(wf, 2);
    logrotate(dir.path());
    gzip(&dir.path().join("app.log.1"));
    let mut w = Writer::open(&log);
    w.denials(wf, 3);
    let exporter = launch.start();
    exporter.wait_denials(wf, 3);
    exporter.wait_value(COMPRESSED, &[("action", "skipped")], 1.0);
    // Created empty, then written compressed (gzip at work) while followed.
    let late = dir.path().join("app.log.7.gz");
    File::create(&late).unwrap();
    exporter.wait_value(FILES_FOLLOWED, &[], 2.0);
    let mut gz = GzEncoder::new(Vec::new(), Compression::default());
    gz.write_all(denials(wf, 50).as_bytes()).unwrap();
    fs::OpenOptions::new()
        .append(true)
        .open(&late)
        .unwrap()
        .write_all(&gz.finish().unwrap())
        .unwrap();
    exporter.wait_value(COMPRESSED, &[("action", "skipped")], 2.0);
    w.denials(wf, 1);
    exporter.wait_denials(wf, 4);
    exporter.assert_denials(wf, 4);
    assert_eq!(exporter.value(LINES, &[("outcome", "malformed")]), 0.0);
    assert_eq!(exporter.value(LINES, &[("outcome", "non_utf8")]), 0.0);
}

/// A CRI line (the kubelet's framing) around a denial.
fn cri(text: &str) -> String {
    text.lines()
        .map(|line| format!("2026-06-12T10:00:00.000000001Z stdout F {line}\n"))
        .collect()
}

#[test]
fn the_kubelets_cri_rotation_while_down_counts_each_line_once() {
    let wf = "kubelet";
    let dir = tempfile::tempdir().unwrap();
    let container = dir.path().join("pods/ns_pod_0123/executor");
    fs::create_dir_all(&container).unwrap();
    let log = container.join("0.log");
    let launch = launch(dir.path(), &dir.path().join("pods/*/executor/*.log"));
    let mut w = Writer::open(&log);
    w.write(&cri(&denials(wf, 5)));
    let mut exporter = launch.start();
    exporter.wait_denials(wf, 5);
    exporter.crash();
    // Down: the kubelet renames 0.log to 0.log.<time> twice, gzipping every roll but the
    // newest; the runtime reopens 0.log each time.
    w.write(&cri(&denials(wf, 3)));
    fs::rename(&log, container.join("0.log.20260612-100000")).unwrap();
    let mut w = Writer::open(&log);
    w.write(&cri(&denials(wf, 2)));
    let exporter = launch.start();
    exporter.wait_denials(wf, 10);
    let mut exporter = exporter;
    exporter.crash();
    w.write(&cri(&denials(wf, 4)));
    fs::rename(&log, container.join("0.log.20260612-100100")).unwrap();
    gzip(&container.join("0.log.20260612-100000"));
    let mut w = Writer::open(&log);
    w.write(&cri(&denials(wf, 1)));
    let exporter = launch.start();
    exporter.wait_denials(wf, 15);
    w.write(&cri(&denials(wf, 1)));
    exporter.wait_denials(wf, 16);
    exporter.assert_denials(wf, 16);
    assert_eq!(exporter.value(LINES, &[("outcome", "malformed")]), 0.0);
}
