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
//! Cost: hot for the prefilter pass; a rule's regex runs only on texts holding its anchors and
//! passing its gate. Regexes are byte-oriented and non-Unicode, in two shapes ([`TwoShapes`]):
//! for texts up to [`SHORT_TEXT_BYTES`], the NFA searched by the bounded backtracker (`short`),
//! with a forward lazy DFA in front of a pattern's capture searches on the audit writer
//! (`ends`: where the next match ends, or that there is none); for longer ones,
//! `regex-automata`'s meta engine with a lazy DFA (whose cache grows with the variety of texts,
//! up to `compile::DFA_CACHE_BYTES`), without the one-pass DFA, full DFAs and literal
//! prefilters. A process that redacts a few kinds of text compiles a few rules, in one shape.
//! On the audit writer, a rule with a tail (`Rule::tail`: the generic rule, the named
//! assignments, and every rule whose anchors are its prefixes) is first tried anchored where
//! its anchors occur (`tail`); where it matches at none the rule is skipped, and otherwise its
//! groups are searched for from the first such place, without the unanchored DFA.

use std::collections::BTreeMap;
use std::sync::OnceLock;

use super::compile::{build_bytes_regex, parse};
use super::copies::{self, Known};
use super::decode::{self, Decoded};
use super::gate::Gate;
use super::prefilter::{Occurrence, Prefilter};
use super::rules::{self, Lead, Rule};
use super::short::{searches_with_dfa, Short};
use super::spans::{self, Span, Spans};
use super::tail::Tail;
use regex_automata::meta::Regex;
use regex_automata::util::captures::{Captures, GroupInfo};
use regex_automata::{Input, PatternID};

/// Longest text searched by the short shape (see [`TwoShapes`]). The backtracker's work is
/// bounded by the NFA's size times this, and its visited set fits its default capacity for
/// every rule.
const SHORT_TEXT_BYTES: usize = 256;
/// How many decodings deep a secret is looked for (JSON in base64 in a JSON string…).
const MAX_DEPTH: u8 = 3;

pub(super) struct Engine {
    prefilter: Prefilter,
    /// All rules, highest priority first.
    rules: Vec<Compiled>,
}

/// A rule and what it compiles, each part the first time a text needs it: the gate (bytes every
/// match holds) on its first candidacy, then `requires` and `scope` (cheap, and often enough to
/// rule a text out), then the pattern itself only for a text that passed all three.
struct Compiled {
    rule: Rule,
    /// Its index in the rules: lower is stronger.
    priority: usize,
    /// Boxed: a [`Gate`] is a 256-byte table, and most of the 200 rules never become candidates.
    gate: OnceLock<Box<Gate>>,
    /// The `requires` regex (its `\b` rewritten), when the rule has one.
    requires: Option<(String, TwoShapes)>,
    scope: Option<TwoShapes>,
    /// The tail's anchored DFA (`tail`), when the rule has a tail and a thread searching with
    /// DFAs first needs it. Boxed: a DFA is 736 bytes inline, and only the audit writer builds
    /// tails; unboxed, every rule of every redactor carried that room (`run` included).
    tail: OnceLock<Option<Box<Tail>>>,
    pattern: TwoShapes,
    /// Capture groups that hold the secret, in order; the first that participates is used.
    secret_groups: OnceLock<Vec<usize>>,
}

/// One regex in two shapes, each compiled the first time a text needs it. For a text of at most
/// [`SHORT_TEXT_BYTES`] (a tool name, an id, a reason, most commands): the NFA and the bounded
/// backtracker ([`Short`]), which cost no reverse NFA and, but for the audit writer's forward
/// DFA, no DFA states to build on a rule's first texts. For a longer one: the meta regex with a
/// lazy DFA, so the search stays linear in the text whatever the pattern.
struct TwoShapes {
    /// Boxed: most of the 200 rules' shapes are never compiled.
    short: OnceLock<Box<Short>>,
    long: OnceLock<Regex>,
    /// Whether the short shape finds where a match ends first (a rule's pattern, searched
    /// for groups; not `requires` and `scope`, which need no groups).
    with_ends: bool,
}

impl Engine {
    pub fn new() -> Engine {
        let rules = prepared_rules();
        // A stale table would let a rule miss a secret: `gate_table_is_current` keeps it in step.
        assert_eq!(rules.len(), rules::GATES.len(), "rules::GATES is stale");
        let anchors: Vec<Vec<String>> = rules.iter().map(|r| r.anchors.clone()).collect();
        Engine {
            prefilter: Prefilter::new(&anchors),
            rules: rules
                .into_iter()
                .enumerate()
                .map(|(priority, rule)| Compiled {
                    requires: rule
                        .requires
                        .map(|r| (rules::word_boundaries(r), TwoShapes::new(false))),
                    scope: rule.scope.as_ref().map(|_| TwoShapes::new(false)),
                    rule,
                    priority,
                    gate: OnceLock::new(),
                    tail: OnceLock::new(),
                    pattern: TwoShapes::new(true),
                    secret_groups: OnceLock::new(),
                })
                .collect(),
        }
    }

    #[cfg(test)]
    pub fn rules(&self) -> impl Iterator<Item = &Rule> {
        self.rules.iter().map(|c| &c.rule)
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
        let mut occurrences = Vec::new();
        // Where the anchors occur matters only to a thread that tries tails (`tail`).
        let tried = searches_with_dfa().then_some(&mut occurrences);
        for index in self.prefilter.candidates(text, tried) {
            let anchored = Anchored {
                prefilter: &self.prefilter,
                occurrences: &occurrences,
            };
            self.rules[index].find(text, &protected, anchored, &mut found);
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
            let Some(decoded) = decode::base64_text(&text[start..end]) else {
                continue;
            };
            let mut inner = BTreeMap::new();
            self.scan(&decoded, depth + 1, &mut inner, known);
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
    fn scan_view(&self, view: &Decoded, depth: u8, spans: &mut Spans, known: &mut Vec<Known>) {
        let mut inner = BTreeMap::new();
        self.scan(&view.text, depth + 1, &mut inner, known);
        spans::insert_mapped(spans, &inner, |s, e| view.original(s, e), &[]);
    }

    /// The kind of a rule whose pattern matches in `text` although its gate refuses `text`
    /// (tests: the gate must be sound), compiling every rule.
    #[cfg(test)]
    pub fn gate_refusing_a_match(&self, text: &str) -> Option<&'static str> {
        let bytes = text.as_bytes();
        self.rules
            .iter()
            .find(|c| {
                let gate = c.gate();
                c.pattern.is_match(&c.rule.pattern, bytes) && !gate.admits(bytes)
            })
            .map(|c| c.rule.kind)
    }

    /// Compiles every rule now (tests; a process compiles rules as texts need them).
    #[cfg(test)]
    pub fn compile_all(&self) {
        for compiled in &self.rules {
            for len in [0, SHORT_TEXT_BYTES + 1] {
                if let Some((pattern, requires)) = &compiled.requires {
                    requires.compile(pattern, len);
                }
                if let (Some(pattern), Some(scope)) = (&compiled.rule.scope, &compiled.scope) {
                    scope.compile(pattern, len);
                }
                compiled.pattern.compile(&compiled.rule.pattern, len);
            }
        }
    }
}

/// The default rules with their derived anchors ([`rules::DERIVED_ANCHORS`]), and, where those
/// are prefixes, the pattern as its own tail (a match starts at or just before one of them).
pub(super) fn prepared_rules() -> Vec<Rule> {
    let rules = rules::default_rules();
    // A stale table would let a rule miss a secret: `anchor_table_is_current` keeps it in step.
    assert_eq!(
        rules.len(),
        rules::DERIVED_ANCHORS.len(),
        "rules::DERIVED_ANCHORS is stale"
    );
    rules
        .into_iter()
        .zip(rules::DERIVED_ANCHORS)
        .map(|(mut rule, &(anchors, lead))| {
            if !rule.anchors.is_empty() {
                return rule;
            }
            // `every_rule_compiles_has_anchors_and_uses_ascii_classes` checks none is left empty.
            rule.anchors = anchors.iter().map(|a| a.to_string()).collect();
            match lead {
                Some(lead) if rule.tail.is_none() => rule.starts_near_anchors(lead),
                _ => rule,
            }
        })
        .collect()
}

impl Compiled {
    /// Adds this rule's accepted secrets in `text` to `spans`; `anchored` tells where the
    /// anchors occur in `text`.
    fn find(
        &self,
        text: &str,
        protected: &[(usize, usize)],
        anchored: Anchored<'_>,
        spans: &mut Spans,
    ) {
        let bytes = text.as_bytes();
        if !self.gate().admits(bytes) {
            return;
        }
        if let Some((pattern, requires)) = &self.requires {
            if !requires.is_match(pattern, bytes) {
                return;
            }
        }
        let heads = self.tail().and_then(|tail| {
            let starts = anchored
                .prefilter
                .starts_of(anchored.occurrences, self.priority)
                .flat_map(|anchor| self.rule.lead.tried(anchor));
            tail.matches_at(bytes, starts)
        });
        if heads.as_ref().is_some_and(Vec::is_empty) {
            return;
        }
        #[cfg(test)]
        ran::note(self.rule.kind);
        let regions: Vec<(usize, usize)> = match (&self.rule.scope, &self.scope) {
            (Some(pattern), Some(scope)) => scope.find_all(pattern, bytes),
            _ => vec![(0, text.len())],
        };
        if regions.is_empty() {
            return;
        }
        let pattern = &self.rule.pattern;
        let mut caps = self.pattern.create_captures(pattern, text.len());
        for (region_start, region_end) in regions {
            self.find_in(
                text,
                (region_start, region_end),
                heads.as_deref(),
                &mut caps,
                protected,
                spans,
            );
        }
    }

    /// [`Compiled::find`] within one region: every match that starts and ends inside it.
    /// `heads`: where the rule's tail matches, when it was asked (`tail`).
    fn find_in(
        &self,
        text: &str,
        (region_start, region_end): (usize, usize),
        heads: Option<&[usize]>,
        caps: &mut Captures,
        protected: &[(usize, usize)],
        spans: &mut Spans,
    ) {
        let bytes = text.as_bytes();
        let mut at = region_start;
        while at <= region_end {
            // With heads: a match from `at` holds a head at or after `at`, and starts no
            // earlier than the name before the first one: searched from there, without the
            // DFA (whose states the unanchored name would keep building).
            let from = match heads {
                Some(heads) => match heads.iter().find(|&&head| head >= at) {
                    Some(&head) => self.rule.lead.start(bytes, head).max(at),
                    None => break,
                },
                None => at,
            };
            self.pattern.search_captures(
                &self.rule.pattern,
                bytes,
                (from, region_end),
                heads.is_some(),
                caps,
            );
            let Some(whole) = caps.get_match() else {
                break;
            };
            let whole_start = spans::floor_boundary(text, whole.start());
            let (start, end) = self
                .secret_groups(caps.group_info())
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
                        priority: self.priority,
                    },
                );
            }
        }
    }

    /// The rule's tail DFA, when it has a tail and this thread searches with DFAs (`tail`).
    fn tail(&self) -> Option<&Tail> {
        let pattern = self.rule.tail.as_deref()?;
        if !searches_with_dfa() {
            return None;
        }
        self.tail
            .get_or_init(|| {
                match self.rule.lead {
                    // The pattern is its own tail: one parse and one NFA for both.
                    Lead::At(_) => Tail::of_nfa(self.pattern.short(pattern).nfa().clone()),
                    Lead::Name(_) => Tail::new(pattern),
                }
                .map(Box::new)
            })
            .as_deref()
    }

    /// The rule's gate, made from its row of [`rules::GATES`] on first use.
    fn gate(&self) -> &Gate {
        self.gate
            .get_or_init(|| Box::new(Gate::new(rules::GATES[self.priority])))
    }

    /// The capture groups of the rule's pattern (`groups`) that hold the secret.
    fn secret_groups(&self, groups: &GroupInfo) -> &[usize] {
        self.secret_groups.get_or_init(|| {
            groups
                .pattern_names(PatternID::ZERO)
                .enumerate()
                .skip(1)
                .filter(|(_, name)| *name != Some("k"))
                .map(|(index, _)| index)
                .collect()
        })
    }
}

/// Where the anchors occur in the text a rule is searched in.
#[derive(Clone, Copy)]
struct Anchored<'a> {
    prefilter: &'a Prefilter,
    occurrences: &'a [Occurrence],
}

impl TwoShapes {
    fn new(with_ends: bool) -> TwoShapes {
        TwoShapes {
            short: OnceLock::new(),
            long: OnceLock::new(),
            with_ends,
        }
    }

    /// The short shape, compiled from `pattern` the first time a text needs it.
    fn short(&self, pattern: &str) -> &Short {
        self.short
            .get_or_init(|| Box::new(Short::new(&parse(pattern), self.with_ends)))
    }

    /// The long shape, compiled from `pattern` the first time a text needs it.
    fn long(&self, pattern: &str) -> &Regex {
        self.long.get_or_init(|| build_bytes_regex(&parse(pattern)))
    }

    /// The shape for a text of `len` bytes, compiled now (tests).
    #[cfg(test)]
    fn compile(&self, pattern: &str, len: usize) {
        if len > SHORT_TEXT_BYTES {
            self.long(pattern);
        } else {
            self.short(pattern);
        }
    }

    /// Whether `bytes` holds a match of `pattern`.
    fn is_match(&self, pattern: &str, bytes: &[u8]) -> bool {
        if bytes.len() <= SHORT_TEXT_BYTES {
            if let Some(found) = self.short(pattern).is_match(bytes) {
                return found;
            }
        }
        self.long(pattern).is_match(bytes)
    }

    /// The spans of every match of `pattern` in `bytes`.
    fn find_all(&self, pattern: &str, bytes: &[u8]) -> Vec<(usize, usize)> {
        if bytes.len() <= SHORT_TEXT_BYTES {
            if let Some(found) = self.short(pattern).find_all(bytes) {
                return found;
            }
        }
        self.long(pattern)
            .find_iter(bytes)
            .map(|m| (m.start(), m.end()))
            .collect()
    }

    /// Room for the groups of `pattern`, from the shape a text of `len` bytes is searched by.
    fn create_captures(&self, pattern: &str, len: usize) -> Captures {
        if len <= SHORT_TEXT_BYTES {
            self.short(pattern).create_captures()
        } else {
            self.long(pattern).create_captures()
        }
    }

    /// The leftmost-first match of `pattern` in `at..end` of `bytes`, with its groups.
    /// `at_head`: the search starts where a match is expected (`tail`), so the short shape's
    /// backtracker searches alone, without its DFA.
    fn search_captures(
        &self,
        pattern: &str,
        bytes: &[u8],
        (at, end): (usize, usize),
        at_head: bool,
        caps: &mut Captures,
    ) {
        if bytes.len() <= SHORT_TEXT_BYTES {
            let short = self.short(pattern);
            let searched = if at_head {
                short.search_captures_alone(bytes, (at, end), caps)
            } else {
                short.search_captures(bytes, (at, end), caps)
            };
            if searched.is_some() {
                return;
            }
        }
        self.long(pattern)
            .search_captures(&Input::new(bytes).range(at..end), caps);
    }
}

/// The rules whose patterns this thread searched (tests: a tail spares the search).
#[cfg(test)]
pub(super) mod ran {
    use std::cell::RefCell;

    thread_local! {
        static KINDS: RefCell<Vec<&'static str>> = const { RefCell::new(Vec::new()) };
    }

    pub(super) fn note(kind: &'static str) {
        KINDS.with(|kinds| kinds.borrow_mut().push(kind));
    }

    /// The kinds of the rules searched since the last call, in order.
    pub(crate) fn take() -> Vec<&'static str> {
        KINDS.with(|kinds| std::mem::take(&mut *kinds.borrow_mut()))
    }
}

/// Every redactor holds a slot for each of the ~200 rules, `run`'s included: what only some
/// threads build stays boxed, or `run`'s peak RSS (budget 12 MiB) pays for it 200 times.
#[cfg(test)]
#[test]
fn a_rules_slot_stays_small() {
    assert!(
        std::mem::size_of::<Compiled>() <= 512,
        "{}",
        std::mem::size_of::<Compiled>()
    );
}
