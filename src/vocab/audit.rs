//! The record of one counted denial: what account builds and every output reads (the audit
//! stream, the recent-denials ring, the landing page, `/api/v1/denials`).
//!
//! Owns the record's fields and [`Origin`]'s one spelling. Every text field is redacted, or
//! replaced whole by its length when past its bound, before the record is written or shown;
//! a record handed to the audit writer thread carries the fields still to redact raw, marked as
//! such, until that thread finishes it (`crate::account::deferred`). **Not here:** building a
//! record (`crate::account`), writing one (`crate::audit`), showing one (`crate::web`).

use serde::Serialize;

use crate::vocab::Reason;

/// How a denial came to be counted.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Origin {
    MidStream,
    Record,
}

impl Origin {
    /// The spelling in the audit log, the denials API and the landing page alike.
    pub fn as_str(self) -> &'static str {
        match self {
            Origin::MidStream => "mid_stream",
            Origin::Record => "record",
        }
    }
}

/// Which of the three audit record kinds a record is.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum AuditKind {
    /// A counted denial (`"audit":"permission_denial"`), written when it is counted.
    #[default]
    Denial,
    /// The risk class of a denial counted earlier with `"risk":"pending"`
    /// (`"audit":"risk_decided"`), written when its execution's record brought its input or the
    /// execution ended without one.
    RiskDecided,
    /// A denial counted earlier (or just now) whose call ran anyway
    /// (`"audit":"denial_unenforced"`), written when both the denial and the evidence that the
    /// call ran are known; it counts no denial.
    Unenforced,
}

/// The `risk` of a denial counted before its input was known: its class follows in a
/// [`AuditKind::RiskDecided`] record.
pub const RISK_PENDING: &str = "pending";

/// One counted denial, as it leaves the process (redacted; see the module doc for the one
/// place its fields are still raw).
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct AuditRecord {
    /// Not a field of the JSON: the audit stream's discriminator says it.
    #[serde(skip)]
    pub kind: AuditKind,
    pub time: String,
    pub tool: String,
    pub workflow: String,
    /// The `namespace` and `pod` labels its file's path gave (`--labels-from-path`), if any.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub namespace: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub pod: Option<String>,
    pub reason: Reason,
    /// The risk class label value, or [`RISK_PENDING`].
    pub risk: String,
    pub execution_id: Option<String>,
    pub tool_use_id: Option<String>,
    pub decision_reason: Option<String>,
    pub input_summary: Option<String>,
    pub source_file: String,
    pub origin: Origin,
    pub format: &'static str,
    /// How many denials this record stands for: 1, except for a record's per-tool count or
    /// total, which reveals its denials as one record (written only when not 1).
    #[serde(skip_serializing_if = "is_one")]
    pub count: u64,
}

fn is_one(n: &u64) -> bool {
    *n == 1
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn origin_has_one_spelling() {
        for origin in [Origin::MidStream, Origin::Record] {
            let serde = serde_json::to_string(&origin).unwrap();
            assert_eq!(serde, format!("\"{}\"", origin.as_str()));
        }
    }
}
