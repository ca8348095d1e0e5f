//! Where the next byte a JSON string must escape is (a control byte, `"` or a backslash), found
//! eight bytes at a time: what the audit writer copies up to before it escapes, and where the
//! classifier's reader of tool inputs stops inside a string.
//!
//! A pure function of the bytes: no state, no allocation. **Not here:** writing an escape
//! ([`crate::audit`]), reading JSON values (`serde_json`, and the classifier's reader of flat
//! objects in `crate::risk`).

/// Where the first byte at or after `from` that needs an escape is, eight bytes at a time:
/// whole words, then the last few bytes padded to a word. Always inlined, as it was in each
/// caller before it was shared: a call costs more than the scan of a short string.
#[inline(always)]
pub fn next_special(bytes: &[u8], from: usize) -> Option<usize> {
    let word_at = |at: usize| u64::from_le_bytes(bytes[at..at + 8].try_into().expect("8 bytes"));
    let first =
        |at: usize, mask: u64| (mask != 0).then(|| at + (mask.trailing_zeros() / 8) as usize);
    let mut at = from;
    while at + 8 <= bytes.len() {
        if let Some(found) = first(at, special_mask(word_at(at))) {
            return Some(found);
        }
        at += 8;
    }
    if at == bytes.len() {
        return None;
    }
    // The last bytes, padded with one that needs none (a word read back over bytes already
    // escaped would see a borrow out of them).
    let mut padded = [b'a'; 8];
    padded[..bytes.len() - at].copy_from_slice(&bytes[at..]);
    let mask = special_mask(u64::from_le_bytes(padded));
    first(at, mask)
}

/// The bytes that need an escape in a JSON string: control characters, `"` and `\`.
#[cfg(test)]
const SPECIAL: [bool; 256] = {
    let mut table = [false; 256];
    let mut b = 0;
    while b < 0x20 {
        table[b] = true;
        b += 1;
    }
    table[b'"' as usize] = true;
    table[b'\\' as usize] = true;
    table
};

/// The high bit of each byte of `word` that needs an escape, and maybe of bytes above one that
/// is: the word-wide zero-byte and less-than tests are exact for the lowest byte that
/// qualifies (a borrow only runs upward from a byte that does), so the lowest set bit marks
/// the first byte to escape, and a word with none set holds nothing to escape.
#[inline]
fn special_mask(word: u64) -> u64 {
    const ONES: u64 = 0x0101_0101_0101_0101;
    const HIGH: u64 = 0x8080_8080_8080_8080;
    let below_0x20 = word.wrapping_sub(ONES * 0x20) & !word & HIGH;
    let zero_byte = |x: u64| x.wrapping_sub(ONES) & !x & HIGH;
    below_0x20
        | zero_byte(word ^ (ONES * u64::from(b'"')))
        | zero_byte(word ^ (ONES * u64::from(b'\\')))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_words_mask_marks_its_first_special_byte_exactly() {
        // Every byte at every place among fillers on both sides of each bound (0x1f/0x20,
        // `!`/`"`/`#`, `[`/`\`/`]`, ASCII/non-ASCII), alone and before a second special byte.
        let fillers = [b'a', b' ', b'!', b'#', b'[', b']', 0x1f, 0x7f, 0x80, 0xff];
        let first = |word: [u8; 8]| word.iter().position(|&b| SPECIAL[usize::from(b)]);
        let found = |word: [u8; 8]| {
            let mask = special_mask(u64::from_le_bytes(word));
            (mask != 0).then(|| (mask.trailing_zeros() / 8) as usize)
        };
        for filler in fillers {
            for b in 0..=255u8 {
                for at in 0..8 {
                    let mut word = [filler; 8];
                    word[at] = b;
                    assert_eq!(found(word), first(word), "{word:?}");
                    for other in (0..8).filter(|&o| o != at) {
                        for second in [b'"', b'\\', 0x00, 0x1f] {
                            let mut two = word;
                            two[other] = second;
                            assert_eq!(found(two), first(two), "{two:?}");
                        }
                    }
                }
            }
        }
    }
}
