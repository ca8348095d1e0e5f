//! Remembers, per thread, what recent texts came to, so that a text seen again is answered
//! without scanning: texts found to hold no secret here (a tool name, a stock denial reason: a
//! replay of 6,791 denials has 199 distinct reasons and 6 tool names), texts holding one in
//! [`redacted`] (their redacted output, under a keyed hash).
//!
//! Owns a two-way set-associative table of [`SLOTS`] clean texts of at most [`MAX_TEXT_BYTES`]
//! each, per thread (no lock, no shared state); a set keeps the one found again last and replaces the
//! other. Two ways matter: an audit stream interleaves a few texts that repeat (reasons, tool
//! names, the source path) with ids that never do, and in a direct-mapped table every id evicts
//! whatever repeating text shares its slot. A new text takes the second way, so a stream of
//! ids seen once churns that way only. A text that recurs further apart than that (a stock
//! denial reason every few hundred records, with thousands of ids between) is let go before it
//! comes back: a text scanned clean [`RECUR_AFTER`] times (a count per hash, [`SEEN_SLOTS`] of
//! them) is kept in a second, direct-mapped table of [`RECURRING_SLOTS`] that ids, scanned once,
//! never enter. Only texts with no secret are stored here, whole, and a hit compares the whole
//! text; entries are tagged with the redactor that vetted them.
//! The promise of the whole memo: it holds clean texts, redacted outputs, and hashes of
//! secret-bearing texts under a per-thread random key that never leaves memory, so nothing in
//! it is a secret or can confirm a guessed one offline (see [`redacted`]).
//!
//! Not here: finding secrets (`engine`).
//!
//! Cost: one multiplicative hash of the text per redaction (not collision-resistant: a crafted
//! collision only costs a scan); at most (SLOTS + RECURRING_SLOTS) × MAX_TEXT_BYTES (384 KiB)
//! per thread, about a tenth of that for ids and reasons, and 16 KiB of scan counts.

use std::cell::RefCell;

pub(super) mod redacted;

/// Table size (a power of two): SLOTS / 2 sets of two.
const SLOTS: usize = 1024;
/// Longer texts are not remembered: they rarely repeat and would dominate the table's memory.
const MAX_TEXT_BYTES: usize = 256;
/// Size of the table of recurring texts (a power of two, direct-mapped).
const RECURRING_SLOTS: usize = 512;
/// Scan counts kept (a power of two, direct-mapped by hash; a collision restarts a count).
const SEEN_SLOTS: usize = 4096;
/// Clean scans of one text after which it is kept as recurring: the second scan means it came
/// back after the two-way table let it go.
const RECUR_AFTER: u32 = 2;

/// A remembered clean text and the redactor (address) that vetted it.
type Slot = Option<(usize, Box<str>)>;

thread_local! {
    static CLEAN: RefCell<Vec<Slot>> = const { RefCell::new(Vec::new()) };
    static RECURRING: RefCell<Vec<Slot>> = const { RefCell::new(Vec::new()) };
    /// Per hash: 24 of its bits and, in the low 8, how many times it was scanned clean.
    static SEEN: RefCell<Vec<u32>> = const { RefCell::new(Vec::new()) };
}

/// The first slot of the set for `text` (its pair is the next slot).
#[cfg(test)]
fn set_of(owner: usize, text: &str) -> usize {
    set_at(hash_of(owner, text))
}

/// The first slot of the set for a text of `hash`.
fn set_at(hash: u64) -> usize {
    ((hash >> 32) as usize & (SLOTS / 2 - 1)) * 2
}

/// The slot of `text` in the table of recurring texts, from other bits of the hash (the high
/// ones: a product's low bits depend on the low bits of the text only).
fn recurring_slot_of(hash: u64) -> usize {
    (hash >> 23) as usize & (RECURRING_SLOTS - 1)
}

fn hash_of(owner: usize, text: &str) -> u64 {
    const K: u64 = 0x9E37_79B9_7F4A_7C15;
    let mut hash = (owner as u64).wrapping_mul(K);
    let mut chunks = text.as_bytes().chunks_exact(8);
    for chunk in &mut chunks {
        let word = u64::from_le_bytes(chunk.try_into().expect("8 bytes"));
        hash = (hash.rotate_left(5) ^ word).wrapping_mul(K);
    }
    for &b in chunks.remainder() {
        hash = (hash.rotate_left(5) ^ u64::from(b)).wrapping_mul(K);
    }
    (hash ^ text.len() as u64).wrapping_mul(K)
}

fn holds(slot: &Slot, owner: usize, text: &str) -> bool {
    slot.as_ref()
        .is_some_and(|(o, t)| *o == owner && **t == *text)
}

/// Whether `owner` (a redactor's address) found `text` clean recently on this thread.
pub(super) fn is_known_clean(owner: usize, text: &str) -> bool {
    if text.len() > MAX_TEXT_BYTES {
        return false;
    }
    let hash = hash_of(owner, text);
    let at = set_at(hash);
    let in_ways = CLEAN.with(|clean| {
        let mut clean = clean.borrow_mut();
        if clean.is_empty() {
            return false;
        }
        if holds(&clean[at], owner, text) {
            return true;
        }
        if holds(&clean[at + 1], owner, text) {
            clean.swap(at, at + 1); // the first way holds the one used last
            return true;
        }
        false
    });
    in_ways
        || RECURRING.with(|recurring| {
            recurring
                .borrow()
                .get(recurring_slot_of(hash))
                .is_some_and(|slot| holds(slot, owner, text))
        })
}

/// Records that `owner` found `text` to hold no secret. Callers must only pass clean texts.
pub(super) fn remember_clean(owner: usize, text: &str) {
    if text.len() > MAX_TEXT_BYTES {
        return;
    }
    let hash = hash_of(owner, text);
    let at = set_at(hash);
    CLEAN.with(|clean| {
        let mut clean = clean.borrow_mut();
        if clean.is_empty() {
            clean.resize(SLOTS, None);
        }
        // A new text takes the second way, so a text seen once (an id) replaces only another
        // such, never the one found again last, which a hit moved to the first way.
        let way = if clean[at].is_none() { at } else { at + 1 };
        clean[way] = Some((owner, text.into()));
    });
    if count_scan(hash) >= RECUR_AFTER {
        RECURRING.with(|recurring| {
            let mut recurring = recurring.borrow_mut();
            if recurring.is_empty() {
                recurring.resize(RECURRING_SLOTS, None);
            }
            recurring[recurring_slot_of(hash)] = Some((owner, text.into()));
        });
    }
}

/// Counts a clean scan of the text of `hash`; returns how many its slot has counted.
fn count_scan(hash: u64) -> u32 {
    SEEN.with(|seen| {
        let mut seen = seen.borrow_mut();
        if seen.is_empty() {
            seen.resize(SEEN_SLOTS, 0);
        }
        let slot = &mut seen[(hash >> 44) as usize & (SEEN_SLOTS - 1)];
        let tag = hash as u32 & !0xff;
        let count = if *slot & !0xff == tag {
            (*slot & 0xff).saturating_add(1).min(0xff)
        } else {
            1
        };
        *slot = tag | count;
        count
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn remembers_only_what_it_was_told_per_owner() {
        assert!(!is_known_clean(1, "Bash"));
        remember_clean(1, "Bash");
        assert!(is_known_clean(1, "Bash"));
        assert!(!is_known_clean(2, "Bash"));
        let long = "x".repeat(MAX_TEXT_BYTES + 1);
        remember_clean(1, &long);
        assert!(!is_known_clean(1, &long));
    }

    #[test]
    fn a_repeating_text_survives_a_stream_of_texts_that_share_its_set() {
        remember_clean(7, "The user declined this tool use");
        let set = set_of(7, "The user declined this tool use");
        let mut sharing = (0..100_000)
            .map(|i| format!("toolu_{i:024}"))
            .filter(|id| set_of(7, id) == set);
        for _ in 0..20 {
            let id = sharing.next().expect("ids that share the set");
            remember_clean(7, &id);
            assert!(is_known_clean(7, "The user declined this tool use"));
        }
    }

    #[test]
    fn a_text_that_recurs_far_apart_is_kept_and_ids_seen_once_are_not() {
        let reason = "Edit(.env) is denied by a deny rule in .claude/settings.json";
        let set = set_of(9, reason);
        let mut sharing = (0..1_000_000)
            .map(|i| format!("toolu_{i:024}"))
            .filter(|id| set_of(9, id) == set);
        let flood = |sharing: &mut dyn Iterator<Item = String>| {
            let ids: Vec<String> = sharing.take(3).collect();
            for id in &ids {
                remember_clean(9, id);
            }
            ids
        };
        flood(&mut sharing); // the first way holds an id
        remember_clean(9, reason);
        flood(&mut sharing);
        assert!(
            !is_known_clean(9, reason),
            "the two ways let a text seen once go"
        );
        remember_clean(9, reason); // scanned clean a second time
        let ids = flood(&mut sharing);
        assert!(is_known_clean(9, reason), "kept as recurring");
        flood(&mut sharing);
        assert!(
            !ids.iter().any(|id| is_known_clean(9, id)),
            "ids scanned once are let go"
        );
        assert!(!is_known_clean(10, reason), "per owner");
    }

    #[test]
    fn a_text_found_again_outlives_texts_seen_once_in_a_row() {
        let reason = "Permission mode 'plan' does not allow Edit";
        remember_clean(8, reason);
        assert!(is_known_clean(8, reason));
        let set = set_of(8, reason);
        let sharing = (0..100_000)
            .map(|i| format!("exec_{i:020}"))
            .filter(|id| set_of(8, id) == set)
            .take(20);
        for id in sharing {
            remember_clean(8, &id);
        }
        assert!(is_known_clean(8, reason));
    }
}
