//! Log timestamps: pino's epoch milliseconds or ISO-8601 strings → seconds since the epoch, and
//! back to RFC 3339 for the audit stream.
//!
//! Hand-written because the exporter needs exactly two conversions and no time zones beyond
//! numeric offsets. **Not here:** wall-clock time (callers use `std::time::SystemTime`).

use serde_json::Value;

use super::object::Object;

/// Keys that carry a line's time, tried in order.
const TIME_KEYS: [&str; 3] = ["time", "timestamp", "ts"];

/// The time of a log object in seconds since the epoch, if it says.
pub fn of_object(object: &Object<'_>) -> Option<f64> {
    TIME_KEYS
        .iter()
        .find_map(|k| object.value(k).as_ref().and_then(of_value))
}

/// One time value: a number (epoch ms when above 1e11, else epoch seconds) or an ISO-8601 string.
pub fn of_value(value: &Value) -> Option<f64> {
    match value {
        Value::Number(n) => {
            let n = n.as_f64()?;
            let secs = if n.abs() > 1e11 { n / 1000.0 } else { n };
            secs.is_finite().then_some(secs)
        }
        Value::String(s) => parse_rfc3339(s),
        _ => None,
    }
}

/// Parses `YYYY-MM-DDTHH:MM:SS[.frac](Z|±HH:MM)` (a space may stand for `T`).
pub fn parse_rfc3339(s: &str) -> Option<f64> {
    let b = s.as_bytes();
    if b.len() < 19 || !matches!(b[10], b'T' | b't' | b' ') || b[4] != b'-' || b[7] != b'-' {
        return None;
    }
    let num = |from: usize, to: usize| -> Option<i64> {
        let part = s.get(from..to)?;
        part.bytes()
            .all(|c| c.is_ascii_digit())
            .then(|| part.parse().ok())?
    };
    let (year, month, day) = (num(0, 4)?, num(5, 7)?, num(8, 10)?);
    let (hour, minute, second) = (num(11, 13)?, num(14, 16)?, num(17, 19)?);
    if !(1..=12).contains(&month)
        || !(1..=31).contains(&day)
        || hour > 23
        || minute > 59
        || second > 60
    {
        return None;
    }
    let mut rest = &s[19..];
    let mut frac = 0.0;
    if let Some(after_dot) = rest.strip_prefix('.') {
        let digits = after_dot.bytes().take_while(u8::is_ascii_digit).count();
        if digits == 0 {
            return None;
        }
        frac = format!("0.{}", &after_dot[..digits]).parse().ok()?;
        rest = &after_dot[digits..];
    }
    let offset_secs = match rest {
        "Z" | "z" | "" => 0,
        _ => {
            let sign = match rest.as_bytes()[0] {
                b'+' => 1,
                b'-' => -1,
                _ => return None,
            };
            let hm = rest[1..].replace(':', "");
            if hm.len() != 4 || !hm.bytes().all(|c| c.is_ascii_digit()) {
                return None;
            }
            sign * (hm[..2].parse::<i64>().ok()? * 3600 + hm[2..].parse::<i64>().ok()? * 60)
        }
    };
    let days = days_from_civil(year, month, day);
    let secs = days * 86400 + hour * 3600 + minute * 60 + second - offset_secs;
    Some(secs as f64 + frac)
}

/// Formats seconds since the epoch as RFC 3339 UTC with milliseconds.
pub fn format_rfc3339(secs: f64) -> String {
    let millis_total = (secs * 1000.0).round() as i64;
    let (days, ms_of_day) = (
        millis_total.div_euclid(86_400_000),
        millis_total.rem_euclid(86_400_000),
    );
    let (year, month, day) = civil_from_days(days);
    let (h, m, s, ms) = (
        ms_of_day / 3_600_000,
        ms_of_day / 60_000 % 60,
        ms_of_day / 1000 % 60,
        ms_of_day % 1000,
    );
    if !(0..=9999).contains(&year) {
        return format!("{year:04}-{month:02}-{day:02}T{h:02}:{m:02}:{s:02}.{ms:03}Z");
    }
    // Digit by digit into a fixed buffer: one per audit record, where `format!` and then
    // pushing chars one at a time showed in profiles.
    let mut out = *b"0000-00-00T00:00:00.000Z";
    for (at, width, value) in [
        (0, 4, year),
        (5, 2, month),
        (8, 2, day),
        (11, 2, h),
        (14, 2, m),
        (17, 2, s),
        (20, 3, ms),
    ] {
        let mut value = value as u32;
        for slot in out[at..at + width].iter_mut().rev() {
            *slot = b'0' + (value % 10) as u8;
            value /= 10;
        }
    }
    String::from_utf8(out.to_vec()).expect("ASCII digits and separators")
}

// Howard Hinnant's civil-date algorithms.
fn days_from_civil(y: i64, m: i64, d: i64) -> i64 {
    let y = if m <= 2 { y - 1 } else { y };
    let era = y.div_euclid(400);
    let yoe = y - era * 400;
    let doy = (153 * (if m > 2 { m - 3 } else { m + 9 }) + 2) / 5 + d - 1;
    let doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
    era * 146_097 + doe - 719_468
}

/// (year, month, day) of a count of days since 1970-01-01 (Howard Hinnant's days-to-civil).
pub(crate) fn civil_from_days(z: i64) -> (i64, i64, i64) {
    let z = z + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z - era * 146_097;
    let yoe = (doe - doe / 1460 + doe / 36524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let d = doy - (153 * mp + 2) / 5 + 1;
    let m = if mp < 10 { mp + 3 } else { mp - 9 };
    (yoe + era * 400 + i64::from(m <= 2), m, d)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_the_shapes_loggers_write() {
        assert_eq!(
            parse_rfc3339("2026-06-12T10:00:00.500Z"),
            Some(1781258400.5)
        );
        assert_eq!(
            parse_rfc3339("2026-06-12T12:00:00+02:00"),
            Some(1781258400.0)
        );
        assert_eq!(parse_rfc3339("2026-06-12 10:00:00Z"), Some(1781258400.0));
        assert_eq!(parse_rfc3339("2026-04-23T23:45:01Z"), Some(1776987901.0));
        assert_eq!(parse_rfc3339("2026-13-12T10:00:00Z"), None);
        assert_eq!(parse_rfc3339("yesterday"), None);
        assert_eq!(
            of_value(&Value::from(1781251200139u64)),
            Some(1781251200.139)
        );
        assert_eq!(of_value(&Value::from(1781251200u64)), Some(1781251200.0));
    }

    proptest::proptest! {
        #[test]
        fn formatting_digit_by_digit_is_what_format_writes(secs in -1e12f64..4e11) {
            let millis_total = (secs * 1000.0).round() as i64;
            let (days, ms_of_day) = (millis_total.div_euclid(86_400_000), millis_total.rem_euclid(86_400_000));
            let (year, month, day) = civil_from_days(days);
            let (h, m, s, ms) = (ms_of_day / 3_600_000, ms_of_day / 60_000 % 60, ms_of_day / 1000 % 60, ms_of_day % 1000);
            let want = format!("{year:04}-{month:02}-{day:02}T{h:02}:{m:02}:{s:02}.{ms:03}Z");
            proptest::prop_assert_eq!(format_rfc3339(secs), want);
        }
    }

    #[test]
    fn formats_round_trip() {
        assert_eq!(format_rfc3339(1781258400.5), "2026-06-12T10:00:00.500Z");
        assert_eq!(format_rfc3339(0.0), "1970-01-01T00:00:00.000Z");
        for secs in [951782400.0, 1709164800.25, 4102444800.999] {
            assert_eq!(parse_rfc3339(&format_rfc3339(secs)), Some(secs));
        }
    }
}
