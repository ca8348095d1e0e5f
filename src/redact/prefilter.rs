//! Picks, for a text, the rules that can match it: one Aho-Corasick pass (ASCII
//! case-insensitive) over every rule's anchors, the literals each of its matches must contain.
//!
//! Owns the anchors: derived from a rule's pattern (its prefix or suffix literals) unless the
//! rule names them. The derivation (`derive`) parses every pattern, so it runs in tests, which
//! write what it finds to `rules::DERIVED_ANCHORS` and hold the table to the patterns; building
//! a redactor reads the table. A rule's regex runs only when one of its anchors occurs (and its
//! gate, in `engine`, admits the text), and is compiled only then, so ordinary text costs one
//! automaton pass and no regex at all.
//!
//! Not here: the rules themselves (`rules`), running them (`engine`).
//!
//! Cost: hot, one pass over every redacted text. The automaton is a contiguous NFA over a few hundred
//! anchors (tens of KiB; a DFA would be faster on long texts but adds about 1 MiB of heap),
//! built with the [`super::Redactor`].

use std::collections::HashMap;

use aho_corasick::{AhoCorasick, AhoCorasickKind, MatchKind};

#[cfg(test)]
mod derive;

/// Most rules a prefilter serves (the candidate set is a fixed bitset).
const MAX_RULES: usize = 512;

pub(super) struct Prefilter {
    automaton: AhoCorasick,
    /// For each anchor (automaton pattern), the rules that need it.
    rules_of: Vec<Vec<usize>>,
}

impl Prefilter {
    /// Builds the automaton from each rule's anchors (`anchors[rule]`, lowercase).
    pub fn new(anchors: &[Vec<String>]) -> Prefilter {
        assert!(
            anchors.len() <= MAX_RULES,
            "more rules than the prefilter's bitset holds"
        );
        let mut patterns: Vec<&str> = Vec::new();
        let mut rules_of: Vec<Vec<usize>> = Vec::new();
        let mut pattern_of: HashMap<&str, usize> = HashMap::new();
        for (rule, list) in anchors.iter().enumerate() {
            for anchor in list {
                let at = *pattern_of.entry(anchor).or_insert_with(|| {
                    patterns.push(anchor);
                    rules_of.push(Vec::new());
                    patterns.len() - 1
                });
                rules_of[at].push(rule);
            }
        }
        let automaton = AhoCorasick::builder()
            .ascii_case_insensitive(true)
            .match_kind(MatchKind::Standard)
            .kind(Some(AhoCorasickKind::ContiguousNFA))
            .build(&patterns)
            .expect("the redaction anchors build an automaton");
        Prefilter {
            automaton,
            rules_of,
        }
    }

    /// The rules that may match `text`, in priority order; where each anchor occurs goes to
    /// `occurrences` (emptied first), when asked (only a thread that tries tails needs them).
    pub fn candidates(
        &self,
        text: &str,
        mut occurrences: Option<&mut Vec<Occurrence>>,
    ) -> Candidates {
        if let Some(occurrences) = occurrences.as_deref_mut() {
            occurrences.clear();
        }
        let mut hit = [0u64; MAX_RULES / 64];
        for found in self.automaton.find_overlapping_iter(text) {
            let pattern = found.pattern().as_usize();
            if let Some(occurrences) = occurrences.as_deref_mut() {
                occurrences.push(Occurrence {
                    pattern: found.pattern().as_u32(),
                    start: found.start(),
                });
            }
            for &rule in &self.rules_of[pattern] {
                hit[rule / 64] |= 1 << (rule % 64);
            }
        }
        Candidates { hit, word: 0 }
    }

    /// Where the anchors of `rule` start among `occurrences` (of one text).
    pub fn starts_of<'a>(
        &'a self,
        occurrences: &'a [Occurrence],
        rule: usize,
    ) -> impl Iterator<Item = usize> + 'a {
        occurrences
            .iter()
            .filter(move |o| self.rules_of[o.pattern as usize].contains(&rule))
            .map(|o| o.start)
    }
}

/// Where an anchor occurs in a text.
#[derive(Clone, Copy, Debug)]
pub(super) struct Occurrence {
    /// The anchor (automaton pattern).
    pattern: u32,
    start: usize,
}

/// The candidate rules of a text: the set bits, lowest first (no work for the rules, most,
/// that were not hit).
pub(super) struct Candidates {
    hit: [u64; MAX_RULES / 64],
    word: usize,
}

impl Iterator for Candidates {
    type Item = usize;

    fn next(&mut self) -> Option<usize> {
        while self.word < self.hit.len() {
            let bits = &mut self.hit[self.word];
            if *bits != 0 {
                let bit = bits.trailing_zeros() as usize;
                *bits &= *bits - 1;
                return Some(self.word * 64 + bit);
            }
            self.word += 1;
        }
        None
    }
}

/// Sorts and dedups `anchors`, and drops every anchor that contains another: a text holding
/// the longer one holds the shorter, so the set still picks the rule (`\nghp_` goes, `ghp_`
/// stays). Fewer patterns make a smaller automaton that is quicker to build and to run.
pub(super) fn minimise(anchors: &mut Vec<String>) {
    anchors.sort();
    anchors.dedup();
    let all = anchors.clone();
    anchors.retain(|a| !all.iter().any(|b| b != a && a.contains(b.as_str())));
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn anchors_that_contain_another_are_dropped() {
        let mut anchors = vec![
            "\\nghp_".to_string(),
            "ghp_".into(),
            "gho_".into(),
            "ghp_".into(),
        ];
        minimise(&mut anchors);
        assert_eq!(anchors, vec!["gho_", "ghp_"]);
    }

    #[test]
    fn candidates_are_the_rules_whose_anchors_occur() {
        let p = Prefilter::new(&[vec!["ghp_".into()], vec!["akia".into(), "asia".into()]]);
        let mut occurrences = Vec::new();
        let mut candidates = |text| {
            p.candidates(text, Some(&mut occurrences))
                .collect::<Vec<_>>()
        };
        assert_eq!(candidates("x GHP_y"), vec![0]);
        assert_eq!(candidates("asia ghp_"), vec![0, 1]);
        assert!(candidates("nothing").is_empty());
    }
}
