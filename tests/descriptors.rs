//! The built binary under a small open files limit, with many more files than descriptors: every
//! file is read in turn (opened, read to its end, closed), an append to any closed file is read
//! from its offset, and a restart neither counts a line again nor loses one.
//!
//! The limit is lowered (soft and hard, so the exporter cannot raise it again) for this test
//! process, and the exporter inherits it; this file holds nothing else that could mind.

#[path = "live/mod.rs"]
mod live;

use std::fs;
use std::path::Path;
use std::sync::Once;

use live::*;

/// The open files limit: the follower keeps 128 of it for everything else, so 128 files may be
/// open at once.
const NOFILE: u64 = 256;

/// Files written, each with one denial: many times the files that may be open.
const FILES: usize = 2_000;

fn lower_the_open_files_limit() {
    static ONCE: Once = Once::new();
    ONCE.call_once(|| {
        let limit = rustix::process::Rlimit {
            current: Some(NOFILE),
            maximum: Some(NOFILE),
        };
        rustix::process::setrlimit(rustix::process::Resource::Nofile, limit)
            .expect("lowering the open files limit");
    });
}

fn log(dir: &Path, i: usize) -> std::path::PathBuf {
    dir.join(format!("task-{i:05}.log"))
}

#[test]
fn files_past_the_descriptor_budget_are_read_in_turn_and_again_when_they_grow() {
    lower_the_open_files_limit();
    let wf = "many";
    let dir = tempfile::tempdir().unwrap();
    let logs = dir.path().join("logs");
    fs::create_dir(&logs).unwrap();
    for i in 0..FILES {
        fs::write(log(&logs, i), denials(wf, 1)).unwrap();
    }
    let launch = Launch::new(dir.path(), &logs.join("*.log")).args([
        "--state-file",
        &dir.path().join("state.json").display().to_string(),
    ]);
    let exporter = launch.start();
    exporter.wait_denials(wf, FILES as u64);
    exporter.wait_value(FILES_FOLLOWED, &[], FILES as f64);

    // Appends to files long closed (the first read, one in the middle, the last), and to one
    // more than once: each is read from where it was left.
    let mut want = FILES as u64;
    for i in [0, FILES / 2, FILES - 1, FILES / 3, FILES / 2] {
        Writer::open(&log(&logs, i)).denials(wf, 2);
        want += 2;
        exporter.wait_denials(wf, want);
    }
    // A line written in two pieces, the file closed in between.
    let line = denial(wf);
    let (head, tail) = line.split_at(30);
    let mut w = Writer::open(&log(&logs, 7));
    w.write(head);
    Writer::open(&log(&logs, 8)).denials(wf, 1); // another file's turn comes between
    want += 1;
    exporter.wait_denials(wf, want);
    w.write(tail);
    want += 1;
    exporter.wait_denials(wf, want);

    // Renamed out of the globs just after a write, while it may be closed: still read.
    Writer::open(&log(&logs, 11)).denials(wf, 1);
    fs::rename(log(&logs, 11), logs.join("task-00011.log.1")).unwrap();
    want += 1;
    exporter.wait_denials(wf, want);
    exporter.assert_denials(wf, want);

    // A restart resumes every file, closed ones included, from its offset.
    exporter.signal("TERM");
    let mut exporter = exporter;
    assert!(exporter.wait_exit(TIMEOUT).is_some_and(|s| s.success()));
    Writer::open(&log(&logs, FILES / 4)).denials(wf, 1);
    let exporter = launch.start();
    exporter.wait_denials(wf, want + 1);
    Writer::open(&log(&logs, FILES - 2)).denials(wf, 3);
    exporter.wait_denials(wf, want + 4);
    exporter.assert_denials(wf, want + 4);
    assert_eq!(
        exporter.value("denials_exporter_file_errors_total", &[("error", "open")]),
        0.0,
        "no file was refused a descriptor"
    );
    assert!(
        exporter.value("denials_exporter_files_parked_total", &[]) > 0.0,
        "files past the budget were closed, and the count says so"
    );
    let open = exporter.value("denials_exporter_files_open", &[]);
    assert!(
        open > 0.0 && open < FILES as f64,
        "{open} files hold a descriptor"
    );
}
