//! The vocabulary several stages share, at the bottom of the dependency graph: the closed
//! `reason` set, the capped label names, what a line's outcome was, the counter set itself, and
//! the record of a counted denial.
//!
//! Every stage may use these types; this module uses no other module of the crate. It holds data
//! and names only: no counting rules (`crate::account`), no rendering (`crate::exposition`).

mod audit;
pub mod counters;
pub mod digest;
pub mod families;
mod label;
mod reason;

pub use audit::{AuditKind, AuditRecord, Origin, RISK_PENDING};
pub use counters::{LineOutcome, Metrics};
pub use label::{LabelName, PathLabels};
pub use reason::Reason;
