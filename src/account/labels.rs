//! Label values: the closed `reason` set and the admitted, capped `tool` and `workflow` sets.
//!
//! Owns what may become a label value. A `reason` is a [`Reason`] (a closed enum); a `tool` or
//! `workflow` is validated (charset `[A-Za-z0-9_.:/@-]`, 1–128 bytes, else `invalid`) and admitted
//! on first sight until its cap, after which new values become `other`. The admitted sets are
//! part of the saved state, so a restart admits the same values.
//!
//! Validation is not redaction: a valid value can still be a secret (a token glued into an MCP
//! tool name, a key id as a workflow), so a value is asked whether it holds one before it is
//! admitted, and becomes `redacted` if it does.
//!
//! **Not here:** counting ([`super::Accountant`]), the redaction rules (`crate::redact`).
//!
//! Cold: per counted event.

use std::collections::BTreeSet;
use std::sync::OnceLock;

use regex::Regex;
use serde::{Deserialize, Serialize};

pub use crate::vocab::{LabelName, Reason};

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

/// The built-in rules, in order. Patterns are case-insensitive.
const DEFAULT_RULES: &[(&str, Reason)] = &[
    (r"\bhooks?\b|PreToolUse", Reason::Hook),
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

    /// The built-in rules, compiled on first use.
    fn built_in(&self) -> &[(Regex, Reason)] {
        self.built_in.get_or_init(|| {
            DEFAULT_RULES
                .iter()
                .map(|(pattern, reason)| {
                    let regex = Regex::new(&format!("(?i){pattern}"))
                        .expect("built-in reason rules compile");
                    (regex, *reason)
                })
                .collect()
        })
    }
}

/// Label value for anything past a cap.
pub const OTHER: &str = "other";
/// Label value for anything that fails validation.
pub const INVALID: &str = "invalid";
/// Label value for anything that holds a secret (never the secret, never a hash of it).
pub const REDACTED: &str = crate::redact::REDACTED_LABEL;
/// Longest accepted label value, in bytes.
pub const MAX_LABEL_BYTES: usize = 128;

/// What admitting a value did, for the self-metrics.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Admission {
    Admitted,
    Overflow,
    Invalid,
    Redacted,
}

/// The admitted values of one capped label. Part of the saved state.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct AdmittedSet {
    values: BTreeSet<String>,
}

impl AdmittedSet {
    /// Returns the label value for `raw`: itself if valid and admitted (or admissible under
    /// `cap`), `other` past the cap, `invalid` if it fails the charset/length rule, `redacted`
    /// if `holds_secret` says it holds one (asked only of a valid value not yet admitted, so a
    /// known value costs no scan and no secret is ever admitted into the saved state).
    pub fn admit(
        &mut self,
        raw: &str,
        cap: usize,
        holds_secret: impl FnOnce(&str) -> bool,
    ) -> (String, Admission) {
        if !is_valid_label(raw) {
            return (INVALID.to_string(), Admission::Invalid);
        }
        if self.values.contains(raw) {
            return (raw.to_string(), Admission::Admitted);
        }
        if holds_secret(raw) {
            return (REDACTED.to_string(), Admission::Redacted);
        }
        if self.values.len() >= cap {
            return (OTHER.to_string(), Admission::Overflow);
        }
        self.values.insert(raw.to_string());
        (raw.to_string(), Admission::Admitted)
    }

    pub fn len(&self) -> usize {
        self.values.len()
    }
}

/// Returns true if and only if `value` may be a `tool` or `workflow` label value.
pub fn is_valid_label(value: &str) -> bool {
    !value.is_empty()
        && value.len() <= MAX_LABEL_BYTES
        && value.bytes().all(|b| {
            b.is_ascii_alphanumeric() || matches!(b, b'_' | b'.' | b':' | b'/' | b'@' | b'-')
        })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reason_types_round_trip() {
        for reason in Reason::ALL {
            assert_eq!(Reason::from_type(reason.as_str()), Some(reason));
        }
        assert_eq!(Reason::from_type("safety_check"), Some(Reason::SafetyCheck));
        assert_eq!(Reason::from_type("HOOK"), Some(Reason::Hook));
        assert_eq!(Reason::from_type("vibes"), None);
    }

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

    #[test]
    fn admission_validates_and_caps() {
        let mut set = AdmittedSet::default();
        assert_eq!(
            set.admit("Bash", 2, |_| false),
            ("Bash".into(), Admission::Admitted)
        );
        assert_eq!(
            set.admit("mcp__github__add_comment", 2, |_| false).1,
            Admission::Admitted
        );
        assert_eq!(
            set.admit("Edit", 2, |_| false),
            (OTHER.into(), Admission::Overflow)
        );
        assert_eq!(
            set.admit("Bash", 2, |_| false),
            ("Bash".into(), Admission::Admitted)
        );
        assert_eq!(
            set.admit("rm -rf /", 2, |_| false),
            (INVALID.into(), Admission::Invalid)
        );
        assert_eq!(
            set.admit(&"x".repeat(129), 2, |_| false).1,
            Admission::Invalid
        );
        assert_eq!(set.admit("", 2, |_| false).1, Admission::Invalid);
        assert_eq!(set.len(), 2);
    }
}
