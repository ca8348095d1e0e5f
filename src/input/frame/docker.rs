//! Docker's json-file log driver: `{"log":"<escaped text>","stream":"stdout|stderr","time":…}`,
//! one object a physical line, the text cut into chunks of 16 KiB whose last one ends in `\n`.
//!
//! Owns recognising such a line and unescaping its `log` text (as bytes: lone surrogates become
//! WTF-8 instead of failing). **Not here:** joining chunks ([`super::partial`]), decoding the
//! application line inside (`crate::decode`).
//!
//! Cost per candidate line: plain lines are rejected by their prefix; a Docker line costs one
//! substring search, one `serde_json` pass and one allocation for the unescaped text.
//!
//! Limits: the line must start with `{"log":"` and have `","stream":"` right after the log value
//! (the layout Docker writes); text split inside a multi-byte character is whatever the runtime
//! wrote; a `\r` before the final newline is stripped when the line is joined.

use std::fmt;
use std::sync::OnceLock;

use memchr::memmem::Finder;
use serde::de::{self, DeserializeSeed, Deserializer as _, IgnoredAny, MapAccess, Visitor};

use super::{Frame, Stream};

pub(super) const DOCKER_PREFIX: &[u8] = b"{\"log\":\"";
const DOCKER_STREAM_KEY: &[u8] = b"\",\"stream\":\"";

fn stream_key_finder() -> &'static Finder<'static> {
    static FINDER: OnceLock<Finder<'static>> = OnceLock::new();
    FINDER.get_or_init(|| Finder::new(DOCKER_STREAM_KEY))
}

/// For a line laid out like Docker's, the index of the quote closing the `log` value: the first
/// `","stream":"` after the opening quote. In valid JSON an unescaped `"` followed by `,"` can
/// only be that closing quote, so for any line that parses this is exact.
fn docker_log_end(line: &[u8]) -> Option<usize> {
    let body = line.strip_prefix(DOCKER_PREFIX)?;
    let at = stream_key_finder().find(body)?;
    Some(DOCKER_PREFIX.len() + at)
}

fn docker_frame(stream: Stream, mut content: Vec<u8>) -> Frame<'static> {
    let partial = content.last() != Some(&b'\n');
    if !partial {
        content.pop();
    }
    Frame::Docker {
        stream,
        partial,
        content,
    }
}

/// A Docker json-file chunk, or `None` when the line is not one (not laid out like Docker's,
/// not JSON, no `stream`).
pub(super) fn parse(line: &[u8]) -> Option<Frame<'static>> {
    docker_log_end(line)?;
    let (content, stream) = parse_record(line)?;
    Some(docker_frame(stream, content))
}

/// Parses a whole Docker json-file object into its unescaped `log` text and stream.
fn parse_record(line: &[u8]) -> Option<(Vec<u8>, Stream)> {
    let mut de = serde_json::Deserializer::from_slice(line);
    let record = de.deserialize_map(RecordVisitor).ok()?;
    de.end().ok()?;
    Some(record)
}

struct RecordVisitor;

impl<'de> Visitor<'de> for RecordVisitor {
    type Value = (Vec<u8>, Stream);

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("a Docker json-file log record")
    }

    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Self::Value, A::Error> {
        let mut log = None;
        let mut stream = None;
        while let Some(key) = map.next_key_seed(KeySeed)? {
            match key {
                Key::Log if log.is_some() => return Err(de::Error::duplicate_field("log")),
                Key::Log => {
                    log = Some(map.next_value_seed(LogSeed)?);
                }
                Key::Stream if stream.is_some() => {
                    return Err(de::Error::duplicate_field("stream"))
                }
                Key::Stream => stream = Some(map.next_value_seed(StreamSeed)?),
                Key::Other => {
                    map.next_value::<IgnoredAny>()?;
                }
            }
        }
        let log = log.ok_or_else(|| de::Error::missing_field("log"))?;
        let stream = stream.ok_or_else(|| de::Error::missing_field("stream"))?;
        Ok((log, stream))
    }
}

enum Key {
    Log,
    Stream,
    Other,
}

struct KeySeed;

impl<'de> DeserializeSeed<'de> for KeySeed {
    type Value = Key;

    fn deserialize<D: de::Deserializer<'de>>(self, deserializer: D) -> Result<Key, D::Error> {
        deserializer.deserialize_identifier(self)
    }
}

impl<'de> Visitor<'de> for KeySeed {
    type Value = Key;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("a field name")
    }

    fn visit_str<E: de::Error>(self, key: &str) -> Result<Key, E> {
        Ok(match key {
            "log" => Key::Log,
            "stream" => Key::Stream,
            _ => Key::Other,
        })
    }
}

/// The `log` value as raw bytes: `serde_json` unescapes byte strings without requiring UTF-8,
/// encoding lone surrogates as WTF-8 instead of failing.
struct LogSeed;

impl<'de> DeserializeSeed<'de> for LogSeed {
    type Value = Vec<u8>;

    fn deserialize<D: de::Deserializer<'de>>(self, deserializer: D) -> Result<Vec<u8>, D::Error> {
        deserializer.deserialize_bytes(self)
    }
}

impl<'de> Visitor<'de> for LogSeed {
    type Value = Vec<u8>;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("a JSON string")
    }

    fn visit_bytes<E: de::Error>(self, text: &[u8]) -> Result<Vec<u8>, E> {
        Ok(text.to_vec())
    }

    fn visit_byte_buf<E: de::Error>(self, text: Vec<u8>) -> Result<Vec<u8>, E> {
        Ok(text)
    }
}

struct StreamSeed;

impl<'de> DeserializeSeed<'de> for StreamSeed {
    type Value = Stream;

    fn deserialize<D: de::Deserializer<'de>>(self, deserializer: D) -> Result<Stream, D::Error> {
        deserializer.deserialize_str(self)
    }
}

impl<'de> Visitor<'de> for StreamSeed {
    type Value = Stream;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("\"stdout\" or \"stderr\"")
    }

    fn visit_str<E: de::Error>(self, name: &str) -> Result<Stream, E> {
        match name {
            "stdout" => Ok(Stream::Stdout),
            "stderr" => Ok(Stream::Stderr),
            _ => Err(E::invalid_value(de::Unexpected::Str(name), &self)),
        }
    }
}
