//! Runs a built-in rule set (the text rules, or the write-path rules) over folded text, most
//! severe first, through the shared matcher (`crate::matcher`): a rule's regex runs only on a
//! text that holds one of its anchors, and compiles the first time one does.
//!
//! Owns the order rules run in: by severity, so a caller that skips what cannot raise the class
//! it has found skips most rules once one matches; and a candidate rule whose effect the caller
//! does not admit is neither compiled nor run, so a path read never pays for the command rules.
//! **Not here:** the patterns (`rules`, `paths`), what a match means for a field (`scan`).

use std::sync::OnceLock;

use super::paths::write_path_rules;
use super::rules::{text_rules, Effect, Rule};
use crate::matcher::{Groups, Matcher};

/// A rule set and its matcher, by severity.
pub(super) struct RuleSet {
    matcher: Matcher,
    effects: Vec<Effect>,
}

impl RuleSet {
    fn new(mut rules: Vec<Rule>) -> RuleSet {
        // A stable sort: the table's order within a class.
        rules.sort_by_key(|rule| rule.effect.class().severity());
        RuleSet {
            effects: rules.iter().map(|rule| rule.effect).collect(),
            matcher: Matcher::new(
                rules.into_iter().map(|rule| {
                    let anchors = rule.anchors.iter().map(|a| a.to_string()).collect();
                    (rule.source, anchors)
                }),
                Groups::None,
            ),
        }
    }

    /// Calls `found` with the effect of every rule that matches `text`, most severe first,
    /// among the rules whose effect `admits` accepts, asked just before each would run (the
    /// others are neither run nor compiled): so `admits` may depend on what `found` was told.
    pub(super) fn for_each_match(
        &self,
        text: &[u8],
        admits: impl Fn(Effect) -> bool,
        mut found: impl FnMut(Effect),
    ) {
        for rule in self.matcher.candidates(text) {
            let effect = self.effects[rule];
            if admits(effect) && self.matcher.regex(rule).is_match(text) {
                found(effect);
            }
        }
    }
}

/// The rules run over every examined field.
pub(super) fn text_rules_compiled() -> &'static RuleSet {
    static RULES: OnceLock<RuleSet> = OnceLock::new();
    RULES.get_or_init(|| RuleSet::new(text_rules()))
}

/// The rules run over the path of a file write.
pub(super) fn write_path_rules_compiled() -> &'static RuleSet {
    static RULES: OnceLock<RuleSet> = OnceLock::new();
    RULES.get_or_init(|| RuleSet::new(write_path_rules()))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::risk::text::fold;

    /// Every rule (text or write-path) that matches a folded text also has an anchor in it, so
    /// the anchored pass finds what running every rule finds.
    #[test]
    fn anchors_hide_no_match_of_the_corpus_or_of_generated_text() {
        let mut texts = crate::risk::tests::corpus_texts();
        // Spellings the corpus may lack: case, separators, wrappers, absolute paths, other
        // whitespace.
        for text in texts.clone() {
            texts.push(text.to_uppercase());
            texts.push(format!("bash -c '{text}'"));
            texts.push(text.replace(' ', "\n"));
            texts.push(text.replace(' ', "\u{b}"));
            texts.push(format!("/usr/local/bin/{text}"));
            texts.push(format!("true;{text}"));
            texts.push(format!("({text})"));
        }
        let sets = [text_rules_compiled(), write_path_rules_compiled()];
        let mut folded = String::new();
        for text in texts {
            fold(&text, &mut folded);
            let bytes = folded.as_bytes();
            for set in sets {
                let candidates = set.matcher.candidates(bytes);
                for rule in 0..set.effects.len() {
                    assert!(
                        candidates.contains(&rule) || !set.matcher.regex(rule).is_match(bytes),
                        "rule {rule} ({:?}) matches {folded:?} without one of its anchors",
                        set.effects[rule]
                    );
                }
            }
        }
    }

    #[test]
    fn every_rule_compiles() {
        for set in [text_rules_compiled(), write_path_rules_compiled()] {
            for rule in 0..set.effects.len() {
                let _ = set.matcher.regex(rule);
            }
        }
    }
}
