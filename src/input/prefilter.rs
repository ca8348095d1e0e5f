//! Finds the few lines worth decoding with one multi-literal search over a whole chunk.
//!
//! Almost every executor line is not a denial. Instead of splitting a chunk into lines, the
//! [`Prefilter`] searches the chunk for the literals that can start a relevant line, derived from
//! the configured names (the denial event, the completed message, `permission_deni…`,
//! `PermissionDenied`, the agent CLI's `input_summary`), plus the container framing
//! markers that mean a line must be unwrapped (a CRI partial, a Docker json-file object). A
//! literal containing `"` or `\` is also searched in its JSON-escaped form, so a hit inside a
//! Docker-escaped line is found too. A hit is only a candidate: decode decides.
//!
//! **Not here:** line boundaries and decoding (the pipeline widens a hit to its line).
//!
//! Hot: one Aho-Corasick pass per chunk (the same machinery ripgrep uses).

use aho_corasick::{AhoCorasick, AhoCorasickBuilder, MatchKind};

use crate::config::Fields;

/// The multi-literal searcher.
#[derive(Debug, Clone)]
pub struct Prefilter {
    /// Application literals and framing markers: finds candidate lines in a chunk.
    any: AhoCorasick,
    /// Application literals only: decides whether an unwrapped line is a candidate.
    app: AhoCorasick,
}

/// Markers of container framing whose lines must be unwrapped even without an app literal.
const FRAMING: [&str; 3] = [" stdout P ", " stderr P ", "{\"log\":\""];

impl Prefilter {
    pub fn new(fields: &Fields) -> Prefilter {
        let mut app: Vec<String> = Vec::new();
        let mut add = |s: &str| {
            for form in [s.to_string(), json_escaped(s)] {
                if !form.is_empty() && !app.contains(&form) {
                    app.push(form);
                }
            }
        };
        add(&fields.denied_event);
        add(&fields.completed_message);
        add("permission_deni");
        add("PermissionDenied");
        add("input_summary");
        let mut any = app.clone();
        any.extend(FRAMING.iter().map(|s| s.to_string()));
        let build = |patterns: &[String]| {
            AhoCorasickBuilder::new()
                .match_kind(MatchKind::LeftmostFirst)
                .build(patterns)
                .expect("a handful of short literals always builds")
        };
        Prefilter {
            any: build(&any),
            app: build(&app),
        }
    }

    /// Start of the first candidate hit in `haystack`.
    #[inline]
    pub fn find(&self, haystack: &[u8]) -> Option<usize> {
        self.any.find(haystack).map(|m| m.start())
    }

    /// Returns true if and only if an (unwrapped) application line contains an app literal.
    pub fn is_app_candidate(&self, line: &[u8]) -> bool {
        self.app.is_match(line)
    }
}

/// `s` as it appears inside a JSON string (only `"` and `\` change for our literals).
fn json_escaped(s: &str) -> String {
    s.replace('\\', "\\\\").replace('"', "\\\"")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn finds_literals_and_escaped_forms() {
        let p = Prefilter::new(&Fields::default());
        assert_eq!(p.find(b"xx agent.permission.denied"), Some(3));
        assert!(p.find(br#"{"level":30,"msg":"hello"}"#).is_none());
        assert!(p.is_app_candidate(br#"{\"input_summary\":\"ls\"}"#));
        assert!(p
            .find(b"2026-01-01T00:00:00Z stdout P {\"level\"")
            .is_some());
        assert!(p.find(br#"{"log":"plain\n","stream":"stdout"}"#).is_some());
        assert!(!p.is_app_candidate(br#"{"log":"plain\n","stream":"stdout"}"#));
        assert!(p.is_app_candidate(b"Claude Agent SDK execution completed"));
    }
}
