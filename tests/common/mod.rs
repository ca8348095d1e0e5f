//! Shared helpers for the replay tests: run the built binary, parse its exposition.
#![allow(dead_code)]

use std::collections::BTreeMap;
use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};

pub const BIN: &str = env!("CARGO_BIN_EXE_denials-exporter");

/// One parsed sample: metric name, labels, value.
#[derive(Debug, Clone, PartialEq)]
pub struct Sample {
    pub name: String,
    pub labels: BTreeMap<String, String>,
    pub value: f64,
}

/// A parsed exposition.
#[derive(Debug, Clone)]
pub struct Exposition {
    pub text: String,
    pub samples: Vec<Sample>,
}

impl Exposition {
    pub fn parse(text: &str) -> Exposition {
        let samples = text
            .lines()
            .filter(|l| !l.starts_with('#') && !l.is_empty())
            .map(|line| {
                let (series, value) = line.rsplit_once(' ').expect("sample line has a value");
                let (name, labels) = match series.split_once('{') {
                    None => (series.to_string(), BTreeMap::new()),
                    Some((name, rest)) => {
                        (name.to_string(), parse_labels(rest.trim_end_matches('}')))
                    }
                };
                Sample {
                    name,
                    labels,
                    value: value.parse().expect("numeric value"),
                }
            })
            .collect();
        Exposition {
            text: text.to_string(),
            samples,
        }
    }

    /// The samples of `name` whose labels include `labels`.
    fn matching<'a>(
        &'a self,
        name: &'a str,
        labels: &'a [(&str, &str)],
    ) -> impl Iterator<Item = &'a Sample> {
        self.samples.iter().filter(move |s| {
            s.name == name
                && labels
                    .iter()
                    .all(|(k, v)| s.labels.get(*k).map(String::as_str) == Some(*v))
        })
    }

    /// The value of the one sample of `name` whose labels include `labels`; 0 if none.
    pub fn get(&self, name: &str, labels: &[(&str, &str)]) -> f64 {
        let matching: Vec<&Sample> = self.matching(name, labels).collect();
        assert!(
            matching.len() <= 1,
            "{name} {labels:?} matches {} samples",
            matching.len()
        );
        matching.first().map_or(0.0, |s| s.value)
    }

    /// The sum over every sample of `name` whose labels include `labels`.
    pub fn sum(&self, name: &str, labels: &[(&str, &str)]) -> f64 {
        self.matching(name, labels).map(|s| s.value).sum()
    }

    /// Every `permission_denials_total` series as (tool, workflow, reason) → value.
    pub fn denials(&self) -> BTreeMap<(String, String, String), u64> {
        self.samples
            .iter()
            .filter(|s| s.name == "permission_denials_total")
            .map(|s| {
                let l = |k: &str| s.labels.get(k).cloned().unwrap_or_default();
                ((l("tool"), l("workflow"), l("reason")), s.value as u64)
            })
            .collect()
    }
}

fn parse_labels(text: &str) -> BTreeMap<String, String> {
    let mut labels = BTreeMap::new();
    let mut rest = text;
    while let Some((key, after)) = rest.split_once("=\"") {
        let mut value = String::new();
        let mut chars = after.char_indices();
        let mut end = after.len();
        while let Some((i, c)) = chars.next() {
            match c {
                '\\' => match chars.next() {
                    Some((_, 'n')) => value.push('\n'),
                    Some((_, other)) => value.push(other),
                    None => {}
                },
                '"' => {
                    end = i + 1;
                    break;
                }
                c => value.push(c),
            }
        }
        labels.insert(key.trim_start_matches(',').to_string(), value);
        rest = &after[end..];
    }
    labels
}

/// The path of a fixture under tests/data.
pub fn fixture(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/data")
        .join(name)
}

/// Runs `denials-exporter replay <args…>`.
pub fn run(args: &[&str]) -> Output {
    Command::new(BIN)
        .arg("replay")
        .args(args)
        .output()
        .expect("the binary runs")
}

/// Replays files and parses the exposition; panics with stderr if the command failed.
pub fn replay(args: &[&str]) -> Exposition {
    let out = run(args);
    assert!(
        out.status.success(),
        "replay {args:?} failed: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    Exposition::parse(&String::from_utf8(out.stdout).expect("exposition is UTF-8"))
}

/// Replays `content` given on stdin (`-`), with extra args; returns (exposition, stderr).
pub fn replay_stdin(content: &[u8], args: &[&str]) -> (Exposition, String) {
    let mut child = Command::new(BIN)
        .arg("replay")
        .args(args)
        .arg("-")
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("the binary runs");
    let mut stdin = child.stdin.take().expect("piped stdin");
    let content = content.to_vec();
    let writer = std::thread::spawn(move || stdin.write_all(&content));
    let out = child.wait_with_output().expect("the binary finishes");
    writer
        .join()
        .expect("writer thread")
        .expect("stdin accepted");
    assert!(
        out.status.success(),
        "replay failed: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    (
        Exposition::parse(&String::from_utf8(out.stdout).expect("UTF-8")),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

/// A pino denial line.
pub fn denial(
    execution: &str,
    workflow: &str,
    tool: &str,
    tool_use_id: Option<&str>,
    reason_type: &str,
) -> String {
    let id = tool_use_id
        .map(|id| format!(r#""toolUseId":"{id}","#))
        .unwrap_or_default();
    format!(
        r#"{{"level":40,"time":1781251200139,"pid":4242,"hostname":"executor-7d9f6c5b8-x2x9q","component":"executor","executionId":"{execution}","jobId":"job_1","workflow":"{workflow}","installationId":10792956,"repo":"acme/web","event":"agent.permission.denied","toolName":"{tool}",{id}"decisionReasonType":"{reason_type}","decisionReason":"denied","message":"Permission to use {tool} has been denied.","msg":"agent permission denied"}}"#
    )
}
