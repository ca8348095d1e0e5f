//! The names of the capped, attacker-influenced labels, and the labels a file's path gives its
//! series.
//!
//! **Not here:** validating and admitting their values (`crate::account::labels`), taking them
//! from a path (`crate::config::PathPattern`).

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
    #[serde(rename = "namespace")]
    Namespace,
    #[serde(rename = "pod")]
    Pod,
    #[serde(rename = "container")]
    Container,
}

impl LabelName {
    pub const ALL: [LabelName; 6] = [
        LabelName::Tool,
        LabelName::Workflow,
        LabelName::Model,
        LabelName::Namespace,
        LabelName::Pod,
        LabelName::Container,
    ];

    /// The labels `--labels-from-path` may name (besides `workflow`, the path's workflow).
    pub const FROM_PATH: [LabelName; 3] =
        [LabelName::Namespace, LabelName::Pod, LabelName::Container];

    pub fn as_str(self) -> &'static str {
        match self {
            LabelName::Tool => "tool",
            LabelName::Workflow => "workflow",
            LabelName::Model => "model",
            LabelName::Namespace => "namespace",
            LabelName::Pod => "pod",
            LabelName::Container => "container",
        }
    }
}

/// The labels a file's path gave its series (`--labels-from-path`): admitted values, by name, in
/// [`LabelName::FROM_PATH`] order. Empty for a file whose path gives none: its series carry only
/// their own labels.
#[derive(Debug, Clone, Default, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
pub struct PathLabels(pub Vec<(LabelName, String)>);

impl PathLabels {
    pub fn is_empty(&self) -> bool {
        self.0.is_empty()
    }

    /// The `(name, value)` pairs, for rendering.
    pub fn pairs<'s>(&'s self) -> impl Iterator<Item = (&'static str, &'s str)> + 's {
        self.0
            .iter()
            .map(|(name, value)| (name.as_str(), value.as_str()))
    }

    /// The value of `name`, if the path gave one.
    pub fn get(&self, name: LabelName) -> Option<&str> {
        self.0
            .iter()
            .find(|(n, _)| *n == name)
            .map(|(_, value)| value.as_str())
    }
}
