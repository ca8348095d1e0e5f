//! `run --demo`: writes the bundled example log, line by line, into a temporary directory,
//! again and again with fresh execution ids, so a newcomer sees `/metrics` move.
//!
//! Owns the demo writer thread and its directory (gone when the handle is dropped). **Not
//! here:** following what it writes (`run`, as for any `--path`). Cost: one line every 300 ms.

use std::io::Write;
use std::time::Duration;

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
