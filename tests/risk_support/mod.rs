//! The labelled risk corpus (`tests/data/risk/corpus.tsv`, described in its README), read into
//! cases and turned into attempts; shared by the corpus test and the micro-benchmark, each of
//! which uses part of it.
#![allow(dead_code)]

use denials_exporter::risk::{Attempt, Input};
use serde_json::{json, Value};

pub struct Case {
    /// Line number in the corpus file.
    pub line: usize,
    pub expected: String,
    pub tool: String,
    pub kind: String,
    pub value: String,
    /// The tool input as the record would carry it, for the kinds that have one.
    pub input: Option<Value>,
}

impl Case {
    /// The attempt this case describes.
    pub fn attempt(&self) -> Attempt<'_> {
        let input = match (&self.input, self.kind.as_str()) {
            (Some(v), _) => Some(Input::Json(v)),
            (None, "summary") => Some(Input::Text(&self.value)),
            _ => None,
        };
        Attempt {
            tool: &self.tool,
            input,
            reason: (self.kind == "reason").then_some(self.value.as_str()),
        }
    }
}

pub fn corpus() -> Vec<Case> {
    let path = format!("{}/tests/data/risk/corpus.tsv", env!("CARGO_MANIFEST_DIR"));
    let text = std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("cannot read {path}: {e}"));
    text.lines()
        .enumerate()
        .filter(|(_, l)| !l.is_empty() && !l.starts_with('#'))
        .map(|(i, l)| {
            let line = i + 1;
            let cols: Vec<&str> = l.splitn(4, '\t').collect();
            assert_eq!(
                cols.len(),
                4,
                "line {line}: want 4 tab-separated columns: {l}"
            );
            let value = cols[3].to_string();
            let input = match cols[2] {
                "json" => Some(
                    serde_json::from_str(&value)
                        .unwrap_or_else(|e| panic!("line {line}: bad json: {e}")),
                ),
                "command" => Some(json!({ "command": value })),
                "file_path" => Some(json!({ "file_path": value })),
                "url" => Some(json!({ "url": value, "prompt": "summarise" })),
                "summary" | "reason" | "nothing" => None,
                other => panic!("line {line}: unknown kind {other}"),
            };
            Case {
                line,
                expected: cols[0].to_string(),
                tool: cols[1].to_string(),
                kind: cols[2].to_string(),
                value,
                input,
            }
        })
        .collect()
}
