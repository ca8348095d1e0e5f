//! A closed stderr (a log collector gone, `| head`) must not take the sidecar down: it keeps
//! counting, and SIGTERM still writes the state and exits 0.

use std::io::{Read, Write};
use std::net::{TcpListener, TcpStream};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

const BIN: &str = env!("CARGO_BIN_EXE_denials-exporter");

fn scrape(port: u16) -> Option<String> {
    let mut s = TcpStream::connect(("127.0.0.1", port)).ok()?;
    s.set_read_timeout(Some(Duration::from_secs(2))).ok()?;
    write!(
        s,
        "GET /metrics HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n"
    )
    .ok()?;
    let mut body = String::new();
    s.read_to_string(&mut body).ok()?;
    body.starts_with("HTTP/1.1 200").then_some(body)
}

#[test]
fn closed_stderr_is_survived() {
    let dir = tempfile::tempdir().unwrap();
    let log = dir.path().join("app.log");
    std::fs::write(&log, b"").unwrap();
    let port = TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port();
    let state = dir.path().join("state.json");
    let mut child = Command::new(BIN)
        .args(["run", "--path", &format!("{}/*.log", dir.path().display())])
        .args([
            "--state-file",
            state.to_str().unwrap(),
            "--web.listen-address",
            &format!("127.0.0.1:{port}"),
        ])
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    drop(child.stderr.take()); // the reader of its log goes away
    let line =
        r#"{"event":"agent.permission.denied","toolName":"Bash","decisionReasonType":"hook"}"#;
    let mut file = std::fs::OpenOptions::new().append(true).open(&log).unwrap();
    writeln!(file, "not json, so a warning is logged\n{line}").unwrap();
    let deadline = Instant::now() + Duration::from_secs(20);
    loop {
        if scrape(port).is_some_and(|b| {
            b.contains(
                "permission_denials_total{reason=\"hook\",tool=\"Bash\",workflow=\"unknown\"} 1",
            )
        }) {
            break;
        }
        assert!(
            child.try_wait().unwrap().is_none(),
            "the exporter died with its stderr closed"
        );
        assert!(Instant::now() < deadline, "the denial was never counted");
        std::thread::sleep(Duration::from_millis(50));
    }
    let status = Command::new("kill")
        .args(["-TERM", &child.id().to_string()])
        .status()
        .unwrap();
    assert!(status.success());
    let status = child.wait().unwrap();
    assert!(status.success(), "{status:?}");
    assert!(state.exists(), "the state was written at shutdown");
}
