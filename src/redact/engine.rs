//! Finds the secrets in a text: the prefilter picks the rules whose anchors occur, each picked
//! rule runs its regex (compiled on first use), the vetting keeps what is a secret, and the
//! decoded views of the text (JSON escapes, percent-encoding, base64 runs) are scanned the
//! same way, their finds mapped back onto the text.
//!
//! Owns the compiled rules and the scan; the invariant is that every returned span lies on
//! char boundaries and never overlaps a marker already in the text.
//!
//! Not here: rule data (`rules`), vetting heuristics (`vet`), decoders (`decode`), writing the
//! output (`spans`).
//!
//! Cost: hot for the prefilter pass; a rule's regex runs only on texts holding its anchors.
//! Regexes are byte-oriented and non-Unicode (`regex-automata`'s meta engine without the
//! one-pass DFA and backtracker), each with a small lazy-DFA cache
//! ([`DFA_CACHE_BYTES`]), so a process that redacts a few kinds of text compiles a few rules.

use std::collections::BTreeMap;
use std::sync::OnceLock;

use regex_automata::meta::{self, Regex};
use regex_automata::util::{captures::Captures, syntax};
use regex_automata::{Input, PatternID};

use super::decode::{self, Decoded};
use super::prefilter::{derive_anchors, Prefilter};
use super::rules::{self, Rule};
use super::spans::{self, Span, Spans};

/// Upper bound on the compiled size of one rule's regex.
const SIZE_LIMIT: usize = 16 << 20;
/// Upper bound on one rule's lazy DFA cache (per searching thread). Texts are short (a command,
/// a reason), so few states are ever built; a cache that fills is cleared and refilled.
pub(super) const DFA_CACHE_BYTES: usize = 1 << 20;
/// How many decodings deep a secret is looked for (JSON in base64 in a JSON string…).
const MAX_DEPTH: u8 = 3;

pub(super) struct Engine {
    prefilter: Prefilter,
    /// All rules, highest priority first.
    rules: Vec<Compiled>,
}

/// A rule with its regex, compiled the first time the prefilter picks it.
struct Compiled {
    rule: Rule,
    lazy: OnceLock<Lazy>,
}

struct Lazy {
    regex: Regex,
    /// Capture groups that hold the secret, in order; the first that participates is used.
    secret_groups: Vec<usize>,
    requires: Option<Regex>,
    scope: Option<Regex>,
}

impl Engine {
    pub fn new() -> Engine {
        let mut rules: Vec<Rule> = rules::default_rules();
        for rule in rules.iter_mut().filter(|r| r.anchors.is_empty()) {
            // `every_rule_compiles_has_anchors_and_uses_ascii_classes` checks none is left empty.
            rule.anchors = derive_anchors(&rule.pattern).unwrap_or_default();
        }
        let anchors: Vec<Vec<String>> = rules.iter().map(|r| r.anchors.clone()).collect();
        Engine {
            prefilter: Prefilter::new(&anchors),
            rules: rules
                .into_iter()
                .map(|rule| Compiled {
                    rule,
                    lazy: OnceLock::new(),
                })
                .collect(),
        }
    }

    #[cfg(test)]
    pub fn rules(&self) -> impl Iterator<Item = &Rule> {
        self.rules.iter().map(|c| &c.rule)
    }

    /// The secrets in `text`, disjoint and keyed by start.
    pub fn spans(&self, text: &str) -> Spans {
        let mut spans = BTreeMap::new();
        self.scan(text, 0, &mut spans);
        spans
    }

    fn scan(&self, text: &str, depth: u8, spans: &mut Spans) {
        let protected = spans::marker_spans(text);
        for index in self.prefilter.candidates(text) {
            self.rules[index].find(index, text, &protected, spans);
        }
        if depth >= MAX_DEPTH {
            return;
        }
        if let Some(view) = decode::json_unescape(text) {
            self.scan_view(&view, depth, spans);
        }
        if let Some(view) = decode::percent_decode(text) {
            self.scan_view(&view, depth, spans);
        }
        for (start, end) in decode::base64_runs(text) {
            if spans::overlaps_span(spans, start, end) || spans::overlaps(&protected, start, end) {
                continue;
            }
            let Some(decoded) = decode::base64_text(&text[start..end]) else {
                continue;
            };
            let mut inner = BTreeMap::new();
            self.scan(&decoded, depth + 1, &mut inner);
            let strongest = inner.values().min_by_key(|span| span.priority).copied();
            let found = strongest.or_else(|| {
                decode::is_credential_pair(&decoded).then_some(Span {
                    start,
                    end,
                    kind: "basic_auth",
                    priority: self.priority_of("basic_auth"),
                })
            });
            if let Some(found) = found {
                spans::insert(
                    spans,
                    Span {
                        start,
                        end,
                        ..found
                    },
                );
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
    fn scan_view(&self, view: &Decoded, depth: u8, spans: &mut Spans) {
        let mut inner = BTreeMap::new();
        self.scan(&view.text, depth + 1, &mut inner);
        for span in inner.values() {
            let (start, end) = view.original(span.start, span.end);
            if start < end {
                spans::insert(
                    spans,
                    Span {
                        start,
                        end,
                        ..*span
                    },
                );
            }
        }
    }

    /// Compiles every rule now (tests; a process compiles rules as texts need them).
    #[cfg(test)]
    pub fn compile_all(&self) {
        for compiled in &self.rules {
            let _ = compiled.lazy();
        }
    }
}

impl Compiled {
    /// Adds this rule's accepted secrets in `text` to `spans`.
    fn find(&self, priority: usize, text: &str, protected: &[(usize, usize)], spans: &mut Spans) {
        let lazy = self.lazy();
        let bytes = text.as_bytes();
        if lazy
            .requires
            .as_ref()
            .is_some_and(|requires| !requires.is_match(bytes))
        {
            return;
        }
        let regions: Vec<(usize, usize)> = match &lazy.scope {
            None => vec![(0, text.len())],
            Some(scope) => scope
                .find_iter(bytes)
                .map(|m| (m.start(), m.end()))
                .collect(),
        };
        let mut caps = lazy.regex.create_captures();
        for (region_start, region_end) in regions {
            self.find_in(
                priority,
                text,
                (region_start, region_end),
                &mut caps,
                protected,
                spans,
            );
        }
    }

    /// [`Compiled::find`] within one region: every match that starts and ends inside it.
    fn find_in(
        &self,
        priority: usize,
        text: &str,
        (region_start, region_end): (usize, usize),
        caps: &mut Captures,
        protected: &[(usize, usize)],
        spans: &mut Spans,
    ) {
        let lazy = self.lazy();
        let bytes = text.as_bytes();
        let mut at = region_start;
        while at <= region_end {
            lazy.regex
                .search_captures(&Input::new(bytes).range(at..region_end), caps);
            let Some(whole) = caps.get_match() else {
                break;
            };
            let whole_start = spans::floor_boundary(text, whole.start());
            let (start, end) = lazy
                .secret_groups
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
                let kind = self.rule.kind;
                spans::insert(
                    spans,
                    Span {
                        start,
                        end,
                        kind,
                        priority,
                    },
                );
            }
        }
    }

    fn lazy(&self) -> &Lazy {
        self.lazy.get_or_init(|| {
            let regex = build_bytes_regex(&self.rule.pattern);
            let secret_groups = regex
                .group_info()
                .pattern_names(PatternID::ZERO)
                .enumerate()
                .skip(1)
                .filter(|(_, name)| *name != Some("k"))
                .map(|(index, _)| index)
                .collect();
            let requires = self
                .rule
                .requires
                .map(|pattern| build_bytes_regex(&rules::word_boundaries(pattern)));
            let scope = self.rule.scope.as_deref().map(build_bytes_regex);
            Lazy {
                regex,
                secret_groups,
                requires,
                scope,
            }
        })
    }
}

/// A rule's regex: bytes, ASCII-only classes, a lazy DFA with a small cache to find matches
/// and the PikeVM to resolve their groups. The one-pass DFA and the backtracker are left out:
/// on short texts they save little and cost memory and build time per rule.
fn build_bytes_regex(pattern: &str) -> Regex {
    // `every_rule_compiles…` compiles each built-in pattern, so this cannot fail at run time.
    Regex::builder()
        .syntax(syntax::Config::new().unicode(false).utf8(false))
        .configure(
            meta::Config::new()
                .nfa_size_limit(Some(SIZE_LIMIT))
                .hybrid_cache_capacity(DFA_CACHE_BYTES)
                .onepass(false)
                .backtrack(true),
        )
        .build(pattern)
        .expect("the built-in redaction rule compiles")
}

/// A vetting helper's regex over `&str` (compiled once, on first use).
pub(super) fn build_regex(pattern: &str) -> regex::Regex {
    regex::RegexBuilder::new(pattern)
        .size_limit(SIZE_LIMIT)
        .build()
        .expect("the built-in redaction helper regex compiles")
}
