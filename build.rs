//! Build-time facts for `--version` and `denials_exporter_build_info`: the git revision and the
//! target triple, handed to the crate as compile-time environment variables.
//!
//! The revision is `git rev-parse --short=12 HEAD` when the source is a git checkout, else the
//! environment variable `DENIALS_EXPORTER_REVISION` (a Docker build has no `.git`; the Dockerfile
//! sets it from its `REVISION` build argument), else `unknown`. The target is cargo's `TARGET`.

use std::path::Path;
use std::process::Command;

fn main() {
    println!("cargo:rerun-if-env-changed=DENIALS_EXPORTER_REVISION");
    let revision = git_revision()
        .or_else(|| {
            std::env::var("DENIALS_EXPORTER_REVISION")
                .ok()
                .map(|r| r.trim().to_string())
                .filter(|r| !r.is_empty())
        })
        .unwrap_or_else(|| "unknown".to_string());
    let target = std::env::var("TARGET").unwrap_or_else(|_| "unknown".to_string());
    println!("cargo:rustc-env=BUILD_INFO_REVISION={revision}");
    println!("cargo:rustc-env=BUILD_INFO_TARGET={target}");
}

/// The short revision of HEAD, and the files to watch so a new commit rebuilds; `None` outside a
/// git checkout or without git.
fn git_revision() -> Option<String> {
    if !Path::new(".git").exists() {
        return None;
    }
    let revision = git(&["rev-parse", "--short=12", "HEAD"])?;
    // HEAD moves on checkout; the branch's ref (loose or packed) moves on commit.
    let mut watched = vec!["HEAD".to_string(), "packed-refs".to_string()];
    if let Some(reference) = git(&["symbolic-ref", "-q", "HEAD"]) {
        watched.push(reference);
    }
    for name in watched {
        if let Some(path) = git(&["rev-parse", "--git-path", &name]) {
            // Only existing files: cargo reruns the script on every build for a missing one.
            if Path::new(&path).exists() {
                println!("cargo:rerun-if-changed={path}");
            }
        }
    }
    Some(revision)
}

fn git(args: &[&str]) -> Option<String> {
    let output = Command::new("git").args(args).output().ok()?;
    if !output.status.success() {
        return None;
    }
    let text = String::from_utf8(output.stdout).ok()?.trim().to_string();
    (!text.is_empty()).then_some(text)
}
