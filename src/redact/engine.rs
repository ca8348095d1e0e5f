//! Finds the secrets in a text: the shared matcher (`crate::matcher`) picks the rules whose
//! anchors occur and runs their regexes, the vetting keeps what is a secret, and the decoded
//! views of the text (JSON escapes, percent-encoding, base64 runs) are scanned the same way,
//! their finds mapped back onto the text.
//!
//! Owns a rule's search: its `requires` and `scope` regexes, every match from left to right, the
//! secret's group, and where the next search starts. The invariant is that every returned span
//! lies on char boundaries and never overlaps a marker already in the text.
//!
//! Not here: rule data (`rules`), vetting heuristics (`vet`), decoders (`decode`), writing the
//! output (`spans`), compiling and choosing regexes (`crate::matcher`).

use std::collections::BTreeMap;
use std::sync::OnceLock;

use super::copies::{self, Known};
use super::decode::{self, Decoded};
use super::rules::{self, Rule};
use super::spans::{self, Span, Spans};
use super::vet::looks_random;
#[cfg(test)]
pub(super) use super::vet::KEYLESS_KIND;
use crate::matcher::{compile, Groups, Matcher};
use regex_automata::meta::Regex;
use regex_automata::util::captures::Captures;
use regex_automata::{Input, PatternID};

/// How many decodings deep a secret is looked for (JSON in base64 in a JSON string…).
const MAX_DEPTH: u8 = 3;

pub(super) struct Engine {
    matcher: Matcher,
    /// All rules, highest priority first (a rule's index is its priority).
    rules: Vec<Compiled>,
}

/// A rule and its helper regexes, each compiled the first time a text needs it.
struct Compiled {
    rule: Rule,
    /// The `requires` regex, when the rule has one (its `\b` rewritten).
    requires: Option<(String, OnceLock<Regex>)>,
    scope: OnceLock<Regex>,
    /// Capture groups that hold the secret, in order; the first that participates is used.
    secret_groups: OnceLock<Vec<usize>>,
}

impl Engine {
    pub fn new() -> Engine {
        let rules = rules::default_rules();
        let matcher = Matcher::new(
            rules
                .iter()
                .map(|rule| (rule.pattern.clone(), rule.anchors.clone())),
            Groups::All,
        );
        Engine {
            matcher,
            rules: rules
                .into_iter()
                .map(|rule| Compiled {
                    requires: rule
                        .requires
                        .map(|r| (rules::word_boundaries(r), OnceLock::new())),
                    scope: OnceLock::new(),
                    rule,
                    secret_groups: OnceLock::new(),
                })
                .collect(),
        }
    }

    #[cfg(test)]
    pub fn rules(&self) -> impl Iterator<Item = &Rule> {
        self.rules.iter().map(|c| &c.rule)
    }

    #[cfg(test)]
    pub fn matcher(&self) -> &Matcher {
        &self.matcher
    }

    /// The secrets in `text`, disjoint and keyed by start.
    /// Every copy of a secret found anywhere (plain or in a decoded view) is one.
    pub fn spans(&self, text: &str) -> Spans {
        let mut spans = BTreeMap::new();
        let mut known = Vec::new();
        self.scan(text, 0, &mut spans, &mut known);
        if !known.is_empty() {
            copies::cover(text, &mut known, MAX_DEPTH, &mut spans);
        }
        spans
    }

    /// Adds the secrets of `text` to `spans`, and the values found to `known`.
    fn scan(&self, text: &str, depth: u8, spans: &mut Spans, known: &mut Vec<Known>) {
        let protected = spans::marker_spans(text);
        let mut found = BTreeMap::new();
        for rule in self.matcher.candidates(text.as_bytes()) {
            self.find(rule, text, &protected, &mut found);
        }
        copies::remember(text, &found, known);
        for span in found.into_values() {
            spans::insert(spans, span);
        }
        if depth >= MAX_DEPTH {
            return;
        }
        if let Some(view) = decode::json_unescape(text) {
            self.scan_view(&view, depth, spans, known);
        }
        if let Some(view) = decode::percent_decode(text) {
            self.scan_view(&view, depth, spans, known);
        }
        for (start, end) in decode::base64_runs(text) {
            if spans::overlaps_span(spans, start, end) || spans::overlaps(&protected, start, end) {
                continue;
            }
            let span = |kind, priority| Span::new(start, end, kind, priority);
            let found = decode::base64_text(&text[start..end])
                .and_then(|decoded| {
                    let mut inner = BTreeMap::new();
                    self.scan(&decoded, depth + 1, &mut inner, known);
                    let strongest = inner.values().min_by_key(|span| span.priority).copied();
                    strongest.or_else(|| {
                        decode::is_credential_pair(&decoded)
                            .then(|| span("basic_auth", self.priority_of("basic_auth")))
                    })
                })
                // A random string with no key (quoted, an unnamed prefix, after a label): last
                // of all kinds; a copy of a value found keeps that value's kind (`copies`).
                .or_else(|| {
                    let copy = known.iter().any(|k| k.value == text[start..end]);
                    let kind = looks_random(text, start, end).filter(|_| !copy);
                    kind.map(|kind| span(kind, self.rules.len()))
                });
            if let Some(found) = found {
                spans::insert(spans, found.moved(start, end));
            }
        }
    }

    /// The priority of the first rule of `kind` (kinds found by a decoder rank with it).
    fn priority_of(&self, kind: &str) -> usize {
        self.rules
            .iter()
            .position(|c| c.rule.kind == kind)
            .expect("a decoder's kind is a rule kind")
    }

    /// Scans a decoded view and maps what it finds back onto the original text.
    fn scan_view(&self, view: &Decoded, depth: u8, spans: &mut Spans, known: &mut Vec<Known>) {
        let mut inner = BTreeMap::new();
        self.scan(&view.text, depth + 1, &mut inner, known);
        spans::insert_mapped(spans, &inner, |s, e| view.original(s, e), &[]);
    }

    /// Adds the accepted secrets of rule `priority` in `text` to `spans`.
    fn find(&self, priority: usize, text: &str, protected: &[(usize, usize)], spans: &mut Spans) {
        let compiled = &self.rules[priority];
        let bytes = text.as_bytes();
        if let Some((pattern, requires)) = &compiled.requires {
            if !requires.get_or_init(|| compile(pattern)).is_match(bytes) {
                return;
            }
        }
        let regions: Vec<(usize, usize)> = match &compiled.rule.scope {
            Some(pattern) => compiled
                .scope
                .get_or_init(|| compile(pattern))
                .find_iter(bytes)
                .map(|m| (m.start(), m.end()))
                .collect(),
            None => vec![(0, text.len())],
        };
        let regex = self.matcher.regex(priority);
        let mut caps = regex.create_captures();
        for region in regions {
            compiled.find_in(priority, regex, text, region, &mut caps, protected, spans);
        }
    }
}

impl Compiled {
    /// Every accepted match of the rule that starts and ends inside one region of `text`.
    #[allow(clippy::too_many_arguments)]
    fn find_in(
        &self,
        priority: usize,
        regex: &Regex,
        text: &str,
        (region_start, region_end): (usize, usize),
        caps: &mut Captures,
        protected: &[(usize, usize)],
        spans: &mut Spans,
    ) {
        let bytes = text.as_bytes();
        let secret_groups = self.secret_groups.get_or_init(|| {
            regex
                .group_info()
                .pattern_names(PatternID::ZERO)
                .enumerate()
                .skip(1)
                .filter(|(_, name)| *name != Some("k"))
                .map(|(index, _)| index)
                .collect()
        });
        let mut at = region_start;
        while at <= region_end {
            regex.search_captures(&Input::new(bytes).range(at..region_end), caps);
            let Some(whole) = caps.get_match() else {
                break;
            };
            let whole_start = spans::floor_boundary(text, whole.start());
            let (start, end) = secret_groups
                .iter()
                .find_map(|&group| caps.get_group(group))
                .map_or((whole.start(), whole.end()), |m| (m.start, m.end));
            let (mut start, end) = (
                spans::floor_boundary(text, start),
                spans::ceil_boundary(text, end),
            );
            // A whole-match secret may begin with the `\n` escape its boundary matched.
            while ["\\n", "\\r", "\\t"]
                .iter()
                .any(|escape| text[start..end].starts_with(escape))
            {
                start += 2;
            }
            let name = caps.get_group_by_name("k").map(|m| {
                (
                    spans::floor_boundary(text, m.start),
                    spans::ceil_boundary(text, m.end),
                )
            });
            let accepted = self
                .rule
                .vet(name.map(|(s, e)| &text[s..e]), text, start, end)
                // An existing marker is neither redacted again nor read as a key name
                // (`[REDACTED:password] = x` is not a password assignment).
                .filter(|&(s, e)| {
                    !spans::overlaps(protected, s, e)
                        && !name.is_some_and(|(s, e)| spans::overlaps(protected, s, e))
                });
            // Resume after an accepted secret. After a rejected one, resume one character
            // before it, so a match may start inside it or use the character before it as its
            // left edge (`-p$X/mysql -pY`, `key: .auth: y`). Never after the whole match: its
            // trailing context (a quote, a newline) may lead the next match.
            at = match accepted {
                Some((_, e)) if e > at => e,
                _ => spans::next_char_boundary(text, whole_start)
                    .max(spans::prev_char_boundary(text, start)),
            };
            if let Some((start, end)) = accepted {
                spans::insert(spans, Span::new(start, end, self.rule.kind, priority));
            }
        }
    }
}
