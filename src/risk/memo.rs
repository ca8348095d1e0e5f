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
//! longest key), a few hundred KiB with the short commands most denials carry. The hash is a
//! multiply-fold over 8 bytes at a time, keyed per thread from the standard library's random
//! keys: several times cheaper than SipHash on keys of a few hundred bytes, which most denials
//! only look up. Keys are compared in full, so a collision costs a comparison, never a wrong
//! class; and with at most [`MEMO_ENTRIES`] entries, even crafted collisions bound a lookup.

use std::cell::RefCell;
use std::collections::HashMap;
use std::hash::{BuildHasher, Hasher, RandomState};

use super::Risk;

/// Attempts remembered per thread, at most.
pub(super) const MEMO_ENTRIES: usize = 1024;
/// Longest key remembered, in bytes.
pub(super) const MEMO_MAX_KEY_BYTES: usize = 1024;

#[derive(Default)]
struct Memo {
    /// The rules the entries were computed with.
    rules: u64,
    known: HashMap<Box<str>, Risk, KeyHash>,
}

/// Builds [`FoldHasher`]s with this thread's random key.
#[derive(Clone, Copy)]
struct KeyHash(u64);

impl Default for KeyHash {
    fn default() -> KeyHash {
        KeyHash(RandomState::new().hash_one(0x6d65_6d6f_u64))
    }
}

impl BuildHasher for KeyHash {
    type Hasher = FoldHasher;

    fn build_hasher(&self) -> FoldHasher {
        FoldHasher(self.0)
    }
}

/// Folds 8 bytes at a time into the state with a 64 by 64 to 128 bit multiply.
struct FoldHasher(u64);

/// The multiply's constant: the odd 64-bit fraction of the golden ratio.
const FOLD: u64 = 0x9e37_79b9_7f4a_7c15;

fn fold(state: u64, word: u64) -> u64 {
    let product = u128::from(state ^ word).wrapping_mul(u128::from(FOLD));
    (product as u64) ^ ((product >> 64) as u64)
}

impl Hasher for FoldHasher {
    fn write(&mut self, bytes: &[u8]) {
        let mut chunks = bytes.chunks_exact(8);
        for chunk in &mut chunks {
            let word = u64::from_le_bytes(chunk.try_into().expect("8-byte chunk"));
            self.0 = fold(self.0, word);
        }
        let rest = chunks.remainder();
        let mut last = [0u8; 8];
        last[..rest.len()].copy_from_slice(rest);
        // The length keeps "ab" and "ab\0" apart.
        self.0 = fold(
            self.0,
            u64::from_le_bytes(last) ^ ((bytes.len() as u64) << 56),
        );
    }

    fn finish(&self) -> u64 {
        fold(self.0, FOLD)
    }
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

    #[test]
    fn the_key_hash_tells_near_keys_apart() {
        let build = KeyHash(7);
        let hash = |key: &str| build.hash_one(key);
        let keys = [
            "",
            "a",
            "a\0",
            "ab",
            "ba",
            "abcdefgh",
            "abcdefgi",
            "abcdefghX",
        ];
        let mut hashes: Vec<u64> = keys.iter().map(|k| hash(k)).collect();
        hashes.sort_unstable();
        hashes.dedup();
        assert_eq!(hashes.len(), keys.len());
        assert_eq!(hash("same"), hash("same"));
        assert_ne!(KeyHash(8).hash_one("same"), hash("same"));
    }
}
