//! The exporter never harms its workload: whatever its data, it comes up (`/-/healthy` answers
//! 200) and counts; each data fault is one log line (and a `denials_exporter_faults_total`
//! sample). Also the start line, the empty-glob warnings, the backlog line, and the listen
//! addresses as exporter-toolkit takes them (`:PORT` on every address family, `[::1]:PORT`).
//!
//! Each test prints its measured time to healthy; the bound asserted is a liveness check only
//! (the figure is measured by `bench/startup.sh`).

#[path = "live/mod.rs"]
mod live;

use std::fs;
use std::os::unix::process::CommandExt;
use std::path::Path;
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use live::*;

/// A liveness bound, not a performance assertion (the brief's figure is 2 s; see the bench).
const HEALTHY_WITHIN: Duration = Duration::from_secs(10);

/// The exporter as a plain child, on `--web.listen-address 127.0.0.1:PORT`.
struct Started {
    child: Child,
    addr: std::net::SocketAddr,
    stderr_path: std::path::PathBuf,
    to_healthy: Duration,
}

impl Started {
    fn stderr(&self) -> String {
        fs::read_to_string(&self.stderr_path).unwrap_or_default()
    }

    fn denials(&self, workflow: &str) -> f64 {
        let body = get(self.addr, "/metrics")
            .map(|r| r.body)
            .unwrap_or_default();
        sum(&body, "permission_denials_total", &[("workflow", workflow)])
    }

    fn wait_denials(&self, workflow: &str, want: f64) {
        assert!(
            wait_until(TIMEOUT, || self.denials(workflow) == want),
            "never counted {want} for {workflow}: {}\n{}",
            self.denials(workflow),
            self.stderr()
        );
    }

    /// `denials_exporter_faults_total{fault}` as served now.
    fn fault(&self, fault: &str) -> f64 {
        let body = get(self.addr, "/metrics")
            .map(|r| r.body)
            .unwrap_or_default();
        sum(&body, "denials_exporter_faults_total", &[("fault", fault)])
    }

    /// Lines of stderr at WARN or ERROR.
    fn faults_logged(&self) -> Vec<String> {
        self.stderr()
            .lines()
            .filter(|l| l.contains(" WARN ") || l.contains(" ERROR "))
            .map(str::to_string)
            .collect()
    }
}

impl Drop for Started {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// Starts `run --path <dir>/*.log` with `extra` flags and waits for `/-/healthy` (at most
/// [`HEALTHY_WITHIN`]); `limit_file_size` runs it with `RLIMIT_FSIZE` 0 (every write of a byte
/// fails with `EFBIG`, as on a full volume).
fn start(dir: &Path, extra: &[&str], limit_file_size: bool, what: &str) -> Started {
    let port = free_port();
    let stderr_path = dir.join(format!("{what}.stderr"));
    let glob = dir.join("*.log").display().to_string();
    let mut command = Command::new(BIN);
    command
        .args(["run", "--path", &glob, "--stat-interval", "0.2"])
        .args(["--web.listen-address", &format!("127.0.0.1:{port}")])
        .args(extra)
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        // Through a pipe, copied by this process: a child with RLIMIT_FSIZE 0 cannot write a file.
        .stderr(Stdio::piped());
    if limit_file_size {
        // SAFETY: only async-signal-safe calls between fork and exec.
        unsafe {
            command.pre_exec(|| {
                libc::signal(libc::SIGXFSZ, libc::SIG_IGN);
                let zero = libc::rlimit {
                    rlim_cur: 0,
                    rlim_max: libc::RLIM_INFINITY,
                };
                libc::setrlimit(libc::RLIMIT_FSIZE, &zero);
                Ok(())
            });
        }
    }
    let started = Instant::now();
    let mut child = command.spawn().unwrap();
    let mut pipe = child.stderr.take().unwrap();
    let mut copy = fs::File::create(&stderr_path).unwrap();
    std::thread::spawn(move || {
        use std::io::{Read, Write};
        let mut buf = [0u8; 4096];
        while let Ok(n @ 1..) = pipe.read(&mut buf) {
            let _ = copy.write_all(&buf[..n]).and_then(|()| copy.flush());
        }
    });
    let addr = format!("127.0.0.1:{port}").parse().unwrap();
    let healthy = wait_until(HEALTHY_WITHIN, || {
        get(addr, "/-/healthy").is_ok_and(|r| r.status == 200)
    });
    let to_healthy = started.elapsed();
    if !healthy {
        let _ = child.kill();
        panic!(
            "{what}: not healthy within {HEALTHY_WITHIN:?}: {:?}\n{}",
            child.try_wait(),
            fs::read_to_string(&stderr_path).unwrap_or_default()
        );
    }
    eprintln!("{what}: healthy after {:.3} s", to_healthy.as_secs_f64());
    Started {
        child,
        addr,
        stderr_path,
        to_healthy,
    }
}

fn set_aside(dir: &Path) -> Vec<std::path::PathBuf> {
    fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| {
            p.file_name()
                .unwrap()
                .to_string_lossy()
                .starts_with("state.json.bad-")
        })
        .collect()
}

#[test]
fn a_state_file_that_cannot_be_used_is_set_aside_and_the_start_is_fresh() {
    let cases: [(&str, Option<&[u8]>, &str); 3] = [
        ("corrupt", Some(b"{not json"), "is corrupt"),
        (
            "newer",
            Some(br#"{"version":"7","files":[],"future":true}"#),
            "written by a newer version",
        ),
        ("unreadable", None, "cannot read state file"), // a directory
    ];
    for (wf, content, message) in cases {
        let dir = tempfile::tempdir().unwrap();
        let state = dir.path().join("state.json");
        Writer::open(&dir.path().join("app.log")).denials(wf, 3);
        match content {
            Some(bytes) => fs::write(&state, bytes).unwrap(),
            None => fs::create_dir(&state).unwrap(),
        }
        // With or without the old flag: the same.
        for flags in [&[][..], &["--state-reset-on-error"][..]] {
            let mut args = vec!["--state-file", state.to_str().unwrap()];
            args.extend(flags);
            let exporter = start(dir.path(), &args, false, wf);
            exporter.wait_denials(wf, 3.0);
            let logged = exporter.faults_logged();
            assert_eq!(logged.len(), 1, "{wf}: one line: {logged:#?}");
            assert!(logged[0].contains(message), "{wf}: {}", logged[0]);
            assert!(logged[0].contains("set aside"), "{wf}: {}", logged[0]);
            assert_eq!(exporter.fault(&format!("state_{wf}")), 1.0, "{wf}: counted");
            assert!(exporter.to_healthy < HEALTHY_WITHIN);
            let aside = set_aside(dir.path());
            assert_eq!(aside.len(), 1, "{wf}: {aside:?}");
            match content {
                Some(bytes) => assert_eq!(fs::read(&aside[0]).unwrap(), bytes),
                None => assert!(aside[0].is_dir()),
            }
            drop(exporter);
            // The next start uses the good state the first one wrote: nothing set aside again.
            let again = start(dir.path(), &args, false, wf);
            again.wait_denials(wf, 3.0);
            assert!(again.faults_logged().is_empty(), "{}", again.stderr());
            assert_eq!(again.fault(&format!("state_{wf}")), 0.0, "{wf}: not again");
            assert_eq!(set_aside(dir.path()).len(), 1);
            drop(again);
            fs::remove_file(&state).unwrap();
            for p in set_aside(dir.path()) {
                let _ = fs::remove_file(&p).or_else(|_| fs::remove_dir(&p));
            }
            match content {
                Some(bytes) => fs::write(&state, bytes).unwrap(),
                None => fs::create_dir(&state).unwrap(),
            }
        }
    }
}

#[test]
fn a_state_that_cannot_be_written_still_comes_up_and_counts() {
    // A missing directory (as a volume that is not mounted), and a full volume (RLIMIT_FSIZE).
    let dir = tempfile::tempdir().unwrap();
    Writer::open(&dir.path().join("app.log")).denials("unwritable", 2);
    let missing = dir.path().join("missing/state.json");
    let exporter = start(
        dir.path(),
        &[
            "--state-file",
            missing.to_str().unwrap(),
            "--state-interval",
            "0.1",
        ],
        false,
        "state_dir_missing",
    );
    exporter.wait_denials("unwritable", 2.0);
    // Many writes fail; the first is logged once, later ones are only counted.
    let failed = || {
        let body = get(exporter.addr, "/metrics")
            .map(|r| r.body)
            .unwrap_or_default();
        sum(
            &body,
            "denials_exporter_state_writes_total",
            &[("result", "error")],
        )
    };
    assert!(
        wait_until(TIMEOUT, || failed() >= 5.0),
        "{}",
        exporter.stderr()
    );
    let logged = exporter.faults_logged();
    assert_eq!(logged.len(), 2, "{logged:#?}");
    assert!(
        logged[0].contains("the state cannot be written"),
        "{logged:#?}"
    );
    assert!(
        logged[1].contains("cannot write the state file"),
        "{logged:#?}"
    );
    drop(exporter);

    let state = dir.path().join("state.json");
    let exporter = start(
        dir.path(),
        &["--state-file", state.to_str().unwrap()],
        true,
        "state_volume_full",
    );
    exporter.wait_denials("unwritable", 2.0);
    assert!(
        exporter.faults_logged()[0].contains("the state cannot be written"),
        "{}",
        exporter.stderr()
    );
}

#[test]
fn a_missing_log_directory_or_an_unreadable_file_still_comes_up() {
    let dir = tempfile::tempdir().unwrap();
    let logs = dir.path().join("logs");
    let glob = logs.join("*.log").display().to_string();
    let state = dir.path().join("state.json");
    let exporter = start(
        dir.path(),
        &["--path", &glob, "--state-file", state.to_str().unwrap()],
        false,
        "log_dir_missing",
    );
    let warning = exporter
        .faults_logged()
        .into_iter()
        .find(|l| l.contains(&glob))
        .unwrap_or_else(|| panic!("no warning naming {glob}: {}", exporter.stderr()));
    assert!(
        warning.contains("its directory does not exist"),
        "{warning}"
    );
    assert!(
        warning.contains(&format!("dir={}", logs.display())),
        "{warning}"
    );
    // The directory appears later, with a file that cannot be read as lines (a directory named
    // like a log) and one that can.
    fs::create_dir_all(logs.join("odd.log")).unwrap();
    Writer::open(&logs.join("app.log")).denials("late", 4);
    exporter.wait_denials("late", 4.0);
}

#[test]
fn the_start_line_the_empty_glob_warning_and_the_backlog_line() {
    let dir = tempfile::tempdir().unwrap();
    let empty = dir.path().join("empty");
    fs::create_dir(&empty).unwrap();
    let empty_glob = empty.join("*.log").display().to_string();
    let mut log = Writer::open(&dir.path().join("app.log"));
    log.denials("lines", 5);
    let bytes = fs::metadata(dir.path().join("app.log")).unwrap().len();
    let exporter = start(dir.path(), &["--path", &empty_glob], false, "lines");
    exporter.wait_denials("lines", 5.0);
    let stderr = exporter.stderr();
    let starts: Vec<&str> = stderr.lines().filter(|l| l.contains("starting")).collect();
    assert_eq!(starts.len(), 1, "{stderr}");
    let glob = dir.path().join("*.log").display().to_string();
    for want in [
        "version=\"".to_string(),
        format!("globs=\"{glob},{empty_glob}\""),
        "state_file=\"none\"".into(),
        "read_from=\"beginning\"".into(),
        format!("listen=\"{}\"", exporter.addr),
    ] {
        assert!(starts[0].contains(&want), "{want} in {}", starts[0]);
    }
    let warnings = exporter.faults_logged();
    assert_eq!(warnings.len(), 1, "{warnings:#?}");
    assert!(
        warnings[0].contains("glob matches nothing yet"),
        "{warnings:?}"
    );
    assert!(
        warnings[0].contains(&format!("dir={}", empty.display())),
        "{warnings:?}"
    );
    let backlog: Vec<&str> = stderr
        .lines()
        .filter(|l| l.contains("backlog read"))
        .collect();
    assert_eq!(backlog.len(), 1, "{stderr}");
    assert!(backlog[0].contains("files=1"), "{}", backlog[0]);
    assert!(
        backlog[0].contains(&format!("bytes={bytes}")),
        "{}",
        backlog[0]
    );
    assert!(backlog[0].contains("seconds="), "{}", backlog[0]);
}

#[test]
fn port_alone_listens_on_ipv4_and_ipv6_and_a_v6_address_in_brackets_is_taken() {
    let dir = tempfile::tempdir().unwrap();
    Writer::open(&dir.path().join("app.log")).denials("families", 1);
    let launch = Launch::plain(dir.path(), &dir.path().join("*.log"));
    let port = free_port();
    let mut exporter = launch.spawn_on(&[format!(":{port}")]);
    for addr in [format!("127.0.0.1:{port}"), format!("[::1]:{port}")] {
        let addr = addr.parse().unwrap();
        assert!(
            wait_until(TIMEOUT, || get(addr, "/-/healthy")
                .is_ok_and(|r| r.status == 200)),
            "{addr}: {:?}\n{}",
            exporter.try_wait(),
            exporter.stderr()
        );
    }
    drop(exporter);

    let port = free_port();
    let exporter = launch.spawn_on(&[format!("[::1]:{port}")]);
    let addr = format!("[::1]:{port}").parse().unwrap();
    assert!(
        wait_until(TIMEOUT, || get(addr, "/metrics").is_ok_and(|r| sum(
            &r.body,
            "permission_denials_total",
            &[]
        ) == 1.0)),
        "{}",
        exporter.stderr()
    );
    assert!(
        get(format!("127.0.0.1:{port}").parse().unwrap(), "/-/healthy").is_err(),
        "an IPv6 address alone is not IPv4"
    );

    // A bad one: exit 2, one sentence.
    let (status, stderr) = launch.run_to_exit("[::1:9100");
    assert_eq!(status.code(), Some(2), "{stderr}");
    let lines: Vec<&str> = stderr.lines().filter(|l| !l.trim().is_empty()).collect();
    assert_eq!(lines.len(), 1, "{stderr}");
    assert!(
        lines[0].starts_with("denials-exporter: invalid --web.listen-address \"[::1:9100\""),
        "{stderr}"
    );
}
