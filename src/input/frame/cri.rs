//! The CRI log format of containerd and CRI-O: `<RFC 3339 time> <stdout|stderr> <P|F> <content>`.
//!
//! Owns recognising one such line and borrowing its content. **Not here:** joining `P` chunks
//! ([`super::partial`]).
//!
//! Cost per candidate line: a first-byte check rejects plain lines; a CRI line costs a timestamp
//! check plus two short scans and never allocates.
//!
//! Limits: the timestamp must be RFC 3339 (`T` separator, `Z` or `±hh:mm` zone, optional
//! fraction); the tag field is accepted if its first byte is `P` or `F`; the content is returned
//! byte for byte.

use super::{Frame, Stream};

/// Longest prefix searched for the space ending the timestamp (RFC 3339 with nanoseconds and a
/// numeric zone is 35 bytes).
const CRI_TIMESTAMP_WINDOW: usize = 64;

/// A CRI-framed chunk, or `None` when the line is not one.
pub(super) fn parse(line: &[u8]) -> Option<Frame<'_>> {
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
