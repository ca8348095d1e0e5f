//! The habits an operator of Prometheus exporters expects, held on the real binary: environment
//! variables named after their flag (old names still read, unknown ones warned about once),
//! durations with units, `--log.format logfmt` redacted like the other formats, `run --help`
//! grouped under headings, and `--version` naming the revision and target.

use std::process::{Command, Output};

const BIN: &str = env!("CARGO_BIN_EXE_denials-exporter");

/// Runs the binary with `args` and extra environment variables, and nothing else of ours set.
fn exporter(args: &[&str], env: &[(&str, &str)]) -> Output {
    let mut command = Command::new(BIN);
    for (name, _) in std::env::vars() {
        if name.starts_with("DENIALS_EXPORTER_") {
            command.env_remove(name);
        }
    }
    command
        .args(args)
        .envs(env.iter().copied())
        .output()
        .expect("the binary runs")
}

fn stderr(out: &Output) -> String {
    String::from_utf8_lossy(&out.stderr).into_owned()
}

fn example_log() -> tempfile::NamedTempFile {
    let file = tempfile::NamedTempFile::new().unwrap();
    std::fs::write(file.path(), "{\"level\":30,\"msg\":\"hello\"}\n").unwrap();
    file
}

/// A `run` that stops at its configuration: the telemetry path is checked before anything binds.
fn run_with_telemetry_env(name: &str) -> String {
    let out = exporter(&["run", "--path=/nonexistent/*.log"], &[(name, "no-slash")]);
    assert_eq!(out.status.code(), Some(2), "{}", stderr(&out));
    stderr(&out)
}

#[test]
fn env_names_follow_the_flag_and_old_names_are_still_read() {
    for name in [
        "DENIALS_EXPORTER_WEB_TELEMETRY_PATH",
        "DENIALS_EXPORTER_TELEMETRY_PATH",
    ] {
        let err = run_with_telemetry_env(name);
        assert!(
            err.contains("--web.telemetry-path must start with '/', got \"no-slash\""),
            "{name}: {err}"
        );
    }
    // The new name wins over the old one.
    let out = exporter(
        &["run", "--path=/nonexistent/*.log"],
        &[
            ("DENIALS_EXPORTER_TELEMETRY_PATH", "/fine"),
            ("DENIALS_EXPORTER_WEB_TELEMETRY_PATH", "new-wins"),
        ],
    );
    assert!(
        stderr(&out).contains("got \"new-wins\""),
        "{}",
        stderr(&out)
    );
    // An old name of a pipeline flag, through replay: the rule is read (and rejected).
    let log = example_log();
    let out = exporter(
        &["replay", log.path().to_str().unwrap()],
        &[("DENIALS_EXPORTER_REASON_RULES", "x=no-such-reason")],
    );
    assert_eq!(out.status.code(), Some(2), "{}", stderr(&out));
    assert!(stderr(&out).contains("no-such-reason"), "{}", stderr(&out));
}

#[test]
fn an_unknown_variable_is_one_warning() {
    let log = example_log();
    let out = exporter(
        &["replay", log.path().to_str().unwrap()],
        &[
            ("DENIALS_EXPORTER_BOGUS", "1"),
            ("DENIALS_EXPORTER_LISTEN_ADRESS", ":1"),
            ("DENIALS_EXPORTER_LOG_LEVEL", "warn"),
        ],
    );
    assert!(out.status.success(), "{}", stderr(&out));
    let err = stderr(&out);
    let warnings: Vec<&str> = err.lines().filter(|l| l.contains("WARN")).collect();
    assert_eq!(warnings.len(), 1, "{err}");
    assert!(
        warnings[0].contains("DENIALS_EXPORTER_BOGUS,DENIALS_EXPORTER_LISTEN_ADRESS"),
        "{err}"
    );
    assert!(!err.contains("DENIALS_EXPORTER_LOG_LEVEL"), "{err}");
}

#[test]
fn logfmt_lines_are_redacted() {
    let token = format!(
        "ghp_{}",
        "a1B2c3D4e5F6g7H8i9J0".repeat(2).get(..36).unwrap()
    );
    let name = format!("DENIALS_EXPORTER_{token}");
    let log = example_log();
    let out = exporter(
        &[
            "replay",
            "--log.format=logfmt",
            log.path().to_str().unwrap(),
        ],
        &[(name.as_str(), "1")],
    );
    assert!(out.status.success(), "{}", stderr(&out));
    let err = stderr(&out);
    let line = err
        .lines()
        .find(|l| l.contains("level=warn"))
        .unwrap_or_else(|| panic!("no logfmt warning in {err}"));
    assert!(line.starts_with("ts="), "{line}");
    assert!(
        line.contains(" target=denials_exporter::cli::env msg=\"environment variables"),
        "{line}"
    );
    assert!(!err.contains(&token), "the token leaked: {err}");
    assert!(line.contains("[REDACTED"), "{line}");
}

#[test]
fn durations_take_units_and_errors_name_flag_and_value() {
    let out = exporter(
        &["run", "--path=/x/*.log", "--state-interval=5parsecs"],
        &[],
    );
    assert_eq!(out.status.code(), Some(2));
    let err = stderr(&out);
    assert_eq!(err.lines().count(), 1, "{err}");
    assert!(
        err.contains("--state-interval") && err.contains("5parsecs"),
        "{err}"
    );
    // Units get past parsing: the run stops later, at the telemetry path.
    let out = exporter(
        &[
            "run",
            "--path=/nonexistent/*.log",
            "--state-interval=5s",
            "--stat-interval=250ms",
            "--execution-idle-timeout=6h",
            "--max-clock-skew=1m",
            "--web.write-timeout=10s",
            "--web.telemetry-path=stop",
        ],
        &[],
    );
    assert!(stderr(&out).contains("got \"stop\""), "{}", stderr(&out));
}

#[test]
fn run_help_has_headings() {
    let out = exporter(&["run", "--help"], &[]);
    assert!(out.status.success());
    let help = String::from_utf8(out.stdout).unwrap();
    for heading in [
        "\nInput:\n",
        "\nFields:\n",
        "\nLimits:\n",
        "\nWeb:\n",
        "\nLogging:\n",
    ] {
        assert!(help.contains(heading), "{heading:?} missing in {help}");
    }
    assert!(
        help.contains("DENIALS_EXPORTER_WEB_LISTEN_ADDRESS"),
        "{help}"
    );
}

#[test]
fn version_names_revision_and_target() {
    let out = exporter(&["--version"], &[]);
    assert!(out.status.success());
    let version = String::from_utf8(out.stdout).unwrap();
    let want = format!("denials-exporter {} (revision ", env!("CARGO_PKG_VERSION"));
    assert!(version.starts_with(&want), "{version}");
    let revision = version[want.len()..].split(',').next().unwrap();
    assert!(
        revision == "unknown"
            || (revision.len() == 12 && revision.chars().all(|c| c.is_ascii_hexdigit())),
        "{version}"
    );
    assert!(
        version.contains(", target ") && version.trim_end().ends_with(')'),
        "{version}"
    );
}

#[test]
fn the_demo_has_its_variable_like_every_flag() {
    // Without --path and without the demo, `run` asks for --path.
    let out = exporter(&["run", "--web.telemetry-path=stop"], &[]);
    assert_eq!(out.status.code(), Some(2));
    assert!(stderr(&out).contains("--path <GLOB>"), "{}", stderr(&out));
    // DENIALS_EXPORTER_DEMO turns the demo on as --demo does: --path is no longer needed, and
    // the run gets as far as its telemetry path.
    let out = exporter(
        &["run", "--web.telemetry-path=stop"],
        &[("DENIALS_EXPORTER_DEMO", "true")],
    );
    assert_eq!(out.status.code(), Some(2), "{}", stderr(&out));
    assert!(stderr(&out).contains("got \"stop\""), "{}", stderr(&out));
    let out = exporter(
        &["run", "--web.telemetry-path=stop"],
        &[("DENIALS_EXPORTER_DEMO", "false")],
    );
    assert_eq!(out.status.code(), Some(2), "{}", stderr(&out));
    assert!(stderr(&out).contains("--path"), "{}", stderr(&out));
}

#[test]
fn help_shows_durations_as_they_are_typed() {
    let out = exporter(&["run", "--help"], &[]);
    let help = String::from_utf8(out.stdout).unwrap();
    for shown in [
        "[default: 6h]",
        "[default: 1h]",
        "[default: 5s]",
        "[default: 1s]",
        "[default: 10s]",
        "[default: 15m]",
    ] {
        assert!(help.contains(shown), "{shown} missing in {help}");
    }
    for bare in ["[default: 21600]", "[default: 900]"] {
        assert!(!help.contains(bare), "{bare} in {help}");
    }
    assert!(help.contains("DENIALS_EXPORTER_DEMO"), "{help}");
}
