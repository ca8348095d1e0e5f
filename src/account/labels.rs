//! Label values: the admitted, capped `tool`, `workflow` and `model` sets.
//!
//! Owns what may become a label value. A `reason` is a [`Reason`] (a closed enum, classified from
//! free text by `crate::config::ReasonRules`); a `tool` or `workflow` is validated (charset `[A-Za-z0-9_.:/@-]`, 1–128 bytes, else `invalid`) and admitted
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

use serde::{Deserialize, Serialize};
use std::collections::BTreeSet;

pub use crate::vocab::{LabelName, Reason};

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

    /// Lets `value` go: a new value may take its place under the cap.
    pub fn remove(&mut self, value: &str) {
        self.values.remove(value);
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
