//! Picks, for a text, the rules that can match it: one Aho-Corasick pass (ASCII
//! case-insensitive) over every rule's anchors, the literals each of its matches must contain.
//!
//! Owns the anchors: derived from a rule's pattern (its prefix or suffix literals) unless the
//! rule names them. The derivation parses every pattern, so it runs in tests, which write what
//! it finds to `rules::DERIVED_ANCHORS` and hold the table to the patterns; building a
//! redactor reads the table. A rule's regex runs only when one of its anchors occurs (and its
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
use regex_syntax::hir::literal::{ExtractKind, Extractor};

/// Most rules a prefilter serves (the candidate set is a fixed bitset).
const MAX_RULES: usize = 512;
/// Anchors shorter than this would make a rule run on almost every text.
#[cfg(test)]
const MIN_ANCHOR_BYTES: usize = 2;

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

/// The anchors [`derive_anchors_and_lead`] derives (tests).
#[cfg(test)]
pub(super) fn derive_anchors(pattern: &str) -> Option<Vec<String>> {
    derive_anchors_and_lead(pattern).map(|(anchors, _)| anchors)
}

/// The literals every match of `pattern` contains: its prefix literals, else its suffix
/// literals, lowercased and deduplicated; `None` when neither set is finite and long enough.
/// With them, when they are prefixes, how many bytes at most a match starts before the anchor
/// it begins with (`\nghp_…` starts two bytes before `ghp_`). Tests only: what it derives
/// from the default rules is `rules::DERIVED_ANCHORS`.
#[cfg(test)]
pub(super) fn derive_anchors_and_lead(pattern: &str) -> Option<(Vec<String>, Option<usize>)> {
    let hir = regex_syntax::ParserBuilder::new()
        .build()
        .parse(pattern)
        .ok()?;
    [ExtractKind::Prefix, ExtractKind::Suffix]
        .into_iter()
        .find_map(|kind| {
            let prefixes = matches!(kind, ExtractKind::Prefix);
            let seq = Extractor::new().kind(kind).extract(&hir);
            let literals: Vec<String> = seq
                .literals()?
                .iter()
                .map(|lit| String::from_utf8_lossy(lit.as_bytes()).to_ascii_lowercase())
                .collect();
            let mut anchors = literals.clone();
            minimise(&mut anchors);
            let usable =
                !anchors.is_empty() && anchors.iter().all(|a| a.trim().len() >= MIN_ANCHOR_BYTES);
            if !usable {
                return None;
            }
            let lead = prefixes
                .then(|| {
                    literals
                        .iter()
                        .map(|lit| anchor_offset(&anchors, lit))
                        .try_fold(0, |most, at| Some(most.max(at?)))
                })
                .flatten();
            Some((anchors, lead))
        })
}

/// Most bytes a literal may hold before the anchor it begins with, for its rule to start at
/// its anchors (a `\\n` escape before a token is two).
#[cfg(test)]
const MAX_LEAD: usize = 3;

/// Where in `literal` the first of `anchors` (sorted, none a prefix of another, as
/// [`minimise`] leaves them) begins, if within [`MAX_LEAD`] bytes. At most one anchor starts
/// any one place: the greatest not after the rest of the literal there.
#[cfg(test)]
fn anchor_offset(anchors: &[String], literal: &str) -> Option<usize> {
    (0..=MAX_LEAD.min(literal.len())).find(|&at| {
        let rest = literal.get(at..).unwrap_or_default();
        let after = anchors.partition_point(|a| a.as_str() <= rest);
        after > 0 && rest.starts_with(anchors[after - 1].as_str())
    })
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

    /// `rules::DERIVED_ANCHORS` as [`derive_anchors_and_lead`] derives it from the default rules
    /// that name no anchors, as Rust source.
    fn anchor_table_source() -> String {
        let mut out = String::from(concat!(
            "//! Generated: the anchors derived from each default rule's pattern, in\n",
            "//! `super::default_rules()` order, as `prefilter::derive_anchors_and_lead` finds them. Do not\n",
            "//! edit: `anchor_table_is_current` checks it against the patterns, and\n",
            "//! `REDACT_WRITE_ANCHORS=1 cargo test --lib anchor_table_is_current` writes it again.\n",
            "\n",
            "/// Each rule's derived anchors (lowercase) and, when they are prefixes, how many bytes at most\n",
            "/// a match starts before the one it begins with; by rule index. A rule that names its\n",
            "/// anchors has none here.\n",
            "#[rustfmt::skip]\n",
            "pub(in crate::redact) const DERIVED_ANCHORS: &[(&[&str], Option<usize>)] = &[\n",
        ));
        for (index, rule) in crate::redact::rules::default_rules().iter().enumerate() {
            let (anchors, lead) = if rule.anchors.is_empty() {
                derive_anchors_and_lead(&rule.pattern).unwrap_or_default()
            } else {
                (Vec::new(), None)
            };
            let anchors: Vec<String> = anchors.iter().map(|a| format!("{a:?}")).collect();
            out.push_str(&format!(
                "    // {index} {}\n    (&[{}], {lead:?}),\n",
                rule.kind,
                anchors.join(", ")
            ));
        }
        out.push_str("];\n");
        out
    }

    #[test]
    fn anchor_table_is_current() {
        crate::redact::tests::assert_generated_is_current(
            "src/redact/rules/anchors.rs",
            &anchor_table_source(),
            "REDACT_WRITE_ANCHORS",
            "anchor_table_is_current",
        );
    }

    #[test]
    fn anchors_come_from_prefixes_or_suffixes() {
        let mut got = derive_anchors(r"(?:ghp|gho)_[A-Za-z0-9]{36}").unwrap();
        got.sort();
        assert_eq!(got, vec!["gho_", "ghp_"]);
        assert_eq!(
            derive_anchors(r"[a-f0-9]{32}-us[0-9]").is_none(),
            derive_anchors(r"[a-f0-9]{32}-us").is_none()
        );
        assert!(derive_anchors(r"[a-z]+").is_none());
    }

    #[test]
    fn prefix_anchors_tell_how_far_before_them_a_match_starts() {
        let lead = |pattern| derive_anchors_and_lead(pattern).unwrap().1;
        assert_eq!(lead(r"(?:ghp|gho)_[A-Za-z0-9]{36}"), Some(0));
        assert_eq!(lead(r"(?:(?-u:\b)|\\[nrt])ghp_[A-Za-z0-9]{36}"), Some(2));
        assert_eq!(lead(r"[a-f0-9]{32}-us[0-9]x"), None, "suffixes");
    }

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
