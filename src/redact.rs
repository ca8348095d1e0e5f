//! Turns attacker-influenced text (tool inputs, denial reasons, label values) into text where
//! every secret the rules recognise is replaced by `[REDACTED:<kind>]`, keeping commands,
//! paths, hosts, ids, commit SHAs and digests readable.
//!
//! The cast: [`Redactor`] is the one public worker. Inside, `rules` holds what secrets look
//! like (token formats, keyword families, places, password flags of CLI tools, named values),
//! keyed by kind; `vet` decides whether a match is a secret (placeholders, code and prose are
//! not); `engine` runs the rules over the text and over its decoded views (`decode`: JSON
//! escapes, percent-encoding, base64) through the shared `crate::matcher`; `copies` finds every
//! other copy of a value found (plain or encoded); `spans` merges the finds and writes the
//! markers.
//!
//! Owns the closed set of kind names, which are Prometheus label values, and the label policy
//! ([`Redactor::label_value`]): a label value holding a secret becomes [`REDACTED_LABEL`].
//!
//! Not here: reading logs, counting, exporting metrics, or deciding which fields get redacted;
//! callers pass every string that may leave the exporter.
//!
//! Cost: one Aho-Corasick pass per text (the matcher's); a text with no rule's anchor is
//! returned borrowed without allocating. Only the rules whose anchors occur run, each compiled
//! on first use; building a [`Redactor`] compiles no rule. A text where something was found gets
//! one more pass, for copies. docs/performance.md has the measured cost.
//!
//! Limits: detection is pattern-based. A secret with no recognisable format, keyword or key
//! name (say, a bare random word passed as a positional argument) is not found. Overlapping
//! matches are merged into one replacement whose kind is the highest-priority rule's.

use std::borrow::Cow;
use std::cell::RefCell;
use std::collections::{BTreeMap, HashMap};

mod copies;
mod decode;
mod engine;
mod rules;
mod shared;
mod spans;
mod vet;

#[cfg(test)]
mod tests;

pub(crate) use shared::{holds_secret, label_value, shared_redactor};
use spans::MARKER_OPEN;

/// The fixed value that replaces a label value holding a secret (never the secret, never a
/// hash of it).
pub const REDACTED_LABEL: &str = "redacted";

/// Longest text the memo keeps, and how many it keeps per thread before it starts again: the
/// fields of audit records (tool names, workflows, reasons, paths) repeat from one denial to the
/// next. docs/performance.md has what it saves.
const MEMO_MAX_TEXT_BYTES: usize = 256;
const MEMO_ENTRIES: usize = 512;

thread_local! {
    static MEMO: RefCell<HashMap<Box<str>, spans::Spans>> = RefCell::new(HashMap::new());
}

/// The compiled rule set. Build once, share by reference (it is Send + Sync).
pub struct Redactor {
    engine: engine::Engine,
}

impl Redactor {
    /// The default rule set.
    pub fn new() -> Redactor {
        Redactor {
            engine: engine::Engine::new(),
        }
    }

    /// Every kind name this redactor can emit (closed set, stable, snake_case).
    #[cfg(test)]
    pub fn kinds(&self) -> Vec<&'static str> {
        kind_names().to_vec()
    }

    /// Returns `text` with every secret replaced by `[REDACTED:<kind>]`, borrowing when nothing matched.
    /// For each replacement, `*tally.entry(kind.to_string()).or_insert(0) += 1`.
    pub fn redact<'a>(&self, text: &'a str, tally: &mut BTreeMap<String, u64>) -> Cow<'a, str> {
        #[cfg(test)]
        scanned::note(text.len());
        spans::apply(text, &self.spans(text), tally)
    }

    /// Returns true if and only if `text` holds a secret that [`Redactor::redact`] would replace.
    pub fn contains_secret(&self, text: &str) -> bool {
        #[cfg(test)]
        scanned::note(text.len());
        !self.spans(text).is_empty()
    }

    /// The secrets in `text`: remembered, for a short text this thread asked about recently
    /// (every redactor runs the same rules, so what one found another would find).
    fn spans(&self, text: &str) -> spans::Spans {
        if text.len() > MEMO_MAX_TEXT_BYTES {
            return self.engine.spans(text);
        }
        if let Some(found) = MEMO.with(|memo| memo.borrow().get(text).cloned()) {
            return found;
        }
        let found = self.engine.spans(text);
        MEMO.with(|memo| {
            let mut memo = memo.borrow_mut();
            if memo.len() >= MEMO_ENTRIES {
                memo.clear();
            }
            memo.insert(text.into(), found.clone());
        });
        found
    }

    /// The label policy: `value` itself, or [`REDACTED_LABEL`] when it holds a secret anywhere
    /// (`mcp__x__send_ghp_…` as a tool name, a token in a path or id). Label values are
    /// replaced whole, never partly redacted, so a label never carries a fragment of a secret
    /// and its cardinality does not grow with the secrets seen. Tallies nothing.
    pub fn label_value<'a>(&self, value: &'a str) -> &'a str {
        if self.contains_secret(value) {
            REDACTED_LABEL
        } else {
            value
        }
    }

    /// Redacts `text` and then keeps at most `max_chars` characters of the result, ending in
    /// `…` when cut (the `…` counts toward `max_chars`). Redacting first means a secret that
    /// straddles the cut is never shown in part; a marker that would be cut is dropped whole.
    /// Tallies like [`Redactor::redact`].
    pub fn excerpt(
        &self,
        text: &str,
        max_chars: usize,
        tally: &mut BTreeMap<String, u64>,
    ) -> String {
        self.shown(text, max_chars, tally).into_owned()
    }

    /// [`Redactor::excerpt`], borrowing `text` when it is shown as it is (no secret, not cut):
    /// most fields, which a caller that owns them then keeps without a copy.
    pub fn shown<'a>(
        &self,
        text: &'a str,
        max_chars: usize,
        tally: &mut BTreeMap<String, u64>,
    ) -> Cow<'a, str> {
        let redacted = self.redact(text, tally);
        // A text of at most `max_chars` bytes has at most as many characters.
        if redacted.len() <= max_chars || redacted.chars().count() <= max_chars {
            return redacted;
        }
        let Some(keep) = max_chars.checked_sub(1) else {
            return Cow::Borrowed("");
        };
        let mut cut = redacted
            .char_indices()
            .nth(keep)
            .map_or(redacted.len(), |(at, _)| at);
        if let Some(&(start, _)) = spans::marker_spans(&redacted)
            .iter()
            .find(|&&(start, end)| start < cut && cut < end)
        {
            cut = start;
        }
        Cow::Owned(format!("{}…", &redacted[..cut]))
    }
}

impl Default for Redactor {
    fn default() -> Self {
        Self::new()
    }
}

/// Every kind name the default rules can emit, sorted, without compiling anything (tests hold
/// docs and corpora to this closed set; the exposition shows a kind only once it was used).
#[cfg(test)]
pub fn kind_names() -> &'static [&'static str] {
    static KINDS: std::sync::OnceLock<Vec<&'static str>> = std::sync::OnceLock::new();
    KINDS.get_or_init(|| {
        let mut kinds: Vec<&'static str> = rules::default_rules().iter().map(|r| r.kind).collect();
        kinds.push(engine::KEYLESS_KIND);
        kinds.sort_unstable();
        kinds.dedup();
        kinds
    })
}

/// What this thread asked the redactor to look at, for tests that bound it (a test, not a
/// timer, shows that a field too long to be shown was never scanned).
#[cfg(test)]
pub(crate) mod scanned {
    use std::cell::Cell;

    thread_local! {
        static LONGEST: Cell<usize> = const { Cell::new(0) };
    }

    pub(super) fn note(len: usize) {
        LONGEST.with(|longest| longest.set(longest.get().max(len)));
    }

    /// The longest text (in bytes) this thread asked about since the last call.
    pub(crate) fn take_longest() -> usize {
        LONGEST.with(|longest| longest.replace(0))
    }
}
