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
//! there. An attempt classified lately (an agent retrying a call, the same hook denial across
//! executions) is answered from [`Recent`] instead: the class of the same tool and the same
//! text, which classifying again would give, since the rules do not change while it is kept.

use std::collections::HashMap;
use std::sync::OnceLock;

use super::reconcile::{PendingRisk, Undecided, DEFERRED_REASON_BYTES};
use crate::decode::Attempted;
use crate::risk::{Attempt, Input, Risk, RiskRules};
use crate::vocab::counters::DenialKey;
use crate::vocab::digest::Digest;

/// When the class of a denial being counted is decided.
pub(super) enum Decision<'a> {
    /// Now: this class.
    Now(Risk),
    /// When its execution's record brings the input of the tool use with digest `tool_use`;
    /// the class of `reason_text` if none comes (decided only then).
    Wait {
        tool_use: Digest,
        reason_text: Option<&'a str>,
    },
}

/// Classifies what denials attempted ([module docs](self)).
pub(super) struct RiskBook {
    /// The configuration's rules (`--risk-rule`, `--risk-allow-host`), unless a test sets
    /// others.
    rules: RiskRules,
    /// The classes of the attempts classified lately, with these rules.
    recent: Recent,
}

impl RiskBook {
    pub(super) fn new(rules: RiskRules) -> RiskBook {
        RiskBook {
            rules,
            recent: Recent::default(),
        }
    }

    /// Uses `rules` for every denial classified from now on.
    #[cfg(test)]
    pub(super) fn set_rules(&mut self, rules: RiskRules) {
        self.rules = rules;
        self.recent = Recent::default();
    }

    /// The label value of `risk`.
    pub(super) fn label(&self, risk: Risk) -> String {
        self.rules.label(risk).to_string()
    }

    /// [`RiskBook::classify`], as its label value.
    pub(super) fn class_label(
        &mut self,
        tool: &str,
        attempted: Option<&Attempted>,
        reason: Option<&str>,
    ) -> String {
        let risk = self.classify(tool, attempted, reason);
        self.label(risk)
    }

    /// The class of what `tool` attempted: from its input when known, else its reason text.
    /// An attempt classified lately is answered from [`Recent`].
    pub(super) fn classify(
        &mut self,
        tool: &str,
        attempted: Option<&Attempted>,
        reason: Option<&str>,
    ) -> Risk {
        let (evidence, text) = match (attempted, reason) {
            (Some(Attempted::Json(text)), _) => (Evidence::Json, text.as_str()),
            (Some(Attempted::Text(text)), _) => (Evidence::Text, text.as_str()),
            (None, Some(text)) => (Evidence::Reason, text),
            (None, None) => return Risk::Unknown,
        };
        let remembered = self.recent.key(tool, evidence, text);
        if let Some(risk) = remembered.then(|| self.recent.get()).flatten() {
            return risk;
        }
        let risk = self.classify_now(tool, attempted, reason);
        if remembered {
            self.recent.insert(risk);
        }
        risk
    }

    /// [`RiskBook::classify`] without asking or telling [`Recent`].
    fn classify_now(
        &self,
        tool: &str,
        attempted: Option<&Attempted>,
        reason: Option<&str>,
    ) -> Risk {
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
                let _ = fallback.set(self.label(self.classify_now(tool, None, Some(text))));
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
            self.label(self.classify_now(tool, None, text))
        })
    }
}

/// What a class was decided from: an input's JSON text, an input's summary, a reason text. The
/// same text is other evidence in another role (a JSON string is a command line, a summary is
/// not parsed), so it is part of what a class is remembered by.
#[derive(Debug, Clone, Copy)]
enum Evidence {
    Json = 0,
    Text = 1,
    Reason = 2,
}

/// Attempts remembered per generation of [`Recent`], at most: it holds up to twice as many.
const RECENT_ATTEMPTS: usize = 128;

/// The longest attempt (tool name and text) [`Recent`] remembers, in bytes; a longer one is
/// classified each time. Most are far shorter (a command, a path, a URL).
const RECENT_MAX_BYTES: usize = 256;

/// The classes of the attempts classified lately, keyed by exactly what decides a class with
/// the book's rules: the tool as logged, the kind of evidence and its text (the key's bytes:
/// the evidence, the tool, `0xFF`, which no UTF-8 text holds, then the text). Two generations:
/// a hit in the older moves the attempt to the newer; when the newer is full, it becomes the
/// older and the older is dropped. So an attempt seen again within the last
/// [`RECENT_ATTEMPTS`] distinct ones is always a hit, and memory is bounded (at most
/// `2 × RECENT_ATTEMPTS` keys of at most [`RECENT_MAX_BYTES`] bytes and one more). In memory
/// only: the state never holds a text.
#[derive(Default)]
struct Recent {
    newer: HashMap<Box<[u8]>, Risk>,
    older: HashMap<Box<[u8]>, Risk>,
    /// The key of the last attempt looked up, built here so a lookup allocates nothing.
    key: Vec<u8>,
}

impl Recent {
    /// Builds the key of an attempt into `self.key`, which [`Recent::get`] and
    /// [`Recent::insert`] then use; false when the attempt is too long to remember.
    fn key(&mut self, tool: &str, evidence: Evidence, text: &str) -> bool {
        if tool.len() + text.len() > RECENT_MAX_BYTES {
            return false;
        }
        self.key.clear();
        self.key.push(evidence as u8);
        self.key.extend_from_slice(tool.as_bytes());
        self.key.push(0xFF);
        self.key.extend_from_slice(text.as_bytes());
        true
    }

    /// The class remembered for the attempt whose key was built last, if any.
    fn get(&mut self) -> Option<Risk> {
        if let Some(risk) = self.newer.get(self.key.as_slice()) {
            return Some(*risk);
        }
        let (key, risk) = self.older.remove_entry(self.key.as_slice())?;
        self.keep(key, risk);
        Some(risk)
    }

    /// Remembers `risk` as the class of the attempt whose key was built last.
    fn insert(&mut self, risk: Risk) {
        let key = self.key.as_slice().into();
        self.keep(key, risk);
    }

    fn keep(&mut self, key: Box<[u8]>, risk: Risk) {
        if self.newer.len() >= RECENT_ATTEMPTS {
            self.older = std::mem::take(&mut self.newer);
        }
        self.newer.insert(key, risk);
    }

    #[cfg(test)]
    fn len(&self) -> usize {
        self.newer.len() + self.older.len()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn json(text: &str) -> Option<Attempted> {
        Some(Attempted::Json(text.to_string()))
    }

    /// Each answer from [`Recent`] is the class classifying again gives, whatever was asked
    /// just before: the same text as other evidence or for another tool is another attempt.
    #[test]
    fn a_remembered_class_is_the_class_of_exactly_that_attempt() {
        let mut book = RiskBook::new(RiskRules::builtin());
        // As a summary or a reason, this text is no command line; as JSON, it holds one.
        let rm = r#"{"command":"rm -rf /"}"#;
        let bashrc = r#"{"file_path":"~/.bashrc"}"#;
        let asked: [(&str, Option<Attempted>, Option<&str>); 7] = [
            ("Bash", Some(Attempted::Text(rm.into())), None),
            ("Bash", json(rm), None),
            ("Bash", None, Some(rm)),
            ("Write", json(bashrc), None),
            ("Read", json(bashrc), None),
            ("Bash", None, None),
            ("Bash", json(r#"{"command":"ls"}"#), None),
        ];
        let want = [
            Risk::None,
            Risk::DataDestruction,
            Risk::None,
            Risk::PrivilegeEscalation,
        ];
        for round in 0..3 {
            for (i, (tool, attempted, reason)) in asked.iter().enumerate() {
                let got = book.classify(tool, attempted.as_ref(), *reason);
                let fresh = book.classify_now(tool, attempted.as_ref(), *reason);
                assert_eq!(got, fresh, "round {round}, attempt {i}");
                if let Some(want) = want.get(i) {
                    assert_eq!(got, *want, "round {round}, attempt {i}");
                }
            }
        }
        assert_ne!(
            book.classify("Read", json(bashrc).as_ref(), None),
            Risk::PrivilegeEscalation
        );
        assert_eq!(book.recent.len(), 6, "(None, None) is not remembered");
    }

    /// Other rules, other classes: what was remembered with the rules before is forgotten.
    #[test]
    fn new_rules_forget_the_classes_remembered() {
        let mut book = RiskBook::new(RiskRules::builtin());
        let reset = json(r#"{"command":"prisma migrate reset"}"#);
        assert_eq!(book.classify("Bash", reset.as_ref(), None), Risk::None);
        book.set_rules(
            RiskRules::new([r"db_reset=\bprisma\s+migrate\s+reset\b"], [""; 0]).unwrap(),
        );
        assert_eq!(book.classify("Bash", reset.as_ref(), None), Risk::User(0));
    }

    /// At most two generations of [`RECENT_ATTEMPTS`], and no attempt longer than
    /// [`RECENT_MAX_BYTES`]; an attempt seen again within the last [`RECENT_ATTEMPTS`] is kept.
    #[test]
    fn recent_attempts_are_bounded_and_the_latest_kept() {
        let mut book = RiskBook::new(RiskRules::builtin());
        let long = format!(
            r#"{{"command":"rm -rf / {}"}}"#,
            "x".repeat(RECENT_MAX_BYTES)
        );
        assert_eq!(
            book.classify("Bash", json(&long).as_ref(), None),
            Risk::DataDestruction
        );
        assert_eq!(book.recent.len(), 0, "too long to remember");
        let hot = json(r#"{"command":"rm -rf /"}"#);
        for i in 0..5 * RECENT_ATTEMPTS {
            let text = format!(r#"{{"command":"echo {i}"}}"#);
            assert_eq!(
                book.classify("Bash", json(&text).as_ref(), None),
                Risk::None
            );
            assert_eq!(
                book.classify("Bash", hot.as_ref(), None),
                Risk::DataDestruction
            );
            assert!(book.recent.len() <= 2 * RECENT_ATTEMPTS);
        }
        assert!(book
            .recent
            .key("Bash", Evidence::Json, r#"{"command":"rm -rf /"}"#));
        assert_eq!(book.recent.get(), Some(Risk::DataDestruction));
    }
}
