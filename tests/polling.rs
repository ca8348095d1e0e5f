//! The built binary without inotify: `--poll` follows appends, new files, rename + create,
//! copytruncate and deletion on the periodic stat alone; and a watched directory that does not
//! exist yet is polled until it appears (counted as a fallback).

#[path = "live/mod.rs"]
mod live;

use std::fs;

use live::*;

fn poll_follows_appends_and_rotation(fast: bool) {
    let wf = if fast { "poll_fast" } else { "poll" };
    let dir = tempfile::tempdir().unwrap();
    let log = dir.path().join("app.log");
    let mut w = Writer::open(&log);
    w.denials(wf, 3);
    let launch = Launch::new(dir.path(), &dir.path().join("*.log")).arg("--poll");
    let launch = if fast { launch.fast() } else { launch };
    let exporter = launch.start();
    exporter.wait_denials(wf, 3);
    assert_eq!(
        exporter.value("denials_exporter_watcher_fallbacks_total", &[]),
        0.0
    );

    // Appends, including a line in two pieces.
    w.denials(wf, 4);
    exporter.wait_denials(wf, 7);
    let line = denial(wf);
    let (head, tail) = line.split_at(20);
    w.write(head);
    w.write(tail);
    exporter.wait_denials(wf, 8);

    // rename + create, with a late write to the renamed file.
    fs::rename(&log, dir.path().join("app.log.1")).unwrap();
    let mut new = Writer::open(&log);
    new.denials(wf, 2);
    w.denials(wf, 1);
    exporter.wait_denials(wf, 11);
    exporter.wait_value(ROTATIONS, &[], 1.0);
    exporter.wait_value(FILES_FOLLOWED, &[], 1.0);
    exporter.assert_denials(wf, 11);

    // copytruncate.
    new.denials(wf, 5);
    exporter.wait_denials(wf, 16);
    new.file.set_len(0).unwrap();
    new.denials(wf, 1);
    exporter.wait_denials(wf, 17);
    exporter.wait_value(TRUNCATIONS, &[], 1.0);

    // A second file appears, and the first is deleted after a last write.
    let mut other = Writer::open(&dir.path().join("other.log"));
    other.denials(wf, 2);
    new.denials(wf, 1);
    fs::remove_file(&log).unwrap();
    new.denials(wf, 1);
    exporter.wait_denials(wf, 21);
    exporter.wait_value(ROTATIONS, &[], 2.0);
    exporter.wait_value(FILES_FOLLOWED, &[], 1.0);
    exporter.assert_denials(wf, 21);
    let m = exporter.metrics();
    assert_eq!(sample(&m, LINES, &[("outcome", "malformed")]), Some(0.0));
}

#[test]
fn poll_follows_appends_and_rotation_fast() {
    poll_follows_appends_and_rotation(true);
}

#[test]
fn poll_follows_appends_and_rotation_default_interval() {
    poll_follows_appends_and_rotation(false);
}

#[test]
fn a_directory_that_does_not_exist_yet_is_polled_until_it_appears() {
    let wf = "late_dir";
    let dir = tempfile::tempdir().unwrap();
    let sub = dir.path().join("later");
    let exporter = Launch::new(dir.path(), &sub.join("*.log")).fast().start();
    assert_eq!(exporter.value(FILES_FOLLOWED, &[]), 0.0);
    assert_eq!(
        exporter.value("denials_exporter_watcher_fallbacks_total", &[]),
        1.0
    );
    fs::create_dir(&sub).unwrap();
    let mut w = Writer::open(&sub.join("app.log"));
    w.denials(wf, 2);
    exporter.wait_denials(wf, 2);
    // Once the directory exists it is watched; either way appends keep being read.
    w.denials(wf, 3);
    exporter.wait_denials(wf, 5);
    assert_eq!(
        exporter.value("denials_exporter_watcher_fallbacks_total", &[]),
        1.0
    );
}

/// A log directory deleted and made again took its inotify watch with it, for good, and no
/// self-metric showed it: the watch is now set up again on the next stat, and counted.
#[test]
fn a_deleted_and_recreated_directory_is_watched_again() {
    let wf = "rewatched";
    let dir = tempfile::tempdir().unwrap();
    let logs = dir.path().join("logs");
    fs::create_dir(&logs).unwrap();
    Writer::open(&logs.join("app.log")).denials(wf, 1);
    let exporter = Launch::new(dir.path(), &logs.join("*.log")).fast().start();
    exporter.wait_denials(wf, 1);
    exporter.wait_value("denials_exporter_inotify_watching", &[], 1.0);

    fs::remove_dir_all(&logs).unwrap();
    fs::create_dir(&logs).unwrap();
    exporter.wait_value("denials_exporter_watch_rearms_total", &[], 1.0);
    exporter.wait_value("denials_exporter_inotify_watching", &[], 1.0);
    Writer::open(&logs.join("app.log")).denials(wf, 2);
    exporter.wait_denials(wf, 3);
}

/// Under --poll, a truncate and regrow within one interval that kept the same first KiB resumed
/// at the old offset and lost lines, with truncations_total still 0. The bytes before the
/// offset tell now.
#[test]
fn poll_notices_a_regrow_that_keeps_the_first_kib() {
    let wf = "regrown";
    let dir = tempfile::tempdir().unwrap();
    let log = dir.path().join("app.log");
    let header: String = (0..40).map(|_| noise()).collect();
    assert!(header.len() > 2048);
    fs::write(&log, header.clone() + &denials(wf, 3)).unwrap();
    let exporter = Launch::new(dir.path(), &dir.path().join("*.log"))
        .args(["--poll", "--stat-interval", "2"])
        .start();
    exporter.wait_denials(wf, 3);
    // Within one interval: the same first 2 KiB, then more than was there before.
    fs::write(&log, header + &denials(wf, 5)).unwrap();
    exporter.wait_denials(wf, 8);
    exporter.wait_value_at_least("denials_exporter_truncations_total", &[], 1.0);
    exporter.assert_denials(wf, 8);
}
