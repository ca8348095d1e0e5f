//! What counting state keeps of an id (an execution id, a tool use id): a [`Digest`], never the
//! id itself, since an id is whatever the executor or the model wrote and may carry a token.
//!
//! Owns the digest and its state-file spelling. A digest is the first 16 bytes of the id's
//! SHA-256 (collisions cannot be crafted; the id cannot be read back), held as 16 bytes and
//! written as 32 lowercase hex characters, the spelling state files have always used for it.
//! A state file written before ids were digested holds raw ids: read back, each is digested
//! then, so it is found again; a raw id that was itself 32 lowercase hex characters is taken
//! for a digest (no executor is known to write such ids).
//!
//! A call's input is known by a digest too ([`Digest::of_input`]), taken where the input is read
//! (`crate::decode`), so that the input is never copied to be hashed later.
//!
//! **Not here:** what is remembered and for how long (`crate::account::reconcile`).
//!
//! Cost: one SHA-256 per id looked up; 16 bytes per id remembered (a hex `String` took about 70).

use std::fmt;

use serde::de::{self, Visitor};
use serde::{Deserialize, Deserializer, Serialize, Serializer};

/// The longest prefix of a call's input its digest covers, in bytes: enough to tell attempts
/// apart (a command, a path, a URL come first), while a large `Write` costs no more to hash.
const MAX_INPUT_KEY_BYTES: usize = 4096;

/// The digest of an id.
#[derive(Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Digest(u128);

impl Digest {
    /// The digest of `id`.
    pub fn of(id: &str) -> Digest {
        Digest::first_of(ring::digest::digest(&ring::digest::SHA256, id.as_bytes()))
    }

    /// The digest a call's input is known by (the distinct inputs of a loop), from its JSON text:
    /// that of the text itself, or past [`MAX_INPUT_KEY_BYTES`], of its key: the text cut there
    /// (on a character boundary), `…` and the text's whole length in decimal. The key is hashed
    /// piece by piece, never spelled; its digest is the one state files have always kept.
    pub fn of_input(text: &str) -> Digest {
        let mut end = text.len().min(MAX_INPUT_KEY_BYTES);
        while !text.is_char_boundary(end) {
            end -= 1;
        }
        if end == text.len() {
            return Digest::of(text);
        }
        let mut key = ring::digest::Context::new(&ring::digest::SHA256);
        key.update(&text.as_bytes()[..end]);
        key.update("…".as_bytes());
        key.update(text.len().to_string().as_bytes());
        Digest::first_of(key.finish())
    }

    fn first_of(hash: ring::digest::Digest) -> Digest {
        let first: [u8; 16] = hash.as_ref()[..16]
            .try_into()
            .expect("SHA-256 has 32 bytes");
        Digest(u128::from_be_bytes(first))
    }

    /// The digest a state file spelled as `text`: 32 lowercase hex characters, else a raw id
    /// (a state written before digests), digested now.
    fn read(text: &str) -> Digest {
        let is_hex = text.len() == 32
            && text
                .bytes()
                .all(|b| b.is_ascii_digit() || (b'a'..=b'f').contains(&b));
        match u128::from_str_radix(text, 16) {
            Ok(value) if is_hex => Digest(value),
            _ => Digest::of(text),
        }
    }
}

impl fmt::Display for Digest {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{:032x}", self.0)
    }
}

impl fmt::Debug for Digest {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "Digest({self})")
    }
}

impl Serialize for Digest {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.collect_str(self)
    }
}

impl<'de> Deserialize<'de> for Digest {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Digest, D::Error> {
        struct Text;
        impl Visitor<'_> for Text {
            type Value = Digest;
            fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str("a digest (32 hex characters) or an id")
            }
            fn visit_str<E: de::Error>(self, text: &str) -> Result<Digest, E> {
                Ok(Digest::read(text))
            }
        }
        deserializer.deserialize_str(Text)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_digest_is_written_as_the_hex_the_state_file_always_held() {
        // The first 16 bytes of SHA-256("toolu_01"), as the `String` digests were written.
        let d = Digest::of("toolu_01");
        let hex = d.to_string();
        assert_eq!(hex.len(), 32);
        let sha = ring::digest::digest(&ring::digest::SHA256, b"toolu_01");
        let want: String = sha.as_ref()[..16]
            .iter()
            .map(|b| format!("{b:02x}"))
            .collect();
        assert_eq!(hex, want);
        assert_eq!(serde_json::to_string(&d).unwrap(), format!("\"{want}\""));
        assert_eq!(
            serde_json::from_str::<Digest>(&format!("\"{want}\"")).unwrap(),
            d
        );
    }

    #[test]
    fn a_raw_id_from_an_older_state_is_digested_when_read() {
        let read: Digest = serde_json::from_str("\"toolu_01ABC\"").unwrap();
        assert_eq!(read, Digest::of("toolu_01ABC"));
        let upper: Digest = serde_json::from_str(&format!("\"{}\"", "A".repeat(32))).unwrap();
        assert_eq!(
            upper,
            Digest::of(&"A".repeat(32)),
            "uppercase hex is an id, not a digest"
        );
    }

    /// An input's digest is the one state files written before it was taken in decode hold:
    /// that of the text, or of the text cut on a character boundary, `…` and its length
    /// (the hex here is Python's `hashlib.sha256` of those bytes, first 16 bytes).
    #[test]
    fn an_input_is_known_by_the_digest_state_files_hold() {
        let short = r#"{"command":"ls"}"#;
        assert_eq!(Digest::of_input(short), Digest::of(short));
        assert_eq!(
            Digest::of_input(short).to_string(),
            "4cf29611a66934862f29acfcc817e30b"
        );
        // 7 bytes then two-byte characters: byte 4096 falls inside one, so the cut is at 4095.
        let long = format!(r#"{{"cc":"{}"}}"#, "é".repeat(3000));
        assert_eq!(long.len(), 6009);
        assert_eq!(
            Digest::of_input(&long).to_string(),
            "a2494b4d127d68bfe24940a1fdafd9ec"
        );
        let key = format!("{}…{}", &long[..4095], long.len());
        assert_eq!(Digest::of_input(&long), Digest::of(&key));
        let exact = "x".repeat(MAX_INPUT_KEY_BYTES);
        assert_eq!(Digest::of_input(&exact), Digest::of(&exact), "not cut");
        let over = "x".repeat(MAX_INPUT_KEY_BYTES + 1);
        assert_eq!(
            Digest::of_input(&over),
            Digest::of(&format!("{exact}…4097")),
            "a longer one differs from its prefix"
        );
    }
}
