//! How a denial's attacker-influenced fields are shown outside the process: in audit records,
//! and so in the recent-denials ring, `/` and `/api/v1/denials`, and in exemplars.
//!
//! Owns the byte bound of each shown field and the marker that replaces a field past it. A
//! field within its bound is redacted whole and only then cut ([`crate::redact::Redactor`]);
//! a field past it is replaced whole by `<tool name of 1048576 bytes>`, before any scan: the
//! marker carries its length and no byte of its content, so no prefix of a secret can show, and
//! what a field costs is bounded by its bound, not by the line (a 1 MB tool name used to cost
//! a 1 MB scan for each denial that carried it: docs/performance.md, "Hostile input").
//!
//! The bounds: names and ids (tool name, execution id, tool use id) at the label bound,
//! [`MAX_LABEL_BYTES`], past which a tool is counted as `invalid`; free texts (decision reason,
//! input summary) at [`MAX_TEXT_BYTES`], the longest input summary the decoder makes, so that
//! no summary it makes is ever replaced and a reason is held to the same.
//!
//! **Not here:** redaction itself (`crate::redact`), the label rules ([`super::labels`]), the
//! record schema (`crate::vocab::AuditRecord`).
//!
//! Cold: per audited denial or exemplar.

use super::labels::MAX_LABEL_BYTES;
use crate::decode::MAX_SUMMARY_CHARS;

/// Longest free text shown (redacted, then cut), in bytes: the decoder's longest input summary
/// ([`MAX_SUMMARY_CHARS`] characters of at most 4 bytes, then `…`).
pub const MAX_TEXT_BYTES: usize = 4 * MAX_SUMMARY_CHARS + '…'.len_utf8();

/// A field of a denial that leaves the process.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Field {
    ToolName,
    ExecutionId,
    ToolUseId,
    DecisionReason,
    InputSummary,
}

impl Field {
    /// Its name in a marker.
    fn name(self) -> &'static str {
        match self {
            Field::ToolName => "tool name",
            Field::ExecutionId => "execution id",
            Field::ToolUseId => "tool use id",
            Field::DecisionReason => "decision reason",
            Field::InputSummary => "input summary",
        }
    }

    /// The longest value shown, in bytes.
    fn max_bytes(self) -> usize {
        match self {
            Field::ToolName | Field::ExecutionId | Field::ToolUseId => MAX_LABEL_BYTES,
            Field::DecisionReason | Field::InputSummary => MAX_TEXT_BYTES,
        }
    }

    /// The marker shown instead of `value` when it is past the bound; `None` when it is within
    /// (then it is redacted and shown). Looks at the length only.
    pub fn oversized(self, value: &str) -> Option<String> {
        (value.len() > self.max_bytes())
            .then(|| format!("<{} of {} bytes>", self.name(), value.len()))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_field_past_its_bound_becomes_its_length_and_nothing_of_it() {
        let at_bound = "a".repeat(MAX_LABEL_BYTES);
        assert_eq!(Field::ToolName.oversized(&at_bound), None);
        let past = format!("{at_bound}b");
        assert_eq!(
            Field::ToolName.oversized(&past).as_deref(),
            Some("<tool name of 129 bytes>")
        );
        assert_eq!(
            Field::ToolUseId.oversized(&"x".repeat(1 << 20)).as_deref(),
            Some("<tool use id of 1048576 bytes>")
        );
        // Bytes, not characters: 65 two-byte characters are past 128 bytes.
        assert!(Field::ExecutionId.oversized(&"é".repeat(65)).is_some());
        let reason = "r".repeat(MAX_TEXT_BYTES);
        assert_eq!(Field::DecisionReason.oversized(&reason), None);
        assert!(Field::DecisionReason
            .oversized(&format!("{reason}s"))
            .is_some());
    }

    #[test]
    fn no_summary_the_decoder_makes_is_replaced() {
        let widest = serde_json::Value::String("😀".repeat(MAX_SUMMARY_CHARS + 10));
        let summary = crate::decode::summarize_input(&widest).unwrap();
        assert_eq!(Field::InputSummary.oversized(&summary), None);
    }
}
