//! The built binary follows a file across every way it gets rotated, with real files and inotify:
//! rename + create (logrotate), copytruncate, numbered rolls as pino-roll writes them, deletion
//! while the writer still holds the file open, and a symlink swapped to a new target.
//!
//! Each scenario runs twice: with `--stat-interval 0.2`, and with the default (inotify plus the
//! 1 s stat). Every line is a denial without a correlation key, so a line read twice would count
//! twice: the exact value of `permission_denials_total` shows that no line was lost and none was
//! counted twice. Where a rotated file is let go after its grace period, the test waits for that
//! (`denials_exporter_files_followed` drops) before the final, exact check.

#[path = "live/mod.rs"]
mod live;

use std::fs;
use std::path::Path;

use live::*;

fn launch(dir: &Path, glob: &Path, fast: bool) -> Exporter {
    let launch = Launch::new(dir, glob);
    let launch = if fast { launch.fast() } else { launch };
    launch.start()
}

fn no_malformed(exporter: &Exporter) {
    let m = exporter.metrics();
    assert_eq!(
        sample(&m, LINES, &[("outcome", "malformed")]),
        Some(0.0),
        "a line was read from its middle\n{}",
        exporter.stderr()
    );
}

/// logrotate's default: rename the file away, create a new one; the writer keeps writing to the
/// old descriptor for a while before it reopens.
fn rename_and_create(fast: bool) {
    let wf = if fast { "rename_fast" } else { "rename" };
    let dir = tempfile::tempdir().unwrap();
    let log = dir.path().join("app.log");
    let mut old = Writer::open(&log);
    old.denials(wf, 5);
    let exporter = launch(dir.path(), &dir.path().join("*.log"), fast);
    exporter.wait_denials(wf, 5);

    fs::rename(&log, dir.path().join("app.log.1")).unwrap();
    old.denials(wf, 3); // late writes to the renamed file
    let mut new = Writer::open(&log);
    new.denials(wf, 4);
    old.denials(wf, 2); // the writer has not reopened yet
    exporter.wait_denials(wf, 14);
    exporter.wait_value_at_least(ROTATIONS, &[], 1.0);
    drop(old);
    new.denials(wf, 1);
    exporter.wait_denials(wf, 15);

    // A second rotation in the same way, maybe while the first file is still in its grace.
    fs::rename(&log, dir.path().join("app.log.2")).unwrap();
    new.denials(wf, 2);
    let mut newer = Writer::open(&log);
    newer.denials(wf, 3);
    exporter.wait_denials(wf, 20);
    exporter.wait_value(ROTATIONS, &[], 2.0);
    // The renamed files are let go once drained; nothing more is counted from them.
    exporter.wait_value(FILES_FOLLOWED, &[], 1.0);
    exporter.assert_denials(wf, 20);
    assert_eq!(exporter.value(TRUNCATIONS, &[]), 0.0);
    no_malformed(&exporter);
}

#[test]
fn rename_and_create_fast_stat() {
    rename_and_create(true);
}

#[test]
fn rename_and_create_default() {
    rename_and_create(false);
}

/// logrotate's `copytruncate`: copy the file away, truncate it to 0; the writer (O_APPEND) goes
/// on writing at the new end. The size drops below the exporter's offset.
fn copytruncate(fast: bool) {
    let wf = if fast { "copytrunc_fast" } else { "copytrunc" };
    let dir = tempfile::tempdir().unwrap();
    let log = dir.path().join("app.log");
    let mut w = Writer::open(&log);
    w.denials(wf, 10);
    let exporter = launch(dir.path(), &dir.path().join("*.log"), fast);
    exporter.wait_denials(wf, 10);

    fs::copy(&log, dir.path().join("app.log.1")).unwrap();
    w.file.set_len(0).unwrap();
    w.denials(wf, 3); // far fewer bytes than before: the size is below the offset
    exporter.wait_denials(wf, 13);
    exporter.wait_value_at_least(TRUNCATIONS, &[], 1.0);

    // It goes on past the old offset.
    w.denials(wf, 20);
    exporter.wait_denials(wf, 33);
    assert_eq!(exporter.value(TRUNCATIONS, &[]), 1.0);
    assert_eq!(exporter.value(FILES_FOLLOWED, &[]), 1.0);
    no_malformed(&exporter);

    // Truncated again, to empty, and left empty for a while: nothing is counted.
    w.file.set_len(0).unwrap();
    exporter.wait_value(TRUNCATIONS, &[], 2.0);
    w.denials(wf, 2);
    exporter.wait_denials(wf, 35);
    no_malformed(&exporter);
}

#[test]
fn copytruncate_fast_stat() {
    copytruncate(true);
}

#[test]
fn copytruncate_default() {
    copytruncate(false);
}

/// pino-roll: `app.1.log`, `app.2.log`, … with `current.log` a symlink swapped to the newest and
/// the oldest files deleted (`limit.count`). The glob matches the numbered files and the link.
fn numbered_rolls(fast: bool) {
    let wf = if fast { "rolls_fast" } else { "rolls" };
    let dir = tempfile::tempdir().unwrap();
    let numbered = |n: usize| dir.path().join(format!("app.{n}.log"));
    let link = dir.path().join("current.log");
    let mut w = Writer::open(&numbered(1));
    swap_symlink(&numbered(1), &link);
    w.denials(wf, 4);
    let exporter = launch(dir.path(), &dir.path().join("*.log"), fast);
    exporter.wait_denials(wf, 4);
    assert_eq!(
        exporter.value(FILES_FOLLOWED, &[]),
        1.0,
        "the link and its target are one file"
    );

    let mut total = 4;
    for n in 2..=6 {
        // pino-roll writes the last lines, opens the next file, swaps the link, deletes the oldest.
        w.denials(wf, 2);
        w = Writer::open(&numbered(n));
        w.denials(wf, 1);
        swap_symlink(&numbered(n), &link);
        w.denials(wf, 3);
        if n > 2 {
            fs::remove_file(numbered(n - 2)).unwrap(); // keep two files
        }
        total += 6;
        exporter.wait_denials(wf, total);
    }
    exporter.wait_value_at_least(ROTATIONS, &[], 4.0); // each deletion
                                                       // Only app.5.log and app.6.log remain; the deleted ones are let go once drained.
    exporter.wait_value(FILES_FOLLOWED, &[], 2.0);
    exporter.assert_denials(wf, total);
    assert_eq!(exporter.value(TRUNCATIONS, &[]), 0.0);
    no_malformed(&exporter);
}

#[test]
fn numbered_rolls_fast_stat() {
    numbered_rolls(true);
}

#[test]
fn numbered_rolls_default() {
    numbered_rolls(false);
}

/// The file is deleted while the writer still has it open, and the writer writes after the
/// delete: those bytes exist only behind the open descriptors, and must be counted.
fn deleted_while_open(fast: bool) {
    let wf = if fast { "deleted_fast" } else { "deleted" };
    let dir = tempfile::tempdir().unwrap();
    let log = dir.path().join("app.log");
    let mut w = Writer::open(&log);
    w.denials(wf, 5);
    let exporter = launch(dir.path(), &dir.path().join("*.log"), fast);
    exporter.wait_denials(wf, 5);

    fs::remove_file(&log).unwrap();
    w.denials(wf, 3);
    w.denials(wf, 2);
    exporter.wait_denials(wf, 10);
    exporter.wait_value_at_least(ROTATIONS, &[], 1.0);

    // A new file under the same name is read from its start.
    let mut next = Writer::open(&log);
    next.denials(wf, 4);
    exporter.wait_denials(wf, 14);
    // The deleted file is let go once drained and quiet.
    exporter.wait_value(FILES_FOLLOWED, &[], 1.0);
    exporter.assert_denials(wf, 14);
    assert_eq!(exporter.value(ROTATIONS, &[]), 1.0);
    no_malformed(&exporter);
}

#[test]
fn deleted_while_open_fast_stat() {
    deleted_while_open(true);
}

#[test]
fn deleted_while_open_default() {
    deleted_while_open(false);
}

/// Only a symlink is followed (`--path dir/current.log`); its targets live elsewhere. The link is
/// swapped atomically to a new target; the old target gets late writes and stays on disk.
fn symlink_swap(fast: bool) {
    let wf = if fast { "symlink_fast" } else { "symlink" };
    let dir = tempfile::tempdir().unwrap();
    let data = dir.path().join("data");
    fs::create_dir(&data).unwrap();
    let (a, b) = (data.join("a.log"), data.join("b.log"));
    let link = dir.path().join("current.log");
    let mut wa = Writer::open(&a);
    wa.denials(wf, 4);
    swap_symlink(&a, &link);
    let exporter = launch(dir.path(), &link, fast);
    exporter.wait_denials(wf, 4);

    let mut wb = Writer::open(&b);
    wb.denials(wf, 3); // written before the swap: read from the start once followed
    wa.denials(wf, 1);
    swap_symlink(&b, &link);
    wb.denials(wf, 2);
    wa.denials(wf, 1); // a late write to the old target
    exporter.wait_denials(wf, 11);
    exporter.wait_value_at_least(ROTATIONS, &[], 1.0);
    wb.denials(wf, 2);
    exporter.wait_denials(wf, 13);

    // Swapped once more, to a third file.
    let c = data.join("c.log");
    let mut wc = Writer::open(&c);
    wc.denials(wf, 1);
    swap_symlink(&c, &link);
    wb.denials(wf, 1);
    wc.denials(wf, 1);
    exporter.wait_denials(wf, 16);
    exporter.wait_value_at_least(ROTATIONS, &[], 2.0);
    exporter.wait_value(FILES_FOLLOWED, &[], 1.0);
    exporter.assert_denials(wf, 16);
    no_malformed(&exporter);
}

#[test]
fn symlink_swap_fast_stat() {
    symlink_swap(true);
}

#[test]
fn symlink_swap_default() {
    symlink_swap(false);
}

// The same rotations while the exporter is frozen (SIGSTOP, as on a starved node): when it
// wakes, everything has already happened, and the inotify events arrive all at once.

/// copytruncate, then more bytes than had been read, before the exporter looks: reading at the
/// old offset would start in the middle of a line and count the lines after it twice. The file
/// was created empty while followed, so its identity signature had to grow with it.
#[test]
fn copytruncate_while_frozen() {
    let wf = "copytrunc_frozen";
    let dir = tempfile::tempdir().unwrap();
    let log = dir.path().join("app.log");
    let exporter = Launch::new(dir.path(), &dir.path().join("*.log")).start();
    let mut w = Writer::open(&log); // created empty, while followed
    exporter.wait_value(FILES_FOLLOWED, &[], 1.0);
    w.denials(wf, 10);
    exporter.wait_denials(wf, 10);

    exporter.freeze();
    // Copied elsewhere: nothing but the truncation and the writes happens in the directory.
    let elsewhere = tempfile::tempdir().unwrap();
    fs::copy(&log, elsewhere.path().join("app.log.1")).unwrap();
    w.file.set_len(0).unwrap();
    w.denials(wf, 15);
    exporter.thaw();
    exporter.wait_denials(wf, 25);
    exporter.wait_value(TRUNCATIONS, &[], 1.0);
    w.denials(wf, 1);
    exporter.wait_denials(wf, 26);
    assert_eq!(exporter.value(TRUNCATIONS, &[]), 1.0);
    no_malformed(&exporter);
}

/// rename + create, late writes, and the renamed file deleted, all while frozen.
#[test]
fn rename_create_and_delete_while_frozen() {
    let wf = "rename_frozen";
    let dir = tempfile::tempdir().unwrap();
    let log = dir.path().join("app.log");
    let mut old = Writer::open(&log);
    old.denials(wf, 5);
    let exporter = Launch::new(dir.path(), &dir.path().join("*.log")).start();
    exporter.wait_denials(wf, 5);

    exporter.freeze();
    fs::rename(&log, dir.path().join("app.log.1")).unwrap();
    old.denials(wf, 3);
    let mut new = Writer::open(&log);
    new.denials(wf, 4);
    fs::remove_file(dir.path().join("app.log.1")).unwrap();
    old.denials(wf, 2);
    exporter.thaw();
    exporter.wait_denials(wf, 14);
    exporter.wait_value(ROTATIONS, &[], 1.0);
    exporter.wait_value(FILES_FOLLOWED, &[], 1.0);
    new.denials(wf, 1);
    exporter.wait_denials(wf, 15);
    no_malformed(&exporter);
}

/// pino-roll rolls twice and deletes two files, one of them not yet read to its end, and the
/// link is swapped twice, all while frozen.
#[test]
fn numbered_rolls_while_frozen() {
    let wf = "rolls_frozen";
    let dir = tempfile::tempdir().unwrap();
    let numbered = |n: usize| dir.path().join(format!("app.{n}.log"));
    let link = dir.path().join("current.log");
    let mut w = Writer::open(&numbered(1));
    swap_symlink(&numbered(1), &link);
    w.denials(wf, 4);
    let exporter = Launch::new(dir.path(), &dir.path().join("*.log")).start();
    exporter.wait_denials(wf, 4);

    exporter.freeze();
    w.denials(wf, 2); // unread when app.1.log is deleted
    for n in 2..=3 {
        w = Writer::open(&numbered(n));
        w.denials(wf, 3);
        swap_symlink(&numbered(n), &link);
    }
    fs::remove_file(numbered(1)).unwrap();
    w.denials(wf, 1);
    exporter.thaw();
    exporter.wait_denials(wf, 4 + 2 + 3 + 3 + 1);
    exporter.wait_value(ROTATIONS, &[], 1.0);
    exporter.wait_value(FILES_FOLLOWED, &[], 2.0);
    exporter.assert_denials(wf, 13);
    no_malformed(&exporter);
}

/// The link is swapped while frozen; the old target got more lines first.
#[test]
fn symlink_swap_while_frozen() {
    let wf = "symlink_frozen";
    let dir = tempfile::tempdir().unwrap();
    let data = dir.path().join("data");
    fs::create_dir(&data).unwrap();
    let (a, b) = (data.join("a.log"), data.join("b.log"));
    let link = dir.path().join("current.log");
    let mut wa = Writer::open(&a);
    wa.denials(wf, 4);
    swap_symlink(&a, &link);
    let exporter = Launch::new(dir.path(), &link).start();
    exporter.wait_denials(wf, 4);

    exporter.freeze();
    wa.denials(wf, 2);
    let mut wb = Writer::open(&b);
    wb.denials(wf, 3);
    swap_symlink(&b, &link);
    wa.denials(wf, 1);
    exporter.thaw();
    exporter.wait_denials(wf, 10);
    exporter.wait_value(ROTATIONS, &[], 1.0);
    exporter.wait_value(FILES_FOLLOWED, &[], 1.0);
    exporter.assert_denials(wf, 10);
    no_malformed(&exporter);
}

/// With more matching files than file descriptors, the files that could not be opened were never
/// read. The follower leaves 128 descriptors to the rest, and past its budget reads files in
/// turn: opened, read to their end, closed, and opened again when they grow.
#[test]
fn files_past_an_open_files_limit_lowered_at_run_time_are_read_in_turn() {
    let wf = "fd_limit";
    let dir = tempfile::tempdir().unwrap();
    let exporter = Launch::new(dir.path(), &dir.path().join("*.log"))
        .fast()
        .start();
    let limit = |n: &str| {
        let status = std::process::Command::new("prlimit")
            .args([
                "--pid",
                &exporter.pid().to_string(),
                &format!("--nofile={n}:"),
            ])
            .status()
            .expect("running prlimit (util-linux)");
        assert!(status.success());
    };
    limit("200");
    for i in 0..120 {
        Writer::open(&dir.path().join(format!("f{i:03}.log"))).denials(wf, 1);
    }
    // 72 may be open at once: the others wait closed for their turn, none is refused.
    exporter.wait_denials(wf, 120);
    Writer::open(&dir.path().join("f005.log")).denials(wf, 1);
    exporter.wait_denials(wf, 121);
    limit("4096");
    Writer::open(&dir.path().join("f100.log")).denials(wf, 1);
    exporter.wait_denials(wf, 122);
    exporter.assert_denials(wf, 122);
    assert_eq!(
        exporter.value("denials_exporter_files_unopenable", &[]),
        0.0
    );
}
