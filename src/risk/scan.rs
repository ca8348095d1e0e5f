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

use serde_json::Value;

use super::engine;
use super::fields::{self, Fields, Item, Parsed};
use super::hosts;
use super::rules::Effect;
use super::text::{fold, Budget};
use super::user::UserRules;
use super::{memo, Attempt, Input, Risk, MAX_EXAMINED_BYTES};

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
    /// Content being written: `content`, `new_string`, …
    Content,
    /// A multi-edit's list of edits, whose content is examined.
    Edits,
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
        "edits" => Key::Edits,
        _ => return None,
    })
}

/// True for a key whose entry some role examines: the only entries of an input that are read.
fn is_examined(key: &str) -> bool {
    key_of(key).is_some()
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
    /// Which rules these are: the memo of fields is kept per rules.
    rules_id: u64,
    budget: Budget,
    /// When set, fields are written down here (role, bytes) instead of examined.
    key: Option<Vec<u8>>,
    folded: String,
    /// Scratch space for the engine's anchor search.
    lower: Vec<u8>,
    /// Scratch space for a field's memo key: its role, then its bytes.
    field_key: Vec<u8>,
    found: Found,
    /// Whether any field was examined (not merely written down as a key).
    examined: bool,
    /// Whether a field's rules stop at what cannot change its most severe class (always, but in
    /// the test that holds pruning to running every rule).
    prune: bool,
}

thread_local! {
    /// The memo key being written, reused from one classification to the next.
    static KEY: std::cell::Cell<Vec<u8>> = const { std::cell::Cell::new(Vec::new()) };
    /// A [`Scan`]'s folded, lower-cased and field key buffers, reused from one classification
    /// to the next (each at most the byte budget, and a byte).
    static SCRATCH: std::cell::Cell<(String, Vec<u8>, Vec<u8>)> =
        const { std::cell::Cell::new((String::new(), Vec::new(), Vec::new())) };
}

pub(super) fn classify(user: &UserRules, rules_id: u64, attempt: &Attempt<'_>) -> Risk {
    let examine = || {
        let mut scan = Scan::new(user, rules_id, None);
        scan.attempt(attempt);
        (scan.found.most_severe(), scan.examined)
    };
    let mut key = KEY.take();
    key.clear();
    match (attempt.input, attempt.reason) {
        (None, None) => return Risk::Unknown,
        // Keyed by the tool and the text as logged: a repeated attempt is known before its
        // JSON is parsed. The tag and the tool's length keep the key apart from other kinds
        // (an examined-text key starts with a role digit).
        (Some(Input::JsonText(text)), _) => {
            // Tag, the tool's length (four bytes), the tool, the text.
            let longest = 1 + 4 + attempt.tool.len() + text.len();
            if longest > memo::MEMO_MAX_KEY_BYTES {
                KEY.set(key);
                return examine().0;
            }
            key.push(b'J');
            push_len(&mut key, attempt.tool.len());
            key.extend_from_slice(attempt.tool.as_bytes());
            key.extend_from_slice(text.as_bytes());
        }
        // Otherwise, the same walk twice: first writing down what would be examined (the
        // memo's key), then, unless the memo knows the answer, examining it.
        _ => {
            let mut keying = Scan::new(user, rules_id, Some(key));
            keying.attempt(attempt);
            key = keying.key.take().expect("a keying scan keeps its key");
        }
    }
    let risk = match memo::recall(&memo::ATTEMPTS, rules_id, &key) {
        Some(risk) => risk,
        None => {
            let (risk, examined) = examine();
            // An attempt none of whose fields is examined (an issue comment's body) costs a
            // parse, less than the first sight of a frequent attempt it would push out.
            if examined {
                memo::remember(&memo::ATTEMPTS, rules_id, &key, risk);
            }
            risk
        }
    };
    KEY.set(key);
    risk
}

/// Appends `n` (a length within the memo's key bound or the byte budget) as four little-endian
/// bytes: a fixed width, so the parts of a key need no separator and no digits are computed.
fn push_len(key: &mut Vec<u8>, n: usize) {
    let n = u32::try_from(n).expect("a length within the byte budget");
    key.extend_from_slice(&n.to_le_bytes());
}

/// True if a tool by this name writes files (`Write`, `Edit`, `MultiEdit`, `NotebookEdit`,
/// `mcp__fs__write_file`, …).
fn is_write_tool(tool: &str) -> bool {
    let bytes = tool.as_bytes();
    // The name after the last `__` (an MCP tool's own name), lower-cased once, on the stack
    // when it is short (every real tool name is): this runs for every input examined.
    let start = bytes
        .windows(2)
        .rposition(|w| w == b"__")
        .map_or(0, |at| at + 2);
    let name = &bytes[start..];
    let mut buf = [0u8; 64];
    let lower: std::borrow::Cow<'_, [u8]> = match buf.get_mut(..name.len()) {
        Some(short) => {
            short.copy_from_slice(name);
            short.make_ascii_lowercase();
            std::borrow::Cow::Borrowed(short)
        }
        None => std::borrow::Cow::Owned(name.to_ascii_lowercase()),
    };
    WRITE_WORDS
        .iter()
        .any(|word| lower.windows(word.len()).any(|w| w == word.as_bytes()))
}

/// The write-path rules' classes for a path. A persistence file (`.bashrc`, `authorized_keys`,
/// sudoers) is also a home or system path: the specific class wins over the general one.
fn write_path_classes(folded: &[u8], lower: &mut Vec<u8>) -> Found {
    let mut found = Found::default();
    engine::write_path_rules_compiled().for_each_match(
        folded,
        lower,
        |_| true,
        |effect| {
            if let Effect::Class(risk) = effect {
                found.add(risk);
            }
        },
    );
    if found.has(Risk::PrivilegeEscalation) {
        let mut only = Found::default();
        only.add(Risk::PrivilegeEscalation);
        return only;
    }
    found
}

impl Drop for Scan<'_> {
    fn drop(&mut self) {
        SCRATCH.set((
            std::mem::take(&mut self.folded),
            std::mem::take(&mut self.lower),
            std::mem::take(&mut self.field_key),
        ));
    }
}

impl<'r> Scan<'r> {
    fn new(user: &'r UserRules, rules_id: u64, key: Option<Vec<u8>>) -> Scan<'r> {
        let (folded, lower, field_key) = SCRATCH.take();
        Scan {
            user,
            rules_id,
            budget: Budget::new(MAX_EXAMINED_BYTES),
            key,
            folded,
            lower,
            field_key,
            found: Found::default(),
            examined: false,
            prune: true,
        }
    }

    fn attempt(&mut self, attempt: &Attempt<'_>) {
        match (attempt.input, attempt.reason) {
            (Some(Input::Json(value)), _) => match value {
                Value::Object(object) => {
                    self.input(attempt.tool, &Fields::from_map(object, is_examined));
                }
                Value::String(command) => self.field(command, Role::Command),
                _ => {}
            },
            (Some(Input::JsonText(text)), _) => match fields::parse(text, is_examined) {
                Ok(Parsed::Command(command)) => self.field(&command, Role::Command),
                Ok(Parsed::Object(object)) => self.input(attempt.tool, &object),
                Ok(Parsed::Nothing) => {}
                // Nested past what the parser takes: its text, as a command line.
                Err(_) => self.field(text, Role::Command),
            },
            (Some(Input::Text(text)), _) | (None, Some(text)) => self.field(text, Role::Command),
            (None, None) => {}
        }
    }

    fn input(&mut self, tool: &str, object: &Fields<'_>) {
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
            if let Some(Item::Array(edits)) = object.get("edits") {
                for edit in edits {
                    if let Item::Object(edit) = edit {
                        self.keys(edit, Key::Content, Role::Content);
                    }
                }
            }
        }
    }

    /// Examines the string values (or arrays of strings) under the keys of kind `keys` in
    /// `object`.
    fn keys(&mut self, object: &Fields<'_>, keys: Key, role: Role) {
        // One pass over the object's few entries, not a lookup per key name.
        for (key, item) in object.entries() {
            if key_of(key) != Some(keys) {
                continue;
            }
            match item {
                Item::Str(text) => self.field(text, role),
                Item::Array(items) => {
                    for item in items {
                        if let Item::Str(text) = item {
                            self.field(text, role);
                        }
                    }
                }
                Item::Object(_) | Item::Other => {}
            }
        }
    }

    fn field(&mut self, text: &str, role: Role) {
        let text = self.budget.take(text);
        if text.is_empty() {
            return;
        }
        if let Some(key) = &mut self.key {
            // Role, length, bytes: no two different walks write the same key.
            key.push(b'0' + role as u8);
            push_len(key, text.len());
            key.extend_from_slice(text.as_bytes());
            return;
        }
        self.examined = true;
        if 1 + text.len() > memo::MEMO_MAX_KEY_BYTES {
            // Too long to remember: not copied into a key.
            let found = self.examine(text, role);
            self.found.0 |= found.0;
            return;
        }
        // A field's classes depend only on its role and bytes (and the rules): the same path
        // written with new content, or a command seen before beside other fields, is a lookup.
        self.field_key.clear();
        self.field_key.push(role as u8);
        self.field_key.extend_from_slice(text.as_bytes());
        if let Some(found) = memo::recall(&memo::FIELDS, self.rules_id, &self.field_key) {
            self.found.0 |= found;
            return;
        }
        let found = self.examine(text, role);
        memo::remember(&memo::FIELDS, self.rules_id, &self.field_key, found.0);
        self.found.0 |= found.0;
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
        let lower = &mut self.lower;
        engine::text_rules_compiled().for_each_match(
            folded,
            lower,
            admits,
            |effect| match effect {
                Effect::Class(risk) => {
                    let mut more = found.get();
                    more.add(risk);
                    found.set(more);
                }
                Effect::Send => send = true,
                Effect::Url => url = true,
            },
        );
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
            found.0 |= write_path_classes(folded, &mut self.lower).0;
        }
        if let Some(user) = &self.user.set {
            for i in user.matches(&self.folded).iter() {
                found.add(self.user.class_of[i]);
            }
        }
        found
    }

    #[cfg(test)]
    fn is_spent(&self) -> bool {
        self.budget.is_spent()
    }
}

#[cfg(test)]
#[path = "scan_tests.rs"]
mod tests;
