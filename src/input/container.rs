//! Turns physical log lines written by a container runtime (CRI `P`/`F` chunks from
//! containerd/CRI-O, Docker json-file objects) back into the application's own lines, passing
//! anything unframed through untouched.
//!
//! Owns: the pending partial line of each stream (stdout, stderr) of one source file, inside a
//! [`Rejoiner`]. Invariant: a pending buffer never holds more than `max_line_bytes` bytes (its
//! retained capacity never exceeds `max_line_bytes` either); a line that would grow past the cap
//! is dropped, reported once as [`Joined::Oversized`], and its remaining chunks are swallowed
//! until its final chunk.
//!
//! Not here: no JSON decoding of the application line (only the Docker envelope is unescaped),
//! no counting, no metrics, no I/O.
//!
//! Cost per candidate line: plain lines are rejected after a few bytes (first byte not a digit,
//! no `{"log":"` prefix); a CRI line costs a timestamp check plus two short scans and never
//! allocates unless it has to be joined; a Docker line costs one substring search plus one
//! `serde_json` pass and one allocation for the unescaped text.
//! A joined line costs one allocation of its exact size.
//!
//! Limits: CRI timestamps must be RFC 3339 (`T` separator, `Z` or `±hh:mm` zone, optional
//! fraction); the CRI tag field is accepted if its first byte is `P` or `F`; a Docker line must
//! start with `{"log":"` and have `","stream":"` right after the log value (the layout Docker
//! writes); Docker text split inside a multi-byte character is whatever the runtime wrote; a
//! trailing `\r` is stripped from Docker lines only (CRI content is returned byte for byte).

use std::borrow::Cow;
use std::fmt;
use std::sync::OnceLock;

use memchr::memmem::Finder;
use serde::de::{self, DeserializeSeed, Deserializer as _, IgnoredAny, MapAccess, Visitor};

/// Which output stream of the container a chunk came from.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Stream {
    Stdout,
    Stderr,
}

impl Stream {
    fn index(self) -> usize {
        match self {
            Stream::Stdout => 0,
            Stream::Stderr => 1,
        }
    }
}

/// One physical line, classified.
#[derive(Debug, PartialEq, Eq)]
pub enum Frame<'a> {
    /// Not container-framed: the application's own line.
    Plain(&'a [u8]),
    /// CRI-framed chunk (borrowed content).
    Cri {
        stream: Stream,
        partial: bool,
        content: &'a [u8],
    },
    /// Docker json-file chunk (unescaped content, trailing "\n" removed when complete).
    ///
    /// A `\r` before that `\n` is kept here; [`Rejoiner::push`] strips it from the joined line.
    Docker {
        stream: Stream,
        partial: bool,
        content: Vec<u8>,
    },
}

/// Classifies one physical line (without its trailing newline). Never fails: anything not
/// recognisably framed (including a `{"log":` object that does not parse, or has no "stream") is `Plain`.
#[must_use]
pub fn parse(line: &[u8]) -> Frame<'_> {
    if let Some(frame) = parse_cri(line) {
        return frame;
    }
    if docker_log_end(line).is_some() {
        if let Some((content, stream)) = parse_docker(line, true) {
            return docker_frame(stream, content);
        }
    }
    Frame::Plain(line)
}

/// What pushing one frame produced.
#[derive(Debug, PartialEq, Eq)]
pub enum Joined<'a> {
    /// A whole application line (borrowed when the frame was complete on its own and nothing was pending).
    Line(Cow<'a, [u8]>),
    /// A partial chunk was stored; nothing to decode yet.
    Pending,
    /// The line being joined exceeded the cap; reported once per oversized line (on the chunk that crossed the cap); later chunks of that line return `Pending` until its end, which returns `Pending` too and resets.
    Oversized,
}

/// An unfinished line held by a [`Rejoiner`], as saved in the state file.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct SavedPartial {
    pub stderr: bool,
    pub discarding: bool,
    pub content: Vec<u8>,
}

/// Rejoins partial chunks, per stream. One per source file.
///
/// The cap applies to the sum of the chunk contents of one line (for Docker this counts a final
/// `\r`, which is stripped afterwards); a single complete framed chunk over the cap is
/// `Oversized` too. `Plain` frames are never capped here.
#[derive(Debug)]
pub struct Rejoiner {
    /// Indexed by [`Stream::index`].
    slots: [Slot; 2],
    max_line_bytes: usize,
}

#[derive(Debug, Default)]
struct Slot {
    /// Content of the unfinished line so far; cleared (capacity kept) when the line ends.
    buf: Vec<u8>,
    state: SlotState,
}

#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
enum SlotState {
    /// No line in progress (`buf` is empty).
    #[default]
    Idle,
    /// At least one partial chunk seen (`buf` may still be empty: chunks can be empty).
    Joining,
    /// The line in progress crossed the cap; its chunks are dropped until its final one.
    Discarding,
}

impl Rejoiner {
    #[must_use]
    pub fn new(max_line_bytes: usize) -> Rejoiner {
        Rejoiner {
            slots: [Slot::default(), Slot::default()],
            max_line_bytes,
        }
    }

    /// Feeds one classified frame. `Plain` frames pass through as `Line(Cow::Borrowed)` and do not disturb pending partials.
    pub fn push<'a>(&mut self, frame: Frame<'a>) -> Joined<'a> {
        match frame {
            Frame::Plain(line) => Joined::Line(Cow::Borrowed(line)),
            Frame::Cri {
                stream,
                partial,
                content,
            } => self.push_chunk(stream, partial, Cow::Borrowed(content), false),
            Frame::Docker {
                stream,
                partial,
                content,
            } => self.push_chunk(stream, partial, Cow::Owned(content), true),
        }
    }

    /// True if any stream holds an unfinished partial line (the caller must then feed every following physical line, not just prefilter hits).
    ///
    /// Also true while the rest of an oversized line is being discarded: its end must be seen.
    #[must_use]
    #[cfg(test)]
    pub fn has_pending(&self) -> bool {
        self.slots.iter().any(|slot| slot.state != SlotState::Idle)
    }

    /// Bytes currently held (for memory accounting).
    ///
    /// Counts the content of unfinished lines; the retained capacity behind it is at most
    /// `max_line_bytes` per stream.
    #[must_use]
    #[cfg(test)]
    pub fn pending_bytes(&self) -> usize {
        self.slots.iter().map(|slot| slot.buf.len()).sum()
    }

    /// The unfinished lines, for the state file: a restart must resume a partial line where it
    /// was, because the offset saved beside it is already past its earlier chunks.
    #[must_use]
    pub fn save(&self) -> Vec<SavedPartial> {
        self.slots
            .iter()
            .enumerate()
            .filter(|(_, slot)| slot.state != SlotState::Idle)
            .map(|(index, slot)| SavedPartial {
                stderr: index == Stream::Stderr.index(),
                discarding: slot.state == SlotState::Discarding,
                content: slot.buf.clone(),
            })
            .collect()
    }

    /// Restores what [`Rejoiner::save`] returned.
    pub fn restore(&mut self, saved: &[SavedPartial]) {
        for partial in saved {
            let stream = if partial.stderr {
                Stream::Stderr
            } else {
                Stream::Stdout
            };
            let slot = &mut self.slots[stream.index()];
            slot.buf.clear();
            slot.buf.extend_from_slice(
                &partial.content[..partial.content.len().min(self.max_line_bytes)],
            );
            slot.state = if partial.discarding {
                SlotState::Discarding
            } else {
                SlotState::Joining
            };
        }
    }

    fn push_chunk<'a>(
        &mut self,
        stream: Stream,
        partial: bool,
        content: Cow<'a, [u8]>,
        strip_cr: bool,
    ) -> Joined<'a> {
        let max = self.max_line_bytes;
        let slot = &mut self.slots[stream.index()];
        if slot.state == SlotState::Discarding {
            if !partial {
                slot.state = SlotState::Idle;
            }
            return Joined::Pending;
        }
        let total = slot.buf.len().saturating_add(content.len());
        if total > max {
            slot.buf.clear();
            slot.state = if partial {
                SlotState::Discarding
            } else {
                SlotState::Idle
            };
            return Joined::Oversized;
        }
        if partial {
            append_capped(&mut slot.buf, &content, max);
            slot.state = SlotState::Joining;
            return Joined::Pending;
        }
        slot.state = SlotState::Idle;
        let mut line = if slot.buf.is_empty() {
            content
        } else {
            let mut joined = Vec::with_capacity(total);
            joined.extend_from_slice(&slot.buf);
            joined.extend_from_slice(&content);
            slot.buf.clear();
            Cow::Owned(joined)
        };
        if strip_cr && line.last() == Some(&b'\r') {
            match &mut line {
                Cow::Borrowed(bytes) => *bytes = &bytes[..bytes.len() - 1],
                Cow::Owned(bytes) => {
                    bytes.pop();
                }
            }
        }
        Joined::Line(line)
    }
}

/// Appends `data`, growing `buf` geometrically but never past `max` bytes of capacity.
/// The caller guarantees `buf.len() + data.len() <= max`.
fn append_capped(buf: &mut Vec<u8>, data: &[u8], max: usize) {
    let needed = buf.len() + data.len();
    if needed > buf.capacity() {
        let target = needed.max(buf.capacity().saturating_mul(2).min(max));
        buf.reserve_exact(target - buf.len());
    }
    buf.extend_from_slice(data);
}

// ---------------------------------------------------------------------------------------------
// CRI

/// Longest prefix searched for the space ending the timestamp (RFC 3339 with nanoseconds and a
/// numeric zone is 35 bytes).
const CRI_TIMESTAMP_WINDOW: usize = 64;

fn parse_cri(line: &[u8]) -> Option<Frame<'_>> {
    if !line.first()?.is_ascii_digit() {
        return None;
    }
    let window = &line[..line.len().min(CRI_TIMESTAMP_WINDOW)];
    let ts_end = memchr::memchr(b' ', window)?;
    if !is_rfc3339(&line[..ts_end]) {
        return None;
    }
    let rest = &line[ts_end + 1..];
    let (stream, rest) = if let Some(rest) = rest.strip_prefix(b"stdout ") {
        (Stream::Stdout, rest)
    } else if let Some(rest) = rest.strip_prefix(b"stderr ") {
        (Stream::Stderr, rest)
    } else {
        return None;
    };
    let partial = match rest.first()? {
        b'P' => true,
        b'F' => false,
        _ => return None,
    };
    let content: &[u8] = match memchr::memchr(b' ', rest) {
        Some(space) => &rest[space + 1..],
        None => &[],
    };
    Some(Frame::Cri {
        stream,
        partial,
        content,
    })
}

/// `YYYY-MM-DDTHH:MM:SS[.fraction](Z|±hh:mm)`, with field ranges checked.
fn is_rfc3339(ts: &[u8]) -> bool {
    fn num(ts: &[u8], at: usize, len: usize) -> Option<u32> {
        let digits = ts.get(at..at + len)?;
        digits.iter().try_fold(0u32, |acc, &b| {
            b.is_ascii_digit().then(|| acc * 10 + u32::from(b - b'0'))
        })
    }
    fn check(ts: &[u8]) -> Option<()> {
        num(ts, 0, 4)?;
        let month = num(ts, 5, 2)?;
        let day = num(ts, 8, 2)?;
        let hour = num(ts, 11, 2)?;
        let minute = num(ts, 14, 2)?;
        let second = num(ts, 17, 2)?;
        let separators_ok = ts[4] == b'-'
            && ts[7] == b'-'
            && matches!(ts[10], b'T' | b't')
            && ts[13] == b':'
            && ts[16] == b':';
        let ranges_ok = (1..=12).contains(&month)
            && (1..=31).contains(&day)
            && hour <= 23
            && minute <= 59
            && second <= 60;
        if !(separators_ok && ranges_ok) {
            return None;
        }
        let mut zone = &ts[19..];
        if let Some(fraction) = zone.strip_prefix(b".") {
            let digits = fraction.iter().take_while(|b| b.is_ascii_digit()).count();
            if digits == 0 {
                return None;
            }
            zone = &fraction[digits..];
        }
        match zone {
            [b'Z' | b'z'] => Some(()),
            [b'+' | b'-', _, _, b':', _, _] => {
                let zone_hour = num(zone, 1, 2)?;
                let zone_minute = num(zone, 4, 2)?;
                (zone_hour <= 23 && zone_minute <= 59).then_some(())
            }
            _ => None,
        }
    }
    check(ts).is_some()
}

// ---------------------------------------------------------------------------------------------
// Docker json-file

const DOCKER_PREFIX: &[u8] = b"{\"log\":\"";
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

/// Parses a whole Docker json-file object. With `keep_log` false the `log` text is still
/// validated exactly as when kept, but not copied out (the returned content is then empty).
fn parse_docker(line: &[u8], keep_log: bool) -> Option<(Vec<u8>, Stream)> {
    let mut de = serde_json::Deserializer::from_slice(line);
    let record = de.deserialize_map(RecordVisitor { keep_log }).ok()?;
    de.end().ok()?;
    Some(record)
}

struct RecordVisitor {
    keep_log: bool,
}

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
                    log = Some(map.next_value_seed(LogSeed {
                        keep: self.keep_log,
                    })?);
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
struct LogSeed {
    keep: bool,
}

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
        Ok(if self.keep { text.to_vec() } else { Vec::new() })
    }

    fn visit_byte_buf<E: de::Error>(self, text: Vec<u8>) -> Result<Vec<u8>, E> {
        Ok(if self.keep { text } else { Vec::new() })
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

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    const TS: &str = "2026-06-12T10:00:00.123456789Z";

    fn cri(stream: Stream, partial: bool, content: &'static [u8]) -> Frame<'static> {
        Frame::Cri {
            stream,
            partial,
            content,
        }
    }

    fn docker(stream: Stream, partial: bool, content: &[u8]) -> Frame<'static> {
        Frame::Docker {
            stream,
            partial,
            content: content.to_vec(),
        }
    }

    fn line(joined: &[u8]) -> Joined<'static> {
        Joined::Line(Cow::Owned(joined.to_vec()))
    }

    /// A Docker json-file line as the runtime writes it, escaping via `serde_json`.
    fn docker_line(log: &str, stream: &str) -> Vec<u8> {
        let log = serde_json::to_string(log).expect("strings always serialize");
        format!("{{\"log\":{log},\"stream\":\"{stream}\",\"time\":\"{TS}\"}}").into_bytes()
    }

    fn cri_line(stream: &str, tag: &str, content: &[u8]) -> Vec<u8> {
        let mut line = format!("{TS} {stream} {tag} ").into_bytes();
        line.extend_from_slice(content);
        line
    }

    fn valid_cases() -> Vec<(&'static str, &'static [u8], Frame<'static>)> {
        use Stream::{Stderr, Stdout};
        vec![
            (
                "cri stdout full",
                b"2026-06-12T10:00:00.123456789Z stdout F {\"level\":40}",
                cri(Stdout, false, b"{\"level\":40}"),
            ),
            (
                "cri stdout partial",
                b"2026-06-12T10:00:00.123456789Z stdout P {\"level\":40,\"ev",
                cri(Stdout, true, b"{\"level\":40,\"ev"),
            ),
            (
                "cri stderr full",
                b"2026-06-12T10:00:00.123456790Z stderr F ent\":\"x\"}",
                cri(Stderr, false, b"ent\":\"x\"}"),
            ),
            (
                "cri stderr partial",
                b"2026-06-12T10:00:00Z stderr P abc",
                cri(Stderr, true, b"abc"),
            ),
            (
                "cri tag with extra tags",
                b"2026-06-12T10:00:00.1Z stdout F:x:y hello",
                cri(Stdout, false, b"hello"),
            ),
            (
                "cri partial tag with extra tags",
                b"2026-06-12T10:00:00.1Z stdout P:some-tag hello",
                cri(Stdout, true, b"hello"),
            ),
            (
                "cri empty content with space",
                b"2026-06-12T10:00:00.123Z stdout F ",
                cri(Stdout, false, b""),
            ),
            (
                "cri empty content without space",
                b"2026-06-12T10:00:00.123Z stderr F",
                cri(Stderr, false, b""),
            ),
            (
                "cri content with spaces and tabs",
                b"2026-06-12T10:00:00.123Z stdout F  a\tb  c \t",
                cri(Stdout, false, b" a\tb  c \t"),
            ),
            (
                "cri numeric zone offset (CRI-O local time)",
                b"2026-06-12T12:00:00.123456789+02:00 stdout F x",
                cri(Stdout, false, b"x"),
            ),
            (
                "cri negative zone, lowercase t",
                b"2026-06-12t10:00:00-05:30 stdout F x",
                cri(Stdout, false, b"x"),
            ),
            (
                "cri leap second",
                b"2016-12-31T23:59:60Z stdout F x",
                cri(Stdout, false, b"x"),
            ),
            (
                "cri content looks like docker",
                b"2026-06-12T10:00:00Z stdout F {\"log\":\"a\\n\",\"stream\":\"stdout\"}",
                cri(Stdout, false, b"{\"log\":\"a\\n\",\"stream\":\"stdout\"}"),
            ),
            (
                "cri invalid utf-8 content",
                b"2026-06-12T10:00:00Z stdout F \xff\xfe",
                cri(Stdout, false, b"\xff\xfe"),
            ),
            (
                "docker complete",
                b"{\"log\":\"{\\\"level\\\":40}\\n\",\"stream\":\"stdout\",\"time\":\"2026-06-12T10:00:00.123456789Z\"}",
                docker(Stdout, false, b"{\"level\":40}"),
            ),
            (
                "docker partial",
                b"{\"log\":\"{\\\"level\\\":40,\",\"stream\":\"stderr\",\"time\":\"2026-06-12T10:00:00.123456789Z\"}",
                docker(Stderr, true, b"{\"level\":40,"),
            ),
            (
                "docker escapes",
                b"{\"log\":\"q\\\" b\\\\ e\\u00e9 t\\t s\\/ \\u003c\\b\\f\\n\",\"stream\":\"stdout\",\"time\":\"2026-06-12T10:00:00Z\"}",
                docker(Stdout, false, "q\" b\\ e\u{e9} t\t s/ <\u{8}\u{c}".as_bytes()),
            ),
            (
                "docker crlf keeps cr in the frame",
                b"{\"log\":\"abc\\r\\n\",\"stream\":\"stdout\",\"time\":\"2026-06-12T10:00:00Z\"}",
                docker(Stdout, false, b"abc\r"),
            ),
            (
                "docker newline as unicode escape",
                b"{\"log\":\"abc\\u000A\",\"stream\":\"stdout\",\"time\":\"2026-06-12T10:00:00Z\"}",
                docker(Stdout, false, b"abc"),
            ),
            (
                "docker escaped backslash then n is partial",
                b"{\"log\":\"abc\\\\n\",\"stream\":\"stdout\",\"time\":\"2026-06-12T10:00:00Z\"}",
                docker(Stdout, true, b"abc\\n"),
            ),
            (
                "docker surrogate pair",
                b"{\"log\":\"\\ud83d\\ude00\\n\",\"stream\":\"stdout\",\"time\":\"2026-06-12T10:00:00Z\"}",
                docker(Stdout, false, "\u{1f600}".as_bytes()),
            ),
            (
                "docker lone surrogate becomes wtf-8",
                b"{\"log\":\"a\\ud800b\\n\",\"stream\":\"stdout\",\"time\":\"2026-06-12T10:00:00Z\"}",
                docker(Stdout, false, b"a\xed\xa0\x80b"),
            ),
            (
                "docker lone trailing surrogate",
                b"{\"log\":\"\\udc00\",\"stream\":\"stdout\",\"time\":\"2026-06-12T10:00:00Z\"}",
                docker(Stdout, true, b"\xed\xb0\x80"),
            ),
            (
                "docker empty final chunk",
                b"{\"log\":\"\\n\",\"stream\":\"stdout\",\"time\":\"2026-06-12T10:00:00Z\"}",
                docker(Stdout, false, b""),
            ),
            (
                "docker with attrs",
                b"{\"log\":\"x\\n\",\"stream\":\"stderr\",\"attrs\":{\"tag\":\"a\"},\"time\":\"2026-06-12T10:00:00Z\"}",
                docker(Stderr, false, b"x"),
            ),
            (
                "docker without time",
                b"{\"log\":\"x\\n\",\"stream\":\"stdout\"}",
                docker(Stdout, false, b"x"),
            ),
            (
                "docker content containing the stream key",
                b"{\"log\":\"a\\\",\\\"stream\\\":\\\"b\\n\",\"stream\":\"stdout\",\"time\":\"2026-06-12T10:00:00Z\"}",
                docker(Stdout, false, b"a\",\"stream\":\"b"),
            ),
        ]
    }

    fn invalid_cases() -> Vec<(&'static str, &'static [u8])> {
        vec![
            ("empty", b""),
            ("plain json", b"{\"level\":40,\"msg\":\"denied\"}"),
            ("plain text", b"hello world"),
            ("timestamp only", b"2026-06-12T10:00:00Z"),
            ("timestamp and stream only", b"2026-06-12T10:00:00Z stdout"),
            ("missing tag", b"2026-06-12T10:00:00Z stdout "),
            ("bad tag", b"2026-06-12T10:00:00Z stdout X hello"),
            ("bad stream", b"2026-06-12T10:00:00Z stdin F hello"),
            (
                "double space before stream",
                b"2026-06-12T10:00:00Z  stdout F x",
            ),
            ("date only", b"2026-06-12 stdout F x"),
            ("space instead of T", b"2026-06-12 10:00:00Z stdout F x"),
            ("month 13", b"2026-13-12T10:00:00Z stdout F x"),
            ("day 0", b"2026-06-00T10:00:00Z stdout F x"),
            ("hour 24", b"2026-06-12T24:00:00Z stdout F x"),
            ("minute 60", b"2026-06-12T10:60:00Z stdout F x"),
            ("no zone", b"2026-06-12T10:00:00 stdout F x"),
            ("empty fraction", b"2026-06-12T10:00:00.Z stdout F x"),
            ("bad zone", b"2026-06-12T10:00:00+0200 stdout F x"),
            ("zone hour 24", b"2026-06-12T10:00:00+24:00 stdout F x"),
            ("letters in date", b"2026-0a-12T10:00:00Z stdout F x"),
            ("short year", b"226-06-12T10:00:00Z stdout F x"),
            ("klog style", b"I0612 10:00:00.123456 1 main.go:1] hello"),
            (
                "log object that is an app line",
                b"{\"log\":\"hello\",\"level\":40,\"msg\":\"x\"}",
            ),
            (
                "log object with stream key inside log only",
                b"{\"log\":\"a\",\"level\":40,\"x\":\"\",\"stream\":\"y\"}",
            ),
            (
                "truncated docker",
                b"{\"log\":\"abc\\n\",\"stream\":\"stdout\",\"time\":\"2026-06-",
            ),
            (
                "truncated inside stream",
                b"{\"log\":\"abc\\n\",\"stream\":\"std",
            ),
            (
                "unknown stream",
                b"{\"log\":\"abc\\n\",\"stream\":\"stdin\",\"time\":\"2026-06-12T10:00:00Z\"}",
            ),
            (
                "non-string log",
                b"{\"log\":1,\"stream\":\"stdout\",\"time\":\"2026-06-12T10:00:00Z\"}",
            ),
            (
                "invalid escape",
                b"{\"log\":\"\\x\\n\",\"stream\":\"stdout\",\"time\":\"2026-06-12T10:00:00Z\"}",
            ),
            (
                "short unicode escape",
                b"{\"log\":\"\\u00\\n\",\"stream\":\"stdout\",\"time\":\"2026-06-12T10:00:00Z\"}",
            ),
            (
                "trailing garbage",
                b"{\"log\":\"abc\\n\",\"stream\":\"stdout\",\"time\":\"2026-06-12T10:00:00Z\"} x",
            ),
            (
                "duplicate stream",
                b"{\"log\":\"abc\\n\",\"stream\":\"stdout\",\"stream\":\"stderr\"}",
            ),
            (
                "whitespace layout is not docker's",
                b"{\"log\": \"abc\\n\", \"stream\": \"stdout\"}",
            ),
            (
                "stream key before log",
                b"{\"stream\":\"stdout\",\"log\":\"abc\\n\"}",
            ),
        ]
    }

    #[test]
    fn parse_valid_cases() {
        for (name, input, expected) in valid_cases() {
            assert_eq!(parse(input), expected, "case {name}");
        }
    }

    #[test]
    fn parse_invalid_cases_are_plain() {
        for (name, input) in invalid_cases() {
            assert_eq!(parse(input), Frame::Plain(input), "case {name}");
        }
    }

    #[test]
    fn plain_passes_through_borrowed() {
        let mut rejoiner = Rejoiner::new(100);
        let input: &[u8] = b"{\"level\":40}";
        match rejoiner.push(parse(input)) {
            Joined::Line(Cow::Borrowed(out)) => assert_eq!(out, input),
            other => panic!("expected a borrowed line, got {other:?}"),
        }
        assert!(!rejoiner.has_pending());
    }

    #[test]
    fn cri_complete_line_is_borrowed() {
        let mut rejoiner = Rejoiner::new(100);
        let input = cri_line("stdout", "F", b"hello");
        match rejoiner.push(parse(&input)) {
            Joined::Line(Cow::Borrowed(out)) => assert_eq!(out, b"hello"),
            other => panic!("expected a borrowed line, got {other:?}"),
        }
    }

    #[test]
    fn cri_partial_partial_full_joins() {
        let mut rejoiner = Rejoiner::new(100);
        let lines = [
            cri_line("stdout", "P", b"{\"level\":40,\"ev"),
            cri_line("stdout", "P", b"ent\":"),
            cri_line("stdout", "F", b"\"x\"}"),
        ];
        assert_eq!(rejoiner.push(parse(&lines[0])), Joined::Pending);
        assert!(rejoiner.has_pending());
        assert_eq!(rejoiner.pending_bytes(), 15);
        assert_eq!(rejoiner.push(parse(&lines[1])), Joined::Pending);
        assert_eq!(
            rejoiner.push(parse(&lines[2])),
            line(b"{\"level\":40,\"event\":\"x\"}")
        );
        assert!(!rejoiner.has_pending());
        assert_eq!(rejoiner.pending_bytes(), 0);
    }

    #[test]
    fn empty_partial_chunk_still_counts_as_pending() {
        let mut rejoiner = Rejoiner::new(100);
        assert_eq!(
            rejoiner.push(parse(&cri_line("stdout", "P", b""))),
            Joined::Pending
        );
        assert!(rejoiner.has_pending());
        assert_eq!(rejoiner.pending_bytes(), 0);
        assert_eq!(
            rejoiner.push(parse(&cri_line("stdout", "F", b"x"))),
            line(b"x")
        );
        assert!(!rejoiner.has_pending());
    }

    #[test]
    fn interleaved_streams_and_plain_lines() {
        let mut rejoiner = Rejoiner::new(100);
        let out_p = cri_line("stdout", "P", b"out-1 ");
        let err_p = cri_line("stderr", "P", b"err-1 ");
        let plain: &[u8] = b"not framed";
        let out_f = cri_line("stdout", "F", b"out-2");
        let err_f = cri_line("stderr", "F", b"err-2");
        assert_eq!(rejoiner.push(parse(&out_p)), Joined::Pending);
        assert_eq!(rejoiner.push(parse(&err_p)), Joined::Pending);
        assert_eq!(rejoiner.push(parse(plain)), line(plain));
        assert_eq!(rejoiner.pending_bytes(), 12);
        assert_eq!(rejoiner.push(parse(&out_f)), line(b"out-1 out-2"));
        assert!(rejoiner.has_pending());
        assert_eq!(rejoiner.push(parse(&err_f)), line(b"err-1 err-2"));
        assert!(!rejoiner.has_pending());
    }

    #[test]
    fn docker_split_into_three_chunks() {
        let mut rejoiner = Rejoiner::new(100);
        let chunks = [
            docker_line("{\"level\":40,", "stdout"),
            docker_line("\"msg\":\"caf\u{e9}", "stdout"),
            docker_line("\"}\r\n", "stdout"),
        ];
        assert_eq!(rejoiner.push(parse(&chunks[0])), Joined::Pending);
        assert_eq!(rejoiner.push(parse(&chunks[1])), Joined::Pending);
        assert_eq!(
            rejoiner.push(parse(&chunks[2])),
            line("{\"level\":40,\"msg\":\"caf\u{e9}\"}".as_bytes())
        );
        assert!(!rejoiner.has_pending());
    }

    #[test]
    fn docker_cr_split_from_its_newline_is_stripped() {
        let mut rejoiner = Rejoiner::new(100);
        assert_eq!(
            rejoiner.push(parse(&docker_line("abc\r", "stderr"))),
            Joined::Pending
        );
        assert_eq!(
            rejoiner.push(parse(&docker_line("\n", "stderr"))),
            line(b"abc")
        );
        // Only one CR goes, and CRI content keeps its CR.
        assert_eq!(
            rejoiner.push(parse(&docker_line("abc\r\r\n", "stderr"))),
            line(b"abc\r")
        );
        assert_eq!(
            rejoiner.push(parse(&cri_line("stdout", "F", b"abc\r"))),
            line(b"abc\r")
        );
    }

    #[test]
    fn oversized_partial_sequence_reports_once_then_recovers() {
        let mut rejoiner = Rejoiner::new(10);
        let feed = |r: &mut Rejoiner, tag: &str, content: &[u8]| {
            let physical = cri_line("stdout", tag, content);
            match r.push(parse(&physical)) {
                Joined::Line(cow) => Joined::Line(Cow::Owned(cow.into_owned())),
                Joined::Pending => Joined::Pending,
                Joined::Oversized => Joined::Oversized,
            }
        };
        assert_eq!(feed(&mut rejoiner, "P", b"12345"), Joined::Pending);
        assert_eq!(feed(&mut rejoiner, "P", b"67890"), Joined::Pending);
        assert_eq!(rejoiner.pending_bytes(), 10);
        assert_eq!(feed(&mut rejoiner, "P", b"x"), Joined::Oversized);
        assert_eq!(rejoiner.pending_bytes(), 0);
        assert!(rejoiner.has_pending(), "the end must still be fed");
        assert_eq!(feed(&mut rejoiner, "P", b"y"), Joined::Pending);
        assert_eq!(feed(&mut rejoiner, "F", b"z"), Joined::Pending);
        assert!(!rejoiner.has_pending());
        assert_eq!(feed(&mut rejoiner, "F", b"ok"), line(b"ok"));
        assert_eq!(feed(&mut rejoiner, "P", b"12345"), Joined::Pending);
        assert_eq!(feed(&mut rejoiner, "F", b"67890"), line(b"1234567890"));
        // Crossing the cap on the final chunk: reported, and nothing left to discard.
        assert_eq!(feed(&mut rejoiner, "P", b"123456"), Joined::Pending);
        assert_eq!(feed(&mut rejoiner, "F", b"78901"), Joined::Oversized);
        assert!(!rejoiner.has_pending());
        // A single complete framed line over the cap.
        assert_eq!(feed(&mut rejoiner, "F", b"12345678901"), Joined::Oversized);
        assert_eq!(feed(&mut rejoiner, "F", b"ok"), line(b"ok"));
    }

    #[test]
    fn oversized_on_one_stream_leaves_the_other_alone() {
        let mut rejoiner = Rejoiner::new(4);
        assert_eq!(
            rejoiner.push(parse(&cri_line("stderr", "P", b"ab"))),
            Joined::Pending
        );
        assert_eq!(
            rejoiner.push(parse(&cri_line("stdout", "P", b"12345"))),
            Joined::Oversized
        );
        assert_eq!(
            rejoiner.push(parse(&cri_line("stderr", "F", b"cd"))),
            line(b"abcd")
        );
        assert_eq!(
            rejoiner.push(parse(&cri_line("stdout", "F", b"6"))),
            Joined::Pending
        );
        assert!(!rejoiner.has_pending());
    }

    #[test]
    fn pending_buffer_is_reused_and_capped() {
        let mut rejoiner = Rejoiner::new(1000);
        for _ in 0..3 {
            for _ in 0..9 {
                rejoiner.push(parse(&cri_line("stdout", "P", &[b'a'; 100])));
            }
            assert!(rejoiner.slots[0].buf.capacity() <= 1000);
            let capacity = rejoiner.slots[0].buf.capacity();
            assert!(matches!(
                rejoiner.push(parse(&cri_line("stdout", "F", &[b'b'; 100]))),
                Joined::Line(_)
            ));
            assert_eq!(rejoiner.slots[0].buf.capacity(), capacity);
        }
    }

    /// Byte offsets (sorted) at which to cut a line of `len` bytes.
    fn cuts(len: usize, raw: &[usize]) -> Vec<usize> {
        let mut cuts: Vec<usize> = raw.iter().map(|c| c % (len + 1)).collect();
        cuts.sort_unstable();
        cuts
    }

    fn split_bytes<'a>(text: &'a [u8], cuts: &[usize]) -> Vec<&'a [u8]> {
        let mut pieces = Vec::new();
        let mut start = 0;
        for &cut in cuts {
            pieces.push(&text[start..cut]);
            start = cut;
        }
        pieces.push(&text[start..]);
        pieces
    }

    fn cri_chunks(stream: &str, text: &[u8], cuts: &[usize]) -> Vec<Vec<u8>> {
        let pieces = split_bytes(text, cuts);
        let last = pieces.len() - 1;
        pieces
            .iter()
            .enumerate()
            .map(|(i, piece)| cri_line(stream, if i == last { "F" } else { "P" }, piece))
            .collect()
    }

    fn docker_chunks(stream: &str, text: &str, cuts: &[usize]) -> Vec<Vec<u8>> {
        let mut boundaries: Vec<usize> = cuts
            .iter()
            .map(|&cut| {
                let mut cut = cut;
                while !text.is_char_boundary(cut) {
                    cut -= 1;
                }
                cut
            })
            .collect();
        boundaries.sort_unstable();
        let pieces = split_bytes(text.as_bytes(), &boundaries);
        let last = pieces.len() - 1;
        pieces
            .iter()
            .enumerate()
            .map(|(i, piece)| {
                let mut log = std::str::from_utf8(piece)
                    .expect("cut at char boundaries")
                    .to_owned();
                if i == last {
                    log.push('\n');
                }
                docker_line(&log, stream)
            })
            .collect()
    }

    /// Merges two chunk sequences and plain lines in an order driven by `order`, keeping each
    /// sequence's own order; returns each physical line with the output expected for it.
    fn merge(
        out: &[Vec<u8>],
        err: &[Vec<u8>],
        plain: &[Vec<u8>],
        order: &[u8],
        out_line: &[u8],
        err_line: &[u8],
    ) -> Vec<(Vec<u8>, Joined<'static>)> {
        let sources: [&[Vec<u8>]; 3] = [out, err, plain];
        let mut next = [0usize; 3];
        let mut merged = Vec::new();
        let mut choices = order.iter().cycle();
        while (0..3).any(|s| next[s] < sources[s].len()) {
            let mut s = usize::from(*choices.next().unwrap_or(&0)) % 3;
            while next[s] >= sources[s].len() {
                s = (s + 1) % 3;
            }
            let physical = sources[s][next[s]].clone();
            next[s] += 1;
            let done = next[s] == sources[s].len();
            let expected = match s {
                0 if done => line(out_line),
                1 if done => line(err_line),
                2 => line(&physical),
                _ => Joined::Pending,
            };
            merged.push((physical, expected));
        }
        merged
    }

    fn app_bytes() -> impl Strategy<Value = Vec<u8>> {
        proptest::collection::vec(any::<u8>(), 0..5000).prop_map(|mut bytes| {
            for b in &mut bytes {
                if *b == b'\n' {
                    *b = b'N';
                }
            }
            bytes
        })
    }

    fn app_text() -> impl Strategy<Value = String> {
        proptest::collection::vec(any::<char>(), 0..1500)
            .prop_map(|chars| chars.into_iter().filter(|&c| c != '\n').collect())
    }

    fn plain_lines() -> impl Strategy<Value = Vec<Vec<u8>>> {
        proptest::collection::vec("[a-z0-9 {}\":,]{0,40}".prop_map(String::into_bytes), 0..6)
            .prop_filter("must be plain", |lines| {
                lines.iter().all(|l| parse(l) == Frame::Plain(l))
            })
    }

    fn raw_cuts() -> impl Strategy<Value = Vec<usize>> {
        proptest::collection::vec(any::<usize>(), 0..8)
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(256))]

        #[test]
        fn cri_round_trip(
            out_text in app_bytes(),
            err_text in app_bytes(),
            out_cuts in raw_cuts(),
            err_cuts in raw_cuts(),
            plain in plain_lines(),
            order in proptest::collection::vec(any::<u8>(), 1..40),
        ) {
            let out = cri_chunks("stdout", &out_text, &cuts(out_text.len(), &out_cuts));
            let err = cri_chunks("stderr", &err_text, &cuts(err_text.len(), &err_cuts));
            let mut rejoiner = Rejoiner::new(10_000);
            for (physical, expected) in merge(&out, &err, &plain, &order, &out_text, &err_text) {
                prop_assert_eq!(rejoiner.push(parse(&physical)), expected);
                prop_assert!(rejoiner.pending_bytes() <= 2 * 10_000);
            }
            prop_assert!(!rejoiner.has_pending());
        }

        #[test]
        fn docker_round_trip(
            out_text in app_text(),
            err_text in app_text(),
            out_cuts in raw_cuts(),
            err_cuts in raw_cuts(),
            plain in plain_lines(),
            order in proptest::collection::vec(any::<u8>(), 1..40),
        ) {
            let out = docker_chunks("stdout", &out_text, &cuts(out_text.len(), &out_cuts));
            let err = docker_chunks("stderr", &err_text, &cuts(err_text.len(), &err_cuts));
            let strip_cr = |text: &str| {
                let bytes = text.as_bytes();
                bytes.strip_suffix(b"\r").unwrap_or(bytes).to_vec()
            };
            let (out_line, err_line) = (strip_cr(&out_text), strip_cr(&err_text));
            let mut rejoiner = Rejoiner::new(10_000);
            for (physical, expected) in merge(&out, &err, &plain, &order, &out_line, &err_line) {
                prop_assert_eq!(rejoiner.push(parse(&physical)), expected);
            }
            prop_assert!(!rejoiner.has_pending());
        }

        #[test]
        fn cap_is_enforced_and_recovers(
            text in app_bytes(),
            raw in raw_cuts(),
            max in 0usize..6000,
        ) {
            let chunks = cri_chunks("stdout", &text, &cuts(text.len(), &raw));
            let mut rejoiner = Rejoiner::new(max);
            let mut outputs = Vec::new();
            for physical in &chunks {
                let joined = rejoiner.push(parse(physical));
                prop_assert!(rejoiner.pending_bytes() <= max);
                prop_assert!(rejoiner.slots.iter().all(|s| s.buf.capacity() <= max));
                outputs.push(match joined {
                    Joined::Line(cow) => Some(cow.into_owned()),
                    Joined::Oversized => None,
                    Joined::Pending => continue,
                });
            }
            if text.len() <= max {
                prop_assert_eq!(outputs, vec![Some(text.clone())]);
            } else {
                prop_assert_eq!(outputs, vec![None]);
            }
            prop_assert!(!rejoiner.has_pending());
            let after = cri_line("stdout", "F", b"");
            prop_assert_eq!(rejoiner.push(parse(&after)), line(b""));
        }

        #[test]
        fn damaged_docker_lines_never_panic(
            log in proptest::collection::vec(
                prop_oneof![
                    any::<char>(),
                    Just('\n'), Just('\\'), Just('"'), Just('\r'), Just('n'), Just('u'),
                ],
                0..30,
            ),
            stream in prop_oneof![Just("stdout"), Just("stderr"), Just("stdin")],
            unicode_newline in any::<bool>(),
            cut in any::<usize>(),
            truncate in any::<bool>(),
            insert in proptest::option::of((any::<usize>(), any::<u8>())),
        ) {
            let log: String = log.into_iter().collect();
            let mut physical = docker_line(&log, stream);
            if unicode_newline {
                let text = String::from_utf8(physical).expect("serde_json writes UTF-8");
                physical = text.replace("\\n", "\\u000a").into_bytes();
            }
            if truncate {
                physical.truncate(cut % (physical.len() + 1));
            }
            if let Some((at, byte)) = insert {
                let at = at % (physical.len() + 1);
                physical.insert(at, byte);
            }
            let _ = parse(&physical); // never panics, whatever the damage
        }

        #[test]
        fn arbitrary_bytes_never_panic(
            body in proptest::collection::vec(
                prop_oneof![
                    any::<u8>(),
                    Just(b'\\'), Just(b'"'), Just(b'n'), Just(b'u'), Just(b'0'), Just(b'a'),
                ],
                0..64,
            ),
            tail in prop_oneof![
                Just(&b"\",\"stream\":\"stdout\"}"[..]),
                Just(&b"\",\"stream\":\"stderr\",\"time\":\"x\"}"[..]),
                Just(&b""[..]),
            ],
        ) {
            let mut physical = DOCKER_PREFIX.to_vec();
            physical.extend_from_slice(&body);
            physical.extend_from_slice(tail);
            let _ = parse(&physical);
            let _ = parse(&body);
        }
    }
}
