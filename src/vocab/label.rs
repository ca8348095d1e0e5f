//! The names of the capped, attacker-influenced labels.
//!
//! **Not here:** validating and admitting their values (`crate::account::labels`).

use serde::{Deserialize, Serialize};

/// Which capped label a value is for.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
pub enum LabelName {
    #[serde(rename = "tool")]
    Tool,
    #[serde(rename = "workflow")]
    Workflow,
    #[serde(rename = "model")]
    Model,
}

impl LabelName {
    pub const ALL: [LabelName; 3] = [LabelName::Tool, LabelName::Workflow, LabelName::Model];

    pub fn as_str(self) -> &'static str {
        match self {
            LabelName::Tool => "tool",
            LabelName::Workflow => "workflow",
            LabelName::Model => "model",
        }
    }
}
