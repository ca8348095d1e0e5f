//! Remembers, per thread, recent texts found to hold no secret, so that a text seen again
//! (a tool name, a stock denial reason: a replay of 6,791 denials has 199 distinct reasons and
//! 6 tool names) is answered without scanning.
//!
//! Owns a direct-mapped table of [`SLOTS`] texts of at most [`MAX_TEXT_BYTES`] each, per thread
//! (no lock, no shared state). Only texts with no secret are ever stored, and a hit compares
//! the whole text, so the table never holds a secret, nor a hash that could stand for one.
//! Entries are tagged with the redactor that vetted them.
//!
//! Not here: finding secrets (`engine`).
//!
//! Cost: one hash of the text per redaction; at most SLOTS × MAX_TEXT_BYTES (64 KiB) per thread.

use std::cell::RefCell;
use std::collections::hash_map::DefaultHasher;
use std::hash::{Hash, Hasher};

/// Table size (a power of two).
const SLOTS: usize = 256;
/// Longer texts are not remembered: they rarely repeat and would dominate the table's memory.
const MAX_TEXT_BYTES: usize = 256;

/// A remembered clean text and the redactor (address) that vetted it.
type Slot = Option<(usize, Box<str>)>;

thread_local! {
    static CLEAN: RefCell<Vec<Slot>> = RefCell::new(vec![None; SLOTS]);
}

fn slot(owner: usize, text: &str) -> usize {
    let mut hasher = DefaultHasher::new();
    owner.hash(&mut hasher);
    text.hash(&mut hasher);
    (hasher.finish() as usize) & (SLOTS - 1)
}

/// Whether `owner` (a redactor's address) found `text` clean recently on this thread.
pub(super) fn is_known_clean(owner: usize, text: &str) -> bool {
    if text.len() > MAX_TEXT_BYTES {
        return false;
    }
    let at = slot(owner, text);
    CLEAN.with(|clean| {
        clean.borrow()[at]
            .as_ref()
            .is_some_and(|(o, t)| *o == owner && **t == *text)
    })
}

/// Records that `owner` found `text` to hold no secret. Callers must only pass clean texts.
pub(super) fn remember_clean(owner: usize, text: &str) {
    if text.len() > MAX_TEXT_BYTES {
        return;
    }
    let at = slot(owner, text);
    CLEAN.with(|clean| clean.borrow_mut()[at] = Some((owner, text.into())));
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
}
