//! Per-file series are bounded, against the built binary: with more files than
//! `--max-file-series` (default 50), only the files lagging most get a
//! `denials_exporter_file_lag_bytes` series, the others are summed in
//! `denials_exporter_file_lag_others_bytes`, and `denials_exporter_files_followed` still counts
//! every file. Ten thousand rolls made a `/metrics` of 885 KB before.

#[path = "live/mod.rs"]
mod live;

use live::*;

#[test]
fn a_directory_of_many_files_makes_a_bounded_number_of_lag_series() {
    let dir = tempfile::tempdir().unwrap();
    for i in 0..120 {
        Writer::open(&dir.path().join(format!("app.{i}.log"))).denials("many", 1);
    }
    let exporter = Launch::new(dir.path(), &dir.path().join("*.log"))
        .fast()
        .start();
    exporter.wait_value(FILES_FOLLOWED, &[], 120.0);
    exporter.wait_denials("many", 120);
    let text = exporter.metrics();
    let lags = series(&text, "denials_exporter_file_lag_bytes");
    assert_eq!(lags.len(), 50, "{} lag series", lags.len());
    assert_eq!(
        sample(&text, "denials_exporter_file_lag_others_bytes", &[]),
        Some(0.0),
        "every file is read: nothing lags"
    );
    assert_unique_series(&text);
}
