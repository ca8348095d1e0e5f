//! Turns a set of found secrets into the redacted text: keeps the replacements disjoint,
//! writes `[REDACTED:<kind>]` for each, and tallies them.
//!
//! Owns the [`Span`] set and its merge rule (overlapping secrets become one replacement, so no
//! part of either is left readable), and the recognition of markers already in a text (never
//! redacted again, so redaction is idempotent).
//!
//! Not here: finding secrets (`engine`), deciding what is a secret (`vet`).
//!
//! Cost: cold; runs only for texts where something was found.

use std::borrow::Cow;
use std::collections::BTreeMap;

/// How every replacement starts; the kind and `]` follow.
pub(crate) const MARKER_OPEN: &str = "[REDACTED:";

/// One replacement: byte range, kind, and the index (priority) of the rule that found it.
/// Invariant: `start < end`, both on char boundaries of the text the span belongs to.
#[derive(Clone, Copy, Debug)]
pub(super) struct Span {
    pub start: usize,
    pub end: usize,
    pub kind: &'static str,
    /// Lower is stronger: the kind of the strongest span survives a merge.
    pub priority: usize,
}

impl Span {
    /// The replacement of `start..end` by a `kind` the rule of `priority` found.
    pub(super) fn new(start: usize, end: usize, kind: &'static str, priority: usize) -> Span {
        Span {
            start,
            end,
            kind,
            priority,
        }
    }

    /// The same replacement over `start..end`: a span found in a decoded view, moved to the
    /// text it came from.
    pub(super) fn moved(self, start: usize, end: usize) -> Span {
        Span { start, end, ..self }
    }
}

/// Disjoint spans keyed by start.
pub(super) type Spans = BTreeMap<usize, Span>;

/// `text` with every span replaced by its marker, each replacement tallied by kind; borrowed
/// when there is nothing to replace.
pub(super) fn apply<'a>(
    text: &'a str,
    spans: &Spans,
    tally: &mut BTreeMap<String, u64>,
) -> Cow<'a, str> {
    if spans.is_empty() {
        return Cow::Borrowed(text);
    }
    let mut out = String::with_capacity(text.len() + spans.len() * 16);
    let mut last = 0;
    for span in spans.values() {
        out.push_str(&text[last..span.start]);
        out.push_str(MARKER_OPEN);
        out.push_str(span.kind);
        out.push(']');
        last = span.end;
        *tally.entry(span.kind.to_string()).or_insert(0) += 1;
    }
    out.push_str(&text[last..]);
    Cow::Owned(out)
}

/// Byte ranges of markers already in the text, which no rule may redact again. Sorted, disjoint.
pub(super) fn marker_spans(text: &str) -> Vec<(usize, usize)> {
    let mut spans = Vec::new();
    if memchr::memchr(b'[', text.as_bytes()).is_none() {
        return spans; // most texts: no marker can start anywhere
    }
    let mut from = 0;
    while let Some(found) = text[from..].find(MARKER_OPEN) {
        let start = from + found;
        let rest = &text[start + MARKER_OPEN.len()..];
        let kind_len = rest
            .bytes()
            .take_while(|b| b.is_ascii_lowercase() || b.is_ascii_digit() || *b == b'_')
            .count();
        if rest.as_bytes().get(kind_len) == Some(&b']') {
            let end = start + MARKER_OPEN.len() + kind_len + 1;
            spans.push((start, end));
            from = end;
        } else {
            from = start + MARKER_OPEN.len();
        }
    }
    spans
}

/// Whether `a..b` overlaps one of the sorted, disjoint `protected` ranges.
pub(super) fn overlaps(protected: &[(usize, usize)], a: usize, b: usize) -> bool {
    let i = protected.partition_point(|p| p.1 <= a);
    protected.get(i).is_some_and(|p| p.0 < b)
}

/// Whether `a..b` overlaps a span already in `spans`.
pub(super) fn overlaps_span(spans: &Spans, a: usize, b: usize) -> bool {
    spans
        .range(..b)
        .next_back()
        .is_some_and(|(_, span)| span.end > a)
}

/// Adds a candidate in priority order: one already covered by earlier spans is dropped; one
/// that overlaps earlier spans and reaches beyond them is merged with them, keeping the kind
/// of the highest-priority span, so no part of either is left readable. The spans are kept
/// disjoint and keyed by start, so each insertion costs O(log n + overlaps).
pub(super) fn insert(spans: &mut Spans, candidate: Span) {
    let mut overlapping: Vec<Span> = Vec::new();
    if let Some((_, before)) = spans.range(..candidate.start).next_back() {
        if before.end > candidate.start {
            overlapping.push(*before);
        }
    }
    overlapping.extend(
        spans
            .range(candidate.start..candidate.end)
            .map(|(_, span)| *span),
    );
    if overlapping.is_empty() {
        spans.insert(candidate.start, candidate);
        return;
    }
    let mut covered_to = candidate.start;
    for span in &overlapping {
        if span.start > covered_to {
            break;
        }
        covered_to = covered_to.max(span.end);
    }
    if covered_to >= candidate.end {
        return;
    }
    let mut merged = candidate;
    for span in &overlapping {
        spans.remove(&span.start);
        merged.start = merged.start.min(span.start);
        merged.end = merged.end.max(span.end);
        if span.priority < merged.priority {
            merged.priority = span.priority;
            merged.kind = span.kind;
        }
    }
    spans.insert(merged.start, merged);
}

/// Adds the spans `inner` that a scan of a decoded view found, mapped back onto the text by
/// `original` (the view's map), except empty ones and those over a `protected` marker.
pub(super) fn insert_mapped(
    spans: &mut Spans,
    inner: &Spans,
    original: impl Fn(usize, usize) -> (usize, usize),
    protected: &[(usize, usize)],
) {
    for span in inner.values() {
        let (start, end) = original(span.start, span.end);
        if start < end && !overlaps(protected, start, end) {
            insert(spans, span.moved(start, end));
        }
    }
}

/// The largest char boundary of `text` at or before `index`.
pub(super) fn floor_boundary(text: &str, mut index: usize) -> usize {
    index = index.min(text.len());
    while !text.is_char_boundary(index) {
        index -= 1;
    }
    index
}

/// The smallest char boundary of `text` at or after `index`.
pub(super) fn ceil_boundary(text: &str, mut index: usize) -> usize {
    index = index.min(text.len());
    while !text.is_char_boundary(index) {
        index += 1;
    }
    index
}

/// The char boundary before `index` (0 at the start).
pub(super) fn prev_char_boundary(text: &str, index: usize) -> usize {
    text[..index]
        .chars()
        .next_back()
        .map_or(0, |c| index - c.len_utf8())
}

/// The char boundary after `index` (`text.len() + 1` at the end, to stop a search loop).
pub(super) fn next_char_boundary(text: &str, index: usize) -> usize {
    text[index..]
        .chars()
        .next()
        .map_or(text.len() + 1, |c| index + c.len_utf8())
}
