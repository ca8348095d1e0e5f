//! The kubelet rotating fast while the built binary, following `0.log*` of three pods, is frozen
//! (SIGSTOP) for 50-150 ms again and again: every line is read once.
//!
//! Each pod's `0.log` is rotated as the kubelet's container log manager does it (the oldest
//! rolls deleted, the plain roll gzipped through a `.gz.tmp`, `0.log` renamed to
//! `0.log.<time>`, the runtime's late lines written to the renamed file, a new `0.log`), every
//! 8 KiB, a few times a second per pod, keeping far more history than a freeze outlasts. A
//! thaw's scan then meets rotations under way: it may `stat()` a `0.log` written during the
//! freeze and open the file after it, the first now a roll the scan did not list. That roll
//! was once taken for a file the scan follows: never read, its `.gz` known by its head, a
//! whole roll lost with no self-metric moving (the chaos soak's smoke, seed 336792680).
//!
//! A race, not a schedule: the freezes fall at the same moments every run, the rotations where
//! the machine's speed puts them. Before the fix, both runs of this test lost rolls (728 of
//! 52,848 lines, 884 of 56,532).

#[path = "live/mod.rs"]
mod live;

use std::fs::{self, File, OpenOptions};
use std::io::Write;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};

use flate2::write::GzEncoder;
use flate2::Compression;
use live::*;

/// A roll's size: small, so that rotations are frequent.
const ROLL_BYTES: u64 = 8 << 10;
/// Rolls kept (the kubelet's `containerLogMaxFiles` − 1): about 2 s of a pod's writes, far
/// longer than a freeze and the catch-up after it.
const ROLLS_KEPT: usize = 120;
/// How long the writers write and the freezes go on.
const RUN: Duration = Duration::from_secs(8);
/// Late lines the runtime writes to the renamed file before it reopens `0.log`.
const LATE_LINES: usize = 2;

/// One pod's container log directory, written and rotated as the kubelet does.
struct Pod {
    dir: PathBuf,
    file: File,
    size: u64,
    rotations: u64,
    lines: u64,
    denials: u64,
}

impl Pod {
    fn new(root: &Path, n: usize) -> Pod {
        let dir = root.join(format!("ns{n}_pod{n}_0f0e-{n}")).join("executor");
        fs::create_dir_all(&dir).unwrap();
        Pod {
            file: append(&dir.join("0.log")),
            dir,
            size: 0,
            rotations: 0,
            lines: 0,
            denials: 0,
        }
    }

    /// One application line, CRI-framed; rotates when due.
    fn write(&mut self, line: &str) {
        self.line(line);
        if self.size >= ROLL_BYTES {
            self.rotate();
        }
    }

    fn line(&mut self, line: &str) {
        let framed = format!("2026-06-12T10:00:00.000000000Z stdout F {line}");
        self.file.write_all(framed.as_bytes()).unwrap();
        self.size += framed.len() as u64;
        self.lines += 1;
    }

    /// The kubelet's `rotateLatestLog`, with the runtime's reopen after it.
    fn rotate(&mut self) {
        let mut rolls: Vec<String> = fs::read_dir(&self.dir)
            .unwrap()
            .flatten()
            .filter_map(|e| e.file_name().into_string().ok())
            .filter(|n| n.starts_with("0.log.") && !n.ends_with(".tmp"))
            .collect();
        rolls.sort();
        let excess = rolls.len().saturating_sub(ROLLS_KEPT - 1);
        for old in rolls.drain(..excess) {
            fs::remove_file(self.dir.join(old)).unwrap();
        }
        for plain in rolls.iter().filter(|r| !r.ends_with(".gz")) {
            let path = self.dir.join(plain);
            let tmp = self.dir.join(format!("{plain}.gz.tmp"));
            let mut gz = GzEncoder::new(File::create(&tmp).unwrap(), Compression::fast());
            gz.write_all(&fs::read(&path).unwrap()).unwrap();
            gz.finish().unwrap();
            fs::rename(&tmp, self.dir.join(format!("{plain}.gz"))).unwrap();
            fs::remove_file(&path).unwrap();
        }
        self.rotations += 1;
        // A logical clock, one second a rotation, from 10:00:00: names sort by time.
        let t = 36_000 + self.rotations;
        let name = format!(
            "0.log.20260612-{:02}{:02}{:02}",
            t / 3600,
            t / 60 % 60,
            t % 60
        );
        fs::rename(self.dir.join("0.log"), self.dir.join(name)).unwrap();
        for _ in 0..LATE_LINES {
            self.line(&noise());
        }
        self.file = append(&self.dir.join("0.log"));
        self.size = 0;
    }
}

fn append(path: &Path) -> File {
    OpenOptions::new()
        .create(true)
        .append(true)
        .open(path)
        .unwrap()
}

/// Three pods written round robin, a denial in every ten lines, until `stop`; the pods.
fn write_pods(root: &Path, stop: &AtomicBool) -> Vec<Pod> {
    let mut pods: Vec<Pod> = (0..3).map(|n| Pod::new(root, n)).collect();
    let mut seq = 0u64;
    while !stop.load(Ordering::Relaxed) {
        for _ in 0..12 {
            seq += 1;
            let pod = &mut pods[(seq % 3) as usize];
            if seq % 10 == 0 {
                pod.denials += 1;
                pod.write(&denial("kubelet"));
            } else {
                pod.write(&noise());
            }
        }
        std::thread::sleep(Duration::from_millis(1));
    }
    pods
}

/// A small deterministic generator (xorshift64): the freezes' lengths and gaps.
struct Moments(u64);

impl Moments {
    fn millis(&mut self, from: u64, to: u64) -> Duration {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        Duration::from_millis(from + self.0 % (to - from))
    }
}

#[test]
fn every_line_is_read_once_across_freezes_amid_fast_kubelet_rotations() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path().join("pods");
    fs::create_dir_all(&root).unwrap();
    let exporter = Launch::new(dir.path(), &root.join("*_*_*/*/0.log*"))
        .arg("--state-file")
        .arg(dir.path().join("state.json").display().to_string())
        .start();
    let stop = Arc::new(AtomicBool::new(false));
    let writer = {
        let (root, stop) = (root.clone(), Arc::clone(&stop));
        std::thread::spawn(move || write_pods(&root, &stop))
    };
    let mut moments = Moments(0x9e37_79b9_7f4a_7c15);
    let end = Instant::now() + RUN;
    let mut freezes = 0;
    while Instant::now() < end {
        std::thread::sleep(moments.millis(100, 400));
        exporter.freeze();
        std::thread::sleep(moments.millis(50, 150));
        exporter.thaw();
        freezes += 1;
    }
    stop.store(true, Ordering::Relaxed);
    let pods = writer.join().unwrap();
    let (lines, denials, rotations) = pods.iter().fold((0, 0, 0), |(l, d, r), p| {
        (l + p.lines, d + p.denials, r + p.rotations)
    });
    assert!(
        rotations > 100,
        "only {rotations} rotations: no race to run"
    );
    exporter.wait_for(
        &format!("lines read ({lines} written, {rotations} rotations, {freezes} freezes)"),
        lines as f64,
        |m| sum(m, LINES, &[]),
    );
    exporter.wait_denials("kubelet", denials);
    let metrics = exporter.metrics();
    assert_eq!(
        sum(&metrics, "denials_exporter_lost_files_total", &[]),
        0.0,
        "no file was deleted unread: none may be claimed lost"
    );
}
