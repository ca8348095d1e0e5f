//! Walks one attempt's fields by role, runs the rule sets over each within the byte budget, and
//! keeps the most severe class found.
//!
//! Owns which rules apply to which field: a command (or a summary, or the reason text when there
//! is no input) meets every rule; a path read meets the credential rules; a path written meets
//! those and the write-path rules; a URL meets the credential rules and the URL check; content
//! being written meets the remote-code rules (a script that pipes a download into a shell). User
//! rules meet every field. Fields are examined in a fixed order (commands, URLs, paths, content)
//! so the budget always goes to the most telling text first.
//! **Not here:** the patterns (`rules`), the host questions (`hosts`).
//!
//! Cost: per denial; see the module doc of `risk`.

use serde_json::{Map, Value};

use super::engine;
use super::hosts;
use super::rules::Effect;
use super::text::{fold, Budget};
use super::user::UserRules;
use super::{Attempt, Input, Risk, MAX_EXAMINED_BYTES};

/// Which examined entry a key names: the input's keys, by the role their text is examined in.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Key {
    /// A command line: `command`, `cmd`, `script`, …
    Command,
    /// A URL: `url`, `uri`, `href`, …
    Url,
    /// A path: `file_path`, `path`, `source`, … (read, or written by a write tool).
    Path,
    /// The pattern of a `Glob`, examined as a path read.
    Glob,
    /// Content being written: `content`, `new_string`, … (also in each of a multi-edit's
    /// `edits`).
    Content,
}

/// The examined entry `key` names, if any: one `match` on the key (a switch on its length, then
/// a comparison), where a search of each role's key list compared it with up to 24 names.
fn key_of(key: &str) -> Option<Key> {
    Some(match key {
        "command" | "cmd" | "script" | "commandLine" | "shell_command" => Key::Command,
        "url" | "uri" | "href" | "endpoint" | "webhook_url" => Key::Url,
        "file_path" | "filePath" | "notebook_path" | "path" | "paths" | "filename" | "file"
        | "source" | "destination" | "target" | "directory" => Key::Path,
        "pattern" => Key::Glob,
        "content" | "contents" | "new_string" | "new_source" | "patch" => Key::Content,
        _ => return None,
    })
}

/// Words in a tool's name that make it a file write.
const WRITE_WORDS: &[&str] = &[
    "write", "edit", "create", "delete", "move", "patch", "replace", "rename", "remove",
];

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Role {
    Command,
    Url,
    ReadPath,
    WritePath,
    Content,
}

impl Role {
    /// True if a built-in pattern with this effect applies to a field in this role: a command
    /// meets every rule; a path or URL only the credential rules, written content only the
    /// remote-code rules. The engine runs no other rule on the field.
    fn admits(self, effect: Effect) -> bool {
        match (self, effect) {
            (Role::Command, _) => true,
            (Role::Url | Role::ReadPath | Role::WritePath, Effect::Class(risk)) => {
                risk == Risk::CredentialAccess
            }
            (Role::Content, Effect::Class(risk)) => risk == Risk::RemoteCode,
            (_, Effect::Send | Effect::Url) => false,
        }
    }
}

/// Classes found so far, one bit each, in order of severity.
#[derive(Debug, Default, Clone, Copy)]
struct Found(u32);

impl Found {
    fn add(&mut self, risk: Risk) {
        if risk.is_dangerous() {
            self.0 |= 1 << risk.severity();
        }
    }

    fn has(self, risk: Risk) -> bool {
        self.0 & (1 << risk.severity()) != 0
    }

    /// Whether a match with `effect` could make the most severe class found more severe: a
    /// rule that cannot is not run (the rules run most severe first, so most are skipped once
    /// one matches). A `Send` or `Url` match can only add exfiltration.
    fn may_rise(self, effect: Effect) -> bool {
        self.0 == 0 || effect.class().severity() < self.0.trailing_zeros() as usize
    }

    fn most_severe(self) -> Risk {
        if self.0 == 0 {
            return Risk::None;
        }
        let bit = self.0.trailing_zeros() as usize;
        Risk::BUILTIN.get(bit).copied().unwrap_or_else(|| {
            Risk::User(u8::try_from(bit - Risk::BUILTIN.len()).expect("at most 8 user classes"))
        })
    }
}

struct Scan<'r> {
    user: &'r UserRules,
    budget: Budget,
    folded: String,
    found: Found,
    /// Whether a field's rules stop at what cannot change its most severe class (always, but in
    /// the test that holds pruning to running every rule).
    prune: bool,
}

pub(super) fn classify(user: &UserRules, attempt: &Attempt<'_>) -> Risk {
    if attempt.input.is_none() && attempt.reason.is_none() {
        return Risk::Unknown;
    }
    let mut scan = Scan::new(user);
    scan.attempt(attempt);
    scan.found.most_severe()
}

/// True if a tool by this name writes files (`Write`, `Edit`, `MultiEdit`, `NotebookEdit`,
/// `mcp__fs__write_file`, …).
fn is_write_tool(tool: &str) -> bool {
    // The name after the last `__` (an MCP tool's own name).
    let name = tool
        .rsplit_once("__")
        .map_or(tool, |(_, own)| own)
        .to_ascii_lowercase();
    WRITE_WORDS.iter().any(|word| name.contains(word))
}

/// The write-path rules' classes for a path. A persistence file (`.bashrc`, `authorized_keys`,
/// sudoers) is also a home or system path: the specific class wins over the general one.
fn write_path_classes(folded: &[u8]) -> Found {
    let mut found = Found::default();
    engine::write_path_rules_compiled().for_each_match(
        folded,
        |_| true,
        |effect| found.add(effect.class()),
    );
    if found.has(Risk::PrivilegeEscalation) {
        found = Found::default();
        found.add(Risk::PrivilegeEscalation);
    }
    found
}

impl<'r> Scan<'r> {
    fn new(user: &'r UserRules) -> Scan<'r> {
        Scan {
            user,
            budget: Budget::new(MAX_EXAMINED_BYTES),
            folded: String::new(),
            found: Found::default(),
            prune: true,
        }
    }

    fn attempt(&mut self, attempt: &Attempt<'_>) {
        match (attempt.input, attempt.reason) {
            (Some(Input::Json(value)), _) => self.value(attempt.tool, value),
            (Some(Input::JsonText(text)), _) => match serde_json::from_str::<Value>(text) {
                Ok(value) => self.value(attempt.tool, &value),
                // Nested past what the parser takes: its text, as a command line.
                Err(_) => self.field(text, Role::Command),
            },
            (Some(Input::Text(text)), _) | (None, Some(text)) => self.field(text, Role::Command),
            (None, None) => {}
        }
    }

    /// A tool input: an object's entries by role, a string as the command line it holds.
    fn value(&mut self, tool: &str, value: &Value) {
        match value {
            Value::Object(object) => self.input(tool, object),
            Value::String(command) => self.field(command, Role::Command),
            _ => {}
        }
    }

    fn input(&mut self, tool: &str, object: &Map<String, Value>) {
        let writes = is_write_tool(tool);
        let path_role = if writes {
            Role::WritePath
        } else {
            Role::ReadPath
        };
        self.keys(object, Key::Command, Role::Command);
        self.keys(object, Key::Url, Role::Url);
        self.keys(object, Key::Path, path_role);
        if tool.eq_ignore_ascii_case("glob") {
            self.keys(object, Key::Glob, Role::ReadPath);
        }
        if writes {
            self.keys(object, Key::Content, Role::Content);
            if let Some(Value::Array(edits)) = object.get("edits") {
                for edit in edits.iter().filter_map(Value::as_object) {
                    self.keys(edit, Key::Content, Role::Content);
                }
            }
        }
    }

    /// Examines the string values (or arrays of strings) under the keys of kind `keys` in
    /// `object`.
    fn keys(&mut self, object: &Map<String, Value>, keys: Key, role: Role) {
        // One pass over the object's few entries, not a lookup per key name.
        for (key, item) in object {
            if key_of(key) != Some(keys) {
                continue;
            }
            match item {
                Value::String(text) => self.field(text, role),
                Value::Array(items) => {
                    for text in items.iter().filter_map(Value::as_str) {
                        self.field(text, role);
                    }
                }
                _ => {}
            }
        }
    }

    fn field(&mut self, text: &str, role: Role) {
        let text = self.budget.take(text);
        if !text.is_empty() {
            let found = self.examine(text, role);
            self.found.0 |= found.0;
        }
    }

    /// The classes found in one field.
    fn examine(&mut self, text: &str, role: Role) -> Found {
        fold(text, &mut self.folded);
        let folded = self.folded.as_bytes();
        let (mut send, mut url) = (false, role == Role::Url);
        // Only the most severe class of an attempt counts, and the rules run most severe first:
        // one that cannot raise what the field has shown so far is not run (nor compiled).
        let found = std::cell::Cell::new(Found::default());
        let prune = self.prune;
        let admits = |effect| role.admits(effect) && (!prune || found.get().may_rise(effect));
        engine::text_rules_compiled().for_each_match(folded, admits, |effect| match effect {
            Effect::Class(risk) => {
                let mut more = found.get();
                more.add(risk);
                found.set(more);
            }
            Effect::Send => send = true,
            Effect::Url => url = true,
        });
        let mut found = found.get();
        let allow = &self.user.allow;
        if !found.has(Risk::Exfiltration)
            && (!prune || found.may_rise(Effect::Send))
            && ((send && hosts::sends_outside(&self.folded, allow))
                || (url && hosts::has_leaking_url(&self.folded, allow)))
        {
            found.add(Risk::Exfiltration);
        }
        if role == Role::WritePath {
            found.0 |= write_path_classes(folded).0;
        }
        if let Some(user) = &self.user.set {
            for i in user.matches(&self.folded).iter() {
                found.add(self.user.class_of[i]);
            }
        }
        found
    }
}

#[cfg(test)]
mod tests;
