//! Whether a rule with a tail (`Rule::tail`: what its matches hold from a key word on) can match
//! a text at all, asked before its pattern is searched: its tail, searched by a forward lazy
//! DFA anchored at each place where one of its anchors occurs (the prefilter's finds). A
//! denial reason such as `hook protect-secrets denied: infra/terraform/prod.tfvars` holds the
//! generic rule's key word and a separator, which its gate and `requires` let through, but no
//! value of the right shape after them: a few dozen bytes of one anchored pass rule it out,
//! instead of an unanchored search of the whole pattern, whose DFA states (a key word may start
//! anywhere, and 20 name characters may follow it) kept being built anew on such texts.
//!
//! Owns the tail DFAs and their per-thread caches (bounded by [`CACHE_BYTES`]). Sound by
//! construction: every match of the pattern holds one of its anchors where its tail matches,
//! so where the tail matches at no anchor the pattern matches nowhere; `a_tail_matches_where
//! _its_pattern_does` holds each tail to its pattern over the corpora, from every start.
//!
//! Not here: which anchors occur (`prefilter`), the search for the pattern and its groups
//! (`engine`, `short`, `ends`).
//!
//! Cost: only on the threads that search with DFAs (`short::search_with_dfa_on_this_thread`: a
//! replay's audit writer); elsewhere the check answers "may match" and costs nothing, and
//! `run`'s memory stays as it was. A tail's DFA and cache are built the first time a text
//! needs it; a full cache is cleared.

use regex_automata::hybrid::dfa::DFA;
use regex_automata::nfa::thompson::{self, WhichCaptures, NFA};
use regex_automata::{Anchored, Input};

use super::compile::parse;
use super::ends::{caches_of, Caches};

/// Upper bound on one tail's DFA cache, per searching thread. An anchored search from a key
/// word meets few states, but the generic rule's tail (a name of up to 20 more characters, a
/// value of up to 100) meets many: on the 256 MiB bench log its states take about 90 KiB, and
/// with a 64 KiB bound its cache was cleared 25 times and its states rebuilt (about 17M more
/// writer-thread instructions, most of the writer's DFA work). A cache takes only the states
/// its texts reach: the other tails stay under 50 KiB.
const CACHE_BYTES: usize = 256 << 10;

/// A rule's tail, compiled for anchored searches.
pub(super) struct Tail {
    dfa: DFA,
    caches: Caches,
}

impl Tail {
    /// Compiles `pattern` (a rule's tail); `None` when its DFA cache would not fit
    /// [`CACHE_BYTES`] (the rule then always runs).
    pub fn new(pattern: &str) -> Option<Tail> {
        let nfa = thompson::Compiler::new()
            .configure(thompson::Config::new().which_captures(WhichCaptures::None))
            .build_from_hir(&parse(pattern))
            .ok()?;
        Tail::of_nfa(nfa)
    }

    /// The tail whose NFA is `nfa` (a rule whose pattern is its own tail shares its NFA).
    pub fn of_nfa(nfa: NFA) -> Option<Tail> {
        let dfa = DFA::builder()
            .configure(
                // Never gives up: anchored searches of a few dozen bytes each build few
                // states but search few bytes per state, which would read as a cache that
                // does not pay; a full cache is cleared, and each byte builds at most one state.
                DFA::config()
                    .cache_capacity(CACHE_BYTES)
                    .minimum_cache_clear_count(None),
            )
            .build_from_nfa(nfa)
            .ok()?;
        let caches = caches_of(&dfa);
        Some(Tail { dfa, caches })
    }

    /// Those of `starts` where the tail matches `haystack` anchored, in order (every match of
    /// the rule's pattern holds one of them); `None` when the DFA gave up (it is configured
    /// never to).
    pub fn matches_at(
        &self,
        haystack: &[u8],
        starts: impl Iterator<Item = usize>,
    ) -> Option<Vec<usize>> {
        let mut cache = self.caches.get();
        let mut input = Input::new(haystack).anchored(Anchored::Yes).earliest(true);
        let mut found = Vec::new();
        for start in starts {
            input.set_start(start);
            if self.dfa.try_search_fwd(&mut cache, &input).ok()?.is_some() {
                found.push(start);
            }
        }
        found.sort_unstable();
        found.dedup();
        Some(found)
    }
}

#[cfg(test)]
mod tests;
