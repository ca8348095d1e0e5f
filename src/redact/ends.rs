//! Where a rule's next match ends, found by a forward lazy DFA before the backtracker looks for
//! its groups: a text with no match left costs one DFA pass instead of a backtracking search
//! from every position, and a match's groups are searched for only up to where it ends.
//!
//! Owns the forward DFA of a rule's pattern (no reverse DFA) and its per-thread
//! caches, each bounded by [`CACHE_BYTES`]. The answer only narrows the backtracker's search:
//! the leftmost-first match in `at..end` is the leftmost-first match in `at..` when `end` is
//! where that match ends, and look-arounds see past a search's bounds, so what is found is the
//! same match with the same groups.
//!
//! Not here: which rules run (`prefilter`, `gate`), the groups themselves (`engine`).
//!
//! Cost: hot for rules that run on a text: one DFA pass per search, a few instructions a byte
//! once the states a kind of text needs are built. A cache that fills is cleared and rebuilt;
//! one that keeps filling gives up, and the search falls back to the backtracker alone.

use std::panic::{RefUnwindSafe, UnwindSafe};

use regex_automata::hybrid::dfa::{Cache, DFA};
use regex_automata::nfa::thompson::NFA;
use regex_automata::util::pool::Pool;
use regex_automata::Input;

/// Upper bound on one rule's DFA cache, per searching thread. A state of the larger patterns
/// takes about a KiB, and texts of one kind (reasons, commands) share most of theirs. Measured
/// on a replay of 12,515 audit records: 64 KiB caches kept clearing (486M writer-thread
/// instructions), 128 KiB 436M, 256 KiB 388M for a quarter MiB more peak RSS.
const CACHE_BYTES: usize = 128 << 10;

type NewCache = Box<dyn Fn() -> Cache + Send + Sync + UnwindSafe + RefUnwindSafe>;

/// The per-thread caches of `dfa` (also a rule's tail's, `tail`).
pub(super) type Caches = Pool<Cache, NewCache>;

/// An empty pool of caches for `dfa`, each made on first use by a thread.
pub(super) fn caches_of(dfa: &DFA) -> Caches {
    let for_pool = dfa.clone();
    Pool::new(Box::new(move || for_pool.create_cache()))
}

/// A rule's forward lazy DFA and its caches.
pub(super) struct Ends {
    dfa: DFA,
    caches: Caches,
}

impl Ends {
    /// The forward DFA of `nfa` (the rule's, shared with its backtracker), or `None` when its
    /// cache would not fit [`CACHE_BYTES`] (the backtracker then searches alone).
    pub fn new(nfa: NFA) -> Option<Ends> {
        let dfa = DFA::builder()
            .configure(
                DFA::config()
                    .cache_capacity(CACHE_BYTES)
                    .minimum_cache_clear_count(Some(3))
                    .minimum_bytes_per_state(Some(10)),
            )
            .build_from_nfa(nfa)
            .ok()?;
        let caches = caches_of(&dfa);
        Some(Ends { dfa, caches })
    }

    /// Whether `haystack` holds a match, `Err(())` when the DFA gave up.
    pub fn is_match(&self, haystack: &[u8]) -> Result<bool, ()> {
        let mut cache = self.caches.get();
        self.dfa
            .try_search_fwd(&mut cache, &Input::new(haystack).earliest(true))
            .map(|found| found.is_some())
            .map_err(|_| ())
    }

    /// Where the leftmost-first match in `at..end` of `haystack` ends: `Ok(None)` when there is
    /// none, `Err(())` when the DFA gave up (search without it).
    pub fn next_end(&self, haystack: &[u8], at: usize, end: usize) -> Result<Option<usize>, ()> {
        let mut cache = self.caches.get();
        self.dfa
            .try_search_fwd(&mut cache, &Input::new(haystack).range(at..end))
            .map(|found| found.map(|half| half.offset()))
            .map_err(|_| ())
    }
}
