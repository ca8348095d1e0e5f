//! A regex for short texts: one NFA, searched by the bounded backtracker, with a forward lazy
//! DFA ([`Ends`]) in front of capture searches (a rule's pattern, not `scope`) and in place of
//! match tests (a rule's `requires`) on the threads that ask for it
//! ([`search_with_dfa_on_this_thread`]: a replay's audit writer).
//!
//! Owns the NFA, the backtracker and their per-thread caches. The meta regex this replaces for
//! short texts kept, per regex and per thread, a PikeVM cache it never used on them (a slot per
//! capture group for every NFA state, twice: about 90 KiB for the generic rule); the
//! backtracker's cache is its visited set and stack, sized by the text.
//!
//! Not here: long texts (the meta regex with its own lazy DFA, `compile`), which regex runs on
//! which text (`engine`).
//!
//! Cost: hot when a rule runs on a text. Results are the meta regex's: the same NFA, and the
//! meta regex searched a short text with this same backtracker. A search the backtracker
//! cannot take (a text past its visited capacity, not one the engine hands it) returns `None`,
//! and the caller searches with the long shape.

use std::cell::Cell;
use std::panic::{RefUnwindSafe, UnwindSafe};
use std::sync::OnceLock;

use regex_automata::nfa::thompson::backtrack::{BoundedBacktracker, Cache};
use regex_automata::util::captures::Captures;
use regex_automata::util::pool::Pool;
use regex_automata::Input;
use regex_syntax::hir::Hir;

use super::compile::build_nfa;
use super::ends::Ends;

/// NFAs at least this large (in bytes) get an [`Ends`]: the backtracker's cost per text grows
/// with the NFA, the DFA's does not. Every rule pattern is larger (the smallest is about 1.5 KB):
/// on a replay of 12,515 audit records, a DFA in front of the patterns of 1.5-4 KB too took the
/// writer thread from 416M to 403M instructions, for a few KiB of cache each (a small pattern
/// has few states); only a tiny helper pattern would not be worth one.
const ENDS_MIN_NFA_BYTES: usize = 1024;

thread_local! {
    static WITH_DFA: Cell<bool> = const { Cell::new(false) };
}

/// Makes this thread's capture searches go through their forward DFAs. For a thread
/// whose throughput matters more than a few hundred KiB (a replay's audit writer); the DFA
/// caches are per thread, and `run`'s threads, held to a peak RSS, do without them.
pub(crate) fn search_with_dfa_on_this_thread() {
    WITH_DFA.with(|with| with.set(true));
}

/// Whether this thread asked for DFAs ([`search_with_dfa_on_this_thread`]).
pub(super) fn searches_with_dfa() -> bool {
    WITH_DFA.with(Cell::get)
}

type NewCache = Box<dyn Fn() -> Cache + Send + Sync + UnwindSafe + RefUnwindSafe>;

pub(super) struct Short {
    backtracker: BoundedBacktracker,
    caches: Pool<Cache, NewCache>,
    /// Whether the pattern is large enough for a forward DFA to be worth its cache.
    worth_ends: bool,
    /// The forward DFA that finds where the next match ends, or whether there is one, built
    /// the first time a thread that asked for it ([`search_with_dfa_on_this_thread`]) searches.
    ends: OnceLock<Option<Ends>>,
}

impl Short {
    /// Compiles `hir`; `with_ends` adds a forward DFA when the NFA is large enough to be worth
    /// one.
    pub fn new(hir: &Hir, with_ends: bool) -> Short {
        let nfa = build_nfa(hir);
        let worth_ends = with_ends && nfa.memory_usage() >= ENDS_MIN_NFA_BYTES;
        let backtracker =
            BoundedBacktracker::new_from_nfa(nfa).expect("the built-in redaction rule compiles");
        let for_pool = backtracker.clone();
        let new_cache: NewCache = Box::new(move || for_pool.create_cache());
        Short {
            backtracker,
            caches: Pool::new(new_cache),
            worth_ends,
            ends: OnceLock::new(),
        }
    }

    /// The NFA, shared (an `Arc` inside).
    pub fn nfa(&self) -> &regex_automata::nfa::thompson::NFA {
        self.backtracker.get_nfa()
    }

    pub fn create_captures(&self) -> Captures {
        self.backtracker.create_captures()
    }

    /// The forward DFA, if the pattern is worth one and this thread asked for it.
    fn ends(&self) -> Option<&Ends> {
        if !self.worth_ends {
            return None;
        }
        self.ends_on_this_thread()
    }

    /// The forward DFA, whatever the pattern's size, if this thread asked for it.
    fn ends_on_this_thread(&self) -> Option<&Ends> {
        if !searches_with_dfa() {
            return None;
        }
        self.ends
            .get_or_init(|| Ends::new(self.backtracker.get_nfa().clone()))
            .as_ref()
    }

    /// Whether `bytes` holds a match; `None` when the backtracker cannot search it. A thread
    /// that searches with DFAs asks the forward DFA first, whatever the pattern's size: a
    /// `requires` regex is small, its DFA a few states, and the backtracker's unanchored
    /// search tried it from every position of every text a rule's gate let through.
    pub fn is_match(&self, bytes: &[u8]) -> Option<bool> {
        if let Some(Ok(found)) = self.ends_on_this_thread().map(|ends| ends.is_match(bytes)) {
            return Some(found);
        }
        #[cfg(test)]
        searches::note();
        let mut cache = self.caches.get();
        self.backtracker.try_is_match(&mut cache, bytes).ok()
    }

    /// The spans of every match in `bytes`, as the meta regex's `find_iter` gives them.
    pub fn find_all(&self, bytes: &[u8]) -> Option<Vec<(usize, usize)>> {
        let mut cache = self.caches.get();
        self.backtracker
            .try_find_iter(&mut cache, bytes)
            .map(|found| found.map(|m| (m.start(), m.end())))
            .collect::<Result<_, _>>()
            .ok()
    }

    /// The leftmost-first match in `at..end` of `bytes` and its groups, into `caps` (no match:
    /// `caps` holds none); `None` when the backtracker cannot search it.
    pub fn search_captures(
        &self,
        bytes: &[u8],
        (at, end): (usize, usize),
        caps: &mut Captures,
    ) -> Option<()> {
        let narrowed = match self.ends().map(|ends| ends.next_end(bytes, at, end)) {
            Some(Ok(None)) => {
                caps.set_pattern(None);
                return Some(());
            }
            Some(Ok(Some(found_end))) => found_end,
            Some(Err(())) | None => end,
        };
        self.search_captures_alone(bytes, (at, narrowed), caps)?;
        if caps.get_match().is_none() && narrowed != end {
            // Never expected (the DFA saw a match ending there); the full search decides.
            self.search_captures_alone(bytes, (at, end), caps)?;
        }
        Some(())
    }

    /// [`Short::search_captures`] by the backtracker alone.
    pub fn search_captures_alone(
        &self,
        bytes: &[u8],
        (at, end): (usize, usize),
        caps: &mut Captures,
    ) -> Option<()> {
        #[cfg(test)]
        searches::note();
        let mut cache = self.caches.get();
        self.backtracker
            .try_search(&mut cache, &Input::new(bytes).range(at..end), caps)
            .ok()
    }
}

/// How many capture searches this thread's backtrackers ran (tests: the DFA spares them).
#[cfg(test)]
mod searches {
    use std::cell::Cell;

    thread_local! {
        static COUNT: Cell<usize> = const { Cell::new(0) };
    }

    pub(super) fn note() {
        COUNT.with(|count| count.set(count.get() + 1));
    }

    pub(super) fn take() -> usize {
        COUNT.with(|count| count.replace(0))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::redact::compile::{build_bytes_regex, parse};
    use crate::redact::rules::default_rules;

    /// Texts of every kind the rules meet: the redaction corpus (secrets in commands, configs,
    /// JSON) and its negatives (ids, paths, prose), cut to the short shape's length.
    fn corpus() -> Vec<String> {
        let data = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/data/redaction/");
        ["positives.txt", "negatives.txt"]
            .iter()
            .flat_map(|name| {
                std::fs::read_to_string(format!("{data}{name}"))
                    .unwrap()
                    .lines()
                    .filter(|line| !line.starts_with('#'))
                    .map(|line| line.rsplit('\t').next().unwrap().to_string())
                    .collect::<Vec<_>>()
            })
            .map(|text| {
                let mut end = text.len().min(256);
                while !text.is_char_boundary(end) {
                    end -= 1;
                }
                text[..end].to_string()
            })
            .collect()
    }

    /// Every match, with its groups, from every start: what the engine's loop can ask.
    fn all_matches(
        search: impl Fn(usize, &mut Captures),
        text: &str,
        mut caps: Captures,
    ) -> Vec<Vec<Option<(usize, usize)>>> {
        (0..=text.len())
            .map(|at| {
                search(at, &mut caps);
                (0..caps.group_len())
                    .map(|group| caps.get_group(group).map(|m| (m.start, m.end)))
                    .collect()
            })
            .collect()
    }

    #[test]
    fn short_shape_finds_what_the_meta_regex_finds() {
        let texts = corpus();
        assert!(texts.len() > 900, "the corpus is there");
        search_with_dfa_on_this_thread();
        let mut with_ends = 0;
        for rule in default_rules() {
            let hir = parse(&rule.pattern);
            let short = Short::new(&hir, true);
            with_ends += usize::from(short.ends().is_some());
            let meta = build_bytes_regex(&hir);
            for text in texts.iter().filter(|t| meta.is_match(t.as_bytes())) {
                let bytes = text.as_bytes();
                let ours = all_matches(
                    |at, caps| {
                        short
                            .search_captures(bytes, (at, bytes.len()), caps)
                            .unwrap()
                    },
                    text,
                    short.create_captures(),
                );
                let theirs = all_matches(
                    |at, caps| meta.search_captures(&Input::new(bytes).range(at..), caps),
                    text,
                    meta.create_captures(),
                );
                assert_eq!(ours, theirs, "{}: {text}", rule.kind);
            }
        }
        assert!(
            with_ends >= 10,
            "the large patterns have a DFA: {with_ends}"
        );
    }

    #[test]
    fn a_match_test_by_the_dfa_answers_as_the_meta_regex() {
        let texts = corpus();
        let rules = default_rules();
        // Every `requires` (the match tests the engine asks), and the patterns for more.
        let patterns = rules
            .iter()
            .filter_map(|rule| rule.requires.map(crate::redact::rules::word_boundaries))
            .chain(rules.iter().map(|rule| rule.pattern.clone()));
        search_with_dfa_on_this_thread();
        for pattern in patterns {
            let hir = parse(&pattern);
            let short = Short::new(&hir, false);
            let meta = build_bytes_regex(&hir);
            for text in &texts {
                let bytes = text.as_bytes();
                assert_eq!(
                    short.is_match(bytes),
                    Some(meta.is_match(bytes)),
                    "{pattern}: {text}"
                );
            }
        }
        // A DFA whose cache keeps filling gives up, and the backtracker answers instead.
        assert!(
            searches::take() < texts.len(),
            "the DFA answered most tests"
        );
    }

    #[test]
    fn a_match_test_on_a_dfa_thread_costs_no_backtracking() {
        let requires = crate::redact::rules::word_boundaries(
            r#"kind:[ \t]*["']?Secret\b|\b(?:data|stringData):[ \t]*(?:\r?\n|\\n)"#,
        );
        let short = Short::new(&parse(&requires), false);
        let text = b"PreToolUse hook protect-secrets denied: kubectl get secret db -o yaml";
        assert_eq!(short.is_match(text), Some(false));
        assert_eq!(searches::take(), 1, "a thread that did not ask backtracks");
        search_with_dfa_on_this_thread();
        assert_eq!(short.is_match(text), Some(false));
        assert_eq!(short.is_match(b"kind: Secret\ndata:\n  a: b"), Some(true));
        assert_eq!(searches::take(), 0, "the DFA answered");
    }

    #[test]
    fn a_large_pattern_with_no_match_left_costs_no_backtracking() {
        let generic = default_rules()
            .into_iter()
            .find(|rule| rule.kind == "generic_api_key")
            .unwrap();
        let short = Short::new(&parse(&generic.pattern), true);
        let mut caps = short.create_captures();
        let text = b"Auto-mode classifier blocked the call: possible credential exfiltration";
        short
            .search_captures(text, (0, text.len()), &mut caps)
            .unwrap();
        assert_eq!(
            searches::take(),
            1,
            "a thread that did not ask searches without the DFA"
        );
        search_with_dfa_on_this_thread();
        short
            .search_captures(text, (0, text.len()), &mut caps)
            .unwrap();
        assert!(caps.get_match().is_none());
        assert_eq!(searches::take(), 0, "the DFA saw no match");
        let text = b"export API_TOKEN=Zq3xV9pL2mN8rT5wY7uK1 && make";
        short
            .search_captures(text, (0, text.len()), &mut caps)
            .unwrap();
        let found = caps.get_match().unwrap();
        assert_eq!(
            &text[found.start()..found.end()],
            b"API_TOKEN=Zq3xV9pL2mN8rT5wY7uK1 "
        );
        assert_eq!(
            searches::take(),
            1,
            "the groups of a match are still the backtracker's"
        );
    }
}
