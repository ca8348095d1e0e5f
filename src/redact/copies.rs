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
//! Cost: cold. Runs only for a text where some rule found a secret: a substring search per value
//! found (an Aho-Corasick automaton of them, built once per text, past a few), over the text and
//! over each of its decoded views.

use std::cmp::Reverse;

use aho_corasick::{AhoCorasick, AhoCorasickKind, MatchKind};
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

/// Adds the value of every span in `found` (spans of `text`) to `known` (duplicates are dropped
/// by [`cover`]).
pub(super) fn remember(text: &str, found: &Spans, known: &mut Vec<Known>) {
    for span in found.values() {
        let value = text[span.start..span.end].trim_matches(['"', '\'', '\\']);
        if value.len() >= MIN_COPY_BYTES && !value.starts_with(spans::MARKER_OPEN) {
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
pub(super) fn cover(text: &str, known: &mut Vec<Known>, depth: u8, spans: &mut Spans) {
    // The strongest kind of each value (a value found by two rules keeps the stronger's kind).
    known.sort_by(|a, b| a.value.cmp(&b.value).then(a.priority.cmp(&b.priority)));
    known.dedup_by(|later, first| later.value == first.value);
    let values = Values::new(known);
    cover_with(text, known, &values, depth, spans);
}

/// The values to look for, found leftmost-longest (a value that holds another is replaced
/// whole): one substring search per value for the few a text holds (building an automaton cost
/// more than the searches it served), an Aho-Corasick automaton past [`FEW_VALUES`].
enum Values {
    Few(Vec<memmem::Finder<'static>>),
    Many(AhoCorasick),
}

/// Most texts hold one or two secrets; up to this many values are searched for one by one.
const FEW_VALUES: usize = 4;

impl Values {
    fn new(known: &[Known]) -> Values {
        if known.len() <= FEW_VALUES {
            return Values::Few(
                known
                    .iter()
                    .map(|k| memmem::Finder::new(k.value.as_bytes()).into_owned())
                    .collect(),
            );
        }
        Values::automaton(known)
    }

    fn automaton(known: &[Known]) -> Values {
        // The values come from one text (at most its length in bytes), far below the
        // automaton's limits. Built per text, so a noncontiguous NFA: a DFA's construction cost
        // more than every search it served.
        Values::Many(
            AhoCorasick::builder()
                .match_kind(MatchKind::LeftmostLongest)
                .kind(Some(AhoCorasickKind::NoncontiguousNFA))
                .build(known.iter().map(|k| &k.value))
                .expect("the values found in one text fit an automaton"),
        )
    }

    /// Each occurrence in `text`, leftmost first, the longest value at a place, none
    /// overlapping: (start, end, index of the value).
    fn find_all(&self, text: &str) -> Vec<(usize, usize, usize)> {
        let finders = match self {
            Values::Many(automaton) => {
                return automaton
                    .find_iter(text)
                    .map(|m| (m.start(), m.end(), m.pattern().as_usize()))
                    .collect();
            }
            Values::Few(finders) => finders,
        };
        let bytes = text.as_bytes();
        let mut found = Vec::new();
        let mut at = 0;
        while let Some((start, longest, index)) = finders
            .iter()
            .enumerate()
            .filter_map(|(i, f)| f.find(&bytes[at..]).map(|s| (at + s, f.needle().len(), i)))
            .min_by_key(|&(start, len, _)| (start, Reverse(len)))
        {
            // Values are never empty (at least `MIN_COPY_BYTES`), so this moves on.
            found.push((start, start + longest, index));
            at = start + longest;
        }
        found
    }
}

/// [`cover`] with `values`, those of `known` (value `i` is `known[i]`).
fn cover_with(text: &str, known: &[Known], values: &Values, depth: u8, spans: &mut Spans) {
    let protected = spans::marker_spans(text);
    for (start, end, index) in values.find_all(text) {
        let k = &known[index];
        if !spans::overlaps(&protected, start, end) {
            spans::insert(spans, Span::new(start, end, k.kind, k.priority));
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
        cover_with(&view.text, known, values, depth - 1, &mut inner);
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
        cover_with(&decoded, known, values, depth - 1, &mut inner);
        if let Some(strongest) = inner.values().min_by_key(|span| span.priority) {
            spans::insert(spans, strongest.moved(start, end));
        }
    }
}

#[cfg(test)]
mod tests {
    use std::collections::BTreeMap;

    use super::{Known, Values};
    use crate::redact::Redactor;

    fn redact(text: &str) -> String {
        Redactor::new()
            .redact(text, &mut BTreeMap::new())
            .into_owned()
    }

    #[test]
    fn a_copy_takes_the_kind_of_the_value_found() {
        let token = "Zq9WmT3nL7pV2kR8jH6sG";
        let out = redact(&format!("API_TOKEN={token} then echo {token}"));
        assert_eq!(
            out,
            "API_TOKEN=[REDACTED:named_secret] then echo [REDACTED:named_secret]"
        );
    }

    #[test]
    fn a_copy_inside_a_base64_run_or_an_escape_is_found() {
        let token = "Zq9WmT3nL7pV2kR8jH6sG";
        // base64 of "user=Zq9WmT3nL7pV2kR8jH6sG!"
        let run = "dXNlcj1acTlXbVQzbkw3cFYya1I4akg2c0ch";
        let text = format!("API_TOKEN={token} {run} \\u005a{}", &token[1..]);
        let out = redact(&text);
        assert!(!out.contains(run), "{out}");
        assert!(!out.contains(&token[1..]), "{out}");
    }

    #[test]
    fn a_few_values_are_found_as_the_automaton_finds_them() {
        let known: Vec<Known> = ["abcdef", "abcdefgh", "cdefgh12", "zzzzzz"]
            .into_iter()
            .map(|value| Known {
                value: value.to_string(),
                kind: "x",
                priority: 0,
            })
            .collect();
        for text in [
            "abcdefgh12 abcdef zzzzzzz cdefgh12abcdefgh",
            "xabcdefghzzzzzzzzzzzz abcdefabcdefgh",
            "nothing here",
        ] {
            let few = Values::new(&known).find_all(text);
            assert!(matches!(Values::new(&known), Values::Few(_)));
            assert_eq!(few, Values::automaton(&known).find_all(text), "{text}");
        }
        assert_eq!(
            Values::new(&known).find_all("abcdefgh12 abcdef"),
            vec![(0, 8, 1), (11, 17, 0)]
        );
    }

    #[test]
    fn short_values_are_not_searched_for() {
        assert_eq!(
            redact("PASSWORD=x1y2 and x1y2 again"),
            "PASSWORD=[REDACTED:password] and x1y2 again"
        );
    }
}
