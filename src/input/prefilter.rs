//! Picks the few lines worth decoding, with one multi-literal search over a whole chunk.
//!
//! Almost every executor line is not a denial. Instead of splitting a chunk into lines and
//! parsing each, the [`Prefilter`] searches the chunk for the JSON string tokens it was given,
//! quotes included, that a relevant line must hold (the pipeline gives the configured names, such
//! as `"agent.permission.denied"` and `"Claude Agent SDK execution completed"`, and the fixed
//! names of the other formats, such as `"permission_denials"`). The quotes matter: agents grep for `permission_denials`, edit `…_permission_denials.sql` and
//! paste diffs that log `\"agent.permission.denied\"`, and with bare words those lines were a
//! third of an executor log's bytes, all parsed for nothing. A value equal to a token (a
//! `"pattern":"permission_denials"`) is still a candidate: a hit is only a candidate, decode
//! decides.
//!
//! [`Prefilter::pick`] turns a region of complete lines into the lines worth a closer look: the
//! hits, widened to their lines, and every line that is not a plain JSON object line — not shaped
//! `{…}` (a malformed line, a CRI-framed line, which starts with its timestamp) or a Docker
//! json-file line (`{"log":"…`), whose framing must be undone before anyone can tell. So a framed
//! line never needs its escaped tokens searched: it is picked whole, and the pipeline asks
//! [`Prefilter::is_app_candidate`] of the line it unwraps. Which lines are picked depends on the
//! bytes alone, not on what was decoded before, so picking can run on another thread than
//! decoding.
//!
//! **Not here:** decoding, and which tokens make a line relevant (both `crate::pipeline`'s).
//!
//! Hot: one Aho-Corasick pass per chunk (the same machinery ripgrep uses) and one newline scan,
//! looking at the first and last bytes of each line.

use aho_corasick::{AhoCorasick, AhoCorasickBuilder, MatchKind};

/// The multi-literal searcher.
#[derive(Debug, Clone)]
pub struct Prefilter {
    literals: AhoCorasick,
}

/// How a Docker json-file line starts.
const DOCKER_PREFIX: &[u8] = b"{\"log\":\"";

impl Prefilter {
    /// A search for `tokens`, each as a whole JSON string (its quotes are checked at each hit).
    pub fn new(tokens: &[&str]) -> Prefilter {
        let mut literals: Vec<String> = Vec::new();
        for &name in tokens {
            // Searched without its quotes, which are checked at each hit: with `"`, the commonest
            // byte of a JSON log, in every literal, the search would stop at every quote.
            let token = json_escaped(name);
            if !literals.contains(&token) {
                literals.push(token);
            }
        }
        let literals = AhoCorasickBuilder::new()
            .match_kind(MatchKind::LeftmostFirst)
            .build(&literals)
            .expect("a handful of short literals always builds");
        Prefilter { literals }
    }

    /// Start (the opening quote) of the first token in `haystack`.
    #[inline]
    pub fn find(&self, haystack: &[u8]) -> Option<usize> {
        let mut at = 0;
        while let Some(m) = self.literals.find(&haystack[at..]) {
            let (start, end) = (at + m.start(), at + m.end());
            if is_a_string(haystack, start, end) {
                return Some(start - 1);
            }
            at = start + 1;
        }
        None
    }

    /// Returns true if and only if an (unwrapped) application line contains a token.
    pub fn is_app_candidate(&self, line: &[u8]) -> bool {
        self.find(line).is_some()
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

/// Whether `haystack[start..end]` is a whole JSON string: between quotes, the opening one not
/// escaped. In valid JSON a string's opening quote follows a structural character or a space,
/// never `\`, so `\"name\"` is text inside another string.
#[inline]
fn is_a_string(haystack: &[u8], start: usize, end: usize) -> bool {
    start >= 1
        && haystack[start - 1] == b'"'
        && (start < 2 || haystack[start - 2] != b'\\')
        && haystack.get(end) == Some(&b'"')
}

/// `s` as it appears inside a JSON string (only `"` and `\` change for the names used here).
fn json_escaped(s: &str) -> String {
    s.replace('\\', "\\\\").replace('"', "\\\"")
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The tokens the pipeline gives for the default configuration.
    const TOKENS: [&str; 6] = [
        "agent.permission.denied",
        "Claude Agent SDK execution completed",
        "permission_denied",
        "permission_denials",
        "PermissionDenied",
        "input_summary",
    ];

    #[test]
    fn finds_quoted_tokens_not_words_about_them() {
        let p = Prefilter::new(&TOKENS);
        assert_eq!(p.find(br#"xx "agent.permission.denied""#), Some(3));
        assert!(p.find(b"xx agent.permission.denied").is_none());
        assert!(p.find(br#"{"level":30,"msg":"hello"}"#).is_none());
        for relevant in [
            r#"{"event":"agent.permission.denied","toolName":"Bash"}"#,
            r#"{"event": "agent.permission.denied"}"#,
            r#"{"msg":"Claude Agent SDK execution completed","permissionDenials":[]}"#,
            r#"{"type":"system","subtype":"permission_denied","tool_name":"Bash"}"#,
            r#"{"type":"result","permission_denials":[]}"#,
            r#"{"hook_event_name":"PermissionDenied","tool_name":"Bash"}"#,
            r#"{"tool":"Bash","reason":"rule","input_summary":"ls"}"#,
        ] {
            assert!(p.is_app_candidate(relevant.as_bytes()), "{relevant}");
        }
        // What agents write about the code that logs denials: not events, not parsed.
        for noise in [
            r#"{"toolName":"Bash","command":"rg -n \"permission_denials\" src/"}"#,
            r#"{"toolName":"Read","filePath":"src/017_executions_permission_denials.sql"}"#,
            r#"{"diff":"+  log.warn({ event: \"agent.permission.denied\" }, \"denied\")"}"#,
            r#"{"diff":"if (msg.subtype === \"permission_denied\") {"}"#,
        ] {
            assert!(!p.is_app_candidate(noise.as_bytes()), "{noise}");
        }
    }

    #[test]
    fn picks_hits_framed_and_malformed_lines() {
        let p = Prefilter::new(&TOKENS);
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
