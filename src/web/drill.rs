//! Drill-down filters of `/api/v1/denials`: from a dashboard panel to the denials behind it.
//!
//! Owns the query string's meaning: `execution_id`, `tool`, `workflow`, `reason`, `risk`, `since`
//! (RFC 3339 or epoch seconds; denials at or after it) and `limit` (default and maximum: the ring
//! size). Filters combine with AND; `tool` is compared with the tool name as logged, `workflow`,
//! `reason` and `risk` with the label values the denial was counted under (`risk=pending`: the
//! denials whose class waits for their execution's record). A value that cannot match
//! anything a label or id can be (bad charset, too long, an unknown reason, a malformed time), an
//! unknown or repeated parameter, is an error of one sentence, answered with 400.
//!
//! **Not here:** the ring itself ([`super::recent`]), HTTP ([`super::routes`]), redaction (the
//! records arrive redacted).

use crate::account::labels::is_valid_label;
use crate::decode::time::parse_rfc3339;
use crate::vocab::{AuditRecord, Reason};

/// The parameters, in the order the error message lists them.
const KNOWN: [&str; 7] = [
    "execution_id",
    "tool",
    "workflow",
    "reason",
    "risk",
    "since",
    "limit",
];

/// Longest `execution_id` filter value, in characters.
const MAX_ID_CHARS: usize = 256;

/// The parsed filters. The default matches everything.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Filter {
    pub execution_id: Option<String>,
    pub tool: Option<String>,
    pub workflow: Option<String>,
    pub reason: Option<Reason>,
    /// A `risk` label value (or `pending`).
    pub risk: Option<String>,
    /// Seconds since the epoch.
    pub since: Option<f64>,
    pub limit: usize,
}

impl Filter {
    /// Parses a query string (without `?`); `ring` is the ring's size, the default and maximum
    /// `limit`.
    pub fn parse(query: Option<&str>, ring: usize) -> Result<Filter, String> {
        let mut filter = Filter {
            limit: ring,
            ..Filter::default()
        };
        let mut seen: Vec<String> = Vec::new();
        for pair in query.unwrap_or("").split('&').filter(|p| !p.is_empty()) {
            let (raw_key, raw_value) = pair.split_once('=').unwrap_or((pair, ""));
            let key = percent_decode(raw_key).ok_or("a parameter name is not valid UTF-8.")?;
            let value = percent_decode(raw_value)
                .ok_or_else(|| format!("the value of {key} is not valid UTF-8."))?;
            if !KNOWN.contains(&key.as_str()) {
                // Echo the name only when it is harmless: the query is attacker-influenced.
                let name = if is_valid_label(&key) {
                    key.as_str()
                } else {
                    ""
                };
                return Err(
                    format!("unknown parameter {name}; known: {}.", KNOWN.join(", "))
                        .replace("parameter ;", "parameter;"),
                );
            }
            if seen.contains(&key) {
                return Err(format!("parameter {key} is given more than once."));
            }
            seen.push(key.clone());
            match key.as_str() {
                "execution_id" => {
                    if value.is_empty() || value.chars().count() > MAX_ID_CHARS {
                        return Err(format!(
                            "execution_id must be 1 to {MAX_ID_CHARS} characters."
                        ));
                    }
                    filter.execution_id = Some(value);
                }
                "tool" | "workflow" | "risk" => {
                    if !is_valid_label(&value) {
                        return Err(format!(
                            "{key} must be 1 to 128 characters of A-Z a-z 0-9 _ . : / @ -."
                        ));
                    }
                    match key.as_str() {
                        "tool" => filter.tool = Some(value),
                        "workflow" => filter.workflow = Some(value),
                        _ => filter.risk = Some(value),
                    }
                }
                "reason" => {
                    let reason = Reason::ALL
                        .into_iter()
                        .find(|r| r.as_str() == value)
                        .ok_or_else(|| {
                            let known: Vec<&str> = Reason::ALL.iter().map(|r| r.as_str()).collect();
                            format!("reason must be one of {}.", known.join(", "))
                        })?;
                    filter.reason = Some(reason);
                }
                "since" => filter.since = Some(parse_since(&value)?),
                "limit" => {
                    let n: usize = value
                        .parse()
                        .ok()
                        .filter(|n| *n > 0)
                        .ok_or("limit must be a positive integer.")?;
                    filter.limit = n.min(ring);
                }
                _ => {} // every other name was answered above
            }
        }
        Ok(filter)
    }

    /// Whether `record` passes every filter.
    pub fn matches(&self, record: &AuditRecord) -> bool {
        let same = |want: &Option<String>, have: Option<&str>| {
            want.as_deref().is_none_or(|w| have == Some(w))
        };
        same(&self.execution_id, record.execution_id.as_deref())
            && same(&self.tool, Some(&record.tool))
            && same(&self.workflow, Some(&record.workflow))
            && same(&self.risk, Some(&record.risk))
            && self.reason.is_none_or(|r| r == record.reason)
            && self
                .since
                .is_none_or(|since| parse_rfc3339(&record.time).is_some_and(|t| t >= since))
    }

    /// The records that pass, newest first, at most `limit`.
    pub fn apply<'a>(
        &'a self,
        newest_first: impl Iterator<Item = &'a AuditRecord> + 'a,
    ) -> impl Iterator<Item = &'a AuditRecord> + 'a {
        newest_first.filter(|r| self.matches(r)).take(self.limit)
    }
}

/// `since`: epoch seconds (a number) or an RFC 3339 time.
fn parse_since(value: &str) -> Result<f64, String> {
    let epoch = value
        .parse::<f64>()
        .ok()
        .filter(|s| s.is_finite() && *s >= 0.0);
    epoch
        .or_else(|| parse_rfc3339(value))
        .ok_or_else(|| "since must be an RFC 3339 time or epoch seconds.".to_string())
}

/// Decodes `%XX` escapes and `+` (a space in a query string); `None` if the result is not UTF-8.
/// A `%` not followed by two hex digits stays as it is.
fn percent_decode(s: &str) -> Option<String> {
    let bytes = s.as_bytes();
    let hex = |i: usize| {
        bytes
            .get(i)
            .and_then(|b| (*b as char).to_digit(16))
            .map(|d| d as u8)
    };
    let mut out = Vec::with_capacity(bytes.len());
    let mut i = 0;
    while i < bytes.len() {
        match (bytes[i], hex(i + 1), hex(i + 2)) {
            (b'%', Some(hi), Some(lo)) => {
                out.push(hi << 4 | lo);
                i += 3;
                continue;
            }
            (b'+', _, _) => out.push(b' '),
            (b, _, _) => out.push(b),
        }
        i += 1;
    }
    String::from_utf8(out).ok()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::vocab::{AuditKind, Origin};

    fn record(tool: &str, workflow: &str, reason: Reason, exec: &str, time: &str) -> AuditRecord {
        AuditRecord {
            kind: AuditKind::Denial,
            time: time.into(),
            tool: tool.into(),
            workflow: workflow.into(),
            namespace: None,
            pod: None,
            reason,
            risk: if tool == "Bash" {
                "history_rewrite"
            } else {
                "none"
            }
            .into(),
            execution_id: Some(exec.into()),
            tool_use_id: None,
            decision_reason: None,
            input_summary: None,
            source_file: "-".into(),
            origin: Origin::Record,
            format: "pino",
            count: 1,
        }
    }

    #[test]
    fn filters_combine() {
        let records = [
            record("Bash", "review", Reason::Rule, "e1", "2026-06-12T10:00:00Z"),
            record(
                "Read",
                "review",
                Reason::Unknown,
                "e1",
                "2026-06-12T11:00:00Z",
            ),
            record(
                "Bash",
                "implement",
                Reason::Unknown,
                "e2",
                "2026-06-12T12:00:00Z",
            ),
        ];
        let pick = |q: &str| -> Vec<String> {
            let f = Filter::parse(Some(q), 100).unwrap();
            f.apply(records.iter())
                .map(|r| r.execution_id.clone().unwrap())
                .collect()
        };
        assert_eq!(pick("workflow=review"), ["e1", "e1"]);
        assert_eq!(pick("tool=Bash&reason=unknown"), ["e2"]);
        assert_eq!(pick("risk=history_rewrite&workflow=review"), ["e1"]);
        assert_eq!(pick("risk=none"), ["e1"]);
        assert_eq!(pick("execution_id=e%31"), ["e1", "e1"]);
        assert_eq!(pick("since=2026-06-12T11%3A00%3A00Z"), ["e1", "e2"]);
        assert_eq!(pick("since=1781265600"), ["e2"]);
        assert_eq!(pick("limit=1"), ["e1"]);
        assert_eq!(pick(""), ["e1", "e1", "e2"]);
    }

    #[test]
    fn bad_values_are_one_sentence() {
        for (q, want) in [
            ("tool=rm%20-rf", "tool must be"),
            ("workflow=", "workflow must be"),
            ("risk=a%20b", "risk must be"),
            ("reason=vibes", "reason must be one of"),
            ("since=yesterday", "since must be"),
            ("limit=0", "limit must be"),
            ("limit=-3", "limit must be"),
            ("colour=red", "unknown parameter colour"),
            ("%3Cb%3E=1", "unknown parameter; known: execution_id"),
            ("tool=Bash&tool=Edit", "more than once"),
            ("tool=%FF", "not valid UTF-8"),
        ] {
            let err = Filter::parse(Some(q), 100).unwrap_err();
            assert!(err.contains(want), "{q}: {err}");
            assert!(err.ends_with('.') && !err.contains('\n'), "{q}: {err}");
        }
    }

    #[test]
    fn limit_defaults_to_and_stops_at_the_ring_size() {
        assert_eq!(Filter::parse(None, 100).unwrap().limit, 100);
        assert_eq!(Filter::parse(Some("limit=5000"), 100).unwrap().limit, 100);
        assert_eq!(percent_decode("a+b%2Fc%zz%4"), Some("a b/c%zz%4".into()));
    }
}
