//! Compiles the redactor's regexes: rule patterns and the vetting helpers' patterns alike, as
//! bytes, ASCII-only, in the shapes `engine` picks (the meta regex, or the NFA `short` searches).
//!
//! Owns the regex configuration; shared by `engine` (rules) and `vet` (key-name lists), so that
//! neither imports the other.
//!
//! Not here: which regex runs on which text (`engine`), rule data (`rules`).
//!
//! Cost: cold; each regex is compiled once, on first use.

use regex_automata::meta::{self, Regex};
use regex_automata::nfa::thompson::{self, NFA};
use regex_syntax::hir::Hir;

/// Upper bound on the compiled size of one rule's regex.
const SIZE_LIMIT: usize = 16 << 20;
/// Upper bound on one rule's lazy DFA cache (per searching thread). Texts are short (a command,
/// a reason), so few states are ever built; a cache that fills is cleared and refilled.
pub(super) const DFA_CACHE_BYTES: usize = 1 << 20;

/// A rule's syntax tree: bytes, no Unicode (classes and `\b` are ASCII).
pub(super) fn parse(pattern: &str) -> Hir {
    // `every_rule_compiles…` compiles each built-in pattern, so this cannot fail at run time.
    regex_syntax::ParserBuilder::new()
        .unicode(false)
        .utf8(false)
        .build()
        .parse(pattern)
        .expect("the built-in redaction rule parses")
}

/// A rule's regex for long texts: bytes, ASCII-only classes; a lazy DFA finds matches and the
/// bounded backtracker (the PikeVM past its limit) resolves their groups (short texts are
/// searched by `short`). Left out:
/// - the one-pass DFA: on short texts it saves little and costs memory and build time per rule;
/// - the full DFA the meta engine builds (both ways) for a pattern of a few NFA states: it
///   doubled the time to compile the default rules, for searches that are short anyway;
/// - the literal prefilter the meta engine would extract from each pattern: the [`Prefilter`]
///   already runs a rule only on texts holding its anchors, and what remains is short. Extracting
///   and building one (often an Aho-Corasick automaton) per rule took a quarter of the time
///   spent compiling rules and about 0.3 MiB over the 40 rules a day of executor logs needs;
///   without it a long text (16 KiB) takes a lazy DFA pass instead of a literal scan per rule.
pub(super) fn build_bytes_regex(hir: &Hir) -> Regex {
    // `every_rule_compiles…` compiles each built-in pattern, so this cannot fail at run time.
    Regex::builder()
        .configure(
            meta::Config::new()
                .nfa_size_limit(Some(SIZE_LIMIT))
                .hybrid(true)
                .hybrid_cache_capacity(DFA_CACHE_BYTES)
                .auto_prefilter(false)
                .dfa(false)
                .onepass(false)
                .backtrack(true),
        )
        .build_from_hir(hir)
        .expect("the built-in redaction rule compiles")
}

/// A rule's NFA for short texts (`short`), configured as the meta regex configures its own, so
/// that the backtracker searching it finds what the meta regex would.
pub(super) fn build_nfa(hir: &Hir) -> NFA {
    // `every_rule_compiles…` compiles each built-in pattern, so this cannot fail at run time.
    thompson::Compiler::new()
        .configure(thompson::Config::new().nfa_size_limit(Some(SIZE_LIMIT)))
        .build_from_hir(hir)
        .expect("the built-in redaction rule compiles")
}

/// A vetting helper's regex (compiled once, on first use), built as the rules are: bytes,
/// ASCII (`(?i)` folds ASCII letters), a lazy DFA for the many short names it is asked about.
/// What it reads are pieces of rule matches (key names, of ASCII classes); built by the regex
/// crate, with Unicode case folding, literal prefilters and a one-pass DFA, the generic rule's
/// allowed-names regex took 2 ms to compile, twice as long.
pub(super) fn build_ascii_regex(pattern: &str) -> Regex {
    build_bytes_regex(&parse(pattern))
}
