//! Finds the other copies of the secrets a text was found to hold: a rule fires on one copy
//! (`oanda token = 'X'`), and the same value elsewhere in the text (`… | 'X'`, `"X"` in a
//! JSON-escaped copy of the command, `X` percent-encoded in a URL, or inside a base64 run that
//! decodes to text holding it) is replaced too, with the same kind.
//!
//! Owns the search for known values; the values come from the rules' finds at every decoding
//! depth (`engine`), so a secret found inside a base64 run is also found in the clear.
//!
//! Not here: deciding what is a secret (the rules and `vet`), decoders (`decode`).
//!
//! Cost: cold. Runs only for a text where some rule found a secret: one substring search per
//! distinct value over the text and over each of its decoded views.

use memchr::memmem;

use super::decode;
use super::spans::{self, Span, Spans};

/// Values shorter than this are not searched for elsewhere: a short password (`test1`) occurs
/// by chance in words and ids.
pub(super) const MIN_COPY_BYTES: usize = 6;

/// A secret value found somewhere in a text (or in one of its decoded views).
#[derive(Clone, Debug)]
pub(super) struct Known {
    pub value: String,
    pub kind: &'static str,
    pub priority: usize,
}

/// Adds the value of every span in `found` (spans of `text`) to `known`, once each.
pub(super) fn remember(text: &str, found: &Spans, known: &mut Vec<Known>) {
    for span in found.values() {
        let value = text[span.start..span.end].trim_matches(['"', '\'', '\\']);
        if value.len() >= MIN_COPY_BYTES
            && !value.starts_with(spans::MARKER_OPEN)
            && !known.iter().any(|k| k.value == value)
        {
            known.push(Known {
                value: value.to_string(),
                kind: span.kind,
                priority: span.priority,
            });
        }
    }
}

/// Adds to `spans` every occurrence in `text`, plain or inside a decoded view up to `depth`
/// levels down, of a known value, unless it overlaps a marker already in the text.
pub(super) fn cover(text: &str, known: &[Known], depth: u8, spans: &mut Spans) {
    let protected = spans::marker_spans(text);
    for k in known {
        for start in memmem::find_iter(text.as_bytes(), k.value.as_bytes()) {
            let end = start + k.value.len();
            if text.is_char_boundary(start)
                && text.is_char_boundary(end)
                && !spans::overlaps(&protected, start, end)
            {
                spans::insert(
                    spans,
                    Span {
                        start,
                        end,
                        kind: k.kind,
                        priority: k.priority,
                    },
                );
            }
        }
    }
    if depth == 0 {
        return;
    }
    for view in [decode::json_unescape(text), decode::percent_decode(text)]
        .into_iter()
        .flatten()
    {
        let mut inner = Spans::new();
        cover(&view.text, known, depth - 1, &mut inner);
        spans::insert_mapped(spans, &inner, |s, e| view.original(s, e), &protected);
    }
    for (start, end) in decode::base64_runs(text) {
        if spans::overlaps(&protected, start, end) {
            continue;
        }
        let Some(decoded) = decode::base64_text(&text[start..end]) else {
            continue;
        };
        let mut inner = Spans::new();
        cover(&decoded, known, depth - 1, &mut inner);
        if let Some(strongest) = inner.values().min_by_key(|span| span.priority) {
            spans::insert(
                spans,
                Span {
                    start,
                    end,
                    ..*strongest
                },
            );
        }
    }
}
