//! Reads a tool input only as far as the classifier looks at it: the entries under the keys it
//! examines (a string, an array's strings, an `edits` array's objects), from the input's JSON
//! text as logged or from an input already parsed.
//!
//! Owns [`Fields`]: an object's examined entries, sorted by key, the last of a repeated key
//! kept, which is the order and the choice of a parsed `serde_json::Map`; so the text and the
//! parsed value of one input are examined alike. **Not here:** which keys are examined and in
//! what role (`scan` passes the predicate), classifying.
//!
//! Cost: one pass over the text. The usual input (one object of strings, small integers and
//! literals) is read by a reader of just that shape, strings scanned eight bytes at a time and
//! borrowed when unescaped; anything else by the JSON parser, every key's value not examined
//! skipped without being built. On the generator's log the reader takes about 15% fewer
//! instructions than the parser did on the same texts, most of both being the strings' bytes.
//! Building a `serde_json::Value` of the whole input and dropping it cost about twice as much,
//! for entries (a `description`, an `old_string`, a `prompt`) no rule reads.

use std::borrow::Cow;
use std::fmt;

use serde::de::{DeserializeSeed, Deserializer, IgnoredAny, MapAccess, SeqAccess, Visitor};
use serde_json::{Map, Value};

use crate::json::next_special;

/// Whether the classifier examines the entry under a key.
pub(super) type Examined = fn(&str) -> bool;

/// An object's examined entries, sorted by key, one per key.
#[derive(Debug, Default)]
pub(super) struct Fields<'a>(Vec<(Cow<'a, str>, Item<'a>)>);

/// The value of an examined entry, as far as it is read.
#[derive(Debug)]
pub(super) enum Item<'a> {
    Str(Cow<'a, str>),
    /// An array's strings and objects, in order; its other elements are dropped.
    Array(Vec<Item<'a>>),
    Object(Fields<'a>),
    Other,
}

/// A tool input's JSON text, read.
#[derive(Debug)]
pub(super) enum Parsed<'a> {
    /// A JSON string: the command line it holds.
    Command(Cow<'a, str>),
    Object(Fields<'a>),
    /// A number, a boolean, null or an array: nothing is examined.
    Nothing,
}

/// Reads `text`, keeping the entries `examined` accepts. Fails where the JSON parser does on
/// the parts it builds (syntax, nesting past its limit); skipped values are only checked for
/// syntax.
pub(super) fn parse(text: &str, examined: Examined) -> Result<Parsed<'_>, serde_json::Error> {
    if let Some(fields) = Flat::read(text, examined) {
        return Ok(Parsed::Object(fields));
    }
    let mut parser = serde_json::Deserializer::from_str(text);
    let parsed = ParsedSeed(examined).deserialize(&mut parser)?;
    parser.end()?;
    Ok(parsed)
}

/// The reader of the shape nearly every tool input has: one object whose values are strings,
/// small integers, `true`, `false` or `null`. It gives what the JSON parser gives for such a
/// text, in one pass without the parser's per-value dispatch; on anything else (a nested value,
/// a `\u` escape, a control byte, a fraction, an exponent or a long number, a syntax error) it
/// gives up, and the JSON parser reads the text from the start. A unit test holds it to the
/// parser on generated texts.
struct Flat<'a> {
    text: &'a str,
    at: usize,
}

impl<'a> Flat<'a> {
    fn read(text: &'a str, examined: Examined) -> Option<Fields<'a>> {
        let mut flat = Flat { text, at: 0 };
        flat.space();
        flat.eat(b'{')?;
        flat.space();
        let mut entries = Vec::new();
        if flat.eat(b'}').is_none() {
            loop {
                let key = flat.string()?;
                flat.space();
                flat.eat(b':')?;
                flat.space();
                let item = flat.value()?;
                if examined(&key) {
                    entries.push((key, item));
                }
                flat.space();
                if flat.eat(b',').is_some() {
                    flat.space();
                    continue;
                }
                flat.eat(b'}')?;
                break;
            }
        }
        flat.space();
        (flat.at == text.len()).then(|| Fields::settle(entries))
    }

    fn peek(&self) -> Option<u8> {
        self.text.as_bytes().get(self.at).copied()
    }

    fn eat(&mut self, byte: u8) -> Option<()> {
        (self.peek() == Some(byte)).then(|| self.at += 1)
    }

    /// JSON's whitespace: space, tab, newline, carriage return.
    fn space(&mut self) {
        while matches!(self.peek(), Some(b' ' | b'\t' | b'\n' | b'\r')) {
            self.at += 1;
        }
    }

    /// A string, borrowed when it has no escape; `None` on a `\u` escape or a control byte.
    fn string(&mut self) -> Option<Cow<'a, str>> {
        self.eat(b'"')?;
        let bytes = self.text.as_bytes();
        let start = self.at;
        let mut owned: Option<String> = None;
        let mut run = start;
        loop {
            let at = next_special(bytes, run)?;
            match bytes[at] {
                b'"' => {
                    self.at = at + 1;
                    return Some(match owned {
                        None => Cow::Borrowed(&self.text[start..at]),
                        Some(mut text) => {
                            text.push_str(&self.text[run..at]);
                            Cow::Owned(text)
                        }
                    });
                }
                b'\\' => {
                    let unescaped = match bytes.get(at + 1)? {
                        b'"' => '"',
                        b'\\' => '\\',
                        b'/' => '/',
                        b'b' => '\u{8}',
                        b'f' => '\u{c}',
                        b'n' => '\n',
                        b'r' => '\r',
                        b't' => '\t',
                        _ => return None,
                    };
                    let text = owned.get_or_insert_with(String::new);
                    text.push_str(&self.text[run..at]);
                    text.push(unescaped);
                    run = at + 2;
                }
                _ => return None,
            }
        }
    }

    /// A string, or a value that is not one (an integer of at most 15 digits, `true`, `false`,
    /// `null`); `None` on anything else.
    fn value(&mut self) -> Option<Item<'a>> {
        let rest = &self.text.as_bytes()[self.at..];
        let len = match *rest.first()? {
            b'"' => return self.string().map(Item::Str),
            b't' if rest.starts_with(b"true") => 4,
            b'f' if rest.starts_with(b"false") => 5,
            b'n' if rest.starts_with(b"null") => 4,
            b'-' | b'0'..=b'9' => {
                let sign = usize::from(rest[0] == b'-');
                let digits = rest[sign..]
                    .iter()
                    .take_while(|b| b.is_ascii_digit())
                    .count();
                let leading_zero = digits > 1 && rest[sign] == b'0';
                if digits == 0 || digits > 15 || leading_zero {
                    return None;
                }
                sign + digits
            }
            _ => return None,
        };
        // What follows a number or a word must end it (`1.5`, `1e3`, `truex` are not read here).
        match rest.get(len) {
            None | Some(b' ' | b'\t' | b'\n' | b'\r' | b',' | b'}') => {}
            Some(_) => return None,
        }
        self.at += len;
        Some(Item::Other)
    }
}

impl<'a> Fields<'a> {
    /// The examined entries of an input already parsed (a map's keys are already sorted).
    pub(super) fn from_map(map: &'a Map<String, Value>, examined: Examined) -> Fields<'a> {
        Fields(
            map.iter()
                .filter(|(key, _)| examined(key))
                .map(|(key, value)| {
                    (
                        Cow::Borrowed(key.as_str()),
                        Item::from_value(value, examined),
                    )
                })
                .collect(),
        )
    }

    /// The entries, sorted by key.
    pub(super) fn entries(&self) -> impl Iterator<Item = (&str, &Item<'a>)> {
        self.0.iter().map(|(key, item)| (key.as_ref(), item))
    }

    /// The entry under `key`.
    pub(super) fn get(&self, key: &str) -> Option<&Item<'a>> {
        self.0
            .binary_search_by(|(k, _)| k.as_ref().cmp(key))
            .ok()
            .map(|at| &self.0[at].1)
    }

    /// Sorted by key, the last of a repeated key kept, as a `serde_json::Map` keeps them.
    fn settle(mut entries: Vec<(Cow<'a, str>, Item<'a>)>) -> Fields<'a> {
        entries.reverse();
        entries.sort_by(|a, b| a.0.cmp(&b.0));
        entries.dedup_by(|later, kept| later.0 == kept.0);
        Fields(entries)
    }
}

impl<'a> Item<'a> {
    fn from_value(value: &'a Value, examined: Examined) -> Item<'a> {
        match value {
            Value::String(text) => Item::Str(Cow::Borrowed(text)),
            Value::Array(items) => Item::Array(
                items
                    .iter()
                    .filter(|v| v.is_string() || v.is_object())
                    .map(|v| Item::from_value(v, examined))
                    .collect(),
            ),
            Value::Object(map) => Item::Object(Fields::from_map(map, examined)),
            _ => Item::Other,
        }
    }
}

/// Reads a whole input: a string, an object, or anything else.
struct ParsedSeed(Examined);

impl<'de> DeserializeSeed<'de> for ParsedSeed {
    type Value = Parsed<'de>;

    fn deserialize<D: Deserializer<'de>>(self, deserializer: D) -> Result<Parsed<'de>, D::Error> {
        Ok(match ItemSeed(self.0).deserialize(deserializer)? {
            Item::Str(text) => Parsed::Command(text),
            Item::Object(fields) => Parsed::Object(fields),
            Item::Array(_) | Item::Other => Parsed::Nothing,
        })
    }
}

/// Reads one value as an [`Item`].
#[derive(Clone, Copy)]
struct ItemSeed(Examined);

impl<'de> DeserializeSeed<'de> for ItemSeed {
    type Value = Item<'de>;

    fn deserialize<D: Deserializer<'de>>(self, deserializer: D) -> Result<Item<'de>, D::Error> {
        deserializer.deserialize_any(self)
    }
}

impl<'de> Visitor<'de> for ItemSeed {
    type Value = Item<'de>;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("a JSON value")
    }

    fn visit_borrowed_str<E>(self, v: &'de str) -> Result<Item<'de>, E> {
        Ok(Item::Str(Cow::Borrowed(v)))
    }

    fn visit_str<E>(self, v: &str) -> Result<Item<'de>, E> {
        Ok(Item::Str(Cow::Owned(v.to_owned())))
    }

    fn visit_string<E>(self, v: String) -> Result<Item<'de>, E> {
        Ok(Item::Str(Cow::Owned(v)))
    }

    fn visit_bool<E>(self, _: bool) -> Result<Item<'de>, E> {
        Ok(Item::Other)
    }

    fn visit_i64<E>(self, _: i64) -> Result<Item<'de>, E> {
        Ok(Item::Other)
    }

    fn visit_u64<E>(self, _: u64) -> Result<Item<'de>, E> {
        Ok(Item::Other)
    }

    fn visit_f64<E>(self, _: f64) -> Result<Item<'de>, E> {
        Ok(Item::Other)
    }

    fn visit_unit<E>(self) -> Result<Item<'de>, E> {
        Ok(Item::Other)
    }

    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Item<'de>, A::Error> {
        let mut items = Vec::new();
        while let Some(item) = seq.next_element_seed(self)? {
            if matches!(item, Item::Str(_) | Item::Object(_)) {
                items.push(item);
            }
        }
        Ok(Item::Array(items))
    }

    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Item<'de>, A::Error> {
        let mut entries = Vec::new();
        // A key reads as the string it is (JSON keys are strings), borrowed when unescaped.
        while let Some(key) = map.next_key_seed(self)? {
            match key {
                Item::Str(key) if (self.0)(&key) => entries.push((key, map.next_value_seed(self)?)),
                _ => {
                    map.next_value::<IgnoredAny>()?;
                }
            }
        }
        Ok(Item::Object(Fields::settle(entries)))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn examined(key: &str) -> bool {
        matches!(key, "command" | "file_path" | "edits" | "new_string")
    }

    /// The entries a text yields, as (key, strings) pairs.
    fn read(fields: &Fields<'_>) -> Vec<(String, Vec<String>)> {
        fields
            .entries()
            .map(|(key, item)| {
                let strings = match item {
                    Item::Str(text) => vec![text.to_string()],
                    Item::Array(items) => items
                        .iter()
                        .filter_map(|i| match i {
                            Item::Str(text) => Some(text.to_string()),
                            Item::Object(o) => Some(format!("{:?}", read(o))),
                            _ => None,
                        })
                        .collect(),
                    Item::Object(o) => vec![format!("{:?}", read(o))],
                    Item::Other => vec![],
                };
                (key.to_string(), strings)
            })
            .collect()
    }

    #[test]
    fn text_and_parsed_value_yield_the_same_entries() {
        let texts = [
            r#"{"file_path":"a","command":"git push -f","description":"x"}"#,
            r#"{"command":"first","command":"last","skip":{"command":"nested"}}"#,
            r#"{"edits":[{"new_string":"a\nb","old_string":"c"},"s",1,[2]],"file_path":7}"#,
            r#"{"command":"esc\"aped \u00e9","file_path":["p","q",null]}"#,
            r#"{"comm\u0061nd":"an escaped key","d\u00e9":1}"#,
        ];
        for text in texts {
            let value: Value = serde_json::from_str(text).unwrap();
            let from_value = Fields::from_map(value.as_object().unwrap(), examined);
            let Ok(Parsed::Object(from_text)) = parse(text, examined) else {
                panic!("{text} is an object");
            };
            assert_eq!(read(&from_text), read(&from_value), "{text}");
        }
        let Ok(Parsed::Object(last)) = parse(texts[1], examined) else {
            unreachable!()
        };
        assert!(matches!(last.get("command"), Some(Item::Str(c)) if c == "last"));
        assert!(last.get("skip").is_none());
    }

    /// What the JSON parser alone gives for `text`.
    fn parse_slow(text: &str) -> Result<Parsed<'_>, serde_json::Error> {
        let mut parser = serde_json::Deserializer::from_str(text);
        let parsed = ParsedSeed(examined).deserialize(&mut parser)?;
        parser.end()?;
        Ok(parsed)
    }

    /// Holds the flat reader to the JSON parser: when it reads a text, the parser reads the
    /// same entries from it.
    fn assert_flat_reads_as_the_parser(text: &str) -> bool {
        let Some(flat) = Flat::read(text, examined) else {
            return false;
        };
        match parse_slow(text) {
            Ok(Parsed::Object(slow)) => assert_eq!(read(&flat), read(&slow), "{text:?}"),
            other => panic!("the flat reader read {text:?}, the parser gave {other:?}"),
        }
        true
    }

    #[test]
    fn the_flat_reader_reads_the_usual_inputs_as_the_parser_does() {
        for text in [
            r#"{"command":"git push --force origin main","description":"Run it"}"#,
            r#" { "file_path" : "a\nb\t\"c\"\\d\/e" , "n" : -0 , "x" : null } "#,
            r#"{"owner":"acme","issue_number":4321,"body":"LGTM","ok":true,"no":false}"#,
            r#"{"command":"first","command":"last","file_path":"é"}"#,
            "{}",
            "{\n\t\"command\":\"x\"\r\n}",
        ] {
            assert!(assert_flat_reads_as_the_parser(text), "{text}");
        }
        // Left to the parser: a \u escape, a nested value, a fraction, an exponent, a long
        // number, a leading zero, a control byte, a bad escape, trailing text, a string.
        for text in [
            r#"{"command":"\u0041"}"#,
            r#"{"edits":[{"new_string":"x"}]}"#,
            r#"{"n":1.5}"#,
            r#"{"n":1e3}"#,
            r#"{"n":1234567890123456}"#,
            r#"{"n":01}"#,
            "{\"command\":\"a\u{1}b\"}",
            r#"{"command":"\q"}"#,
            r#"{"command":"x"} x"#,
            r#""rm -rf /""#,
            r#"{"command":"x",}"#,
            r#"{"n":tru}"#,
        ] {
            assert!(Flat::read(text, examined).is_none(), "{text}");
        }
    }

    proptest::proptest! {
        #![proptest_config(proptest::prelude::ProptestConfig::with_cases(2048))]

        /// Texts built from the pieces JSON is made of, valid or not: whatever the flat reader
        /// reads, the parser reads alike.
        #[test]
        fn the_flat_reader_never_reads_what_the_parser_reads_otherwise(
            pieces in proptest::collection::vec(proptest::sample::select(vec![
                "{", "}", "[", "]", "\"", "\\", ":", ",", " ", "\n", "\t", "\u{1}", "\u{7f}",
                "command", "file_path", "body", "x", "é", "0", "1", "-", ".", "e", "00",
                "123456789012345", "true", "false", "null", "nul", "u", "u0041", "n", "t", "/",
                "\"command\":", "\"body\":", "\"x\"",
            ]), 0..24)
        ) {
            let text: String = pieces.concat();
            assert_flat_reads_as_the_parser(&text);
            assert_flat_reads_as_the_parser(&format!("{{{text}}}"));
            assert_flat_reads_as_the_parser(&format!("{{\"command\":\"{text}\"}}"));
        }
    }

    #[test]
    fn strings_other_values_and_bad_text() {
        assert!(
            matches!(parse(r#""rm -rf /""#, examined), Ok(Parsed::Command(c)) if c == "rm -rf /")
        );
        assert!(matches!(parse("[1, 2]", examined), Ok(Parsed::Nothing)));
        assert!(matches!(parse("12", examined), Ok(Parsed::Nothing)));
        assert!(parse(r#"{"command": "x""#, examined).is_err());
        assert!(parse(r#"{"command": "x"} trailing"#, examined).is_err());
        let deep = format!("{}{}", "[".repeat(200), "]".repeat(200));
        assert!(parse(&format!(r#"{{"command": {deep}}}"#), examined).is_err());
    }
}
