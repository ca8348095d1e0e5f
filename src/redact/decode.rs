//! Decoded views of a text, so secrets hidden by an encoding are found: JSON string escapes
//! (`\"`, `\\`, `\n`, `\u0067`), percent-encoding (`%67hp_…`) and base64 runs (standard and
//! URL-safe, from 16 characters).
//!
//! Owns the decoders and the map from a decoded view back to the text it came from: a secret
//! found in an escaped or percent-encoded view is replaced exactly where its bytes sit in the
//! original (the escapes that spell it go with it); a secret found in a base64 run makes the
//! whole run the replacement, since base64 has no character-aligned map.
//!
//! The JSON and percent decoders are this module's own because a view must map each byte back
//! to the original (serde_json and the percent-encoding crates unescape without saying where a
//! byte came from); base64 is the `base64` crate's.
//!
//! Not here: scanning (`engine` scans each view with every rule) or deciding what is a secret.
//!
//! Cost: cold. A view is built only when the text holds an escape, a `%XX`, or a run of base64
//! characters; a run is decoded in one pass and dropped unless it decodes to printable UTF-8.

use base64::engine::general_purpose::{GeneralPurpose, GeneralPurposeConfig};
use base64::engine::DecodePaddingMode;
use base64::{alphabet, Engine};

/// Shortest base64 run that is decoded (12 bytes of payload).
pub(super) const MIN_BASE64_CHARS: usize = 16;

/// A decoded view of a text and where each of its bytes came from.
pub(super) struct Decoded {
    pub text: String,
    /// `origin[i]` is the offset in the original text of the unit that produced decoded byte
    /// `i`; `origin[text.len()]` is the original length. Non-decreasing.
    origin: Vec<usize>,
}

impl Decoded {
    /// The original range that spells decoded `start..end` (both on decoded char boundaries).
    pub fn original(&self, start: usize, end: usize) -> (usize, usize) {
        (self.origin[start], self.origin[end])
    }
}

/// Builds a view from units: each is (original offset, decoded bytes).
struct Builder {
    bytes: Vec<u8>,
    origin: Vec<usize>,
}

impl Builder {
    fn with_capacity(len: usize) -> Builder {
        Builder {
            bytes: Vec::with_capacity(len),
            origin: Vec::with_capacity(len + 1),
        }
    }

    fn push(&mut self, at: usize, decoded: &[u8]) {
        self.bytes.extend_from_slice(decoded);
        self.origin.extend(std::iter::repeat_n(at, decoded.len()));
    }

    /// The view, or `None` when it is not UTF-8 (then it cannot hold a textual secret).
    fn finish(mut self, original_len: usize) -> Option<Decoded> {
        self.origin.push(original_len);
        let text = String::from_utf8(self.bytes).ok()?;
        Some(Decoded {
            text,
            origin: self.origin,
        })
    }
}

/// The text with one level of JSON string escapes undone, or `None` when it has no escape
/// that changes anything. Invalid escapes are kept as they are.
pub(super) fn json_unescape(text: &str) -> Option<Decoded> {
    let bytes = text.as_bytes();
    let first = memchr::memchr(b'\\', bytes)?;
    let mut view = Builder::with_capacity(text.len());
    view.bytes.extend_from_slice(&bytes[..first]);
    view.origin.extend(0..first);
    let mut i = first;
    let mut changed = false;
    while i < bytes.len() {
        if bytes[i] != b'\\' || i + 1 >= bytes.len() {
            view.bytes.push(bytes[i]);
            view.origin.push(i);
            i += 1;
            continue;
        }
        let simple = match bytes[i + 1] {
            b'"' => Some(b'"'),
            b'\\' => Some(b'\\'),
            b'/' => Some(b'/'),
            b'n' => Some(b'\n'),
            b'r' => Some(b'\r'),
            b't' => Some(b'\t'),
            b'b' => Some(0x08),
            b'f' => Some(0x0c),
            _ => None,
        };
        if let Some(b) = simple {
            view.push(i, &[b]);
            i += 2;
            changed = true;
            continue;
        }
        if let Some((c, len)) = unicode_escape(&bytes[i..]) {
            let mut buf = [0; 4];
            view.push(i, c.encode_utf8(&mut buf).as_bytes());
            i += len;
            changed = true;
            continue;
        }
        view.bytes.push(b'\\');
        view.origin.push(i);
        i += 1;
    }
    if !changed {
        return None;
    }
    view.finish(text.len())
}

/// `\uXXXX` or a surrogate pair `\uD83D\uDE00` at the start of `bytes`: the char and the
/// escape's length.
fn unicode_escape(bytes: &[u8]) -> Option<(char, usize)> {
    let unit = |at: usize| -> Option<u32> {
        let hex = bytes.get(at..at + 6)?;
        if hex[0] != b'\\' || hex[1] != b'u' {
            return None;
        }
        u32::from_str_radix(std::str::from_utf8(&hex[2..]).ok()?, 16).ok()
    };
    let high = unit(0)?;
    if (0xD800..0xDC00).contains(&high) {
        let low = unit(6).filter(|low| (0xDC00..0xE000).contains(low))?;
        let c = char::from_u32(0x10000 + ((high - 0xD800) << 10) + (low - 0xDC00))?;
        return Some((c, 12));
    }
    Some((char::from_u32(high)?, 6))
}

/// The text with `%XX` escapes decoded, or `None` when it has none or the result is not UTF-8.
/// `+` stays `+` (it is a space only in form bodies, and base64 uses it).
pub(super) fn percent_decode(text: &str) -> Option<Decoded> {
    let bytes = text.as_bytes();
    let hex = |b: u8| char::from(b).to_digit(16);
    let has_escape = memchr::memchr_iter(b'%', bytes).any(|at| {
        bytes.get(at + 1).and_then(|&b| hex(b)).is_some()
            && bytes.get(at + 2).and_then(|&b| hex(b)).is_some()
    });
    if !has_escape {
        return None;
    }
    let mut view = Builder::with_capacity(text.len());
    let mut i = 0;
    let mut changed = false;
    while i < bytes.len() {
        if bytes[i] == b'%' && i + 2 < bytes.len() {
            if let (Some(h), Some(l)) = (hex(bytes[i + 1]), hex(bytes[i + 2])) {
                view.push(i, &[(h * 16 + l) as u8]);
                i += 3;
                changed = true;
                continue;
            }
        }
        view.push(i, &bytes[i..=i]);
        i += 1;
    }
    if !changed {
        return None;
    }
    view.finish(text.len())
}

/// Whether `b` may be part of a base64 run (either alphabet).
fn is_base64_byte(b: u8) -> bool {
    b.is_ascii_alphanumeric() || matches!(b, b'+' | b'/' | b'-' | b'_')
}

/// Byte ranges of runs of base64 characters (with up to two `=` of padding) of at least
/// [`MIN_BASE64_CHARS`], in order.
pub(super) fn base64_runs(text: &str) -> impl Iterator<Item = (usize, usize)> + '_ {
    let bytes = text.as_bytes();
    let mut i = 0;
    std::iter::from_fn(move || {
        while i < bytes.len() {
            if !is_base64_byte(bytes[i]) {
                i += 1;
                continue;
            }
            let start = i;
            while i < bytes.len() && is_base64_byte(bytes[i]) {
                i += 1;
            }
            let mut end = i;
            while end < bytes.len() && end - i < 2 && bytes[end] == b'=' {
                end += 1;
            }
            i = end;
            if i - start >= MIN_BASE64_CHARS {
                return Some((start, end));
            }
        }
        None
    })
}

/// Decodes a base64 run (standard or URL-safe, padding optional) to printable UTF-8 text, or
/// `None` when it is not base64 of text (most runs: paths, identifiers, hex digests).
pub(super) fn base64_text(run: &str) -> Option<String> {
    // A run may mix both alphabets (`base64_runs` takes either): read it as the standard one.
    const LENIENT: GeneralPurpose = GeneralPurpose::new(
        &alphabet::STANDARD,
        GeneralPurposeConfig::new()
            .with_decode_allow_trailing_bits(true)
            .with_decode_padding_mode(DecodePaddingMode::RequireNone),
    );
    let standard: Vec<u8> = (run.trim_end_matches('=').bytes())
        .map(|b| match b {
            b'-' => b'+',
            b'_' => b'/',
            b => b,
        })
        .collect();
    let text = String::from_utf8(LENIENT.decode(standard).ok()?).ok()?;
    let control = text.contains(|c: char| c.is_control() && !"\n\r\t".contains(c));
    (!control).then_some(text)
}

/// Whether a decoded base64 text is a `user:password` pair, the payload of HTTP Basic auth
/// (`echo dXNlcjpwYXNz | base64 -d`, a `.dockerconfigjson` `auth`): one line, a user name
/// (letters, digits, `._-@+\`; not `{"alg"` of a JWT header), and a password of at least 6 characters that is not one lowercase word.
pub(super) fn is_credential_pair(decoded: &str) -> bool {
    let Some((user, password)) = decoded.trim_end_matches(['\n', '\r']).split_once(':') else {
        return false;
    };
    (1..=64).contains(&user.len())
        && user
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || matches!(b, b'.' | b'_' | b'-' | b'@' | b'+' | b'\\'))
        && password.len() >= 6
        && !password.contains(char::is_whitespace)
        && !password.bytes().all(|b| b.is_ascii_lowercase())
        && !password.starts_with("//")
        // `host:5432/db`, `host:8080`: a port, not a password.
        && !password
            .split('/')
            .next()
            .is_some_and(|port| !port.is_empty() && port.bytes().all(|b| b.is_ascii_digit()))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn json_view_maps_back_to_escapes() {
        let text = r#"a\"b\u0067c\\d"#;
        let view = json_unescape(text).unwrap();
        assert_eq!(view.text, "a\"bgc\\d");
        // `g` came from `\u0067` at offset 4..10.
        assert_eq!(view.original(3, 4), (4, 10));
        assert_eq!(view.original(0, view.text.len()), (0, text.len()));
        assert!(json_unescape("no escapes").is_none());
        assert_eq!(json_unescape(r"\ud83d\ude00").unwrap().text, "😀");
    }

    #[test]
    fn percent_view_maps_back() {
        let view = percent_decode("x%67hp_y%2").unwrap();
        assert_eq!(view.text, "xghp_y%2");
        assert_eq!(view.original(1, 2), (1, 4));
        assert!(percent_decode("100%").is_none());
    }

    #[test]
    fn base64_runs_and_text() {
        let runs: Vec<_> = base64_runs("Basic dXNlcjpodW50ZXIyaHVudGVyMg== ok").collect();
        assert_eq!(runs, vec![(6, 34)]);
        assert_eq!(
            base64_text("dXNlcjpodW50ZXIyaHVudGVyMg==").unwrap(),
            "user:hunter2hunter2"
        );
        assert_eq!(
            base64_text("dXNlcjpodW50ZXIyaHVudGVyMg").unwrap(),
            "user:hunter2hunter2"
        );
        assert!(base64_text("9fceb02d0ae598e95dc970b74767f19372d61af8").is_none());
        assert!(base64_text("home/user/projects/web/src").is_none());
    }

    #[test]
    fn credential_pairs() {
        assert!(is_credential_pair("deploy:Fake8x!9qz"));
        assert!(is_credential_pair("ci:0123abcdEF\n"));
        assert!(!is_credential_pair("https://example.com/path"));
        assert!(!is_credential_pair("note: hello world"));
        assert!(!is_credential_pair("key:value"));
        assert!(!is_credential_pair("localhost:5432/app"));
        assert!(!is_credential_pair(r#"{"alg":"HS256","typ":"JWT"}"#));
        assert!(!is_credential_pair("no pair here"));
    }
}
