//! Remembers, per thread, the class of recent attempts, so a denial whose attempt was seen before
//! (an agent retrying a forbidden command, the same hook denial across executions) costs a
//! lookup instead of a classification.
//!
//! Owns the memo: keyed by which [`super::RiskRules`] asked and by either the tool and the
//! input's JSON text as logged, or the exact text the classifier would examine (each field's
//! role and bytes, within the budget); `scan` writes the keys. Classifying is a function of
//! what the key holds, so a hit returns exactly what classifying would. Bounded: at most
//! [`MEMO_ENTRIES`] entries a thread, emptied when full; keys longer than
//! [`MEMO_MAX_KEY_BYTES`] are not remembered.
//! **Not here:** classifying (`scan`).
//!
//! Cost: one hash of the key a classification; at most about 1 MiB a thread (entries times the
//! longest key), a few hundred KiB with the short commands most denials carry.

use std::cell::RefCell;
use std::collections::HashMap;

use super::Risk;

/// Attempts remembered per thread, at most.
pub(super) const MEMO_ENTRIES: usize = 1024;
/// Longest key remembered, in bytes.
pub(super) const MEMO_MAX_KEY_BYTES: usize = 1024;

#[derive(Default)]
struct Memo {
    /// The rules the entries were computed with.
    rules: u64,
    known: HashMap<Box<str>, Risk>,
}

thread_local! {
    static MEMO: RefCell<Memo> = RefCell::new(Memo::default());
}

/// The class remembered for `key` under `rules`, else `compute()`'s, remembered.
pub(super) fn recall_or(rules: u64, key: &str, compute: impl FnOnce() -> Risk) -> Risk {
    if key.len() > MEMO_MAX_KEY_BYTES {
        return compute();
    }
    let known = MEMO.with(|m| {
        let m = m.borrow();
        (m.rules == rules)
            .then(|| m.known.get(key).copied())
            .flatten()
    });
    if let Some(risk) = known {
        return risk;
    }
    let risk = compute();
    MEMO.with(|m| {
        let mut m = m.borrow_mut();
        if m.rules != rules || m.known.len() >= MEMO_ENTRIES {
            m.known.clear();
            m.rules = rules;
        }
        m.known.insert(key.into(), risk);
    });
    risk
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_key_is_remembered_per_rules_and_the_memo_stays_bounded() {
        assert_eq!(recall_or(1, "k", || Risk::RemoteCode), Risk::RemoteCode);
        assert_eq!(
            recall_or(1, "k", || unreachable!("remembered")),
            Risk::RemoteCode
        );
        assert_eq!(recall_or(2, "k", || Risk::None), Risk::None);
        for i in 0..MEMO_ENTRIES * 2 {
            recall_or(2, &i.to_string(), || Risk::None);
        }
        assert!(MEMO.with(|m| m.borrow().known.len()) <= MEMO_ENTRIES);
        let long = "x".repeat(MEMO_MAX_KEY_BYTES + 1);
        assert_eq!(
            recall_or(2, &long, || Risk::Exfiltration),
            Risk::Exfiltration
        );
        assert_eq!(recall_or(2, &long, || Risk::None), Risk::None);
    }
}
