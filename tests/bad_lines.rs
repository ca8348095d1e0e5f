//! Bad input never crashes and never makes the pipeline skip the lines after it.

mod common;

use common::{denial, replay_stdin};

#[test]
fn malformed_oversized_and_non_utf8_lines_are_counted_and_skipped() {
    let good = denial("e", "review", "Bash", None, "hook");
    let mut log: Vec<u8> = Vec::new();
    let mut push = |bytes: &[u8]| {
        log.extend_from_slice(bytes);
        log.push(b'\n');
    };
    push(good.as_bytes());
    push(b"this is not json at all");
    push(br#"{"level":40,"event":"agent.permission.denied","toolName":"Ba"#); // truncated candidate
    push(good.as_bytes());
    push(format!(r#"{{"level":30,"msg":"{}"}}"#, "z".repeat(3 << 20)).as_bytes()); // 3 MiB > 1 MiB cap
    push(good.as_bytes());
    let mut invalid = denial("e", "review", "Edit", None, "rule").into_bytes();
    let at = invalid.len() - 5;
    invalid.splice(at..at, [0xff, 0xfe]);
    push(&invalid); // a denial with invalid UTF-8 inside a string: counted, and classified non_utf8
    push(b"");
    push(&[0xc3, 0x28, 0xa0, 0xa1]);
    push(good.as_bytes());
    let (e, stderr) = replay_stdin(&log, &[]);
    assert_eq!(
        e.get("permission_denials_total", &[("tool", "Bash")]),
        4.0,
        "no line after a bad one is lost"
    );
    assert_eq!(e.get("permission_denials_total", &[("tool", "Edit")]), 1.0);
    assert_eq!(
        e.get("denials_exporter_lines_total", &[("outcome", "malformed")]),
        2.0
    );
    assert_eq!(
        e.get("denials_exporter_lines_total", &[("outcome", "oversized")]),
        1.0
    );
    assert_eq!(
        e.get("denials_exporter_lines_total", &[("outcome", "non_utf8")]),
        2.0
    );
    assert_eq!(e.sum("denials_exporter_lines_total", &[]), 10.0);
    for kind in ["malformed", "oversized", "non_utf8"] {
        assert_eq!(
            stderr.matches(&format!("outcome=\"{kind}\"")).count(),
            1,
            "logged once: {kind}\n{stderr}"
        );
    }
}

#[test]
fn a_hundred_megabyte_line_keeps_memory_bounded_and_goes_on() {
    let good = denial("e", "review", "Bash", None, "hook");
    let mut log = format!("{good}\n").into_bytes();
    log.extend(std::iter::repeat_n(b'a', 100 << 20));
    log.push(b'\n');
    log.extend(format!("{good}\n").as_bytes());
    let (e, _) = replay_stdin(&log, &[]);
    assert_eq!(e.get("permission_denials_total", &[("tool", "Bash")]), 2.0);
    assert_eq!(
        e.get("denials_exporter_lines_total", &[("outcome", "oversized")]),
        1.0
    );
}

#[test]
fn a_last_line_without_newline_still_counts_in_replay() {
    let good = denial("e", "review", "Bash", None, "hook");
    let (e, _) = replay_stdin(good.as_bytes(), &[]);
    assert_eq!(e.sum("permission_denials_total", &[]), 1.0);
}

#[test]
fn crlf_line_endings_are_accepted() {
    let good = denial("e", "review", "Bash", None, "hook");
    let (e, _) = replay_stdin(format!("{good}\r\n{good}\r\n").as_bytes(), &[]);
    assert_eq!(e.sum("permission_denials_total", &[]), 2.0);
    assert_eq!(
        e.get("denials_exporter_lines_total", &[("outcome", "malformed")]),
        0.0
    );
}
