//! The process's one [`Redactor`], and the label policy every stage asks it: account (label
//! values, audit texts), the state file, the exporter's own log, and the path labels of `run`.
//!
//! Owns nothing but the instance: compiling the rule set is the costly part and it never
//! changes, so it is built once, on first use (a process that never redacts never compiles the
//! rules). **Not here:** the rules and the engine (the rest of `crate::redact`).

use std::sync::OnceLock;

use super::Redactor;

/// The process's one redactor.
pub(crate) fn shared_redactor() -> &'static Redactor {
    static REDACTOR: OnceLock<Redactor> = OnceLock::new();
    REDACTOR.get_or_init(Redactor::new)
}

/// Whether `text` holds a secret the redactor would replace: the label policy (a tool name,
/// workflow, model or path that holds one is replaced whole by `redacted`).
pub(crate) fn holds_secret(text: &str) -> bool {
    shared_redactor().contains_secret(text)
}

/// `value`, or `redacted` when it holds a secret.
pub(crate) fn label_value(value: &str) -> &str {
    shared_redactor().label_value(value)
}
