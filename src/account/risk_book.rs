//! What each denial attempted: its risk class, decided exactly once, when its input is first
//! known, and counted in `permission_denial_risks_total` under the tool and workflow label values
//! its denial was counted under.
//!
//! When a class is decided: a denial whose line carries its tool input (a record's list entry, a
//! hook input with `tool_input`, a frame with one) at once, from the input; a mid-stream denial
//! with a tool use id and a correlation key waits ([`PendingRisk`], in the execution's state)
//! for its execution's next record, which brings the input under the same tool use id; when
//! that record has no input for it, or the execution is evicted first, the class of its reason
//! text decides. Any other mid-stream denial at once, from its reason text. So once every
//! execution has had its record or been evicted, the risk counter's sum equals the denials'.
//!
//! Owns [`RiskBook`]: the rules every denial is classified with, the class of an attempt, a
//! denial's wait for its input ([`PendingRisk`]) and the class it falls back to. The
//! [`Accountant`](super::Accountant) decides when (a denial counted, a record come, an
//! execution ended) and counts the class. **Not here:** the rules themselves ([`crate::risk`]),
//! reconciliation ([`super::reconcile`]), the `risk_decided` audit record
//! ([`super::audit_builder`]).
//!
//! Cost: per denial, never per line. Classification reads the unredacted input in memory and
//! keeps only the class; the state holds label values and classes, no text. A JSON input (at
//! most [`crate::decode::MAX_ATTEMPT_BYTES`] of it) reaches the classifier as its text, parsed
//! there only when the same tool and text were not classified before.

use std::sync::OnceLock;

use super::reconcile::{PendingRisk, Undecided, DEFERRED_REASON_BYTES};
use crate::decode::Attempted;
use crate::risk::{Attempt, Input, Risk, RiskRules};
use crate::vocab::counters::DenialKey;

/// When the class of a denial being counted is decided.
pub(super) enum Decision<'a> {
    /// Now: this class.
    Now(Risk),
    /// When its execution's record brings its input; the class of this reason text if none
    /// comes (decided only then).
    Wait(Option<&'a str>),
}

/// Classifies what denials attempted ([module docs](self)).
pub(super) struct RiskBook {
    /// The configuration's rules (`--risk-rule`, `--risk-allow-host`), unless a test sets
    /// others.
    rules: RiskRules,
}

impl RiskBook {
    pub(super) fn new(rules: RiskRules) -> RiskBook {
        RiskBook { rules }
    }

    /// Uses `rules` for every denial classified from now on.
    #[cfg(test)]
    pub(super) fn set_rules(&mut self, rules: RiskRules) {
        self.rules = rules;
    }

    /// The label value of `risk`.
    pub(super) fn label(&self, risk: Risk) -> String {
        self.rules.label(risk).to_string()
    }

    /// [`RiskBook::classify`], as its label value.
    pub(super) fn class_label(
        &self,
        tool: &str,
        attempted: Option<&Attempted>,
        reason: Option<&str>,
    ) -> String {
        self.label(self.classify(tool, attempted, reason))
    }

    /// The class of what `tool` attempted: from its input when known, else its reason text.
    pub(super) fn classify(
        &self,
        tool: &str,
        attempted: Option<&Attempted>,
        reason: Option<&str>,
    ) -> Risk {
        // The JSON text goes to the classifier unparsed: a repeated attempt (an agent retrying,
        // the same hook denial across executions) is known from its text, so most denials
        // never parse their input.
        let input = attempted.map(|attempted| match attempted {
            Attempted::Json(text) => Input::JsonText(text),
            Attempted::Text(text) => Input::Text(text),
        });
        self.rules.classify(&Attempt {
            tool,
            input,
            reason,
        })
    }

    /// A denial of `tool` (as logged) counted under `key`, waiting for its input. Its reason
    /// text's class is decided later, when needed, unless the text is too long to keep.
    pub(super) fn pending(
        &self,
        key: &DenialKey,
        tool: &str,
        reason_text: Option<&str>,
    ) -> PendingRisk {
        let fallback = OnceLock::new();
        let undecided = match reason_text {
            Some(text) if text.len() > DEFERRED_REASON_BYTES => {
                let _ = fallback.set(self.class_label(tool, None, Some(text)));
                None
            }
            _ => Some(Box::new(Undecided {
                tool: tool.into(),
                reason_text: reason_text.map(Into::into),
            })),
        };
        PendingRisk {
            path: key.path.clone(),
            tool: key.tool.clone(),
            workflow: key.workflow.clone(),
            reason: key.reason,
            fallback,
            undecided,
        }
    }

    /// The class of `waiting`'s reason text: its class if no input comes.
    pub(super) fn fallback<'p>(&self, waiting: &'p PendingRisk) -> &'p str {
        waiting.fallback.get_or_init(|| {
            let (tool, text) = match waiting.undecided.as_deref() {
                Some(u) => (&*u.tool, u.reason_text.as_deref()),
                // Loaded from a state file: decided before it was saved.
                None => (waiting.tool.as_str(), None),
            };
            self.class_label(tool, None, text)
        })
    }
}
