//! Runs a rule set over texts: which rules a text can match, told by one Aho-Corasick pass over
//! every rule's anchor literals, and each rule's regex, compiled the first time a text needs it.
//! Shared by redaction (`crate::redact`) and risk classification (`crate::risk`), which hold
//! their rules as data and decide what a match means; this room knows neither.
//!
//! Owns the anchor automaton and the compiled regexes. An anchor is a literal that every match
//! of its rule contains, matched ASCII case-insensitively, a space standing for any ASCII
//! whitespace, a leading or trailing `\b` asking for a word edge there ([`Edges`]); a rule runs
//! only on a text holding one of its anchors. A rule that names no anchors gets the literals every match of its
//! pattern starts (or else ends) with, as `regex-syntax`'s literal extractor finds them
//! ([`derived_anchors`]); a rule with neither is refused when the set is built.
//!
//! Regexes are `regex-automata`'s meta regex with its defaults (its own literal prefilter
//! included) over bytes, without Unicode: classes, `\b` and `(?i)` are ASCII, as the rules are
//! written. Built on first use, so a process compiles only the rules its texts need. Three
//! defaults are turned off, for memory: the one-pass DFA, the lazy DFAs and the full DFA (on
//! wherever a dependency enables `regex-automata`'s `dfa-build`), and with the last two the
//! reverse NFA they need, which the full DFA's default had built for every regex although the
//! DFA itself is built only for the smallest; a regex answers with its prefilter, then the
//! bounded backtracker or the PikeVM, linear in the text. docs/performance.md has what each
//! cost.
//!
//! **Not here:** the rules themselves, vetting or scoring a match, decoding texts.

use std::sync::OnceLock;

use aho_corasick::{AhoCorasick, AhoCorasickKind};
use regex_automata::meta::Regex;
use regex_automata::nfa::thompson::WhichCaptures;
use regex_automata::util::syntax;
use regex_syntax::hir::literal::{ExtractKind, Extractor};

/// Derived anchors shorter than this would make a rule run on almost every text.
const MIN_ANCHOR_BYTES: usize = 2;

/// A rule set: each rule's pattern, its anchors, and its regex once compiled.
pub(crate) struct Matcher {
    automaton: AhoCorasick,
    /// By literal (automaton pattern id), the rules it admits and the edges each asks for.
    uses: Vec<Vec<(usize, Edges)>>,
    patterns: Vec<String>,
    compiled: Vec<OnceLock<Regex>>,
    /// Whether a caller asks where matches are and what their groups hold, or only whether
    /// there is one ([`Groups`]).
    groups: Groups,
}

/// What a rule set's callers ask of a match.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Groups {
    /// Where it is and what each capture group holds (redaction).
    All,
    /// Only whether there is one (risk classes): the regexes compile without capture states,
    /// a smaller NFA and engines.
    None,
}

impl Matcher {
    /// The rules `(pattern, anchors)`, in the order [`Matcher::candidates`] gives them. Empty
    /// anchors are derived from the pattern. Panics on a rule with no usable anchor: the rule
    /// sets are built in, and a test builds each.
    pub fn new(rules: impl IntoIterator<Item = (String, Vec<String>)>, groups: Groups) -> Matcher {
        let mut literals: Vec<String> = Vec::new();
        let mut uses: Vec<Vec<(usize, Edges)>> = Vec::new();
        let mut patterns = Vec::new();
        for (rule, (pattern, mut anchors)) in rules.into_iter().enumerate() {
            if anchors.is_empty() {
                anchors = derived_anchors(&pattern)
                    .unwrap_or_else(|| panic!("rule {pattern:?} has no anchor literal"));
            }
            for anchor in anchors {
                let anchor = anchor.to_ascii_lowercase();
                let (literal, edges) = Edges::parse(&anchor);
                assert!(!literal.is_empty(), "rule {pattern:?} has an empty anchor");
                for literal in spellings(literal) {
                    let at = match literals.iter().position(|known| *known == literal) {
                        Some(at) => at,
                        None => {
                            literals.push(literal);
                            uses.push(Vec::new());
                            literals.len() - 1
                        }
                    };
                    uses[at].push((rule, edges));
                }
            }
            patterns.push(pattern);
        }
        let automaton = AhoCorasick::builder()
            .ascii_case_insensitive(true)
            .kind(Some(AhoCorasickKind::ContiguousNFA))
            .dense_depth(0)
            .build(&literals)
            .expect("anchor literals build an automaton");
        Matcher {
            automaton,
            uses,
            compiled: patterns.iter().map(|_| OnceLock::new()).collect(),
            patterns,
            groups,
        }
    }

    /// The rules one of whose anchors occurs in `text` (at the word edges it asks for), in rule
    /// order.
    pub fn candidates(&self, text: &[u8]) -> Vec<usize> {
        let is_word = |at: usize| {
            text.get(at)
                .is_some_and(|&b| b.is_ascii_alphanumeric() || b == b'_')
        };
        let mut hit = vec![false; self.patterns.len()];
        for found in self.automaton.find_overlapping_iter(text) {
            let start = found.start() == 0 || !is_word(found.start() - 1);
            let end = !is_word(found.end());
            for &(rule, edges) in &self.uses[found.pattern().as_usize()] {
                hit[rule] |= (start || !edges.start) && (end || !edges.end);
            }
        }
        hit.iter()
            .enumerate()
            .filter_map(|(rule, &hit)| hit.then_some(rule))
            .collect()
    }

    /// The regex of `rule`, compiled now if no text needed it before.
    pub fn regex(&self, rule: usize) -> &Regex {
        self.compiled[rule].get_or_init(|| match self.groups {
            Groups::All => compile(&self.patterns[rule]),
            Groups::None => build(&self.patterns[rule], WhichCaptures::None),
        })
    }
}

/// Where an anchor's occurrence must sit: with `start`, no word byte (ASCII letter, digit or
/// `_`) just before it; with `end`, none just after it. Written as a leading or trailing `\b`
/// in the anchor (`\bgh ` is `gh` and a space at the start of a word): a short command word
/// otherwise turns up inside other words and random tokens, and runs a rule that cannot match.
#[derive(Clone, Copy, Debug)]
struct Edges {
    start: bool,
    end: bool,
}

impl Edges {
    fn parse(anchor: &str) -> (&str, Edges) {
        let (literal, start) = match anchor.strip_prefix(r"\b") {
            Some(rest) => (rest, true),
            None => (anchor, false),
        };
        let (literal, end) = match literal.strip_suffix(r"\b") {
            Some(rest) => (rest, true),
            None => (literal, false),
        };
        (literal, Edges { start, end })
    }
}

/// Every spelling of an anchor literal, a space in it standing for any ASCII whitespace the
/// regex syntax's `\s` matches.
fn spellings(literal: &str) -> Vec<String> {
    let mut out = vec![String::new()];
    for c in literal.chars() {
        let options: &[char] = if c == ' ' {
            &[' ', '\t', '\n', '\x0b', '\x0c', '\r']
        } else {
            &[c]
        };
        out = out
            .iter()
            .flat_map(|prefix| options.iter().map(move |&o| format!("{prefix}{o}")))
            .collect();
    }
    out
}

/// `pattern` compiled as every rule is: bytes, ASCII classes, the meta regex's defaults.
/// Panics on an invalid pattern: only built-in patterns come here (user rules are checked
/// where they are parsed), and a test compiles every one.
pub(crate) fn compile(pattern: &str) -> Regex {
    build(pattern, WhichCaptures::All)
}

fn build(pattern: &str, captures: WhichCaptures) -> Regex {
    let config = Regex::config()
        .which_captures(captures)
        .onepass(false)
        .hybrid(false)
        .dfa(false);
    Regex::builder()
        .syntax(syntax::Config::new().unicode(false).utf8(false))
        .configure(config)
        .build(pattern)
        .unwrap_or_else(|e| panic!("built-in pattern {pattern:?} compiles: {e}"))
}

/// The literals every match of `pattern` starts with, else those every match ends with,
/// lowercased, each at least [`MIN_ANCHOR_BYTES`] long; `None` when neither set is finite and
/// long enough. A literal holding another is dropped (a text holding it holds the other).
pub(crate) fn derived_anchors(pattern: &str) -> Option<Vec<String>> {
    let hir = regex_syntax::ParserBuilder::new()
        .build()
        .parse(pattern)
        .ok()?;
    [ExtractKind::Prefix, ExtractKind::Suffix]
        .into_iter()
        .find_map(|kind| {
            let seq = Extractor::new().kind(kind).extract(&hir);
            let mut anchors: Vec<String> = seq
                .literals()?
                .iter()
                .map(|lit| String::from_utf8_lossy(lit.as_bytes()).to_ascii_lowercase())
                .collect();
            minimise(&mut anchors);
            let usable =
                !anchors.is_empty() && anchors.iter().all(|a| a.trim().len() >= MIN_ANCHOR_BYTES);
            usable.then_some(anchors)
        })
}

/// Sorts and dedups `anchors`, and drops every anchor that contains another: a text holding
/// the longer one holds the shorter, so the set still admits the rule.
pub(crate) fn minimise(anchors: &mut Vec<String>) {
    anchors.sort();
    anchors.dedup();
    let all = anchors.clone();
    anchors.retain(|a| !all.iter().any(|b| b != a && a.contains(b.as_str())));
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    #[should_panic(expected = "empty anchor")]
    fn an_empty_anchor_is_refused() {
        // It would occur in every text, at every byte, and run its rule on all of them.
        Matcher::new(
            [("x[0-9]+".to_string(), vec![r"\b".to_string()])],
            Groups::None,
        );
    }

    #[test]
    fn a_regex_holds_its_forward_nfa_and_no_reverse_one() {
        // Too many states for a full DFA: with any DFA engine on, the regex would also hold a
        // reverse NFA about as large as the forward one.
        let pattern = r"[A-Za-z0-9_-]{20,40}\.[A-Za-z0-9_-]{6,7}";
        let forward = regex_automata::nfa::thompson::Compiler::new()
            .syntax(syntax::Config::new().unicode(false).utf8(false))
            .build(pattern)
            .unwrap();
        let regex = compile(pattern);
        assert!(
            regex.memory_usage() < forward.memory_usage() * 3 / 2,
            "regex {} bytes, its forward NFA {} bytes",
            regex.memory_usage(),
            forward.memory_usage()
        );
        assert!(regex.is_match(b"key abcdefghijklmnopqrstuvwx.abcdef"));
    }

    #[test]
    fn anchors_come_from_prefixes_or_suffixes() {
        let mut got = derived_anchors(r"(?:ghp|gho)_[A-Za-z0-9]{36}").unwrap();
        got.sort();
        assert_eq!(got, vec!["gho_", "ghp_"]);
        let suffixes = derived_anchors(r"[a-f0-9]{32}-us[0-9]x").unwrap();
        assert_eq!(suffixes.len(), 10, "{suffixes:?}");
        assert!(suffixes
            .iter()
            .all(|s| s.starts_with("-us") && s.ends_with('x')));
        assert!(derived_anchors(r"[a-z]+").is_none());
    }

    #[test]
    fn an_anchor_asks_for_word_edges_and_its_space_is_any_whitespace() {
        let matcher = Matcher::new(
            [(r"\bgh\s+api".to_string(), vec![r"\bgh ".to_string()])],
            Groups::None,
        );
        assert_eq!(matcher.candidates(b"run gh\tapi"), vec![0]);
        assert_eq!(matcher.candidates(b"gh\napi"), vec![0]);
        assert!(matcher.candidates(b"sigh api; ghp_x").is_empty());
    }

    #[test]
    fn a_rule_runs_only_on_texts_holding_an_anchor_and_compiles_then() {
        let matcher = Matcher::new(
            [
                (r"ghp_[A-Za-z0-9]{4}".to_string(), Vec::new()),
                (
                    r"(?i)\bpush\s+--force".to_string(),
                    vec!["push".to_string()],
                ),
            ],
            Groups::All,
        );
        assert_eq!(matcher.candidates(b"git status"), Vec::<usize>::new());
        assert_eq!(matcher.candidates(b"GIT PUSH --force; GHP_x"), vec![0, 1]);
        assert_eq!(matcher.candidates(b"git pushed"), vec![1], "no edges asked");
        assert!(matcher.compiled.iter().all(|c| c.get().is_none()));
        assert!(matcher.regex(1).is_match(b"git PUSH --force"));
        assert!(
            !matcher.regex(0).is_match(b"GHP_abcd"),
            "case is the pattern's"
        );
        assert!(matcher.compiled[0].get().is_some() && matcher.compiled[1].get().is_some());
    }
}
