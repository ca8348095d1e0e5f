//! The same lines wrapped by the container runtime: CRI and Docker json-file, with long lines
//! split into partial chunks that must be rejoined before decoding.

mod common;

use common::{fixture, replay_stdin};

/// The bundled example plus a long denial line, so that splitting has something to split.
fn application_lines() -> Vec<String> {
    let example = std::fs::read_to_string(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/examples/executor.log"
    ))
    .unwrap();
    let mut lines: Vec<String> = example.lines().map(String::from).collect();
    let long_reason = "x".repeat(40_000);
    lines.push(
        common::denial("exec_long", "review", "Bash", Some("toolu_long"), "hook").replace(
            r#""decisionReason":"denied""#,
            &format!(r#""decisionReason":"{long_reason}""#),
        ),
    );
    lines
}

fn cri(lines: &[String], chunk: usize) -> Vec<u8> {
    let mut out = Vec::new();
    for (i, line) in lines.iter().enumerate() {
        let bytes = line.as_bytes();
        let pieces: Vec<&[u8]> = if bytes.is_empty() {
            vec![bytes]
        } else {
            bytes.chunks(chunk).collect()
        };
        for (j, piece) in pieces.iter().enumerate() {
            let tag = if j + 1 == pieces.len() { "F" } else { "P" };
            let stream = if i % 3 == 0 { "stderr" } else { "stdout" };
            out.extend(
                format!("2026-06-12T10:00:{:02}.{:09}Z {stream} {tag} ", i % 60, j).as_bytes(),
            );
            out.extend_from_slice(piece);
            out.push(b'\n');
        }
    }
    out
}

fn docker(lines: &[String], chunk: usize) -> Vec<u8> {
    let mut out = Vec::new();
    for line in lines {
        let with_newline = format!("{line}\n");
        let chars: Vec<char> = with_newline.chars().collect();
        for piece in chars.chunks(chunk) {
            let text: String = piece.iter().collect();
            let obj = serde_json::json!({"log": text, "stream": "stdout", "time": "2026-06-12T10:00:00.000000001Z"});
            out.extend(serde_json::to_vec(&obj).unwrap());
            out.push(b'\n');
        }
    }
    out
}

#[test]
fn cri_and_docker_wrapping_count_the_same_as_plain() {
    let lines = application_lines();
    let plain: Vec<u8> = lines
        .iter()
        .flat_map(|l| format!("{l}\n").into_bytes())
        .collect();
    let (want, _) = replay_stdin(&plain, &[]);
    assert_eq!(want.sum("permission_denials_total", &[]), 8.0);
    for chunk in [16 * 1024, 1000, 37] {
        let (got, _) = replay_stdin(&cri(&lines, chunk), &[]);
        assert_eq!(
            got.denials(),
            want.denials(),
            "CRI split every {chunk} bytes"
        );
        assert_eq!(got.sum("agent_executions_total", &[]), 3.0);
        let (got, _) = replay_stdin(&docker(&lines, chunk), &[]);
        assert_eq!(
            got.denials(),
            want.denials(),
            "Docker split every {chunk} chars"
        );
        assert_eq!(
            got.sum("agent_execution_cost_usd_sum", &[]),
            want.sum("agent_execution_cost_usd_sum", &[])
        );
    }
}

#[test]
fn wrapped_hook_and_stream_json_lines_decode() {
    let lines: Vec<String> = std::fs::read_to_string(fixture("stream-json.log"))
        .unwrap()
        .lines()
        .map(String::from)
        .collect();
    let (got, _) = replay_stdin(&cri(&lines, 200), &[]);
    assert_eq!(got.sum("permission_denials_total", &[]), 4.0);
    let lines: Vec<String> = std::fs::read_to_string(fixture("agent-cli-hook.log"))
        .unwrap()
        .lines()
        .map(String::from)
        .collect();
    let (got, _) = replay_stdin(&docker(&lines, 50), &[]);
    assert_eq!(got.sum("permission_denials_total", &[]), 3.0);
}

#[test]
fn an_oversized_partial_line_is_skipped_and_the_rest_counts() {
    let mut lines = vec![common::denial("e", "w", "Bash", Some("t0"), "hook")
        .replace("denied\"", &format!("{}\"", "y".repeat(5000)))];
    lines.push(common::denial("e", "w", "Edit", Some("t1"), "rule"));
    let (got, _) = replay_stdin(&cri(&lines, 512), &["--max-line-bytes", "2048"]);
    assert_eq!(got.denials().len(), 1);
    assert_eq!(
        got.get("permission_denials_total", &[("tool", "Edit")]),
        1.0
    );
    assert_eq!(
        got.get("denials_exporter_lines_total", &[("outcome", "oversized")]),
        1.0
    );
}
