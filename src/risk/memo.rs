//! Remembers, per thread, the class of recent attempts and the classes found in recent fields,
//! so a denial whose attempt was seen before (an agent retrying a forbidden command, the same
//! hook denial across executions) costs a lookup instead of a classification, and an attempt
//! seen for the first time costs a lookup for each field seen before (the same path written
//! with new content, the same command beside a new description).
//!
//! Owns the two memos, each keyed by which [`super::RiskRules`] asked: [`ATTEMPTS`], by either
//! the tool and the input's JSON text as logged, or the exact text the classifier would examine
//! (each field's role and bytes, within the budget); and [`FIELDS`], by one field's role and
//! bytes, holding the classes found in it. `scan` writes the keys. Classifying is a function of
//! what a key holds, so a hit returns exactly what classifying would. Bounded: each memo holds
//! two generations of at most [`MEMO_ENTRIES`] entries a thread: when the newer is full, the
//! older is dropped and the newer becomes the older; a hit in the older moves its entry to the
//! newer. So the last [`MEMO_ENTRIES`] attempts are always remembered, and an attempt that keeps
//! coming back stays remembered while a stream of one-off attempts passes through, where
//! emptying the whole memo when full made every frequent attempt a first sight again. Keys
//! longer than [`MEMO_MAX_KEY_BYTES`] are not remembered.
//! **Not here:** classifying (`scan`), deciding what is worth remembering (`scan`).
//!
//! Cost: one hash of the key a lookup; at most about 1 MiB a memo and thread (entries times
//! the longest key), a few hundred KiB with the short commands most denials carry (a longer
//! attempt's fields are still remembered one by one). The hash is a
//! multiply-fold over 8 bytes at a time, keyed per thread from the standard library's random
//! keys: several times cheaper than SipHash on keys of a few hundred bytes, which most denials
//! only look up. Keys are compared in full, so a collision costs a comparison, never a wrong
//! class; and with at most twice [`MEMO_ENTRIES`] entries, even crafted collisions bound a
//! lookup.

use std::cell::RefCell;
use std::collections::HashMap;
use std::hash::{BuildHasher, Hasher, RandomState};
use std::thread::LocalKey;

use super::Risk;

/// Entries of one generation of a memo, at most; a memo and thread holds up to twice this.
pub(super) const MEMO_ENTRIES: usize = 1024;
/// Longest key remembered, in bytes.
pub(super) const MEMO_MAX_KEY_BYTES: usize = 512;

/// One memo: the newer and the older generation, each at most [`MEMO_ENTRIES`] entries.
pub(super) struct Memo<V> {
    /// The rules the entries were computed with.
    rules: u64,
    young: HashMap<Box<[u8]>, V, KeyHash>,
    old: HashMap<Box<[u8]>, V, KeyHash>,
}

impl<V> Default for Memo<V> {
    /// Empty, with room for the first generation: a map grown from empty rehashes every entry
    /// each time it doubles on the way to [`MEMO_ENTRIES`]. The older generation takes no room
    /// until the newer one first fills (a memo that never fills holds one map, about 50 KB).
    fn default() -> Memo<V> {
        let hash = KeyHash::default();
        Memo {
            rules: 0,
            young: HashMap::with_capacity_and_hasher(MEMO_ENTRIES, hash),
            old: HashMap::with_hasher(hash),
        }
    }
}

impl<V: Copy> Memo<V> {
    fn recall(&mut self, rules: u64, key: &[u8]) -> Option<V> {
        if self.rules != rules {
            return None;
        }
        if let Some(value) = self.young.get(key) {
            return Some(*value);
        }
        let (key, value) = self.old.remove_entry(key)?;
        self.insert(key, value);
        Some(value)
    }

    fn remember(&mut self, rules: u64, key: &[u8], value: V) {
        if self.rules != rules {
            self.young.clear();
            self.old.clear();
            self.rules = rules;
        }
        self.insert(key.into(), value);
    }

    fn insert(&mut self, key: Box<[u8]>, value: V) {
        if self.young.len() >= MEMO_ENTRIES {
            // The older generation's allocation is reused for the new newer one.
            std::mem::swap(&mut self.young, &mut self.old);
            self.young.clear();
        }
        self.young.insert(key, value);
    }

    #[cfg(test)]
    fn len(&self) -> usize {
        self.young.len() + self.old.len()
    }
}

thread_local! {
    /// Attempts: the class of each.
    pub(super) static ATTEMPTS: RefCell<Memo<Risk>> = RefCell::new(Memo::default());
    /// Fields: the classes found in each, one bit each (`scan`'s `Found`).
    pub(super) static FIELDS: RefCell<Memo<u32>> = RefCell::new(Memo::default());
}

/// The value `memo` remembers for `key` under `rules`, if any.
pub(super) fn recall<V: Copy + 'static>(
    memo: &'static LocalKey<RefCell<Memo<V>>>,
    rules: u64,
    key: &[u8],
) -> Option<V> {
    if key.len() > MEMO_MAX_KEY_BYTES {
        return None;
    }
    memo.with(|m| m.borrow_mut().recall(rules, key))
}

/// Remembers `value` for `key` under `rules` in `memo` (not when the key is too long).
pub(super) fn remember<V: Copy + 'static>(
    memo: &'static LocalKey<RefCell<Memo<V>>>,
    rules: u64,
    key: &[u8],
    value: V,
) {
    if key.len() <= MEMO_MAX_KEY_BYTES {
        memo.with(|m| m.borrow_mut().remember(rules, key, value));
    }
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

    // A slice's length is already folded in by `write`.
    fn write_usize(&mut self, _: usize) {}

    fn finish(&self) -> u64 {
        fold(self.0, FOLD)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_key_is_remembered_per_rules_and_the_memo_stays_bounded() {
        let key = b"k".as_slice();
        assert_eq!(recall(&ATTEMPTS, 1, key), None);
        remember(&ATTEMPTS, 1, key, Risk::RemoteCode);
        assert_eq!(recall(&ATTEMPTS, 1, key), Some(Risk::RemoteCode));
        assert_eq!(recall(&ATTEMPTS, 2, key), None);
        remember(&ATTEMPTS, 2, key, Risk::None);
        assert_eq!(recall(&ATTEMPTS, 2, key), Some(Risk::None));
        for i in 0..MEMO_ENTRIES * 3 {
            remember(&ATTEMPTS, 2, i.to_string().as_bytes(), Risk::None);
            assert!(ATTEMPTS.with(|m| m.borrow().len()) <= 2 * MEMO_ENTRIES);
        }
        // The last generation's worth of keys are all remembered.
        for i in 2 * MEMO_ENTRIES..MEMO_ENTRIES * 3 {
            assert_eq!(
                recall(&ATTEMPTS, 2, i.to_string().as_bytes()),
                Some(Risk::None)
            );
        }
        let long = "x".repeat(MEMO_MAX_KEY_BYTES + 1);
        remember(&ATTEMPTS, 2, long.as_bytes(), Risk::Exfiltration);
        assert_eq!(recall(&ATTEMPTS, 2, long.as_bytes()), None);
    }

    #[test]
    fn a_key_that_keeps_coming_back_outlives_a_stream_of_one_off_keys() {
        let frequent = b"git push --force".as_slice();
        remember(&FIELDS, 7, frequent, 0b100);
        for i in 0..MEMO_ENTRIES * 4 {
            remember(&FIELDS, 7, format!("one-off {i}").as_bytes(), 0);
            if i % (MEMO_ENTRIES / 4) == 0 {
                assert_eq!(recall(&FIELDS, 7, frequent), Some(0b100), "after {i}");
            }
        }
        // Without a lookup, it goes once two generations have passed.
        for i in 0..MEMO_ENTRIES * 2 {
            remember(&FIELDS, 7, format!("again {i}").as_bytes(), 0);
        }
        assert_eq!(recall(&FIELDS, 7, frequent), None);
        assert_eq!(recall(&FIELDS, 7, b"again 2047"), Some(0));
    }

    #[test]
    fn the_key_hash_tells_near_keys_apart() {
        let build = KeyHash(7);
        let hash = |key: &str| build.hash_one(key.as_bytes());
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
        assert_ne!(KeyHash(8).hash_one(b"same".as_slice()), hash("same"));
    }
}
