//! The built binary never counts half a line, and skips a line longer than `--max-line-bytes`
//! whole, however it arrives.
//!
//! To know that the exporter has looked at a half line (and not counted it), the half is written
//! in the same `write(2)` as a complete marker line of another workflow: once the marker counts,
//! the exporter read the file to its end, half line included.

#[path = "live/mod.rs"]
mod live;

use live::*;

const OVERSIZED: &[(&str, &str)] = &[("outcome", "oversized")];

/// A denial line of exactly `len` bytes before its newline (padded with a `pad` field).
fn denial_of_len(workflow: &str, len: usize) -> String {
    let base = denial(workflow);
    let body = base.trim_end_matches('\n').strip_suffix('}').unwrap();
    let filler = len
        .checked_sub(body.len() + r#","pad":""}"#.len())
        .expect("line too short for its content");
    let line = format!("{body},\"pad\":\"{}\"}}\n", "x".repeat(filler));
    assert_eq!(line.len(), len + 1);
    line
}

fn lag(exporter: &Exporter, path: &std::path::Path) -> f64 {
    exporter.value(
        "denials_exporter_file_lag_bytes",
        &[("path", &path.display().to_string())],
    )
}

#[test]
fn an_unterminated_line_waits_for_its_newline() {
    let (wf, marker) = ("partial", "partial_marker");
    let dir = tempfile::tempdir().unwrap();
    let log = dir.path().join("app.log");
    let mut w = Writer::open(&log);
    // At start-up the file already ends in half a denial.
    let line = denial(wf);
    let (head, tail) = line.split_at(line.len() / 2);
    w.write(&(denial(wf) + head));
    let exporter = Launch::new(dir.path(), &dir.path().join("*.log"))
        .fast()
        .start();
    exporter.wait_denials(wf, 1);
    assert_eq!(
        lag(&exporter, &log),
        head.len() as f64,
        "the half line is held"
    );
    w.write(tail);
    exporter.wait_denials(wf, 2);
    exporter.wait_value(
        "denials_exporter_file_lag_bytes",
        &[("path", &log.display().to_string())],
        0.0,
    );

    // Half a line arrives while running: the marker proves it was read, and it is not counted.
    let line = denial(wf);
    let (head, tail) = line.split_at(40);
    w.write(&(denial(marker) + head));
    exporter.wait_denials(marker, 1);
    exporter.assert_denials(wf, 2);
    assert_eq!(lag(&exporter, &log), head.len() as f64);
    w.write(tail);
    exporter.wait_denials(wf, 3);

    // In three pieces, the last one bringing the newline and a whole line after it.
    let line = denial(wf);
    let (a, rest) = line.split_at(10);
    let (b, c) = rest.split_at(rest.len() - 1); // c is the newline alone
    w.write(&(denial(marker) + a));
    exporter.wait_denials(marker, 2);
    w.write(b);
    exporter.wait_value(
        "denials_exporter_file_lag_bytes",
        &[("path", &log.display().to_string())],
        (a.len() + b.len()) as f64,
    );
    exporter.assert_denials(wf, 3);
    w.write(&(c.to_string() + &denial(wf)));
    exporter.wait_denials(wf, 5);

    let m = exporter.metrics();
    assert_eq!(sample(&m, LINES, &[("outcome", "malformed")]), Some(0.0));
    assert_eq!(sample(&m, LINES, OVERSIZED), Some(0.0));
}

#[test]
fn an_oversized_line_is_skipped_and_counted() {
    let (wf, marker) = ("oversized", "oversized_marker");
    let dir = tempfile::tempdir().unwrap();
    let log = dir.path().join("app.log");
    let mut w = Writer::open(&log);
    // Whole, in one write: a denial too long to be read, between ordinary ones.
    w.write(&denial(wf));
    w.write(&(denial_of_len(wf, 10_000) + &denial(wf) + &denial(wf)));
    let exporter = Launch::new(dir.path(), &dir.path().join("*.log"))
        .fast()
        .args(["--max-line-bytes", "2048"])
        .start();
    exporter.wait_denials(wf, 3);
    exporter.wait_value(LINES, OVERSIZED, 1.0);

    // The cap is inclusive: 2048 bytes (before the newline) count, 2049 do not.
    w.write(&(denial_of_len(wf, 2048) + &denial_of_len(wf, 2049) + &denial(wf)));
    exporter.wait_denials(wf, 5);
    exporter.wait_value(LINES, OVERSIZED, 2.0);

    // In pieces: under the cap so far (held), then past it (skipped from then on), then the
    // rest with its newline and a line after it.
    let long = denial_of_len(wf, 6000);
    let (a, rest) = long.split_at(1500);
    let (b, c) = rest.split_at(1500);
    w.write(&(denial(marker) + a));
    exporter.wait_denials(marker, 1);
    assert_eq!(
        exporter.value(LINES, OVERSIZED),
        2.0,
        "1500 bytes are not oversized yet"
    );
    w.write(b);
    exporter.wait_value(LINES, OVERSIZED, 3.0);
    w.write(&(c.to_string() + &denial(wf)));
    exporter.wait_denials(wf, 6);

    // Longer than one 256 KiB read: the start, then 300 KB more, then the rest.
    let long = denial_of_len(wf, 600_000);
    let (a, rest) = long.split_at(1000);
    let (b, c) = rest.split_at(300_000);
    w.write(&(denial(marker) + a));
    exporter.wait_denials(marker, 2);
    w.write(b);
    exporter.wait_value(LINES, OVERSIZED, 4.0);
    exporter.assert_denials(wf, 6);
    w.write(&(c.to_string() + &denial(wf) + &denial(wf)));
    exporter.wait_denials(wf, 8);
    exporter.assert_denials(marker, 2);
    assert_eq!(exporter.value(LINES, OVERSIZED), 4.0);
    assert_eq!(exporter.value(LINES, &[("outcome", "malformed")]), 0.0);
}
