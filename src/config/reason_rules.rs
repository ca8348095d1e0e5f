//! Classifies a free-text denial reason (hook inputs, the agent CLI) into the closed
//! [`Reason`] set: the `--reason-rule` flags first, then the built-in rules.
//!
//! Owns the built-in rules and their order, and with them the one list of texts that say auto
//! mode's classifier gave no verdict ([`ReasonRules::says_classifier_unavailable`]), which decode
//! also asks of a `classifier` denial's texts. **Not here:** the `reason` set itself
//! ([`crate::vocab::Reason`]), where a denial's reason comes from (`crate::account`).
//!
//! Cold: per denial that carries a reason text but no reason type. The built-in rules are
//! compiled on first need (about 0.4 MiB).

use std::sync::OnceLock;

use regex::Regex;

use crate::vocab::Reason;

/// Rules that classify a free-text reason (hook inputs, the agent CLI) into a [`Reason`].
/// Custom rules come first; the first match wins; no match is [`Reason::Other`].
///
/// The built-in rules are compiled on the first reason that needs them: an executor's denials
/// carry a reason type, so most processes never classify free text, and the compiled rules
/// (case-insensitive Unicode regexes) hold about 0.4 MiB.
#[derive(Debug, Clone)]
pub struct ReasonRules {
    custom: Vec<(Regex, Reason)>,
    built_in: OnceLock<Vec<(Regex, Reason)>>,
}

/// The texts that say auto mode's classifier gave no verdict (unavailable, unreadable,
/// transcript too long) and the call was denied for safety (docs/formats.md, "When auto mode's
/// classifier cannot decide"); case-insensitive, anywhere in the text.
const CLASSIFIER_UNAVAILABLE: &str = r"classifier (is )?(temporarily )?unavailable|could not evaluate|couldn't evaluate|classifier transcript exceeded|classifier gave no verdict|auto[- ]mode (is )?(temporarily )?unavailable|is temporarily unavailable";

/// The built-in rules, in order. Patterns are case-insensitive.
const DEFAULT_RULES: &[(&str, Reason)] = &[
    (r"\bhooks?\b|PreToolUse", Reason::Hook),
    (CLASSIFIER_UNAVAILABLE, Reason::ClassifierUnavailable),
    (r"classifier|auto[- ]mode", Reason::Classifier),
    (r"safety[- ]?check|dangerous|unsafe", Reason::SafetyCheck),
    (r"sandbox", Reason::SandboxOverride),
    (
        r"working[- ]?dir|outside (the )?(project|workspace|allowed)|additional ?directories",
        Reason::WorkingDir,
    ),
    (r"sub-?commands?", Reason::SubcommandResults),
    (
        r"permission[- ]?prompt[- ]?tool",
        Reason::PermissionPromptTool,
    ),
    (r"async|background agent|sub-?agent", Reason::AsyncAgent),
    (
        r"\buser\b|rejected|declined|interactive|by a person|operator",
        Reason::User,
    ),
    (
        r"\brules?\b|disallowed|not allowed|allowlist|denylist|deny list|allow list|allowedTools|disallowedTools|policy",
        Reason::Rule,
    ),
    (r"\bmode\b|plan mode|dontAsk|don't ask", Reason::Mode),
];

impl Default for ReasonRules {
    fn default() -> Self {
        ReasonRules::with_custom(Vec::new())
    }
}

impl ReasonRules {
    /// The built-in rules, preceded by `custom`.
    pub fn with_custom(custom: Vec<(Regex, Reason)>) -> ReasonRules {
        ReasonRules {
            custom,
            built_in: OnceLock::new(),
        }
    }

    /// Classifies a free-text reason.
    pub fn classify(&self, text: &str) -> Reason {
        let first_match = |rules: &[(Regex, Reason)]| {
            rules
                .iter()
                .find(|(regex, _)| regex.is_match(text))
                .map(|(_, reason)| *reason)
        };
        first_match(&self.custom)
            .or_else(|| first_match(self.built_in()))
            .unwrap_or(Reason::Other)
    }

    /// Whether `text` says auto mode's classifier gave no verdict: what makes the built-in
    /// rules classify it `classifierUnavailable` (unless a rule before says otherwise), and
    /// what decode asks of a `classifier` denial's texts. Compiled on first use.
    pub fn says_classifier_unavailable(text: &str) -> bool {
        classifier_unavailable().is_match(text)
    }

    /// The built-in rules, compiled on first use.
    fn built_in(&self) -> &[(Regex, Reason)] {
        self.built_in.get_or_init(|| {
            DEFAULT_RULES
                .iter()
                .map(|(pattern, reason)| match *pattern {
                    CLASSIFIER_UNAVAILABLE => (classifier_unavailable().clone(), *reason),
                    _ => (compile(pattern), *reason),
                })
                .collect()
        })
    }
}

/// The [`CLASSIFIER_UNAVAILABLE`] texts, compiled once for the process.
fn classifier_unavailable() -> &'static Regex {
    static TEXTS: OnceLock<Regex> = OnceLock::new();
    TEXTS.get_or_init(|| compile(CLASSIFIER_UNAVAILABLE))
}

/// A built-in pattern, case-insensitive.
fn compile(pattern: &str) -> Regex {
    Regex::new(&format!("(?i){pattern}")).expect("built-in reason rules compile")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn free_text_is_classified() {
        let rules = ReasonRules::default();
        let cases = [
            ("Denied by rule for Bash", Reason::Rule),
            (
                "PreToolUse hook block-destructive-bash denied: git push --force",
                Reason::Hook,
            ),
            (
                "The user doesn't want to proceed with this tool use",
                Reason::User,
            ),
            (
                "Auto mode classifier blocked this action",
                Reason::Classifier,
            ),
            ("Classifier unavailable", Reason::ClassifierUnavailable),
            (
                "Auto mode could not evaluate this action and is blocking it for safety",
                Reason::ClassifierUnavailable,
            ),
            (
                "Auto mode classifier transcript exceeded context window",
                Reason::ClassifierUnavailable,
            ),
            (
                "Auto mode is temporarily unavailable",
                Reason::ClassifierUnavailable,
            ),
            (
                "Path is outside the allowed working directories",
                Reason::WorkingDir,
            ),
            ("sandbox override refused", Reason::SandboxOverride),
            ("denied in plan mode", Reason::Mode),
            ("something odd happened", Reason::Other),
        ];
        for (text, want) in cases {
            assert_eq!(rules.classify(text), want, "{text}");
        }
    }

    #[test]
    fn built_in_rules_are_compiled_only_when_a_reason_needs_them() {
        let rules = ReasonRules::default();
        assert!(rules.clone().built_in.get().is_none(), "compiled up front");
        assert_eq!(rules.classify("Denied by rule for Bash"), Reason::Rule);
        assert!(rules.built_in.get().is_some());
        let custom = vec![(Regex::new("(?i)opa").unwrap(), Reason::Hook)];
        let rules = ReasonRules::with_custom(custom);
        assert_eq!(rules.classify("OPA says no"), Reason::Hook);
        assert!(
            rules.built_in.get().is_none(),
            "a custom match needs no built-in rule"
        );
    }

    #[test]
    fn custom_rules_come_first() {
        let custom = vec![(Regex::new("(?i)opa").unwrap(), Reason::Hook)];
        let rules = ReasonRules::with_custom(custom);
        assert_eq!(rules.classify("OPA rule says no"), Reason::Hook);
    }
}
