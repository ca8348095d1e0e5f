//! Remembers, per thread, what recent texts holding a secret redact to, so that a text seen
//! again (a denial reason or a command that recurs with the same token in it) is answered
//! without running the rules over it again.
//!
//! Owns a two-way set-associative table of [`SLOTS`] entries, per thread (no lock, no shared
//! state). An entry is the text's [`Key`], its redacted output (at most [`MAX_OUTPUT_BYTES`])
//! and the kinds it replaced with their counts, which a hit replays into the caller's tally
//! so counters count every occurrence as a scan would. The promise: an entry holds the
//! redacted output, which holds no secret, and a 128-bit keyed hash of the text (two outputs of
//! std's `DefaultHasher`, SipHash-1-3 today, under this thread's `RandomState` key, drawn from
//! the OS) that never leaves memory and is never written anywhere; the set an entry sits in is
//! taken from that hash too. So the table holds nothing of a secret the process does not
//! already hold while it redacts, and nothing the process writes, logs or serves can confirm a
//! guessed secret offline: that takes the key, which only this thread's memory holds (a dump of
//! that memory would hold the texts being redacted anyway). A hit needs the 128-bit hash and
//! the length to match: an accidental collision is a 2^-128 event per pair, and a crafted one
//! needs the key.
//!
//! Not here: finding secrets (`engine`), remembering clean texts (`memo`).
//!
//! Cost: one SipHash pass over a text of at most [`MAX_TEXT_BYTES`] that the clean table does
//! not know (longer ones are neither hashed nor remembered); at most SLOTS × MAX_OUTPUT_BYTES
//! (256 KiB) of outputs per thread, plus about 16 KiB of slots once a secret has been seen;
//! a replay's few dozen recurring texts hold a few KiB.

use std::cell::RefCell;
use std::collections::hash_map::RandomState;
use std::hash::{BuildHasher, Hasher};

/// Table size (a power of two): SLOTS / 2 sets of two.
const SLOTS: usize = 256;
/// Longer texts are not remembered (nor hashed): they rarely recur.
const MAX_TEXT_BYTES: usize = 4096;
/// Longer outputs are not remembered: they would dominate the table's memory.
pub(in crate::redact) const MAX_OUTPUT_BYTES: usize = 1024;

/// Each kind a text's redaction replaced, with how many times.
pub(in crate::redact) type Kinds = Box<[(&'static str, u32)]>;

/// A text's identity: a 128-bit keyed hash of the redactor's address and the text, and the
/// text's length. Never derived from anything but this thread's random key and the text.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub(in crate::redact) struct Key {
    tag: u128,
    len: usize,
}

struct Entry {
    key: Key,
    output: Box<str>,
    kinds: Kinds,
}

thread_local! {
    /// This thread's hash key (two random 64-bit words inside `RandomState`).
    static HASH_KEY: RandomState = RandomState::new();
    static TABLE: RefCell<Vec<Option<Entry>>> = const { RefCell::new(Vec::new()) };
}

impl Key {
    /// The key of `text` as redacted by `owner` (a redactor's address), or `None` for a text
    /// too long to remember.
    pub(in crate::redact) fn of(owner: usize, text: &str) -> Option<Key> {
        if text.len() > MAX_TEXT_BYTES {
            return None;
        }
        Some(HASH_KEY.with(|key| {
            let mut hasher = key.build_hasher();
            hasher.write_usize(owner);
            hasher.write(text.as_bytes());
            let low = hasher.finish();
            // A second output of the same keyed function over a longer input: independent
            // of the first as far as anyone without the key can tell.
            hasher.write_u8(0xff);
            let high = hasher.finish();
            Key {
                tag: u128::from(high) << 64 | u128::from(low),
                len: text.len(),
            }
        }))
    }

    /// The first slot of this key's set (its pair is the next slot).
    fn set(&self) -> usize {
        (self.tag as usize & (SLOTS / 2 - 1)) * 2
    }
}

fn holds(slot: &Option<Entry>, key: &Key) -> bool {
    slot.as_ref().is_some_and(|entry| entry.key == *key)
}

/// `read` applied to the remembered output and kinds of the text with `key`, if remembered.
pub(in crate::redact) fn recall<R>(
    key: &Key,
    read: impl FnOnce(&str, &[(&'static str, u32)]) -> R,
) -> Option<R> {
    let at = key.set();
    TABLE.with(|table| {
        let mut table = table.borrow_mut();
        if table.is_empty() {
            return None;
        }
        if holds(&table[at + 1], key) {
            table.swap(at, at + 1); // the first way holds the one used last
        }
        let entry = table[at].as_ref().filter(|entry| entry.key == *key)?;
        Some(read(&entry.output, &entry.kinds))
    })
}

/// Records that the text with `key` redacts to `output`, replacing `kinds`. Callers pass the
/// output of a scan, never the text.
pub(in crate::redact) fn remember(key: Key, output: &str, kinds: Kinds) {
    if output.len() > MAX_OUTPUT_BYTES {
        return;
    }
    let at = key.set();
    TABLE.with(|table| {
        let mut table = table.borrow_mut();
        if table.is_empty() {
            table.resize_with(SLOTS, || None);
        }
        // The one used last moves to the second way; the other is replaced.
        table[at + 1] = table[at].take();
        table[at] = Some(Entry {
            key,
            output: output.into(),
            kinds,
        });
    })
}

/// Everything this thread's table holds besides hashes: each entry's output and kinds (tests
/// look for secrets in it).
#[cfg(test)]
pub(in crate::redact) fn contents() -> Vec<(String, Vec<(&'static str, u32)>)> {
    TABLE.with(|table| {
        table
            .borrow()
            .iter()
            .flatten()
            .map(|entry| (entry.output.to_string(), entry.kinds.to_vec()))
            .collect()
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn recalls_by_owner_and_exact_text_only() {
        let text = "export TOKEN=abc";
        let key = Key::of(1, text).expect("short");
        assert_eq!(recall(&key, |o, _| o.to_string()), None);
        remember(key, "export TOKEN=[REDACTED:x]", Box::new([("x", 1)]));
        let got = recall(&key, |o, k| (o.to_string(), k.to_vec()));
        assert_eq!(
            got,
            Some(("export TOKEN=[REDACTED:x]".into(), vec![("x", 1)]))
        );
        assert_eq!(Key::of(1, text), Some(key), "stable within a thread");
        for other in [
            Key::of(2, text),
            Key::of(1, "export TOKEN=abd"),
            Key::of(1, "export TOKEN=ab"),
        ] {
            let other = other.expect("short");
            assert_ne!(other, key);
            assert_eq!(recall(&other, |o, _| o.to_string()), None);
        }
        assert_eq!(Key::of(1, &"x".repeat(MAX_TEXT_BYTES + 1)), None);
    }

    #[test]
    fn the_hash_key_differs_between_threads() {
        let here = Key::of(1, "same text");
        let there = std::thread::spawn(|| Key::of(1, "same text"))
            .join()
            .expect("thread");
        assert_ne!(here, there);
    }

    #[test]
    fn long_outputs_are_not_remembered() {
        let key = Key::of(3, "t").expect("short");
        remember(key, &"o".repeat(MAX_OUTPUT_BYTES + 1), Box::new([]));
        assert_eq!(recall(&key, |_, _| ()), None);
    }
}
