//! Compiles the built-in rules on first use and runs them over folded text: the anchored text
//! rules, and the anchored write-path rules.
//!
//! Owns the matching strategy. A rule's regex runs only on a text that holds one of its anchors
//! (one pass of `anchors` finds them), and compiles the first time one does; so a field meets
//! one to three regexes, not a hundred, and no automaton multiplies the states of a hundred
//! rules (one `RegexSet` over all of them cost several times more per denial, and five times
//! more on 16 KiB). An anchor may ask for word edges ([`Edges`]), so a short command word inside
//! another word or a random token admits nothing. The invariant: no rule matches a text that
//! holds none of its anchors at the edges they ask for; a unit test checks it over the corpus
//! and variants of it.
//! **Not here:** the patterns (`rules`), what a match means for a field (`scan`).
//!
//! A field's role decides which effects count (`scan`); a candidate rule whose effect the role
//! ignores is neither compiled nor run, so a path read never pays for the command rules.
//!
//! Cost: per field, one pass of the anchor search over the lower-cased text (a two-byte table
//! over a few hundred short literals, about 8 KiB, built in microseconds: see `anchors`), then
//! the admitted candidates' `is_match`, most severe first, each skipped (and left
//! uncompiled) when the caller says it cannot raise the class already found. Everything
//! compiles on first use, and compiling is the larger share of a short replay's classification
//! cost: so a rule is one forward NFA run by a lazy DFA (see [`Matcher`]), built in about a third
//! of a general regex's time, and only the rules some text's anchors admit are ever compiled
//! (19 of the 113 text and write-path rules on the generator's 256 MiB log).

use std::sync::OnceLock;

use regex_automata::hybrid::dfa::{self, DFA};
use regex_automata::nfa::thompson::pikevm::PikeVM;
use regex_automata::nfa::thompson::{self, WhichCaptures, NFA};
use regex_automata::util::pool::Pool;
use regex_automata::util::syntax;
use regex_automata::Input;

use super::anchors::{self, Literals};
use super::paths::write_path_rules;
use super::rules::{text_rules, Effect, Rule};

/// The text rules behind a search for their anchors: a rule's regex runs only on
/// a text that holds one of its anchors, and is compiled the first time it does. A field meets
/// one or two rules, not a hundred, and no large automaton is built.
pub(super) struct AnchoredRules {
    anchors: Literals,
    /// By anchor literal (its id in `anchors`), the rules it admits, each with the
    /// [`Edges`] an occurrence must have to count for that rule, and whether it is one of the
    /// rule's anchors or one of its further literals (`+` in the rule table).
    uses: Vec<(u8, Edges, Role)>,
    /// Literal `l`'s entries in `uses` are `uses[first_use[l]..first_use[l + 1]]`.
    first_use: Vec<u16>,
    /// The rules that have further literals: a candidate only when one of those occurs too.
    needs_further: Candidates,
    rules: Vec<Rule>,
    /// Boxed: a matcher is about 800 bytes inline, and most rules are never compiled.
    compiled: Vec<OnceLock<Box<Matcher>>>,
}

/// One rule's `is_match`: a forward lazy DFA over the rule's NFA, and a PikeVM over the same NFA
/// should the DFA give up (it does not on these ASCII patterns, which have no quit bytes, and it
/// is not told to give up on a busy cache; the fallback keeps the answer exact whatever happens,
/// and is built only then). Built from one parse and one forward NFA, where a general regex also
/// parses for literals and builds a reverse NFA and the engines `find` needs.
struct Matcher {
    dfa: DFA,
    nfa: NFA,
    caches: Pool<dfa::Cache, Box<dyn Fn() -> dfa::Cache + Send + Sync>>,
}

impl Matcher {
    fn new(source: &str) -> Matcher {
        let mut compiler = thompson::Compiler::new();
        compiler
            .syntax(syntax::Config::new().unicode(false).utf8(false))
            .configure(
                thompson::Config::new()
                    .which_captures(WhichCaptures::None)
                    .utf8(false),
            );
        // The pattern read straight into its syntax tree where the reader knows its syntax
        // (every built-in pattern; a unit test holds the tree to regex_syntax's), else parsed.
        let nfa = match super::syntax::parse(source) {
            Some(hir) => compiler.build_from_hir(&hir),
            None => compiler.build(source),
        }
        .expect("the built-in risk patterns are valid ASCII byte regexes");
        let dfa = DFA::builder()
            .build_from_nfa(nfa.clone())
            .expect("a lazy DFA builds from any NFA");
        let for_cache = dfa.clone();
        let caches: Box<dyn Fn() -> dfa::Cache + Send + Sync> =
            Box::new(move || for_cache.create_cache());
        Matcher {
            dfa,
            nfa,
            caches: Pool::new(caches),
        }
    }

    fn is_match(&self, text: &[u8]) -> bool {
        let input = Input::new(text).earliest(true);
        match self.dfa.try_search_fwd(&mut self.caches.get(), &input) {
            Ok(found) => found.is_some(),
            Err(_) => self.slow_is_match(input),
        }
    }

    /// The answer of a PikeVM over the same NFA: what [`Matcher::is_match`] falls back on.
    #[cold]
    fn slow_is_match(&self, input: Input<'_>) -> bool {
        let pikevm = PikeVM::new_from_nfa(self.nfa.clone()).expect("a PikeVM builds from any NFA");
        pikevm.is_match(&mut pikevm.create_cache(), input)
    }
}

/// What an anchor literal is to a rule.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Role {
    /// One of the rule's anchors: any one of them admits the rule.
    Anchor,
    /// One of the rule's further literals (written `+LITERAL`): a rule that has them is
    /// admitted only when one of its anchors and one of them occur.
    Further,
}

/// Where an anchor's occurrence must sit for it to admit its rule: [`Edges::START`], no word
/// byte (ASCII letter, digit or `_`) just before it; [`Edges::END`], none just after it. Written
/// in a rule's anchor as a leading or trailing `\b`: `\bgh ` is `gh`, then any ASCII
/// whitespace, at the start of a word. A short command word (`gh`, `rm`, `op`, `su`) otherwise
/// turns up inside other words and in every random token (`ghp_…`, `terraform`), and each such
/// occurrence would compile and run a rule that cannot match.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct Edges(u8);

impl Edges {
    const NONE: Edges = Edges(0);
    const START: Edges = Edges(1);
    const END: Edges = Edges(2);

    /// An anchor as a rule writes it: its literal, lower-cased, and the edges it asks for.
    fn parse(anchor: &'static str) -> (&'static str, Edges) {
        let mut edges = Edges::NONE;
        let mut literal = anchor;
        if let Some(rest) = literal.strip_prefix(r"\b") {
            edges.0 |= Edges::START.0;
            literal = rest;
        }
        if let Some(rest) = literal.strip_suffix(r"\b") {
            edges.0 |= Edges::END.0;
            literal = rest;
        }
        assert!(!literal.is_empty(), "anchor {anchor:?} has no literal");
        assert!(
            !literal.bytes().any(|b| b.is_ascii_uppercase()),
            "anchor {anchor:?} is not written in lower case"
        );
        (literal, edges)
    }
}

/// What the anchor search sees of each byte: ASCII letters lower-cased, and every byte of the
/// regex syntax's `\s` without Unicode (space, \t, \n, \v, \f, \r) a space.
const ANCHOR_CASE: [u8; 256] = {
    let mut table = [0u8; 256];
    let mut b = 0;
    while b < 256 {
        let byte = b as u8;
        table[b] = match byte {
            b' ' | b'\t' | b'\n' | 0x0b | 0x0c | b'\r' => b' ',
            _ => byte.to_ascii_lowercase(),
        };
        b += 1;
    }
    table
};

/// Candidate rules of one text, one bit each.
type Candidates = [u64; MAX_TEXT_RULES / 64];
const MAX_TEXT_RULES: usize = 256;

impl AnchoredRules {
    fn new(mut rules: Vec<Rule>) -> AnchoredRules {
        // Most severe first (a stable sort: the table's order within a class), so a caller that
        // skips what cannot raise the class it has found skips most rules once one matches.
        rules.sort_by_key(|rule| rule.effect.class().severity());
        assert!(
            rules.len() <= MAX_TEXT_RULES,
            "at most {MAX_TEXT_RULES} text rules"
        );
        // Every use of an anchor literal: the literal, the rule, the edges and the role.
        let mut all_uses: Vec<(&'static str, u8, Edges, Role)> = Vec::new();
        let mut needs_further: Candidates = [0; MAX_TEXT_RULES / 64];
        for (i, rule) in rules.iter().enumerate() {
            assert!(
                !rule.anchors.is_empty(),
                "rule {} has no anchor",
                rule.source
            );
            let rule_id = u8::try_from(i).expect("at most 256 text rules");
            assert!(
                rule.anchors.iter().any(|a| !a.starts_with('+')),
                "rule {} has only further literals",
                rule.source
            );
            for &anchor in rule.anchors {
                let (role, anchor) = match anchor.strip_prefix('+') {
                    Some(further) => {
                        needs_further[i / 64] |= 1 << (i % 64);
                        (Role::Further, further)
                    }
                    None => (Role::Anchor, anchor),
                };
                let (literal, edges) = Edges::parse(anchor);
                all_uses.push((literal, rule_id, edges, role));
            }
        }
        // By literal (a stable sort: a literal's uses stay in rule order), each literal once.
        all_uses.sort_by(|a, b| a.0.cmp(b.0));
        let mut literals: Vec<&str> = Vec::new();
        let mut first_use = Vec::new();
        let mut uses = Vec::with_capacity(all_uses.len());
        for (literal, rule, edges, role) in all_uses {
            if literals.last() != Some(&literal) {
                literals.push(literal);
                first_use.push(u16::try_from(uses.len()).expect("a few hundred anchors"));
            }
            uses.push((rule, edges, role));
        }
        first_use.push(u16::try_from(uses.len()).expect("a few hundred anchors"));
        // Exact over lower-case text (`candidates` lowers it). An Aho-Corasick automaton over
        // the same literals cost 2.7 M instructions to build and about 50 per byte searched in
        // a replay, in 29 KB; this two-byte table costs a small fraction of that to build and
        // about two thirds of it per byte (see `anchors`).
        let anchors = Literals::new(&literals);
        let compiled = rules.iter().map(|_| OnceLock::new()).collect();
        AnchoredRules {
            anchors,
            uses,
            first_use,
            needs_further,
            rules,
            compiled,
        }
    }

    /// Calls `found` with the effect of every rule that matches `text`, most severe first,
    /// among the rules whose effect `admits` accepts, asked just before each would run (the
    /// others are neither run nor compiled): so `admits` may depend on what `found` was told.
    /// `lower` is scratch space for the lower-cased text the anchors are searched in.
    pub(super) fn for_each_match(
        &self,
        text: &[u8],
        lower: &mut Vec<u8>,
        admits: impl Fn(Effect) -> bool,
        mut found: impl FnMut(Effect),
    ) {
        for (word, bits) in self.candidates(text, lower).iter().enumerate() {
            let mut bits = *bits;
            while bits != 0 {
                let rule = word * 64 + bits.trailing_zeros() as usize;
                bits &= bits - 1;
                if admits(self.rules[rule].effect) && self.regex(rule).is_match(text) {
                    found(self.rules[rule].effect);
                }
            }
        }
    }

    /// The rules one of whose anchors occurs in `text` with the edges it asks for, and, for a
    /// rule with further literals, one of those too; ASCII case ignored and any ASCII
    /// whitespace matching a space.
    fn candidates(&self, text: &[u8], lower: &mut Vec<u8>) -> Candidates {
        lower.clear();
        lower.extend(text.iter().map(|&b| ANCHOR_CASE[usize::from(b)]));
        // Zero bytes, none of them a word byte: `is_word` past the text's end is false.
        lower.extend_from_slice(&[0; anchors::PADDING]);
        let lower = lower.as_slice();
        let is_word = |at: usize| {
            lower
                .get(at)
                .is_some_and(|&b| b.is_ascii_alphanumeric() || b == b'_')
        };
        let mut candidates: Candidates = [0; MAX_TEXT_RULES / 64];
        let mut further: Candidates = [0; MAX_TEXT_RULES / 64];
        self.anchors
            .for_each_occurrence(lower, |literal, start, end| {
                let mut edges = Edges::NONE;
                if start == 0 || !is_word(start - 1) {
                    edges.0 |= Edges::START.0;
                }
                if !is_word(end) {
                    edges.0 |= Edges::END.0;
                }
                let literal = usize::from(literal);
                let uses =
                    usize::from(self.first_use[literal])..usize::from(self.first_use[literal + 1]);
                for &(rule, needs, role) in &self.uses[uses] {
                    if needs.0 & !edges.0 == 0 {
                        let rule = usize::from(rule);
                        let set = match role {
                            Role::Anchor => &mut candidates,
                            Role::Further => &mut further,
                        };
                        set[rule / 64] |= 1 << (rule % 64);
                    }
                }
            });
        for ((candidates, further), needs) in
            candidates.iter_mut().zip(further).zip(self.needs_further)
        {
            *candidates &= further | !needs;
        }
        candidates
    }

    fn regex(&self, rule: usize) -> &Matcher {
        self.compiled[rule].get_or_init(|| Box::new(Matcher::new(&self.rules[rule].source)))
    }
}

/// The rules run over every examined field.
pub(super) fn text_rules_compiled() -> &'static AnchoredRules {
    static RULES: OnceLock<AnchoredRules> = OnceLock::new();
    RULES.get_or_init(|| AnchoredRules::new(text_rules()))
}

/// The rules run over the path of a file write, anchored like the text rules: a path meets the
/// one or two whose anchors it holds, compiled on first use, not a set of all of them.
pub(super) fn write_path_rules_compiled() -> &'static AnchoredRules {
    static RULES: OnceLock<AnchoredRules> = OnceLock::new();
    RULES.get_or_init(|| AnchoredRules::new(write_path_rules()))
}

#[cfg(test)]
pub(super) mod tests {
    use super::*;
    use crate::risk::text::fold;

    /// Every rule of a set in one unanchored set: what the anchors must never hide.
    fn unanchored(rules: &[Rule]) -> regex::bytes::RegexSet {
        regex::bytes::RegexSetBuilder::new(rules.iter().map(|r| &r.source))
            .unicode(false)
            .build()
            .expect("the built-in risk patterns are valid ASCII byte regexes")
    }

    /// Every rule (text or write-path) that matches a folded text also has an anchor in it, so
    /// the anchored pass finds what one unanchored pass over every rule finds.
    pub(crate) fn assert_anchors_hide_nothing(texts: impl IntoIterator<Item = String>) {
        let sets = [text_rules_compiled(), write_path_rules_compiled()]
            .map(|anchored| (unanchored(&anchored.rules), anchored));
        let mut folded = String::new();
        let mut lowered = Vec::new();
        for text in texts {
            fold(&text, &mut folded);
            lowered.push(
                folded
                    .bytes()
                    .map(|b| ANCHOR_CASE[usize::from(b)])
                    .collect(),
            );
            for (full, anchored) in &sets {
                let candidates = anchored.candidates(folded.as_bytes(), &mut Vec::new());
                for i in full.matches(folded.as_bytes()).iter() {
                    let rule = &anchored.rules[i];
                    assert!(
                        candidates[i / 64] & (1 << (i % 64)) != 0,
                        "rule {} matches {folded:?} without the anchors it asks for {:?}",
                        rule.source,
                        rule.anchors
                    );
                }
            }
        }
        // The anchor search finds what a general multi-literal search finds, on the same texts.
        for rules in [text_rules(), write_path_rules()] {
            let anchored = AnchoredRules::new(rules);
            let literals = anchored.anchors.literals();
            anchors::tests::assert_finds_what_aho_corasick_finds(&literals, lowered.clone());
        }
    }

    /// Every rule's fallback (a PikeVM, built only should the lazy DFA give up) answers as the
    /// lazy DFA does, on every folded text: the fallback never runs on the built-in rules, so
    /// this is where it is tried.
    pub(crate) fn assert_fallback_agrees(texts: &[String]) {
        let mut folded = String::new();
        for rules in [text_rules_compiled(), write_path_rules_compiled()] {
            for i in 0..rules.rules.len() {
                let matcher = rules.regex(i);
                for text in texts {
                    fold(text, &mut folded);
                    let input = Input::new(folded.as_bytes()).earliest(true);
                    assert_eq!(
                        matcher.slow_is_match(input),
                        matcher.is_match(folded.as_bytes()),
                        "rule {} on {folded:?}",
                        rules.rules[i].source
                    );
                }
            }
        }
    }

    #[test]
    fn a_rule_with_further_literals_is_a_candidate_only_with_one_of_them_and_an_anchor() {
        let rules = text_rules_compiled();
        let piped = rules
            .rules
            .iter()
            .position(|r| r.anchors.contains(&"+|"))
            .expect("a rule asks for a pipe");
        let admits = |text: &str| {
            let candidates = rules.candidates(text.as_bytes(), &mut Vec::new());
            candidates[piped / 64] & (1 << (piped % 64)) != 0
        };
        assert!(admits("curl -fsSL https://x.example/i.sh | sh"));
        assert!(!admits("curl -fsSL https://x.example/i.sh -o i.sh"));
        assert!(!admits("cat i.sh | sh"));
        let docker = rules
            .rules
            .iter()
            .position(|r| r.anchors.contains(&"+--privileged"))
            .expect("a rule asks for --privileged");
        let candidates = rules.candidates(b"docker login -u ci registry.example", &mut Vec::new());
        assert_eq!(candidates[docker / 64] & (1 << (docker % 64)), 0);
        let candidates = rules.candidates(b"docker run --privileged alpine", &mut Vec::new());
        assert_ne!(candidates[docker / 64] & (1 << (docker % 64)), 0);
    }

    #[test]
    fn every_rule_has_anchors_and_compiles() {
        for rules in [text_rules_compiled(), write_path_rules_compiled()] {
            for i in 0..rules.rules.len() {
                assert!(!rules.rules[i].anchors.is_empty());
                let _ = rules.regex(i);
            }
        }
    }
}
