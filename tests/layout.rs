//! The shape of `src/`, held: the pipeline reads one way, rooms stay small and say what they
//! are.
//!
//! * Every `crate::` path between two top-level modules points down the stage order below
//!   (a stage may use the ones before it, never one after it nor a peer).
//! * Inside a module, no two of its children use each other in a circle.
//! * No file has more than 600 lines of code, not counting its unit tests and comments.
//! * Every module file opens with a `//!` doc.
//! * One module-file convention: `foo.rs` beside `foo/`, no `mod.rs`, no `*_tests.rs` siblings.
//!
//! Test-only trees (a module declared under `#[cfg(test)]`) and the unit tests at the bottom of
//! a file (`#[cfg(test)] mod tests`) are not held to any of this.

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

/// The top-level modules, lowest first: a module may use only modules of a lower rank.
const STAGES: &[(&str, u8)] = &[
    // Byte-level JSON string helpers, below every stage that reads or writes JSON by hand.
    ("json", 0),
    // What every stage says, and process helpers that know no stage.
    ("vocab", 1),
    ("memory", 1),
    ("build_info", 1),
    ("sched", 1),
    ("signal", 1),
    // The risk classifier: a pure function the configuration checks flags with and account calls.
    ("risk", 1),
    // Flags, then the checked configuration built from them.
    ("cli", 2),
    ("config", 3),
    // Applied to everything that leaves; the exporter's own log goes through it.
    ("redact", 4),
    ("logging", 5),
    // The pipeline: input → decode → account, then what it writes as it goes.
    ("input", 6),
    ("decode", 7),
    ("account", 8),
    ("audit", 9),
    ("pipeline", 10),
    // What reads the counts: the formats, then the HTTP server serving them.
    ("exposition", 11),
    ("web", 12),
    // The state file composes every stage's part.
    ("state", 13),
    // The commands: wiring only.
    ("demo", 14),
    ("replay", 14),
    ("run", 15),
];

const MAX_CODE_LINES: usize = 600;

/// Modules whose children still use each other in a circle, being untied elsewhere. Empty: a
/// module named here must still have a circle (the test says so when it is gone).
const CIRCLES_BEING_UNTIED: &[&str] = &[];

/// One source file: its module path and its lines up to its unit tests.
struct Source {
    path: PathBuf,
    module: Vec<String>,
    code: Vec<String>,
}

fn sources() -> Vec<Source> {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
    let mut files = Vec::new();
    walk(&root, &mut files);
    files.sort();
    let mut all: Vec<Source> = files
        .into_iter()
        .map(|path| {
            let rel = path.strip_prefix(&root).unwrap().with_extension("");
            let mut module: Vec<String> = rel
                .components()
                .map(|c| c.as_os_str().to_string_lossy().into_owned())
                .collect();
            if module
                .last()
                .is_some_and(|m| m == "mod" || m == "lib" || m == "main")
            {
                module.pop();
            }
            let text = std::fs::read_to_string(&path).unwrap();
            let lines: Vec<&str> = text.lines().collect();
            let end = (0..lines.len())
                .find(|&i| {
                    lines[i].trim() == "#[cfg(test)]"
                        && lines.get(i + 1).is_some_and(|l| l.trim() == "mod tests {")
                })
                .unwrap_or(lines.len());
            let code = lines[..end].iter().map(|l| l.to_string()).collect();
            Source { path, module, code }
        })
        .collect();
    // Leave out test-only trees: children declared under `#[cfg(test)]`, and their children.
    let mut test_only: BTreeSet<Vec<String>> = BTreeSet::new();
    for s in &all {
        for (i, line) in s.code.iter().enumerate() {
            let declared = line
                .trim()
                .strip_prefix("mod ")
                .and_then(|rest| rest.strip_suffix(';'));
            if let (Some(child), true) = (declared, i > 0 && s.code[i - 1].trim() == "#[cfg(test)]")
            {
                let mut module = s.module.clone();
                module.push(child.to_string());
                test_only.insert(module);
            }
        }
    }
    all.retain(|s| {
        s.path.file_name().unwrap() != "main.rs"
            && !test_only.iter().any(|t| s.module.starts_with(t))
    });
    all
}

fn walk(dir: &Path, out: &mut Vec<PathBuf>) {
    for entry in std::fs::read_dir(dir).unwrap() {
        let path = entry.unwrap().path();
        if path.is_dir() {
            walk(&path, out);
        } else if path.extension().is_some_and(|e| e == "rs") {
            out.push(path);
        }
    }
}

/// The code of a line: nothing of a comment line.
fn code(line: &str) -> &str {
    let trimmed = line.trim_start();
    if trimmed.starts_with("//") {
        ""
    } else {
        line
    }
}

/// Every path a line names that starts at `crate::` or `super::`, resolved to a module path
/// (as far as it names modules in `known`), from the module `from`.
fn references(
    line: &str,
    from: &[String],
    known: &BTreeSet<Vec<String>>,
) -> Vec<(usize, Vec<String>)> {
    let mut out = Vec::new();
    let bytes = line.as_bytes();
    let is_ident = |b: u8| b.is_ascii_alphanumeric() || b == b'_';
    let mut i = 0;
    while i < bytes.len() {
        if !line.is_char_boundary(i) {
            i += 1;
            continue;
        }
        let start_ok = i == 0 || !is_ident(bytes[i - 1]) && bytes[i - 1] != b':';
        let rest = &line[i..];
        let (mut base, mut at) = if start_ok && rest.starts_with("crate::") {
            (Vec::new(), i + "crate::".len())
        } else if start_ok && rest.starts_with("super::") {
            let mut base = from.to_vec();
            let mut at = i;
            while line[at..].starts_with("super::") {
                base.pop();
                at += "super::".len();
            }
            (base, at)
        } else {
            i += 1;
            continue;
        };
        // `crate::{a, b::{c, d}}`: each item of the group, as far as its own path goes.
        let mut paths: Vec<Vec<String>> = Vec::new();
        if line[at..].starts_with('{') {
            let mut depth = 0;
            let mut group_end = line.len();
            for (k, b) in line[at..].bytes().enumerate() {
                match b {
                    b'{' => depth += 1,
                    b'}' => {
                        depth -= 1;
                        if depth == 0 {
                            group_end = at + k;
                            break;
                        }
                    }
                    _ => {}
                }
            }
            let group = &line[at + 1..group_end];
            let mut items = Vec::new();
            let (mut depth, mut start) = (0, 0);
            for (k, b) in group.bytes().enumerate() {
                match b {
                    b'{' => depth += 1,
                    b'}' => depth -= 1,
                    b',' if depth == 0 => {
                        items.push(&group[start..k]);
                        start = k + 1;
                    }
                    _ => {}
                }
            }
            items.push(&group[start..]);
            for item in items {
                let own = item.split('{').next().unwrap_or("");
                let segments: Vec<String> = own
                    .split("::")
                    .map(|s| s.split_whitespace().next().unwrap_or(""))
                    .filter(|s| !s.is_empty())
                    .map(str::to_string)
                    .collect();
                if !segments.is_empty() {
                    paths.push(segments);
                }
            }
            at = group_end;
        } else {
            let mut segments = Vec::new();
            loop {
                let len = line[at..].bytes().take_while(|b| is_ident(*b)).count();
                if len == 0 {
                    break;
                }
                segments.push(line[at..at + len].to_string());
                at += len;
                if line[at..].starts_with("::") {
                    at += 2;
                } else {
                    break;
                }
            }
            paths.push(segments);
        }
        for segments in paths {
            let mut module = std::mem::take(&mut base.clone());
            for segment in segments {
                module.push(segment);
                if !known.contains(&module) {
                    module.pop();
                    break;
                }
            }
            out.push((i, module));
        }
        base.clear();
        i = at.max(i + 1);
    }
    out
}

/// Every `(from, to)` module pair the code of a file refers to, with where.
fn edges() -> Vec<(Vec<String>, Vec<String>, String)> {
    let sources = sources();
    let known: BTreeSet<Vec<String>> = sources.iter().map(|s| s.module.clone()).collect();
    let mut out = Vec::new();
    for s in &sources {
        // Whole text, so that a `use` group spanning lines is read whole; comments blanked.
        let text: Vec<&str> = s.code.iter().map(|l| code(l)).collect();
        let text = text.join("\n");
        for (offset, to) in references(&text, &s.module, &known) {
            let line = text[..offset].matches('\n').count() + 1;
            out.push((s.module.clone(), to, format!("{}:{line}", s.path.display())));
        }
    }
    out
}

#[test]
fn imports_point_down_the_stages() {
    let rank: BTreeMap<&str, u8> = STAGES.iter().copied().collect();
    let mut wrong = Vec::new();
    for s in sources() {
        if let Some(top) = s.module.first() {
            if !rank.contains_key(top.as_str()) {
                wrong.push(format!(
                    "{top} has no place in STAGES ({})",
                    s.path.display()
                ));
            }
        }
    }
    for (from, to, at) in edges() {
        let (Some(a), Some(b)) = (from.first(), to.first()) else {
            continue; // the crate root
        };
        if a == b {
            continue;
        }
        let (ra, rb) = (rank.get(a.as_str()), rank.get(b.as_str()));
        if let (Some(ra), Some(rb)) = (ra, rb) {
            if ra <= rb {
                wrong.push(format!("{a} (stage {ra}) uses {b} (stage {rb}) at {at}"));
            }
        }
    }
    wrong.dedup();
    assert!(wrong.is_empty(), "{}", wrong.join("\n"));
}

#[test]
fn no_module_has_children_that_use_each_other_in_a_circle() {
    // Per parent module: which child uses which sibling (a child's own children count as it).
    let mut graphs: BTreeMap<Vec<String>, BTreeMap<String, BTreeSet<String>>> = BTreeMap::new();
    for (from, to, _) in edges() {
        let common = from.iter().zip(&to).take_while(|(a, b)| a == b).count();
        if common >= from.len() || common >= to.len() {
            continue; // a module and its own ancestor or descendant
        }
        graphs
            .entry(from[..common].to_vec())
            .or_default()
            .entry(from[common].clone())
            .or_default()
            .insert(to[common].clone());
    }
    let mut circles = Vec::new();
    for (parent, graph) in &graphs {
        for start in graph.keys() {
            // Depth-first from `start`, looking for a way back to it.
            let mut stack: Vec<Vec<String>> = vec![vec![start.clone()]];
            let mut seen = BTreeSet::new();
            while let Some(route) = stack.pop() {
                let last = route.last().unwrap();
                for next in graph.get(last).into_iter().flatten() {
                    if next == start {
                        let mut circle = route.clone();
                        circle.push(next.clone());
                        circles.push(format!("in {}: {}", parent.join("::"), circle.join(" -> ")));
                    } else if seen.insert(next.clone()) {
                        let mut longer = route.clone();
                        longer.push(next.clone());
                        stack.push(longer);
                    }
                }
            }
        }
    }
    circles.sort();
    circles.dedup();
    for parent in CIRCLES_BEING_UNTIED {
        let before = circles.len();
        circles.retain(|c| !c.starts_with(&format!("in {parent}:")));
        assert!(
            circles.len() < before,
            "{parent} has no circle any more: take it out of CIRCLES_BEING_UNTIED"
        );
    }
    assert!(circles.is_empty(), "{}", circles.join("\n"));
}

#[test]
fn no_file_has_more_than_600_lines_of_code() {
    let mut fat = Vec::new();
    for s in sources() {
        let lines = s
            .code
            .iter()
            .filter(|l| !l.trim().is_empty() && !l.trim_start().starts_with("//"))
            .count();
        if lines > MAX_CODE_LINES {
            fat.push(format!("{}: {lines} lines of code", s.path.display()));
        }
    }
    assert!(fat.is_empty(), "over {MAX_CODE_LINES}:\n{}", fat.join("\n"));
}

#[test]
fn every_module_file_opens_with_its_doc() {
    let undocumented: Vec<String> = sources()
        .into_iter()
        .filter(|s| !s.code.first().is_some_and(|l| l.starts_with("//!")))
        .map(|s| s.path.display().to_string())
        .collect();
    assert!(undocumented.is_empty(), "no //! doc: {undocumented:?}");
}

/// Module files that still break the module-file convention, being moved elsewhere.
const MODULE_FILES_BEING_MOVED: &[&str] = &["risk/mod.rs", "risk/scan_tests.rs"];

/// One module-file convention: `foo.rs` beside `foo/`, never `foo/mod.rs`; a module's unit
/// tests at the bottom of its file or in its `tests.rs` child, never in a `*_tests.rs` sibling.
#[test]
fn modules_are_files_beside_their_folders_and_tests_are_in_one_place() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
    let mut files = Vec::new();
    walk(&root, &mut files);
    let mut astray: Vec<String> = files
        .iter()
        .map(|path| path.strip_prefix(&root).unwrap().display().to_string())
        .filter(|rel| rel.ends_with("mod.rs") || rel.ends_with("_tests.rs"))
        .filter(|rel| !MODULE_FILES_BEING_MOVED.contains(&rel.as_str()))
        .collect();
    astray.sort();
    assert!(
        astray.is_empty(),
        "name the module foo.rs beside foo/, its tests foo/tests.rs: {astray:?}"
    );
}

#[test]
fn the_reference_resolution_sees_groups_supers_and_stops_at_items() {
    let known: BTreeSet<Vec<String>> = [
        vec!["a".to_string()],
        vec!["a".to_string(), "b".to_string()],
        vec!["a".to_string(), "c".to_string()],
        vec!["d".to_string()],
    ]
    .into_iter()
    .collect();
    let from = vec!["a".to_string(), "b".to_string()];
    let refs = |line: &str| -> Vec<Vec<String>> {
        references(line, &from, &known)
            .into_iter()
            .map(|(_, m)| m)
            .collect()
    };
    assert_eq!(refs("use super::c::Thing;"), [vec!["a", "c"]]);
    assert_eq!(refs("use super::Thing;"), [vec!["a"]]);
    assert_eq!(
        refs("use crate::{a::c, d::X};"),
        [vec!["a", "c"], vec!["d"]]
    );
    assert_eq!(
        refs("use crate::{\n    a::{c::Y, Z},\n    d,\n};"),
        [vec!["a"], vec!["d"]]
    );
    assert_eq!(
        refs("let x = crate::d::f(super::super::d::g());"),
        [vec!["d"], vec!["d"]]
    );
    assert!(refs("let url = \"http://x::y\";").is_empty());
}
