//! A JSON object's top level, parsed without building it: keys borrowed from the line, values
//! kept as raw JSON text until a decoder asks for one.
//!
//! Decoders only ever look up a handful of top-level keys, so parsing a whole
//! `serde_json::Value` (an allocation per key and string) is wasted work. Duplicate keys (pino
//! child bindings) resolve to the last occurrence, as JSON.parse does. **Not here:** what the keys
//! mean (the decoders).
//!
//! Cold: per candidate line, but the dominant cost of one.

use std::borrow::Cow;
use std::fmt;

use serde::de::{self, Deserializer, MapAccess, Visitor};
use serde_json::value::RawValue;
use serde_json::Value;

/// The top level of one JSON object.
#[derive(Debug)]
pub struct Object<'a> {
    entries: Vec<(Cow<'a, str>, &'a RawValue)>,
}

impl<'a> Object<'a> {
    /// Parses `line` as one JSON object (surrounding whitespace allowed); `None` if it is not one
    /// or not UTF-8.
    ///
    /// The line is checked as UTF-8 whole, in one pass, and then parsed as text: parsed as bytes,
    /// each key and each raw value would be checked on its own, one short call at a time.
    pub fn parse(line: &'a [u8]) -> Option<Object<'a>> {
        Object::parse_str(std::str::from_utf8(line).ok()?)
    }

    /// [`Object::parse`] for text already known to be UTF-8 (a raw value of another object), so
    /// that it is not checked again.
    pub fn parse_str(text: &'a str) -> Option<Object<'a>> {
        let mut de = serde_json::Deserializer::from_str(text);
        let object = de.deserialize_map(ObjectVisitor).ok()?;
        de.end().ok()?;
        Some(object)
    }

    /// The raw value of `key` (the last one, if repeated).
    #[inline]
    pub fn raw(&self, key: &str) -> Option<&'a RawValue> {
        self.entries
            .iter()
            .rev()
            .find(|(k, _)| k == key)
            .map(|(_, v)| *v)
    }

    /// Returns true if and only if the object has `key`.
    pub fn has(&self, key: &str) -> bool {
        self.raw(key).is_some()
    }

    /// `key` as a string, borrowed when it has no escapes.
    pub fn str(&self, key: &str) -> Option<Cow<'a, str>> {
        raw_str(self.raw(key)?)
    }

    /// Returns true if and only if `key` holds the string `want` written as JSON writes it
    /// (escaped only where JSON must escape), byte for byte.
    pub fn is_literally(&self, key: &str, want: &str) -> bool {
        self.raw(key).is_some_and(|raw| is_literally(raw, want))
    }

    /// `key` as an identifier: a non-empty string, or a number as written.
    pub fn id(&self, key: &str) -> Option<String> {
        raw_id(self.raw(key)?)
    }

    /// `key` as a non-negative finite number (numbers, or strings holding numbers).
    pub fn num(&self, key: &str) -> Option<f64> {
        let raw = self.raw(key)?;
        let text = raw.get();
        let n = match text.as_bytes().first()? {
            b'"' => raw_str(raw)?.trim().parse::<f64>().ok()?,
            _ => text.parse::<f64>().ok()?,
        };
        (n.is_finite() && n >= 0.0).then_some(n)
    }

    /// `key` parsed into a full value (for nested objects and arrays).
    pub fn value(&self, key: &str) -> Option<Value> {
        serde_json::from_str(self.raw(key)?.get()).ok()
    }

    /// Returns true if and only if `key` holds a string.
    pub fn is_str(&self, key: &str) -> bool {
        self.raw(key).is_some_and(|r| r.get().starts_with('"'))
    }
}

/// Returns true if and only if `raw` is the string `want` written as JSON writes it (escaped
/// only where JSON must escape), byte for byte.
#[inline]
pub(super) fn is_literally(raw: &RawValue, want: &str) -> bool {
    let raw = raw.get().as_bytes();
    let Some(inner) = raw.strip_prefix(b"\"").and_then(|r| r.strip_suffix(b"\"")) else {
        return false;
    };
    // JSON writes `want` as its own bytes, or longer where it escapes: most values looked up are
    // some other string, told apart here without looking at what `want` holds.
    if inner.len() < want.len() || (inner.len() == want.len() && inner != want.as_bytes()) {
        return false;
    }
    if !want.contains(['"', '\\']) && !want.chars().any(char::is_control) {
        inner == want.as_bytes()
    } else {
        serde_json::to_string(want).is_ok_and(|w| w.as_bytes() == raw)
    }
}

/// A raw JSON value as an identifier: a non-empty string, or a number as written.
pub(super) fn raw_id(raw: &RawValue) -> Option<String> {
    match raw.get().as_bytes().first()? {
        b'"' => raw_str(raw).filter(|s| !s.is_empty()).map(Cow::into_owned),
        b'-' | b'0'..=b'9' => Some(raw.get().to_string()),
        _ => None,
    }
}

/// A raw JSON string value, borrowed when it holds no escapes.
#[inline]
pub(super) fn raw_str(raw: &RawValue) -> Option<Cow<'_, str>> {
    let text = raw.get();
    let inner = text.strip_prefix('"')?.strip_suffix('"')?;
    if !inner.contains('\\') {
        return Some(Cow::Borrowed(inner));
    }
    serde_json::from_str::<String>(text).ok().map(Cow::Owned)
}

struct ObjectVisitor;

impl<'de> Visitor<'de> for ObjectVisitor {
    type Value = Object<'de>;

    fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
        f.write_str("a JSON object")
    }

    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Object<'de>, A::Error> {
        let mut entries = Vec::with_capacity(24);
        while let Some(key) = map.next_key::<Key<'de>>()? {
            let value: &'de RawValue = map.next_value()?;
            entries.push((key.0, value));
        }
        Ok(Object { entries })
    }
}

/// A key, borrowed from the input unless it had escapes.
struct Key<'a>(Cow<'a, str>);

impl<'de> de::Deserialize<'de> for Key<'de> {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        struct KeyVisitor;
        impl<'de> Visitor<'de> for KeyVisitor {
            type Value = Key<'de>;
            fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
                f.write_str("a string key")
            }
            fn visit_borrowed_str<E: de::Error>(self, v: &'de str) -> Result<Key<'de>, E> {
                Ok(Key(Cow::Borrowed(v)))
            }
            fn visit_str<E: de::Error>(self, v: &str) -> Result<Key<'de>, E> {
                Ok(Key(Cow::Owned(v.to_string())))
            }
            fn visit_string<E: de::Error>(self, v: String) -> Result<Key<'de>, E> {
                Ok(Key(Cow::Owned(v)))
            }
        }
        deserializer.deserialize_str(KeyVisitor)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn looks_up_top_level_keys_last_wins() {
        let line = br#" {"a":"x","n":12.5,"s":"7","a":"y","e":"q\"uote","o":{"a":"nested"},"k\u0065y":1,"id":42} "#;
        let text = std::str::from_utf8(line).unwrap();
        for o in [Object::parse(line), Object::parse_str(text)] {
            let o = o.unwrap();
            assert_eq!(o.str("a").as_deref(), Some("y"));
            assert_eq!(o.num("n"), Some(12.5));
            assert_eq!(o.num("s"), Some(7.0));
            assert_eq!(o.str("e").as_deref(), Some("q\"uote"));
            assert_eq!(o.id("id").as_deref(), Some("42"));
            assert!(o.has("key"), "escaped keys are unescaped");
            assert_eq!(o.value("o").unwrap()["a"], "nested");
            assert_eq!(o.str("missing"), None);
            assert!(o.is_str("a") && !o.is_str("n"));
        }
    }

    /// The quick rejection by length gives what comparing with JSON's own writing gives.
    #[test]
    fn a_value_is_literally_a_string_as_json_writes_it() {
        let wants = [
            "agent.permission.denied",
            "a\"b",
            "a\\b",
            "tab\there",
            "del\u{7f}",
            "é",
            "",
        ];
        for want in wants {
            let written = serde_json::to_string(want).unwrap();
            let mut values = vec![written.clone(), format!("{written}x"), "42".to_string()];
            for other in wants {
                values.push(serde_json::to_string(other).unwrap());
                values.push(format!("\"{other}\"")); // unescaped, as JSON would not write it
            }
            values.push(written.replace('a', "\\u0061")); // spelled with an escape
            for value in values {
                let Ok(raw) = serde_json::from_str::<Box<RawValue>>(&value) else {
                    continue;
                };
                assert_eq!(
                    is_literally(&raw, want),
                    value == written,
                    "{value} as {want:?}"
                );
            }
        }
    }

    #[test]
    fn rejects_what_is_not_one_object() {
        for line in [
            &b"[1]"[..],
            b"{\"a\":1} x",
            b"{\"a\":",
            b"",
            b"\"s\"",
            b"{\"a\":\"\xff\"}",
        ] {
            assert!(
                Object::parse(line).is_none(),
                "{:?}",
                String::from_utf8_lossy(line)
            );
            if let Ok(text) = std::str::from_utf8(line) {
                assert!(Object::parse_str(text).is_none(), "{text:?}");
            }
        }
    }
}
