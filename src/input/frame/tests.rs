//! Table-driven and property tests of framing: every valid and invalid case through
//! [`parse`], joining across arbitrary chunk splits, the cap, and damaged input.

use std::borrow::Cow;

use proptest::prelude::*;

use super::docker::DOCKER_PREFIX;
use super::*;

const TS: &str = "2026-06-12T10:00:00.123456789Z";

fn cri(stream: Stream, partial: bool, content: &'static [u8]) -> Frame<'static> {
    Frame::Cri {
        stream,
        partial,
        content,
    }
}

fn docker(stream: Stream, partial: bool, content: &[u8]) -> Frame<'static> {
    Frame::Docker {
        stream,
        partial,
        content: content.to_vec(),
    }
}

fn line(joined: &[u8]) -> Joined<'static> {
    Joined::Line(Cow::Owned(joined.to_vec()))
}

/// A Docker json-file line as the runtime writes it, escaping via `serde_json`.
fn docker_line(log: &str, stream: &str) -> Vec<u8> {
    let log = serde_json::to_string(log).expect("strings always serialize");
    format!("{{\"log\":{log},\"stream\":\"{stream}\",\"time\":\"{TS}\"}}").into_bytes()
}

fn cri_line(stream: &str, tag: &str, content: &[u8]) -> Vec<u8> {
    let mut line = format!("{TS} {stream} {tag} ").into_bytes();
    line.extend_from_slice(content);
    line
}

fn valid_cases() -> Vec<(&'static str, &'static [u8], Frame<'static>)> {
    use Stream::{Stderr, Stdout};
    vec![
        (
            "cri stdout full",
            b"2026-06-12T10:00:00.123456789Z stdout F {\"level\":40}",
            cri(Stdout, false, b"{\"level\":40}"),
        ),
        (
            "cri stdout partial",
            b"2026-06-12T10:00:00.123456789Z stdout P {\"level\":40,\"ev",
            cri(Stdout, true, b"{\"level\":40,\"ev"),
        ),
        (
            "cri stderr full",
            b"2026-06-12T10:00:00.123456790Z stderr F ent\":\"x\"}",
            cri(Stderr, false, b"ent\":\"x\"}"),
        ),
        (
            "cri stderr partial",
            b"2026-06-12T10:00:00Z stderr P abc",
            cri(Stderr, true, b"abc"),
        ),
        (
            "cri tag with extra tags",
            b"2026-06-12T10:00:00.1Z stdout F:x:y hello",
            cri(Stdout, false, b"hello"),
        ),
        (
            "cri partial tag with extra tags",
            b"2026-06-12T10:00:00.1Z stdout P:some-tag hello",
            cri(Stdout, true, b"hello"),
        ),
        (
            "cri empty content with space",
            b"2026-06-12T10:00:00.123Z stdout F ",
            cri(Stdout, false, b""),
        ),
        (
            "cri empty content without space",
            b"2026-06-12T10:00:00.123Z stderr F",
            cri(Stderr, false, b""),
        ),
        (
            "cri content with spaces and tabs",
            b"2026-06-12T10:00:00.123Z stdout F  a\tb  c \t",
            cri(Stdout, false, b" a\tb  c \t"),
        ),
        (
            "cri numeric zone offset (CRI-O local time)",
            b"2026-06-12T12:00:00.123456789+02:00 stdout F x",
            cri(Stdout, false, b"x"),
        ),
        (
            "cri negative zone, lowercase t",
            b"2026-06-12t10:00:00-05:30 stdout F x",
            cri(Stdout, false, b"x"),
        ),
        (
            "cri leap second",
            b"2016-12-31T23:59:60Z stdout F x",
            cri(Stdout, false, b"x"),
        ),
        (
            "cri content looks like docker",
            b"2026-06-12T10:00:00Z stdout F {\"log\":\"a\\n\",\"stream\":\"stdout\"}",
            cri(Stdout, false, b"{\"log\":\"a\\n\",\"stream\":\"stdout\"}"),
        ),
        (
            "cri invalid utf-8 content",
            b"2026-06-12T10:00:00Z stdout F \xff\xfe",
            cri(Stdout, false, b"\xff\xfe"),
        ),
        (
            "docker complete",
            b"{\"log\":\"{\\\"level\\\":40}\\n\",\"stream\":\"stdout\",\"time\":\"2026-06-12T10:00:00.123456789Z\"}",
            docker(Stdout, false, b"{\"level\":40}"),
        ),
        (
            "docker partial",
            b"{\"log\":\"{\\\"level\\\":40,\",\"stream\":\"stderr\",\"time\":\"2026-06-12T10:00:00.123456789Z\"}",
            docker(Stderr, true, b"{\"level\":40,"),
        ),
        (
            "docker escapes",
            b"{\"log\":\"q\\\" b\\\\ e\\u00e9 t\\t s\\/ \\u003c\\b\\f\\n\",\"stream\":\"stdout\",\"time\":\"2026-06-12T10:00:00Z\"}",
            docker(Stdout, false, "q\" b\\ e\u{e9} t\t s/ <\u{8}\u{c}".as_bytes()),
        ),
        (
            "docker crlf keeps cr in the frame",
            b"{\"log\":\"abc\\r\\n\",\"stream\":\"stdout\",\"time\":\"2026-06-12T10:00:00Z\"}",
            docker(Stdout, false, b"abc\r"),
        ),
        (
            "docker newline as unicode escape",
            b"{\"log\":\"abc\\u000A\",\"stream\":\"stdout\",\"time\":\"2026-06-12T10:00:00Z\"}",
            docker(Stdout, false, b"abc"),
        ),
        (
            "docker escaped backslash then n is partial",
            b"{\"log\":\"abc\\\\n\",\"stream\":\"stdout\",\"time\":\"2026-06-12T10:00:00Z\"}",
            docker(Stdout, true, b"abc\\n"),
        ),
        (
            "docker surrogate pair",
            b"{\"log\":\"\\ud83d\\ude00\\n\",\"stream\":\"stdout\",\"time\":\"2026-06-12T10:00:00Z\"}",
            docker(Stdout, false, "\u{1f600}".as_bytes()),
        ),
        (
            "docker lone surrogate becomes wtf-8",
            b"{\"log\":\"a\\ud800b\\n\",\"stream\":\"stdout\",\"time\":\"2026-06-12T10:00:00Z\"}",
            docker(Stdout, false, b"a\xed\xa0\x80b"),
        ),
        (
            "docker lone trailing surrogate",
            b"{\"log\":\"\\udc00\",\"stream\":\"stdout\",\"time\":\"2026-06-12T10:00:00Z\"}",
            docker(Stdout, true, b"\xed\xb0\x80"),
        ),
        (
            "docker empty final chunk",
            b"{\"log\":\"\\n\",\"stream\":\"stdout\",\"time\":\"2026-06-12T10:00:00Z\"}",
            docker(Stdout, false, b""),
        ),
        (
            "docker with attrs",
            b"{\"log\":\"x\\n\",\"stream\":\"stderr\",\"attrs\":{\"tag\":\"a\"},\"time\":\"2026-06-12T10:00:00Z\"}",
            docker(Stderr, false, b"x"),
        ),
        (
            "docker without time",
            b"{\"log\":\"x\\n\",\"stream\":\"stdout\"}",
            docker(Stdout, false, b"x"),
        ),
        (
            "docker content containing the stream key",
            b"{\"log\":\"a\\\",\\\"stream\\\":\\\"b\\n\",\"stream\":\"stdout\",\"time\":\"2026-06-12T10:00:00Z\"}",
            docker(Stdout, false, b"a\",\"stream\":\"b"),
        ),
    ]
}

fn invalid_cases() -> Vec<(&'static str, &'static [u8])> {
    vec![
        ("empty", b""),
        ("plain json", b"{\"level\":40,\"msg\":\"denied\"}"),
        ("plain text", b"hello world"),
        ("timestamp only", b"2026-06-12T10:00:00Z"),
        ("timestamp and stream only", b"2026-06-12T10:00:00Z stdout"),
        ("missing tag", b"2026-06-12T10:00:00Z stdout "),
        ("bad tag", b"2026-06-12T10:00:00Z stdout X hello"),
        ("bad stream", b"2026-06-12T10:00:00Z stdin F hello"),
        (
            "double space before stream",
            b"2026-06-12T10:00:00Z  stdout F x",
        ),
        ("date only", b"2026-06-12 stdout F x"),
        ("space instead of T", b"2026-06-12 10:00:00Z stdout F x"),
        ("month 13", b"2026-13-12T10:00:00Z stdout F x"),
        ("day 0", b"2026-06-00T10:00:00Z stdout F x"),
        ("hour 24", b"2026-06-12T24:00:00Z stdout F x"),
        ("minute 60", b"2026-06-12T10:60:00Z stdout F x"),
        ("no zone", b"2026-06-12T10:00:00 stdout F x"),
        ("empty fraction", b"2026-06-12T10:00:00.Z stdout F x"),
        ("bad zone", b"2026-06-12T10:00:00+0200 stdout F x"),
        ("zone hour 24", b"2026-06-12T10:00:00+24:00 stdout F x"),
        ("letters in date", b"2026-0a-12T10:00:00Z stdout F x"),
        ("short year", b"226-06-12T10:00:00Z stdout F x"),
        ("klog style", b"I0612 10:00:00.123456 1 main.go:1] hello"),
        (
            "log object that is an app line",
            b"{\"log\":\"hello\",\"level\":40,\"msg\":\"x\"}",
        ),
        (
            "log object with stream key inside log only",
            b"{\"log\":\"a\",\"level\":40,\"x\":\"\",\"stream\":\"y\"}",
        ),
        (
            "truncated docker",
            b"{\"log\":\"abc\\n\",\"stream\":\"stdout\",\"time\":\"2026-06-",
        ),
        (
            "truncated inside stream",
            b"{\"log\":\"abc\\n\",\"stream\":\"std",
        ),
        (
            "unknown stream",
            b"{\"log\":\"abc\\n\",\"stream\":\"stdin\",\"time\":\"2026-06-12T10:00:00Z\"}",
        ),
        (
            "non-string log",
            b"{\"log\":1,\"stream\":\"stdout\",\"time\":\"2026-06-12T10:00:00Z\"}",
        ),
        (
            "invalid escape",
            b"{\"log\":\"\\x\\n\",\"stream\":\"stdout\",\"time\":\"2026-06-12T10:00:00Z\"}",
        ),
        (
            "short unicode escape",
            b"{\"log\":\"\\u00\\n\",\"stream\":\"stdout\",\"time\":\"2026-06-12T10:00:00Z\"}",
        ),
        (
            "trailing garbage",
            b"{\"log\":\"abc\\n\",\"stream\":\"stdout\",\"time\":\"2026-06-12T10:00:00Z\"} x",
        ),
        (
            "duplicate stream",
            b"{\"log\":\"abc\\n\",\"stream\":\"stdout\",\"stream\":\"stderr\"}",
        ),
        (
            "whitespace layout is not docker's",
            b"{\"log\": \"abc\\n\", \"stream\": \"stdout\"}",
        ),
        (
            "stream key before log",
            b"{\"stream\":\"stdout\",\"log\":\"abc\\n\"}",
        ),
    ]
}

#[test]
fn parse_valid_cases() {
    for (name, input, expected) in valid_cases() {
        assert_eq!(parse(input), expected, "case {name}");
    }
}

#[test]
fn parse_invalid_cases_are_plain() {
    for (name, input) in invalid_cases() {
        assert_eq!(parse(input), Frame::Plain(input), "case {name}");
    }
}

#[test]
fn plain_passes_through_borrowed() {
    let mut joiner = ChunkJoiner::new(100);
    let input: &[u8] = b"{\"level\":40}";
    match joiner.push(parse(input)) {
        Joined::Line(Cow::Borrowed(out)) => assert_eq!(out, input),
        other => panic!("expected a borrowed line, got {other:?}"),
    }
    assert!(!joiner.has_pending());
}

#[test]
fn cri_complete_line_is_borrowed() {
    let mut joiner = ChunkJoiner::new(100);
    let input = cri_line("stdout", "F", b"hello");
    match joiner.push(parse(&input)) {
        Joined::Line(Cow::Borrowed(out)) => assert_eq!(out, b"hello"),
        other => panic!("expected a borrowed line, got {other:?}"),
    }
}

#[test]
fn cri_partial_partial_full_joins() {
    let mut joiner = ChunkJoiner::new(100);
    let lines = [
        cri_line("stdout", "P", b"{\"level\":40,\"ev"),
        cri_line("stdout", "P", b"ent\":"),
        cri_line("stdout", "F", b"\"x\"}"),
    ];
    assert_eq!(joiner.push(parse(&lines[0])), Joined::Pending);
    assert!(joiner.has_pending());
    assert_eq!(joiner.pending_bytes(), 15);
    assert_eq!(joiner.push(parse(&lines[1])), Joined::Pending);
    assert_eq!(
        joiner.push(parse(&lines[2])),
        line(b"{\"level\":40,\"event\":\"x\"}")
    );
    assert!(!joiner.has_pending());
    assert_eq!(joiner.pending_bytes(), 0);
}

#[test]
fn empty_partial_chunk_still_counts_as_pending() {
    let mut joiner = ChunkJoiner::new(100);
    assert_eq!(
        joiner.push(parse(&cri_line("stdout", "P", b""))),
        Joined::Pending
    );
    assert!(joiner.has_pending());
    assert_eq!(joiner.pending_bytes(), 0);
    assert_eq!(
        joiner.push(parse(&cri_line("stdout", "F", b"x"))),
        line(b"x")
    );
    assert!(!joiner.has_pending());
}

#[test]
fn interleaved_streams_and_plain_lines() {
    let mut joiner = ChunkJoiner::new(100);
    let out_p = cri_line("stdout", "P", b"out-1 ");
    let err_p = cri_line("stderr", "P", b"err-1 ");
    let plain: &[u8] = b"not framed";
    let out_f = cri_line("stdout", "F", b"out-2");
    let err_f = cri_line("stderr", "F", b"err-2");
    assert_eq!(joiner.push(parse(&out_p)), Joined::Pending);
    assert_eq!(joiner.push(parse(&err_p)), Joined::Pending);
    assert_eq!(joiner.push(parse(plain)), line(plain));
    assert_eq!(joiner.pending_bytes(), 12);
    assert_eq!(joiner.push(parse(&out_f)), line(b"out-1 out-2"));
    assert!(joiner.has_pending());
    assert_eq!(joiner.push(parse(&err_f)), line(b"err-1 err-2"));
    assert!(!joiner.has_pending());
}

#[test]
fn docker_split_into_three_chunks() {
    let mut joiner = ChunkJoiner::new(100);
    let chunks = [
        docker_line("{\"level\":40,", "stdout"),
        docker_line("\"msg\":\"caf\u{e9}", "stdout"),
        docker_line("\"}\r\n", "stdout"),
    ];
    assert_eq!(joiner.push(parse(&chunks[0])), Joined::Pending);
    assert_eq!(joiner.push(parse(&chunks[1])), Joined::Pending);
    assert_eq!(
        joiner.push(parse(&chunks[2])),
        line("{\"level\":40,\"msg\":\"caf\u{e9}\"}".as_bytes())
    );
    assert!(!joiner.has_pending());
}

#[test]
fn docker_cr_split_from_its_newline_is_stripped() {
    let mut joiner = ChunkJoiner::new(100);
    assert_eq!(
        joiner.push(parse(&docker_line("abc\r", "stderr"))),
        Joined::Pending
    );
    assert_eq!(
        joiner.push(parse(&docker_line("\n", "stderr"))),
        line(b"abc")
    );
    // Only one CR goes, and CRI content keeps its CR.
    assert_eq!(
        joiner.push(parse(&docker_line("abc\r\r\n", "stderr"))),
        line(b"abc\r")
    );
    assert_eq!(
        joiner.push(parse(&cri_line("stdout", "F", b"abc\r"))),
        line(b"abc\r")
    );
}

#[test]
fn oversized_partial_sequence_reports_once_then_recovers() {
    let mut joiner = ChunkJoiner::new(10);
    let feed = |r: &mut ChunkJoiner, tag: &str, content: &[u8]| {
        let physical = cri_line("stdout", tag, content);
        match r.push(parse(&physical)) {
            Joined::Line(cow) => Joined::Line(Cow::Owned(cow.into_owned())),
            Joined::Pending => Joined::Pending,
            Joined::Oversized => Joined::Oversized,
        }
    };
    assert_eq!(feed(&mut joiner, "P", b"12345"), Joined::Pending);
    assert_eq!(feed(&mut joiner, "P", b"67890"), Joined::Pending);
    assert_eq!(joiner.pending_bytes(), 10);
    assert_eq!(feed(&mut joiner, "P", b"x"), Joined::Oversized);
    assert_eq!(joiner.pending_bytes(), 0);
    assert!(joiner.has_pending(), "the end must still be fed");
    assert_eq!(feed(&mut joiner, "P", b"y"), Joined::Pending);
    assert_eq!(feed(&mut joiner, "F", b"z"), Joined::Pending);
    assert!(!joiner.has_pending());
    assert_eq!(feed(&mut joiner, "F", b"ok"), line(b"ok"));
    assert_eq!(feed(&mut joiner, "P", b"12345"), Joined::Pending);
    assert_eq!(feed(&mut joiner, "F", b"67890"), line(b"1234567890"));
    // Crossing the cap on the final chunk: reported, and nothing left to discard.
    assert_eq!(feed(&mut joiner, "P", b"123456"), Joined::Pending);
    assert_eq!(feed(&mut joiner, "F", b"78901"), Joined::Oversized);
    assert!(!joiner.has_pending());
    // A single complete framed line over the cap.
    assert_eq!(feed(&mut joiner, "F", b"12345678901"), Joined::Oversized);
    assert_eq!(feed(&mut joiner, "F", b"ok"), line(b"ok"));
}

#[test]
fn oversized_on_one_stream_leaves_the_other_alone() {
    let mut joiner = ChunkJoiner::new(4);
    assert_eq!(
        joiner.push(parse(&cri_line("stderr", "P", b"ab"))),
        Joined::Pending
    );
    assert_eq!(
        joiner.push(parse(&cri_line("stdout", "P", b"12345"))),
        Joined::Oversized
    );
    assert_eq!(
        joiner.push(parse(&cri_line("stderr", "F", b"cd"))),
        line(b"abcd")
    );
    assert_eq!(
        joiner.push(parse(&cri_line("stdout", "F", b"6"))),
        Joined::Pending
    );
    assert!(!joiner.has_pending());
}

#[test]
fn pending_buffer_is_reused_and_capped() {
    let mut joiner = ChunkJoiner::new(1000);
    for _ in 0..3 {
        for _ in 0..9 {
            joiner.push(parse(&cri_line("stdout", "P", &[b'a'; 100])));
        }
        assert!(joiner.capacity(Stream::Stdout) <= 1000);
        let capacity = joiner.capacity(Stream::Stdout);
        assert!(matches!(
            joiner.push(parse(&cri_line("stdout", "F", &[b'b'; 100]))),
            Joined::Line(_)
        ));
        assert_eq!(joiner.capacity(Stream::Stdout), capacity);
    }
}

/// Byte offsets (sorted) at which to cut a line of `len` bytes.
fn cuts(len: usize, raw: &[usize]) -> Vec<usize> {
    let mut cuts: Vec<usize> = raw.iter().map(|c| c % (len + 1)).collect();
    cuts.sort_unstable();
    cuts
}

fn split_bytes<'a>(text: &'a [u8], cuts: &[usize]) -> Vec<&'a [u8]> {
    let mut pieces = Vec::new();
    let mut start = 0;
    for &cut in cuts {
        pieces.push(&text[start..cut]);
        start = cut;
    }
    pieces.push(&text[start..]);
    pieces
}

fn cri_chunks(stream: &str, text: &[u8], cuts: &[usize]) -> Vec<Vec<u8>> {
    let pieces = split_bytes(text, cuts);
    let last = pieces.len() - 1;
    pieces
        .iter()
        .enumerate()
        .map(|(i, piece)| cri_line(stream, if i == last { "F" } else { "P" }, piece))
        .collect()
}

fn docker_chunks(stream: &str, text: &str, cuts: &[usize]) -> Vec<Vec<u8>> {
    let mut boundaries: Vec<usize> = cuts
        .iter()
        .map(|&cut| {
            let mut cut = cut;
            while !text.is_char_boundary(cut) {
                cut -= 1;
            }
            cut
        })
        .collect();
    boundaries.sort_unstable();
    let pieces = split_bytes(text.as_bytes(), &boundaries);
    let last = pieces.len() - 1;
    pieces
        .iter()
        .enumerate()
        .map(|(i, piece)| {
            let mut log = std::str::from_utf8(piece)
                .expect("cut at char boundaries")
                .to_owned();
            if i == last {
                log.push('\n');
            }
            docker_line(&log, stream)
        })
        .collect()
}

/// Merges two chunk sequences and plain lines in an order driven by `order`, keeping each
/// sequence's own order; returns each physical line with the output expected for it.
fn merge(
    out: &[Vec<u8>],
    err: &[Vec<u8>],
    plain: &[Vec<u8>],
    order: &[u8],
    out_line: &[u8],
    err_line: &[u8],
) -> Vec<(Vec<u8>, Joined<'static>)> {
    let sources: [&[Vec<u8>]; 3] = [out, err, plain];
    let mut next = [0usize; 3];
    let mut merged = Vec::new();
    let mut choices = order.iter().cycle();
    while (0..3).any(|s| next[s] < sources[s].len()) {
        let mut s = usize::from(*choices.next().unwrap_or(&0)) % 3;
        while next[s] >= sources[s].len() {
            s = (s + 1) % 3;
        }
        let physical = sources[s][next[s]].clone();
        next[s] += 1;
        let done = next[s] == sources[s].len();
        let expected = match s {
            0 if done => line(out_line),
            1 if done => line(err_line),
            2 => line(&physical),
            _ => Joined::Pending,
        };
        merged.push((physical, expected));
    }
    merged
}

fn app_bytes() -> impl Strategy<Value = Vec<u8>> {
    proptest::collection::vec(any::<u8>(), 0..5000).prop_map(|mut bytes| {
        for b in &mut bytes {
            if *b == b'\n' {
                *b = b'N';
            }
        }
        bytes
    })
}

fn app_text() -> impl Strategy<Value = String> {
    proptest::collection::vec(any::<char>(), 0..1500)
        .prop_map(|chars| chars.into_iter().filter(|&c| c != '\n').collect())
}

fn plain_lines() -> impl Strategy<Value = Vec<Vec<u8>>> {
    proptest::collection::vec("[a-z0-9 {}\":,]{0,40}".prop_map(String::into_bytes), 0..6)
        .prop_filter("must be plain", |lines| {
            lines.iter().all(|l| parse(l) == Frame::Plain(l))
        })
}

fn raw_cuts() -> impl Strategy<Value = Vec<usize>> {
    proptest::collection::vec(any::<usize>(), 0..8)
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(256))]

    #[test]
    fn cri_round_trip(
        out_text in app_bytes(),
        err_text in app_bytes(),
        out_cuts in raw_cuts(),
        err_cuts in raw_cuts(),
        plain in plain_lines(),
        order in proptest::collection::vec(any::<u8>(), 1..40),
    ) {
        let out = cri_chunks("stdout", &out_text, &cuts(out_text.len(), &out_cuts));
        let err = cri_chunks("stderr", &err_text, &cuts(err_text.len(), &err_cuts));
        let mut joiner = ChunkJoiner::new(10_000);
        for (physical, expected) in merge(&out, &err, &plain, &order, &out_text, &err_text) {
            prop_assert_eq!(joiner.push(parse(&physical)), expected);
            prop_assert!(joiner.pending_bytes() <= 2 * 10_000);
        }
        prop_assert!(!joiner.has_pending());
    }

    #[test]
    fn docker_round_trip(
        out_text in app_text(),
        err_text in app_text(),
        out_cuts in raw_cuts(),
        err_cuts in raw_cuts(),
        plain in plain_lines(),
        order in proptest::collection::vec(any::<u8>(), 1..40),
    ) {
        let out = docker_chunks("stdout", &out_text, &cuts(out_text.len(), &out_cuts));
        let err = docker_chunks("stderr", &err_text, &cuts(err_text.len(), &err_cuts));
        let strip_cr = |text: &str| {
            let bytes = text.as_bytes();
            bytes.strip_suffix(b"\r").unwrap_or(bytes).to_vec()
        };
        let (out_line, err_line) = (strip_cr(&out_text), strip_cr(&err_text));
        let mut joiner = ChunkJoiner::new(10_000);
        for (physical, expected) in merge(&out, &err, &plain, &order, &out_line, &err_line) {
            prop_assert_eq!(joiner.push(parse(&physical)), expected);
        }
        prop_assert!(!joiner.has_pending());
    }

    #[test]
    fn cap_is_enforced_and_recovers(
        text in app_bytes(),
        raw in raw_cuts(),
        max in 0usize..6000,
    ) {
        let chunks = cri_chunks("stdout", &text, &cuts(text.len(), &raw));
        let mut joiner = ChunkJoiner::new(max);
        let mut outputs = Vec::new();
        for physical in &chunks {
            let joined = joiner.push(parse(physical));
            prop_assert!(joiner.pending_bytes() <= max);
            prop_assert!([Stream::Stdout, Stream::Stderr].iter().all(|s| joiner.capacity(*s) <= max));
            outputs.push(match joined {
                Joined::Line(cow) => Some(cow.into_owned()),
                Joined::Oversized => None,
                Joined::Pending => continue,
            });
        }
        if text.len() <= max {
            prop_assert_eq!(outputs, vec![Some(text.clone())]);
        } else {
            prop_assert_eq!(outputs, vec![None]);
        }
        prop_assert!(!joiner.has_pending());
        let after = cri_line("stdout", "F", b"");
        prop_assert_eq!(joiner.push(parse(&after)), line(b""));
    }

    #[test]
    fn damaged_docker_lines_never_panic(
        log in proptest::collection::vec(
            prop_oneof![
                any::<char>(),
                Just('\n'), Just('\\'), Just('"'), Just('\r'), Just('n'), Just('u'),
            ],
            0..30,
        ),
        stream in prop_oneof![Just("stdout"), Just("stderr"), Just("stdin")],
        unicode_newline in any::<bool>(),
        cut in any::<usize>(),
        truncate in any::<bool>(),
        insert in proptest::option::of((any::<usize>(), any::<u8>())),
    ) {
        let log: String = log.into_iter().collect();
        let mut physical = docker_line(&log, stream);
        if unicode_newline {
            let text = String::from_utf8(physical).expect("serde_json writes UTF-8");
            physical = text.replace("\\n", "\\u000a").into_bytes();
        }
        if truncate {
            physical.truncate(cut % (physical.len() + 1));
        }
        if let Some((at, byte)) = insert {
            let at = at % (physical.len() + 1);
            physical.insert(at, byte);
        }
        let _ = parse(&physical); // never panics, whatever the damage
    }

    #[test]
    fn arbitrary_bytes_never_panic(
        body in proptest::collection::vec(
            prop_oneof![
                any::<u8>(),
                Just(b'\\'), Just(b'"'), Just(b'n'), Just(b'u'), Just(b'0'), Just(b'a'),
            ],
            0..64,
        ),
        tail in prop_oneof![
            Just(&b"\",\"stream\":\"stdout\"}"[..]),
            Just(&b"\",\"stream\":\"stderr\",\"time\":\"x\"}"[..]),
            Just(&b""[..]),
        ],
    ) {
        let mut physical = DOCKER_PREFIX.to_vec();
        physical.extend_from_slice(&body);
        physical.extend_from_slice(tail);
        let _ = parse(&physical);
        let _ = parse(&body);
    }
}
