//! `run --demo`: writes the bundled example log, line by line, into a temporary directory,
//! again and again with fresh execution ids and each line's time set to the moment it is
//! written, so a newcomer sees `/metrics` and the landing page move as a live executor would.
//!
//! Owns the demo writer thread and its directory (gone when the handle is dropped). **Not
//! here:** following what it writes (`run`, as for any `--path`). Cost: one line every 300 ms.

use std::io::Write;
use std::time::{Duration, SystemTime, UNIX_EPOCH};

use anyhow::{Context, Result};

const EXAMPLE: &str = include_str!("../examples/executor.log");

/// Starts the writer; the directory lives as long as the returned handle.
pub fn start() -> Result<tempfile::TempDir> {
    let dir = tempfile::Builder::new()
        .prefix("denials-exporter-demo")
        .tempdir()
        .context("cannot create the demo directory")?;
    let path = dir.path().join("executor.log");
    std::fs::File::create(&path).with_context(|| format!("cannot create {}", path.display()))?;
    tracing::info!(path = %path.display(), "demo: writing the example log, one line every 300 ms");
    std::thread::Builder::new()
        .name("demo-writer".into())
        .spawn(move || {
            for round in 0u64.. {
                for line in EXAMPLE.lines() {
                    let line = line
                        .replace("exec_01", &format!("exec_{round:02}"))
                        .replace("toolu_01", &format!("toolu_{round:02}"));
                    let line = timed_now(&line, now_millis());
                    let Ok(mut file) = std::fs::OpenOptions::new().append(true).open(&path) else {
                        return;
                    };
                    if writeln!(file, "{line}").is_err() {
                        return;
                    }
                    std::thread::sleep(Duration::from_millis(300));
                }
            }
        })
        .context("cannot start the demo writer")?;
    Ok(dir)
}

/// Milliseconds since the epoch, now.
fn now_millis() -> u128 {
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map_or(0, |since| since.as_millis())
}

/// `line` with the number of its first `"time":` key (pino's epoch milliseconds) replaced by
/// `millis`; a line without one is returned as it is.
fn timed_now(line: &str, millis: u128) -> String {
    const KEY: &str = "\"time\":";
    let Some(at) = line.find(KEY) else {
        return line.to_string();
    };
    let start = at + KEY.len();
    let digits = line[start..]
        .find(|c: char| !c.is_ascii_digit())
        .unwrap_or(line.len() - start);
    if digits == 0 {
        return line.to_string();
    }
    format!("{}{millis}{}", &line[..start], &line[start + digits..])
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn each_example_line_gets_the_time_it_is_written() {
        let mut timed = 0;
        for line in EXAMPLE.lines() {
            let now = timed_now(line, 1_800_000_000_123);
            if line.contains("\"time\":") {
                assert!(now.contains("\"time\":1800000000123,"), "{now}");
                assert_eq!(now.len(), line.len(), "only the number changed: {now}");
                timed += 1;
            } else {
                assert_eq!(now, line);
            }
        }
        assert_eq!(
            timed,
            EXAMPLE.lines().count(),
            "every example line has a time"
        );
        assert_eq!(timed_now("{\"time\":\"x\"}", 5), "{\"time\":\"x\"}");
        assert_eq!(timed_now("{\"time\":12}", 5), "{\"time\":5}");
    }
}
