//! Picks the few lines worth decoding, with one multi-literal search over a whole chunk.
//!
//! Almost every executor line is not a denial. Instead of splitting a chunk into lines and
//! parsing each, the [`Prefilter`] searches the chunk for the literals that can start a relevant
//! line, derived from the configured names: the denial event, the completed message,
//! `permission_deni…` (stream-json frames and results), `PermissionDenied`, the agent CLI's
//! `input_summary`. A literal containing `"` or `\` is also searched in its JSON-escaped form, so
//! a hit inside a Docker-escaped line is found too. A hit is only a candidate: decode decides.
//!
//! [`Prefilter::pick`] turns a region of complete lines into the lines worth a closer look: the
//! hits, widened to their lines, and every line that is not a plain JSON object line — not shaped
//! `{…}` (a malformed line, a CRI-framed line, which starts with its timestamp) or a Docker
//! json-file line (`{"log":"…`), whose framing must be undone before anyone can tell. Which lines
//! are picked depends on the bytes alone, not on what was decoded before, so picking can run on
//! another thread than decoding.
//!
//! **Not here:** decoding (the pipeline).
//!
//! Hot: one Aho-Corasick pass per chunk (the same machinery ripgrep uses) and one newline scan,
//! looking at the first and last bytes of each line.

use aho_corasick::{AhoCorasick, AhoCorasickBuilder, MatchKind};

use crate::config::Fields;

/// The multi-literal searcher.
#[derive(Debug, Clone)]
pub struct Prefilter {
    literals: AhoCorasick,
}

/// How a Docker json-file line starts.
const DOCKER_PREFIX: &[u8] = b"{\"log\":\"";

impl Prefilter {
    pub fn new(fields: &Fields) -> Prefilter {
        let mut literals: Vec<String> = Vec::new();
        let mut add = |s: &str| {
            for form in [s.to_string(), json_escaped(s)] {
                if !form.is_empty() && !literals.contains(&form) {
                    literals.push(form);
                }
            }
        };
        add(&fields.denied_event);
        add(&fields.completed_message);
        add("permission_deni");
        add("PermissionDenied");
        add("input_summary");
        let literals = AhoCorasickBuilder::new()
            .match_kind(MatchKind::LeftmostFirst)
            .build(&literals)
            .expect("a handful of short literals always builds");
        Prefilter { literals }
    }

    /// Start of the first literal in `haystack`.
    #[inline]
    pub fn find(&self, haystack: &[u8]) -> Option<usize> {
        self.literals.find(haystack).map(|m| m.start())
    }

    /// Returns true if and only if an (unwrapped) application line contains a literal.
    pub fn is_app_candidate(&self, line: &[u8]) -> bool {
        self.literals.is_match(line)
    }
}

/// One line to look at, in a region of complete lines.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Pick {
    /// The line at this range (without its newline).
    Line(std::ops::Range<usize>),
    /// A line longer than the cap: skipped, only counted.
    Oversized,
}

impl Prefilter {
    /// Fills `picks` with the lines of `region` (complete lines, each ending in `\n`) worth
    /// decoding, in order, and returns how many lines the region holds (an unterminated last
    /// line counts as one).
    pub fn pick(&self, region: &[u8], max_line_bytes: usize, picks: &mut Vec<Pick>) -> u64 {
        picks.clear();
        let mut next_hit = self.find(region);
        let (mut start, mut lines) = (0, 0u64);
        for nl in memchr::memchr_iter(b'\n', region) {
            lines += 1;
            let line = &region[start..nl];
            let is_hit = next_hit.is_some_and(|h| h < nl);
            if line.len() > max_line_bytes {
                picks.push(Pick::Oversized);
            } else if is_hit || !is_plain_object_line(line) {
                picks.push(Pick::Line(start..nl));
            }
            if next_hit.is_some_and(|h| h < nl) {
                next_hit = self.find(&region[nl + 1..]).map(|h| h + nl + 1);
            }
            start = nl + 1;
        }
        if start < region.len() {
            lines += 1;
            picks.push(Pick::Line(start..region.len()));
        }
        lines
    }
}

/// Returns true if and only if `line` starts with `{` and ends with `}` (a trailing `\r`
/// allowed) and is not a Docker json-file line: an ordinary JSON log line, which matters only if
/// it holds a literal.
#[inline]
pub fn is_plain_object_line(line: &[u8]) -> bool {
    let line = line.strip_suffix(b"\r").unwrap_or(line);
    line.first() == Some(&b'{') && line.last() == Some(&b'}') && !line.starts_with(DOCKER_PREFIX)
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
        assert!(p.is_app_candidate(br#"{"log":"{\"event\":\"agent.permission.denied\"}\n"}"#));
        assert!(p.is_app_candidate(br#"{\"input_summary\":\"ls\"}"#));
        assert!(!p.is_app_candidate(br#"{"log":"plain\n","stream":"stdout"}"#));
        assert!(p.is_app_candidate(b"Claude Agent SDK execution completed"));
    }

    #[test]
    fn picks_hits_framed_and_malformed_lines() {
        let p = Prefilter::new(&Fields::default());
        let region = concat!(
            "{\"level\":30,\"msg\":\"ordinary\"}\n",
            "{\"event\":\"agent.permission.denied\"}\n",
            "not json\n",
            "2026-01-01T00:00:00Z stdout F {\"level\":30}\n",
            "{\"log\":\"{\\\"level\\\":30}\",\"stream\":\"stdout\",\"time\":\"x\"}\n",
            "{\"level\":30,\"msg\":\"ordinary\"}\r\n",
            "{\"level\":30,\"msg\":\"long line\"}\n",
            "tail"
        );
        let mut picks = Vec::new();
        let lines = p.pick(region.as_bytes(), 1 << 20, &mut picks);
        assert_eq!(lines, 8);
        let picked: Vec<&str> = picks
            .iter()
            .map(|pick| match pick {
                Pick::Line(r) => &region[r.clone()],
                Pick::Oversized => "oversized",
            })
            .collect();
        assert_eq!(picked.len(), 5, "{picked:?}");
        assert!(picked[0].contains("agent.permission.denied"));
        assert_eq!(picked[1], "not json");
        assert!(picked[2].starts_with("2026-"));
        assert!(picked[3].starts_with("{\"log\""));
        assert_eq!(picked[4], "tail");
        let lines = p.pick(region.as_bytes(), 20, &mut picks);
        assert_eq!(lines, 8);
        assert_eq!(picks.iter().filter(|p| **p == Pick::Oversized).count(), 6);
    }
}
