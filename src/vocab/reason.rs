//! The closed `reason` label set: the SDK's `decision_reason_type` values, plus `user`,
//! `classifierUnavailable` and `unknown`.
//!
//! **Not here:** classifying free text into a reason (`crate::config::ReasonRules`), reading a
//! reason type out of a frame or a per-call record (`crate::decode`).

use serde::{Deserialize, Serialize};

/// Why a tool call was denied: the SDK's `decision_reason_type` values, plus `user` and `unknown`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
pub enum Reason {
    #[serde(rename = "rule")]
    Rule,
    #[serde(rename = "mode")]
    Mode,
    #[serde(rename = "subcommandResults")]
    SubcommandResults,
    #[serde(rename = "permissionPromptTool")]
    PermissionPromptTool,
    #[serde(rename = "hook")]
    Hook,
    #[serde(rename = "asyncAgent")]
    AsyncAgent,
    #[serde(rename = "sandboxOverride")]
    SandboxOverride,
    #[serde(rename = "workingDir")]
    WorkingDir,
    #[serde(rename = "safetyCheck")]
    SafetyCheck,
    #[serde(rename = "classifier")]
    Classifier,
    /// Auto mode's classifier gave no verdict (unavailable, unreadable, transcript too long) and
    /// the call was denied for safety: the gate failing closed, not a policy decision.
    #[serde(rename = "classifierUnavailable")]
    ClassifierUnavailable,
    #[serde(rename = "other")]
    Other,
    /// A person said no.
    #[serde(rename = "user")]
    User,
    /// Only the execution's record revealed the denial; no mid-stream event said why.
    #[serde(rename = "unknown")]
    Unknown,
}

impl Reason {
    pub const ALL: [Reason; 14] = [
        Reason::Rule,
        Reason::Mode,
        Reason::SubcommandResults,
        Reason::PermissionPromptTool,
        Reason::Hook,
        Reason::AsyncAgent,
        Reason::SandboxOverride,
        Reason::WorkingDir,
        Reason::SafetyCheck,
        Reason::Classifier,
        Reason::ClassifierUnavailable,
        Reason::Other,
        Reason::User,
        Reason::Unknown,
    ];

    /// The label value.
    pub fn as_str(self) -> &'static str {
        match self {
            Reason::Rule => "rule",
            Reason::Mode => "mode",
            Reason::SubcommandResults => "subcommandResults",
            Reason::PermissionPromptTool => "permissionPromptTool",
            Reason::Hook => "hook",
            Reason::AsyncAgent => "asyncAgent",
            Reason::SandboxOverride => "sandboxOverride",
            Reason::WorkingDir => "workingDir",
            Reason::SafetyCheck => "safetyCheck",
            Reason::Classifier => "classifier",
            Reason::ClassifierUnavailable => "classifierUnavailable",
            Reason::Other => "other",
            Reason::User => "user",
            Reason::Unknown => "unknown",
        }
    }

    /// The reason a `decision_reason_type` names, if it names one (its label value in any
    /// ASCII case, with `_` and `-` ignored: the snake_case spelling some loggers use).
    pub fn from_type(value: &str) -> Option<Reason> {
        Reason::ALL.into_iter().find(|r| names(r.as_str(), value))
    }
}

/// Whether `value` spells the label value `name`: byte for byte in any ASCII case, its `_` and
/// `-` skipped. Compared in place, with nothing folded into a new string.
fn names(name: &str, value: &str) -> bool {
    let mut spelled = value.bytes().filter(|b| *b != b'_' && *b != b'-');
    name.bytes()
        .all(|n| spelled.next().is_some_and(|v| v.eq_ignore_ascii_case(&n)))
        && spelled.next().is_none()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_type_names_its_reason_in_any_spelling_and_nothing_longer_or_shorter() {
        for (value, want) in [
            ("safetyCheck", Some(Reason::SafetyCheck)),
            ("safety_check", Some(Reason::SafetyCheck)),
            ("SAFETY-CHECK", Some(Reason::SafetyCheck)),
            ("_hook_", Some(Reason::Hook)),
            (
                "classifier_unavailable",
                Some(Reason::ClassifierUnavailable),
            ),
            ("classifier", Some(Reason::Classifier)),
            ("safetyChec", None),
            ("safetyCheckX", None),
            ("hoök", None),
            ("", None),
            ("__", None),
        ] {
            assert_eq!(Reason::from_type(value), want, "{value}");
        }
    }
}
