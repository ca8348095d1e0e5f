//! Zero secrets out: format-valid fake secrets are planted in every field of every input
//! format — tool names, workflows, execution and tool use ids, reasons, messages, tool inputs
//! (plain, base64, percent-encoded, JSON-escaped), hook fields, container framing, and the log
//! directory's own name — and every output of the live sidecar is searched for them: `/metrics`
//! (text and OpenMetrics), `/`, `/api/v1/denials`, the audit log, the exporter's own log at debug
//! level, and the state file. Only the secrets' tails are searched for, so a secret cut short
//! still counts as leaked.

#[path = "live/mod.rs"]
mod live;

use std::fs;
use std::io::Write as _;
use std::path::Path;

use live::*;

/// Fake secrets, format-valid for the rule sets that know them. Built at run time so no
/// scanner flags this file.
fn secrets() -> Vec<(&'static str, String)> {
    let a36 = "a1B2c3D4e5F6g7H8i9J0k1L2m3N4o5P6q7R8";
    vec![
        ("github", format!("ghp_{a36}")),
        ("aws_key_id", format!("AKIA{}", "QYLPMN5HFIQR7XZT")),
        ("slack", format!("xoxb-{}-{}-{}", "2384750192", "9182736450", "AbCdEfGhIjKlMnOpQrStUvWx")),
        ("anthropic", format!("sk-ant-api03-{}AA", "x".repeat(10) + &a36[..30] + "Zq9_Wm3-Tn7Lp2Vk4Rj8Hs6Gd1Fb5Nc0Xe9Ya3Ub7Ic2Od6Pf1Qg5Rh0Si4Tj8Uk3Vl7Wm2Xn6Yo1Zp5")),
        ("gitlab", format!("glpat-{}", "Zk4xQm9Lp2Rt7Vw3Ny8B")),
        ("password", "Tr0ub4dor&3xQz!".to_string()),
    ]
}

/// The part of a secret searched for in outputs: its last 12 characters.
fn tail(secret: &str) -> &str {
    &secret[secret.len() - 12..]
}

fn b64(text: &str) -> String {
    const A: &[u8] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
    let bytes = text.as_bytes();
    let mut out = String::new();
    for chunk in bytes.chunks(3) {
        let n = chunk.iter().fold(0u32, |n, b| n << 8 | u32::from(*b)) << (8 * (3 - chunk.len()));
        for i in 0..4 {
            if i <= chunk.len() {
                out.push(A[(n >> (18 - 6 * i) & 63) as usize] as char);
            } else {
                out.push('=');
            }
        }
    }
    out
}

fn pct(text: &str) -> String {
    text.bytes()
        .map(|b| match b {
            b'A'..=b'Z' | b'a'..=b'z' | b'0'..=b'9' | b'-' | b'_' | b'.' => (b as char).to_string(),
            _ => format!("%{b:02X}"),
        })
        .collect()
}

fn json(text: &str) -> String {
    serde_json::to_string(text).unwrap()
}

/// Lines of every input format with the secrets planted in every field.
fn lines(s: &[(&'static str, String)]) -> Vec<String> {
    let [gh, aws, slack, ant, gl, pw] = [&s[0].1, &s[1].1, &s[2].1, &s[3].1, &s[4].1, &s[5].1];
    let command = format!("curl -H 'Authorization: Bearer {ant}' https://api.example.com && docker login -p '{pw}' registry.example.com");
    let encoded = format!(
        "echo {} | base64 -d; curl 'https://u:{}@example.com/?t={}'",
        b64(&format!("user:{pw}")),
        pct(pw),
        pct(gh)
    );
    let mut out = vec![
        // pino denial: every field.
        serde_json::json!({"level":40,"time":1781251200139u64,"executionId":format!("exec_{gh}"),"workflow":aws,
            "event":"agent.permission.denied","toolName":format!("mcp__x__send_{gh}"),"toolUseId":format!("toolu_{gl}"),
            "decisionReasonType":"hook","decisionReason":format!("PreToolUse hook denied: {command}"),
            "message":format!("token {slack}"),"toolInput":{"command":command},"msg":"agent permission denied"}).to_string(),
        // pino completed line with a list, encoded secrets in tool inputs, and escaped JSON.
        serde_json::json!({"level":30,"executionId":format!("exec_{gh}"),"workflow":aws,"subtype":"success","costUsd":0.5,
            "modelUsage":{format!("model-{gl}"):{"inputTokens":1,"costUSD":0.5}},
            "permissionDenials":[
                {"toolName":format!("mcp__x__send_{gh}"),"toolUseId":format!("toolu_{ant}"),"toolInput":{"command":encoded}},
                {"toolName":"Bash","toolUseId":"toolu_2","toolInput":{"command":json(&json(&format!("export GITHUB_TOKEN={gh}")))}}],
            "msg":"Claude Agent SDK execution completed"}).to_string(),
        // stream-json frame and result.
        serde_json::json!({"type":"system","subtype":"permission_denied","tool_name":format!("send_{slack}"),
            "tool_use_id":format!("toolu_{slack}"),"decision_reason_type":"rule","decision_reason":format!("denied {aws}"),
            "session_id":format!("sess_{gl}")}).to_string(),
        serde_json::json!({"type":"result","subtype":"success","total_cost_usd":0.1,"session_id":format!("sess_{gl}"),
            "permission_denials":[{"tool_name":"Bash","tool_use_id":"toolu_9","tool_input":{"command":format!("PGPASSWORD={pw} psql")}}]}).to_string(),
        // Claude Code PermissionDenied hook input, and the agent CLI's hook context.
        serde_json::json!({"hook_event_name":"PermissionDenied","tool_name":"Bash","tool_input":{"command":format!("git push https://x:{gh}@github.com/a/b")},
            "tool_use_id":"toolu_h1","reason":format!("blocked {slack}"),"session_id":"s_h","cwd":format!("/home/{aws}")}).to_string(),
        serde_json::json!({"session_id":"s_c","turn":2,"tool":"Bash","tool_use_id":"toolu_c1","reason":"Denied by rule for Bash",
            "input_summary":format!("mysql -p{pw} -h db"),"timestamp":"2026-06-12T10:00:00Z"}).to_string(),
    ];
    // The same denial in CRI and Docker framing.
    let framed = serde_json::json!({"level":40,"workflow":"framed","event":"agent.permission.denied","toolName":"Bash",
        "decisionReasonType":"rule","decisionReason":format!("sshpass -p '{pw}' ssh host {ant}")}).to_string();
    out.push(format!("2026-06-12T10:00:00.1Z stdout F {framed}"));
    out.push(serde_json::json!({"log": format!("{framed}\n"), "stream":"stderr","time":"2026-06-12T10:00:00Z"}).to_string());
    out
}

/// Every output of a run, once the exporter has read what it will: `/metrics` (text and
/// OpenMetrics), `/`, `/api/v1/denials`, then (after a SIGTERM) the audit log, the state file and
/// the exporter's own log.
fn every_output(mut exporter: Exporter, audit: &Path, state: &Path) -> Vec<(&'static str, String)> {
    let page = |path| get(exporter.addr, path).map(|r| r.body).unwrap_or_default();
    let mut outputs = vec![
        ("/metrics", exporter.metrics()),
        ("/", page("/")),
        ("/api/v1/denials", page("/api/v1/denials")),
    ];
    let openmetrics = std::process::Command::new("curl")
        .args([
            "-s",
            "-H",
            "Accept: application/openmetrics-text; version=1.0.0",
        ])
        .arg(format!("http://{}/metrics", exporter.addr))
        .output()
        .map(|o| String::from_utf8_lossy(&o.stdout).into_owned())
        .unwrap_or_default();
    outputs.push(("/metrics (OpenMetrics)", openmetrics));
    exporter.signal("TERM");
    exporter.wait_exit(TIMEOUT);
    outputs.push(("audit log", fs::read_to_string(audit).unwrap_or_default()));
    outputs.push(("state file", fs::read_to_string(state).unwrap_or_default()));
    outputs.push(("exporter log (debug)", exporter.stderr()));
    outputs
}

/// Where in `text` any 8 consecutive characters of `secret` are: its first ones as much as its
/// tail.
fn piece_of(secret: &str, text: &str) -> Option<usize> {
    (0..=secret.len() - 8).find_map(|i| text.find(&secret[i..i + 8]))
}

/// `text` from 80 characters before `at` through `len` bytes after it: where a leak sits.
fn around(text: &str, at: usize, len: usize) -> &str {
    let from = text[..at]
        .char_indices()
        .rev()
        .nth(80)
        .map_or(0, |(i, _)| i);
    &text[from..(at + len).min(text.len())]
}

#[test]
fn no_planted_secret_leaves_through_any_output() {
    let secrets = secrets();
    let root = tempfile::tempdir().unwrap();
    // A secret in the log directory's own name: it reaches the path label, `/` and the log.
    let logs = root.path().join(format!("logs-{}", secrets[0].1));
    fs::create_dir(&logs).unwrap();
    let (state, audit) = (
        root.path().join("state.json"),
        root.path().join("audit.jsonl"),
    );
    let mut file = fs::File::create(logs.join("app.log")).unwrap();
    for line in lines(&secrets) {
        writeln!(file, "{line}").unwrap();
    }
    // A bad line whose excerpt would be cut in the middle of a token.
    let pad = "x".repeat(100);
    writeln!(
        file,
        "{{\"event\":\"agent.permission.denied\",\"toolName\":\"{pad}{}",
        secrets[0].1
    )
    .unwrap();
    // A line cut at the end of the file: its fragment goes into the state file.
    write!(
        file,
        "{{\"event\":\"agent.permission.denied\",\"toolName\":\"{}",
        secrets[4].1
    )
    .unwrap();
    drop(file);

    let exporter = Launch::new(root.path(), &logs.join("*.log"))
        .fast()
        .args(["--state-file", &state.display().to_string()])
        .args(["--audit-log", &audit.display().to_string()])
        .start(); // Launch::new logs at debug level
    exporter.wait_value_at_least("permission_denials_total", &[], 0.0);
    wait_until(TIMEOUT, || {
        audit.exists() && fs::read_to_string(&audit).is_ok_and(|t| t.lines().count() >= 8)
    });
    let outputs = every_output(exporter, &audit, &state);
    assert!(
        outputs[0].1.contains("permission_denials_total"),
        "{}",
        outputs[0].1
    );
    assert!(outputs[4].1.lines().count() >= 8, "audit: {}", outputs[4].1);

    let mut leaks = Vec::new();
    for (kind, secret) in &secrets {
        for (output, text) in &outputs {
            if text.contains(tail(secret)) {
                let at = text.find(tail(secret)).unwrap();
                leaks.push(format!("{kind} in {output}: …{}…", around(text, at, 12)));
            }
        }
    }
    assert!(
        leaks.is_empty(),
        "{} leaks:\n{}",
        leaks.len(),
        leaks.join("\n")
    );
}

/// A field too long to be shown (a tool name past the 128-byte label bound, an id, a reason
/// past 64 KiB) is shown as its length, never as a cut of itself: a secret at any offset of
/// one, straddling the label bound, the 240-character display cut or the field's end, never
/// leaves in part through `/metrics`, `/`, `/api/v1/denials`, the audit log or the state file.
#[test]
fn no_part_of_a_secret_in_an_oversized_field_leaves() {
    let secret = secrets()[0].1.clone();
    assert!(
        !secret.contains('T'),
        "the filler must not make up a window"
    );
    // (field length, the secret's offset in it)
    let cases = [
        (129, 0),
        (129, 89),
        (300, 100),
        (300, 127),
        (300, 230),
        (300, 260),
        (4096, 2000),
        (100_000, 0),
        (100_000, 65_530),
        (1_000_000, 236),
        (1_000_000, 999_960),
    ];
    let fields = ["toolName", "executionId", "toolUseId", "decisionReason"];
    let root = tempfile::tempdir().unwrap();
    let logs = root.path().join("logs");
    fs::create_dir(&logs).unwrap();
    let (state, audit) = (
        root.path().join("state.json"),
        root.path().join("audit.jsonl"),
    );
    let mut file = fs::File::create(logs.join("app.log")).unwrap();
    let mut n = 0;
    for field in fields {
        for (len, at) in cases {
            let big = format!(
                "{}{secret}{}",
                "T".repeat(at),
                "T".repeat(len - at - secret.len())
            );
            let mut line = serde_json::json!({"level":40,"executionId":format!("e{n}"),
                "workflow":"review","event":"agent.permission.denied","toolName":"Bash",
                "toolUseId":format!("t{n}"),"decisionReasonType":"hook","msg":"d"});
            line[field] = big.into();
            writeln!(file, "{line}").unwrap();
            n += 1;
        }
    }
    drop(file);

    let exporter = Launch::new(root.path(), &logs.join("*.log"))
        .fast()
        .args(["--state-file", &state.display().to_string()])
        .args(["--audit-log", &audit.display().to_string()])
        .start();
    exporter.wait_for(DENIALS, n as f64, |m| sum(m, DENIALS, &[]));
    let denials = get(exporter.addr, "/api/v1/denials").unwrap().body;
    for marker in [
        "<tool name of 1000000 bytes>",
        "<execution id of 300 bytes>",
        "<tool use id of 129 bytes>",
        "<decision reason of 100000 bytes>",
    ] {
        assert!(denials.contains(marker), "{marker} not in {denials}");
    }
    let metrics = exporter.metrics();
    assert_eq!(
        sum(&metrics, DENIALS, &[("tool", "invalid")]),
        cases.len() as f64,
        "{metrics}"
    );
    let outputs = every_output(exporter, &audit, &state);
    for (output, text) in &outputs[..3] {
        assert!(!text.is_empty(), "{output} answered nothing");
    }
    assert_eq!(outputs[4].1.lines().count(), n, "one audit line per denial");

    for (output, text) in &outputs {
        if let Some(at) = piece_of(&secret, text) {
            panic!("part of the secret in {output}: …{}…", around(text, at, 8));
        }
    }
}

/// A tool input longer than the decoder keeps (16,384 characters) is cut before it is redacted.
/// The cut must not keep the first part of a secret that straddles it: that part no longer
/// matches its rule, and shows whenever what precedes it redacts to less than the 240 shown
/// characters (here, one base64 blob that holds a secret and becomes a marker).
#[test]
fn a_secret_cut_by_the_input_summary_limit_is_not_kept_in_part() {
    let secret = secrets()[0].1.clone();
    let root = tempfile::tempdir().unwrap();
    let (log, audit) = (root.path().join("app.log"), root.path().join("audit.jsonl"));
    let mut file = fs::File::create(&log).unwrap();
    // The secret straddles character 16,384, with 8 to 30 of its characters before it.
    let straddles = 8..=30;
    for straddle in straddles.clone() {
        let before = 16_384 - straddle;
        let inner = format!(" token={secret} ");
        let filler = (before - 6) / 4 * 3 - inner.len();
        let blob = b64(&format!(
            "{}{inner}{}",
            "y".repeat(filler / 2),
            "z".repeat(filler - filler / 2)
        ));
        let command = format!(
            "echo {blob}{}{secret} done",
            " ".repeat(before - 5 - blob.len())
        );
        assert_eq!(command.find(&secret), Some(before));
        let line = serde_json::json!({"level":40,"executionId":format!("e{straddle}"),
            "workflow":"review","event":"agent.permission.denied","toolName":"Bash",
            "toolUseId":format!("t{straddle}"),"decisionReasonType":"hook","msg":"d",
            "toolInput":{"command": command}});
        writeln!(file, "{line}").unwrap();
    }
    drop(file);
    let out = std::process::Command::new(BIN)
        .args(["replay", "--audit-log"])
        .arg(&audit)
        .arg(&log)
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let records = fs::read_to_string(&audit).unwrap();
    assert_eq!(records.lines().count(), straddles.count(), "{records}");
    assert!(records.contains("echo [REDACTED:"), "{records}");
    if let Some(at) = piece_of(&secret, &records) {
        panic!(
            "part of the secret in the audit log: …{}…",
            around(&records, at, 8)
        );
    }
}
