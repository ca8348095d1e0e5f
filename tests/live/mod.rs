//! Helpers for the live-sidecar tests (`rotation`, `partial_lines`, `restart`, `http`, `polling`):
//! start the built binary on a free port, scrape it over a hand-written HTTP/1.1 GET, write log
//! lines, and wait for conditions with bounded retry loops (never a fixed sleep as an assertion).
//!
//! Each test file includes this module with `#[path = "live/mod.rs"] mod live;`, so not every
//! helper is used by every file.
#![allow(dead_code)]

use std::fs::{File, OpenOptions};
use std::io::{Read, Write};
use std::net::{SocketAddr, TcpListener, TcpStream};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, ExitStatus, Output, Stdio};
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::{Duration, Instant, SystemTime, UNIX_EPOCH};

/// How long any condition may take to become true (generous: CI runs on a loaded 2-core box).
pub const TIMEOUT: Duration = Duration::from_secs(30);

/// The binary under test.
pub const BIN: &str = env!("CARGO_BIN_EXE_denials-exporter");

/// A port nobody listens on right now (bind to port 0, read it, let it go).
pub fn free_port() -> u16 {
    TcpListener::bind("127.0.0.1:0")
        .and_then(|l| l.local_addr())
        .expect("binding 127.0.0.1:0")
        .port()
}

/// Polls `cond` every 20 ms until it holds or `timeout` passes; returns whether it held.
pub fn wait_until(timeout: Duration, mut cond: impl FnMut() -> bool) -> bool {
    let deadline = Instant::now() + timeout;
    loop {
        if cond() {
            return true;
        }
        if Instant::now() >= deadline {
            return false;
        }
        std::thread::sleep(Duration::from_millis(20));
    }
}

/// One HTTP answer.
#[derive(Debug, Clone)]
pub struct Response {
    pub status: u16,
    /// Header names lower-cased.
    pub headers: Vec<(String, String)>,
    pub body: String,
}

impl Response {
    pub fn header(&self, name: &str) -> Option<&str> {
        self.headers
            .iter()
            .find(|(n, _)| n == &name.to_ascii_lowercase())
            .map(|(_, v)| v.as_str())
    }
}

/// A minimal HTTP/1.1 request (`Connection: close`, body read to the end of the stream).
pub fn request(addr: SocketAddr, method: &str, path: &str) -> std::io::Result<Response> {
    request_with(addr, method, path, &[])
}

/// [`request`] with extra request headers.
pub fn request_with(
    addr: SocketAddr,
    method: &str,
    path: &str,
    headers: &[(&str, &str)],
) -> std::io::Result<Response> {
    let mut stream = TcpStream::connect_timeout(&addr, Duration::from_secs(5))?;
    stream.set_read_timeout(Some(Duration::from_secs(10)))?;
    stream.set_write_timeout(Some(Duration::from_secs(10)))?;
    let extra: String = headers
        .iter()
        .map(|(name, value)| format!("{name}: {value}\r\n"))
        .collect();
    write!(
        stream,
        "{method} {path} HTTP/1.1\r\nHost: {addr}\r\nConnection: close\r\n{extra}Content-Length: 0\r\n\r\n"
    )?;
    let mut raw = Vec::new();
    stream.read_to_end(&mut raw)?;
    let text = String::from_utf8_lossy(&raw).into_owned();
    let Some((head, body)) = text.split_once("\r\n\r\n") else {
        return Err(std::io::Error::other(format!("no header end in {text:?}")));
    };
    let mut lines = head.split("\r\n");
    let status = lines
        .next()
        .and_then(|l| l.split(' ').nth(1))
        .and_then(|s| s.parse().ok())
        .ok_or_else(|| std::io::Error::other(format!("bad status line in {head:?}")))?;
    let headers = lines
        .filter_map(|l| l.split_once(':'))
        .map(|(n, v)| (n.trim().to_ascii_lowercase(), v.trim().to_string()))
        .collect();
    Ok(Response {
        status,
        headers,
        body: body.to_string(),
    })
}

pub fn get(addr: SocketAddr, path: &str) -> std::io::Result<Response> {
    request(addr, "GET", path)
}

/// The value of one sample: `name` with exactly the labels given (any order), if present.
pub fn sample(text: &str, name: &str, labels: &[(&str, &str)]) -> Option<f64> {
    series(text, name)
        .into_iter()
        .find(|(l, _)| {
            l.len() == labels.len()
                && labels
                    .iter()
                    .all(|(k, v)| l.iter().any(|(lk, lv)| lk == k && lv == v))
        })
        .map(|(_, v)| v)
}

/// The sum over every sample of `name` whose labels include `labels` (0 if none).
pub fn sum(text: &str, name: &str, labels: &[(&str, &str)]) -> f64 {
    series(text, name)
        .into_iter()
        .filter(|(l, _)| {
            labels
                .iter()
                .all(|(k, v)| l.iter().any(|(lk, lv)| lk == k && lv == v))
        })
        .map(|(_, v)| v)
        .sum()
}

/// Every sample of `name`: its labels and value.
pub fn series(text: &str, name: &str) -> Vec<(Vec<(String, String)>, f64)> {
    let mut out = Vec::new();
    for line in text.lines() {
        let Some(rest) = line.strip_prefix(name) else {
            continue;
        };
        let (labels, value) = if let Some(rest) = rest.strip_prefix('{') {
            let Some(end) = rest.rfind('}') else { continue };
            (parse_labels(&rest[..end]), rest[end + 1..].trim())
        } else if rest.starts_with(' ') {
            (Vec::new(), rest.trim())
        } else {
            continue; // another metric sharing the prefix
        };
        let value = value.split(' ').next().unwrap_or("");
        if let Ok(v) = value.parse::<f64>() {
            out.push((labels, v));
        }
    }
    out
}

/// Panics if a sample line (name and labels) appears twice.
pub fn assert_unique_series(text: &str) {
    let mut seen = std::collections::BTreeSet::new();
    for line in text
        .lines()
        .filter(|l| !l.starts_with('#') && !l.is_empty())
    {
        let key = match (line.find('{'), line.rfind('}')) {
            (Some(_), Some(end)) => &line[..=end],
            _ => line.split(' ').next().unwrap_or(line),
        };
        assert!(
            seen.insert(key.to_string()),
            "series repeated in /metrics: {key}\n{text}"
        );
    }
}

fn parse_labels(text: &str) -> Vec<(String, String)> {
    let mut labels = Vec::new();
    let mut chars = text.chars().peekable();
    loop {
        let name: String = chars.by_ref().take_while(|c| *c != '=').collect();
        let name = name.trim().trim_start_matches(',').trim().to_string();
        if name.is_empty() {
            break;
        }
        if chars.next() != Some('"') {
            break;
        }
        let mut value = String::new();
        while let Some(c) = chars.next() {
            match c {
                '\\' => match chars.next() {
                    Some('n') => value.push('\n'),
                    Some(c) => value.push(c),
                    None => break,
                },
                '"' => break,
                c => value.push(c),
            }
        }
        labels.push((name, value));
    }
    labels
}

/// Metric names the tests look at.
pub const DENIALS: &str = "permission_denials_total";
pub const ROTATIONS: &str = "denials_exporter_rotations_total";
pub const TRUNCATIONS: &str = "denials_exporter_truncations_total";
pub const FILES_FOLLOWED: &str = "denials_exporter_files_followed";
pub const LINES: &str = "denials_exporter_lines_total";

/// A running exporter; killed (SIGKILL) and reaped on drop, so no test leaks a process.
pub struct Exporter {
    child: Option<Child>,
    pub addr: SocketAddr,
    /// Where the child's stderr goes (kept for failure messages).
    pub stderr_path: PathBuf,
    pub args: Vec<String>,
}

/// Builds the command line of an exporter.
#[derive(Debug, Clone)]
pub struct Launch {
    pub args: Vec<String>,
    /// Directory for the child's stderr file.
    pub dir: PathBuf,
}

impl Launch {
    /// `run --path <glob>` with a debug log level; add more with [`Launch::arg`].
    pub fn new(dir: &Path, glob: &Path) -> Launch {
        Launch {
            args: vec![
                "run".into(),
                "--path".into(),
                glob.display().to_string(),
                "--log.level".into(),
                "denials_exporter=debug".into(),
            ],
            dir: dir.to_path_buf(),
        }
    }

    /// `run --path <glob>` at the default log level (for checking what stderr says).
    pub fn plain(dir: &Path, glob: &Path) -> Launch {
        Launch {
            args: vec!["run".into(), "--path".into(), glob.display().to_string()],
            dir: dir.to_path_buf(),
        }
    }

    pub fn arg(mut self, arg: impl AsRef<str>) -> Launch {
        self.args.push(arg.as_ref().to_string());
        self
    }

    pub fn args<I: IntoIterator<Item = S>, S: AsRef<str>>(mut self, args: I) -> Launch {
        self.args
            .extend(args.into_iter().map(|a| a.as_ref().to_string()));
        self
    }

    /// `--stat-interval 0.2`.
    pub fn fast(self) -> Launch {
        self.args(["--stat-interval", "0.2"])
    }

    /// Starts the exporter on a free port and waits until `/-/ready` answers 200. Retries with
    /// another port if one was taken in between by someone else.
    pub fn start(&self) -> Exporter {
        for attempt in 0.. {
            let port = free_port();
            let mut exporter = self.spawn_on(&[format!("127.0.0.1:{port}")]);
            match exporter.wait_ready() {
                Ok(()) => return exporter,
                Err(stderr) if stderr.contains("cannot listen") && attempt < 5 => continue,
                Err(stderr) => panic!("exporter did not get ready: {stderr}"),
            }
        }
        unreachable!()
    }

    /// Starts the exporter on a free port and waits only until it serves HTTP (`/-/healthy`),
    /// not until it is ready (it may still be reading its backlog).
    pub fn start_serving(&self) -> Exporter {
        for attempt in 0.. {
            let port = free_port();
            let mut exporter = self.spawn_on(&[format!("127.0.0.1:{port}")]);
            let mut exited = None;
            let serving = wait_until(TIMEOUT, || {
                exited = exporter.try_wait();
                exited.is_some() || get(exporter.addr, "/-/healthy").is_ok_and(|r| r.status == 200)
            });
            match exited {
                None if serving => return exporter,
                _ if exporter.stderr().contains("cannot listen") && attempt < 5 => continue,
                _ => panic!("exporter did not serve: {exited:?}\n{}", exporter.stderr()),
            }
        }
        unreachable!()
    }

    /// Spawns the exporter listening on `listen` (one `--web.listen-address` each), without
    /// waiting for anything.
    pub fn spawn_on(&self, listen: &[String]) -> Exporter {
        let mut args = self.args.clone();
        for a in listen {
            args.push("--web.listen-address".into());
            args.push(a.clone());
        }
        static N: AtomicU64 = AtomicU64::new(0);
        let stderr_path = self.dir.join(format!(
            "exporter-{}.stderr",
            N.fetch_add(1, Ordering::Relaxed)
        ));
        let stderr = File::create(&stderr_path).expect("creating the stderr file");
        let child = Command::new(BIN)
            .args(&args)
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(stderr)
            .spawn()
            .expect("spawning the exporter");
        let addr = listen
            .first()
            .and_then(|a| a.parse().ok())
            .unwrap_or_else(|| "127.0.0.1:9".parse().unwrap());
        Exporter {
            child: Some(child),
            addr,
            stderr_path,
            args,
        }
    }

    /// Runs the exporter to its exit (bounded) and returns its status and stderr.
    pub fn run_to_exit(&self, listen: &str) -> (ExitStatus, String) {
        let mut exporter = self.spawn_on(&[listen.to_string()]);
        let status = exporter
            .wait_exit(TIMEOUT)
            .unwrap_or_else(|| panic!("exporter did not exit: {}", exporter.stderr()));
        (status, exporter.stderr())
    }
}

impl Exporter {
    pub fn pid(&self) -> u32 {
        self.child.as_ref().expect("child").id()
    }

    /// The child's stderr so far.
    pub fn stderr(&self) -> String {
        std::fs::read_to_string(&self.stderr_path).unwrap_or_default()
    }

    /// Waits until `/-/ready` answers 200; `Err(stderr)` if the child exits or time runs out.
    pub fn wait_ready(&mut self) -> Result<(), String> {
        let deadline = Instant::now() + TIMEOUT;
        while Instant::now() < deadline {
            if let Some(status) = self.try_wait() {
                return Err(format!("exited with {status}: {}", self.stderr()));
            }
            if get(self.addr, "/-/ready").is_ok_and(|r| r.status == 200) {
                return Ok(());
            }
            std::thread::sleep(Duration::from_millis(20));
        }
        Err(format!("not ready in time: {}", self.stderr()))
    }

    pub fn try_wait(&mut self) -> Option<ExitStatus> {
        self.child
            .as_mut()
            .and_then(|c| c.try_wait().ok().flatten())
    }

    /// Waits for the child to exit, at most `timeout`.
    pub fn wait_exit(&mut self, timeout: Duration) -> Option<ExitStatus> {
        let mut status = None;
        wait_until(timeout, || {
            status = self.try_wait();
            status.is_some()
        });
        status
    }

    /// `/metrics`, panicking (with the child's stderr) if it cannot be scraped or repeats a
    /// series (Prometheus would reject the whole scrape).
    pub fn metrics(&self) -> String {
        let mut last = None;
        for _ in 0..50 {
            match get(self.addr, "/metrics") {
                Ok(r) if r.status == 200 => {
                    assert_unique_series(&r.body);
                    return r.body;
                }
                Ok(r) => last = Some(format!("status {}", r.status)),
                Err(e) => last = Some(e.to_string()),
            }
            std::thread::sleep(Duration::from_millis(100));
        }
        panic!("cannot scrape /metrics: {last:?}\n{}", self.stderr());
    }

    /// The sum of `permission_denials_total` over the series of one workflow.
    pub fn denials(&self, workflow: &str) -> f64 {
        sum(&self.metrics(), DENIALS, &[("workflow", workflow)])
    }

    pub fn value(&self, name: &str, labels: &[(&str, &str)]) -> f64 {
        sample(&self.metrics(), name, labels).unwrap_or(0.0)
    }

    /// Waits until `f(/metrics)` equals `want`; panics with the last value and stderr otherwise.
    pub fn wait_for(&self, what: &str, want: f64, f: impl Fn(&str) -> f64) {
        let mut last = f64::NAN;
        let ok = wait_until(TIMEOUT, || {
            last = f(&self.metrics());
            last == want
        });
        assert!(
            ok,
            "{what}: wanted {want}, last saw {last}\n--- exporter stderr ---\n{}",
            self.stderr()
        );
    }

    /// Waits until `f(/metrics)` is at least `want`.
    pub fn wait_at_least(&self, what: &str, want: f64, f: impl Fn(&str) -> f64) {
        let mut last = f64::NAN;
        let ok = wait_until(TIMEOUT, || {
            last = f(&self.metrics());
            last >= want
        });
        assert!(
            ok,
            "{what}: wanted at least {want}, last saw {last}\n--- exporter stderr ---\n{}",
            self.stderr()
        );
    }

    /// Waits until the denials of `workflow` equal `want`.
    pub fn wait_denials(&self, workflow: &str, want: u64) {
        self.wait_for(
            &format!("permission_denials_total{{workflow={workflow:?}}}"),
            want as f64,
            |m| sum(m, DENIALS, &[("workflow", workflow)]),
        );
    }

    /// Asserts the denials of `workflow` equal `want` now.
    pub fn assert_denials(&self, workflow: &str, want: u64) {
        let got = self.denials(workflow);
        assert_eq!(
            got,
            want as f64,
            "permission_denials_total{{workflow={workflow:?}}}\n--- exporter stderr ---\n{}",
            self.stderr()
        );
    }

    /// Waits until a metric without labels (or with exactly `labels`) equals `want`.
    pub fn wait_value(&self, name: &str, labels: &[(&str, &str)], want: f64) {
        self.wait_for(name, want, |m| sample(m, name, labels).unwrap_or(0.0));
    }

    pub fn wait_value_at_least(&self, name: &str, labels: &[(&str, &str)], want: f64) {
        self.wait_at_least(name, want, |m| sample(m, name, labels).unwrap_or(0.0));
    }

    /// Sends a signal by number with `kill(1)` (no libc in the dev-dependencies).
    pub fn signal(&self, signal: &str) {
        let status = Command::new("kill")
            .args([format!("-{signal}"), self.pid().to_string()])
            .status()
            .expect("running kill");
        assert!(status.success(), "kill -{signal} failed");
    }

    /// SIGSTOP: the exporter is frozen (as on a loaded node) while the test changes files.
    pub fn freeze(&self) {
        self.signal("STOP");
    }

    /// SIGCONT after [`Exporter::freeze`].
    pub fn thaw(&self) {
        self.signal("CONT");
    }

    /// SIGKILL, like a crash or an OOM kill, and reap the child.
    pub fn crash(&mut self) {
        if let Some(mut child) = self.child.take() {
            let _ = child.kill();
            let _ = child.wait();
        }
    }
}

impl Drop for Exporter {
    fn drop(&mut self) {
        self.crash();
    }
}

static SEQ: AtomicU64 = AtomicU64::new(0);

fn now_ms() -> u128 {
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .unwrap()
        .as_millis()
}

/// One mid-stream denial line (with its newline) counted under `workflow`. It carries no
/// correlation key, so it counts on its own: a line read twice would count twice, which is
/// what the tests want to see if it ever happened.
pub fn denial(workflow: &str) -> String {
    denial_with_reason(workflow, "Denied by rule Bash(git push:*)")
}

pub fn denial_with_reason(workflow: &str, reason: &str) -> String {
    let seq = SEQ.fetch_add(1, Ordering::Relaxed);
    let reason = serde_json::to_string(reason).unwrap();
    format!(
        "{{\"level\":40,\"time\":{},\"pid\":4242,\"hostname\":\"executor-0\",\"component\":\"executor\",\
         \"workflow\":\"{workflow}\",\"event\":\"agent.permission.denied\",\"toolName\":\"Bash\",\
         \"decisionReasonType\":\"rule\",\"decisionReason\":{reason},\"seq\":{seq},\
         \"message\":\"Permission to use Bash has been denied.\",\"msg\":\"agent permission denied\"}}\n",
        now_ms()
    )
}

/// An ordinary log line that is not a denial.
pub fn noise() -> String {
    let seq = SEQ.fetch_add(1, Ordering::Relaxed);
    format!(
        "{{\"level\":30,\"time\":{},\"pid\":4242,\"hostname\":\"executor-0\",\"seq\":{seq},\"msg\":\"sdk message\"}}\n",
        now_ms()
    )
}

/// `n` denial lines, each followed by a noise line.
pub fn denials(workflow: &str, n: usize) -> String {
    (0..n).map(|_| denial(workflow) + &noise()).collect()
}

/// A log file opened for appending, as a logger holds it.
pub struct Writer {
    pub file: File,
}

impl Writer {
    /// Opens (creating) `path` for appending.
    pub fn open(path: &Path) -> Writer {
        Writer {
            file: OpenOptions::new()
                .create(true)
                .append(true)
                .open(path)
                .unwrap_or_else(|e| panic!("opening {}: {e}", path.display())),
        }
    }

    pub fn write(&mut self, text: &str) {
        self.file.write_all(text.as_bytes()).expect("writing");
    }

    /// Writes `n` denials of `workflow` (and as many noise lines).
    pub fn denials(&mut self, workflow: &str, n: usize) {
        self.write(&denials(workflow, n));
    }
}

/// Atomically points the symlink `link` at `target` (a temporary link renamed over it).
pub fn swap_symlink(target: &Path, link: &Path) {
    let tmp = link.with_extension("tmp-link");
    let _ = std::fs::remove_file(&tmp);
    std::os::unix::fs::symlink(target, &tmp).expect("creating the symlink");
    std::fs::rename(&tmp, link).expect("renaming the symlink");
}

/// Runs an external tool the test needs (logrotate, openssl); panics with its stderr when it
/// cannot run or fails.
pub fn run_tool(command: &mut Command) -> Output {
    let out = command
        .output()
        .unwrap_or_else(|e| panic!("running {command:?}: {e}"));
    assert!(
        out.status.success(),
        "{command:?} failed: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    out
}
