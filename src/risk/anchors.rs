//! Finds every occurrence (overlapping ones included) of the rules' anchor literals in a text:
//! the search `engine` runs over each examined field to learn which rules may match it.
//!
//! Owns the literal search and nothing else: which rules a literal admits, and at which word
//! edges, is `engine`'s. It must report exactly what a general multi-literal search (an
//! Aho-Corasick automaton in overlapping mode) reports, in any order; the unit tests hold it to
//! one over the corpus and over texts built from the literals themselves.
//!
//! Cost: built once per rule set from a few hundred literals (two sorts and a few small arrays,
//! where an Aho-Corasick automaton took 2.7 M instructions on the text rules). Searching hashes
//! each position's first two bytes to one of 2,048 buckets and tests the bucket's bit in a
//! 256-byte bitmap: most positions end there, without a branch on what the byte is (testing the
//! first byte first passed four positions in five, since nearly every letter starts some
//! literal, and mispredicted). Only a filled bucket reads the bucket table (4 KiB) and compares
//! its few literals, each by its first eight bytes in one load. The four one-byte literals are
//! found apart, with `memchr`. About 25 instructions a byte over a replay's fields, where the
//! search that tested the first byte took 33 and the automaton's overlapping search about 50. About 17 KiB in all (the automaton: 29 KB),
//! of which a search mostly reads the 256-byte bitmap.

/// Buckets of the two-byte table: a power of two.
const BUCKETS: usize = 2048;

/// A literal id: its index in the list the set was built from.
pub(super) type LiteralId = u16;

const NO_LITERAL: LiteralId = LiteralId::MAX;

/// A set of short byte literals, searched for all at once. Matching is exact (bytewise): the
/// caller lower-cases the text and the literals alike.
pub(super) struct Literals {
    /// Every literal's bytes, one after the other.
    bytes: Vec<u8>,
    /// By literal id, where its bytes start in `bytes` and how many there are.
    spans: Vec<(u32, u32)>,
    /// The one-byte literals: each byte, and its id. Found with `memchr`, one pass for up to
    /// three of them: the rule tables have four (`|`, `$`, `>`, `@`), so the main loop never
    /// asks about them.
    singles: Vec<(u8, LiteralId)>,
    /// One bit a bucket: set when the bucket holds a literal. A position whose first two bytes
    /// fall in an empty bucket (most of them) costs one load from these 256 bytes, and never
    /// touches `offsets` or `entries`.
    filled: [u64; BUCKETS / 64],
    /// Bucket `b` holds `entries[offsets[b]..offsets[b + 1]]`.
    offsets: Box<[u16; BUCKETS + 1]>,
    /// The literals of two bytes or more, grouped by the bucket of their first two bytes.
    entries: Vec<Entry>,
}

/// A literal of two bytes or more: its first eight bytes (fewer, zero-padded, when it is
/// shorter), compared with one load of the text; only a longer literal reads its rest.
#[derive(Debug, Clone, Copy)]
struct Entry {
    prefix: u64,
    /// The bits of `prefix` the literal fills.
    mask: u64,
    id: LiteralId,
}

/// Zero bytes a searched text must end with, beyond its own bytes: each position's eight bytes
/// are read in one load. No literal holds a zero byte, so none matches into them.
pub(super) const PADDING: usize = 8;

/// The first eight bytes of `bytes` (zero-padded) as one little-endian word.
fn word(bytes: &[u8]) -> u64 {
    let mut buf = [0u8; 8];
    let n = bytes.len().min(8);
    buf[..n].copy_from_slice(&bytes[..n]);
    u64::from_le_bytes(buf)
}

/// The bucket of a pair of bytes, as `u16::from_le_bytes([first, second])`.
fn bucket(pair: u16) -> usize {
    (u32::from(pair).wrapping_mul(0x9E37_79B1) >> (32 - BUCKETS.trailing_zeros())) as usize
}

impl Literals {
    /// The set of `literals`, each identified by its index. Panics on an empty literal, a
    /// repeated one, or more than 65,534 of them (the rule tables hold a few hundred).
    pub(super) fn new<S: AsRef<[u8]>>(literals: &[S]) -> Literals {
        assert!(
            literals.len() < usize::from(NO_LITERAL),
            "too many literals"
        );
        let mut bytes = Vec::new();
        let mut spans = Vec::with_capacity(literals.len());
        let mut singles: Vec<(u8, LiteralId)> = Vec::new();
        let mut entries = Vec::new();
        for (id, literal) in literals.iter().enumerate() {
            let literal = literal.as_ref();
            let id = LiteralId::try_from(id).expect("checked above");
            spans.push((
                u32::try_from(bytes.len()).expect("a few KiB of literals"),
                u32::try_from(literal.len()).expect("a short literal"),
            ));
            bytes.extend_from_slice(literal);
            match *literal {
                [] => panic!("an empty literal matches everywhere"),
                [byte] => singles.push((byte, id)),
                _ => entries.push(Entry {
                    prefix: word(literal),
                    mask: u64::MAX >> (64 - 8 * literal.len().min(8)),
                    id,
                }),
            }
            assert!(
                !literal.contains(&0),
                "literal {literal:?} holds a zero byte"
            );
        }
        let pair_bucket = |entry: &Entry| bucket(entry.prefix as u16);
        entries.sort_unstable_by_key(|entry| (pair_bucket(entry), entry.id));
        let mut offsets = Box::new([0u16; BUCKETS + 1]);
        let mut filled = [0u64; BUCKETS / 64];
        for entry in &entries {
            let b = pair_bucket(entry);
            offsets[b + 1] += 1;
            filled[b / 64] |= 1 << (b % 64);
        }
        for b in 0..BUCKETS {
            offsets[b + 1] += offsets[b];
        }
        let mut sorted: Vec<&[u8]> = literals.iter().map(AsRef::as_ref).collect();
        sorted.sort_unstable();
        if let Some(pair) = sorted.windows(2).find(|pair| pair[0] == pair[1]) {
            panic!("literal {:?} is repeated", pair[0]);
        }
        Literals {
            bytes,
            spans,
            singles,
            filled,
            offsets,
            entries,
        }
    }

    /// The literals, by id.
    #[cfg(test)]
    pub(super) fn literals(&self) -> Vec<&[u8]> {
        (0..self.spans.len())
            .map(|id| self.literal(LiteralId::try_from(id).expect("fewer than 65,535")))
            .collect()
    }

    fn literal(&self, id: LiteralId) -> &[u8] {
        let (start, len) = self.spans[usize::from(id)];
        &self.bytes[start as usize..(start + len) as usize]
    }

    /// Calls `found(id, start, end)` for every occurrence of every literal in `text`,
    /// overlapping ones included, in no particular order. `text` ends with [`PADDING`] zero
    /// bytes that are not searched (the caller appends them to the text it searches).
    pub(super) fn for_each_occurrence(
        &self,
        text: &[u8],
        mut found: impl FnMut(LiteralId, usize, usize),
    ) {
        let len = text
            .len()
            .checked_sub(PADDING)
            .expect("a searched text ends with its padding");
        // Up to three one-byte literals a pass.
        for group in self.singles.chunks(3) {
            let mut at_one = |at: usize| {
                for &(byte, id) in group {
                    if text[at] == byte {
                        found(id, at, at + 1);
                    }
                }
            };
            let haystack = &text[..len];
            match *group {
                [(a, _)] => memchr::memchr_iter(a, haystack).for_each(&mut at_one),
                [(a, _), (b, _)] => memchr::memchr2_iter(a, b, haystack).for_each(&mut at_one),
                [(a, _), (b, _), (c, _)] => {
                    memchr::memchr3_iter(a, b, c, haystack).for_each(&mut at_one)
                }
                _ => unreachable!("chunks of one to three"),
            }
        }
        let (filled, offsets, entries) = (&self.filled, &*self.offsets, &*self.entries);
        // A position's first two bytes, hashed to a bucket whose bit is tested: no branch on
        // what a byte is, and an empty bucket (most positions) ends the position. Only a filled
        // bucket loads the position's eight bytes and reads the bucket's entries.
        let pairs = text[..len].iter().zip(&text[1..=len]);
        for (at, (&first, &second)) in pairs.enumerate() {
            let b = bucket(u16::from_le_bytes([first, second]));
            if filled[b / 64] & (1 << (b % 64)) == 0 {
                continue;
            }
            let window = &text[at..at + PADDING];
            let eight = u64::from_le_bytes(window.try_into().expect("eight bytes a window"));
            let (lo, hi) = (usize::from(offsets[b]), usize::from(offsets[b + 1]));
            for entry in &entries[lo..hi] {
                if eight & entry.mask != entry.prefix {
                    continue;
                }
                let literal = self.literal(entry.id);
                let end = at + literal.len();
                // Past eight bytes, the rest; the padding's zeros match no literal's byte.
                if end <= len && (literal.len() <= 8 || text[at + 8..end] == literal[8..]) {
                    found(entry.id, at, end);
                }
            }
        }
    }
}

#[cfg(test)]
pub(super) mod tests {
    use super::*;
    use aho_corasick::{AhoCorasick, MatchKind};

    /// Every occurrence `set` reports in `text`, sorted.
    fn occurrences(set: &Literals, text: &[u8]) -> Vec<(usize, usize, usize)> {
        let mut all = Vec::new();
        let mut padded = text.to_vec();
        padded.extend_from_slice(&[0; PADDING]);
        set.for_each_occurrence(&padded, |id, start, end| {
            all.push((usize::from(id), start, end))
        });
        all.sort_unstable();
        all
    }

    /// Holds the search to an Aho-Corasick automaton over the same literals, in overlapping
    /// mode: the same occurrences, every one of them, for each text.
    pub(crate) fn assert_finds_what_aho_corasick_finds<S: AsRef<[u8]>>(
        literals: &[S],
        texts: impl IntoIterator<Item = Vec<u8>>,
    ) {
        let set = Literals::new(literals);
        let reference = AhoCorasick::builder()
            .match_kind(MatchKind::Standard)
            .build(literals)
            .expect("short literals");
        for text in texts {
            let mut expected: Vec<_> = reference
                .find_overlapping_iter(&text)
                .map(|m| (m.pattern().as_usize(), m.start(), m.end()))
                .collect();
            expected.sort_unstable();
            assert_eq!(
                occurrences(&set, &text),
                expected,
                "in {:?}",
                String::from_utf8_lossy(&text)
            );
        }
    }

    #[test]
    fn finds_every_occurrence_overlapping_ones_and_one_byte_literals_included() {
        let literals = [
            "push",
            "sh",
            "|",
            "ssh",
            "s",
            "--force",
            "--force-with-lease",
            "ab",
        ];
        let set = Literals::new(&literals);
        let mut found: Vec<_> = occurrences(&set, b"git push --force-with-lease | ssh")
            .into_iter()
            .map(|(id, start, end)| (start, end, literals[id]))
            .collect();
        found.sort_unstable();
        assert_eq!(
            found,
            [
                (4, 8, "push"),
                (6, 7, "s"),
                (6, 8, "sh"),
                (9, 16, "--force"),
                (9, 27, "--force-with-lease"),
                (25, 26, "s"),
                (28, 29, "|"),
                (30, 31, "s"),
                (30, 33, "ssh"),
                (31, 32, "s"),
                (31, 33, "sh"),
            ]
        );
        // A literal ending the text, one cut short by its end, and an empty text.
        assert_eq!(occurrences(&set, b"xab"), [(7, 1, 3)]);
        assert!(occurrences(&set, b"--forc").is_empty());
        assert!(occurrences(&set, b"").is_empty());
    }

    #[test]
    fn literals_sharing_a_bucket_are_told_apart() {
        // Every pair of lower-case letters: many share each of the 2,048 buckets.
        let literals: Vec<Vec<u8>> = (b'a'..=b'z')
            .flat_map(|a| (b'a'..=b'z').map(move |b| vec![a, b, b'!']))
            .collect();
        let texts = (b'a'..=b'z').map(|a| {
            let mut text: Vec<u8> = (b'a'..=b'z').flat_map(|b| [a, b, b'!', b]).collect();
            text.extend_from_slice(b"zz");
            text
        });
        assert_finds_what_aho_corasick_finds(&literals, texts);
    }

    #[test]
    #[should_panic(expected = "repeated")]
    fn a_repeated_literal_is_refused() {
        Literals::new(&["push", "pull", "push"]);
    }
}
