//! Spend by model: the SDK's `modelUsage` object (and `model_usage_since_last_result`), shared by
//! the pino and stream-json decoders.
//!
//! `modelUsage` is the complete figure (docs/formats.md, "What the SDK reports by itself"): per model `inputTokens`, `outputTokens`,
//! `cacheReadInputTokens`, `cacheCreationInputTokens` and `costUSD`. `usage` (and the executor's
//! top-level `inputTokens`, which copies it) covers the main loop of the last turn only. This
//! module reports what a line says, as it says it; whether it is a running total or a per-result
//! delta is for [`crate::account`] to decide. **Not here:** label validation of model names
//! (`crate::account::labels`), any state.

use serde_json::Value;

use super::{num_in, Tokens};

/// Models read from one `modelUsage` object, at most: the keys are log content, and an absurd
/// object must not grow the per-execution state without bound.
pub const MAX_MODELS_PER_RECORD: usize = 64;

/// One model's spend in one record.
#[derive(Debug, Clone, Copy, Default, PartialEq)]
pub struct ModelSpend {
    pub tokens: Tokens,
    /// Which token kinds (input, output, cache read, cache creation) the entry states.
    pub stated: [bool; 4],
    /// `costUSD`, when the entry has it.
    pub cost_usd: Option<f64>,
}

/// Spend by raw model name, in the order of the object (at most [`MAX_MODELS_PER_RECORD`]).
pub type ModelUsage = Vec<(String, ModelSpend)>;

/// Reads a `modelUsage`-shaped object; `None` when it is not an object. Entries that are not
/// objects are skipped.
pub fn model_usage(value: &Value) -> Option<ModelUsage> {
    let models = value.as_object()?;
    Some(
        models
            .iter()
            .filter_map(|(name, entry)| Some((name.clone(), model_spend(entry.as_object()?))))
            .take(MAX_MODELS_PER_RECORD)
            .collect(),
    )
}

/// Token field names by kind, in the order of [`ModelSpend::stated`].
const KINDS: [[&str; 2]; 4] = [
    ["inputTokens", "input_tokens"],
    ["outputTokens", "output_tokens"],
    ["cacheReadInputTokens", "cache_read_input_tokens"],
    ["cacheCreationInputTokens", "cache_creation_input_tokens"],
];

fn model_spend(entry: &serde_json::Map<String, Value>) -> ModelSpend {
    let n = KINDS.map(|keys| num_in(entry, &keys));
    ModelSpend {
        tokens: Tokens {
            input: n[0].unwrap_or(0.0),
            output: n[1].unwrap_or(0.0),
            cache_read: n[2].unwrap_or(0.0),
            cache_creation: n[3].unwrap_or(0.0),
        },
        stated: n.map(|v| v.is_some()),
        cost_usd: num_in(entry, &["costUSD", "costUsd", "cost_usd"]),
    }
}

/// The sum over models.
#[derive(Debug, Clone, Copy, Default, PartialEq)]
pub struct UsageTotal {
    pub tokens: Tokens,
    /// Which token kinds at least one model states.
    pub stated: [bool; 4],
    /// The cost, when at least one model states it.
    pub cost_usd: Option<f64>,
}

/// The sum over models.
pub fn total(usage: &ModelUsage) -> UsageTotal {
    let mut sum = UsageTotal::default();
    for (_, spend) in usage {
        sum.tokens.input += spend.tokens.input;
        sum.tokens.output += spend.tokens.output;
        sum.tokens.cache_read += spend.tokens.cache_read;
        sum.tokens.cache_creation += spend.tokens.cache_creation;
        for (any, this) in sum.stated.iter_mut().zip(spend.stated) {
            *any |= this;
        }
        if let Some(c) = spend.cost_usd {
            *sum.cost_usd.get_or_insert(0.0) += c;
        }
    }
    sum
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reads_models_and_sums() {
        let v: Value = serde_json::json!({
            "claude-sonnet-4-5": {"inputTokens": 10, "outputTokens": 20, "cacheReadInputTokens": 30,
                                  "cacheCreationInputTokens": 40, "webSearchRequests": 0, "costUSD": 0.5},
            "claude-haiku-4-5": {"inputTokens": 1, "costUSD": 0.25},
            "broken": 7
        });
        let usage = model_usage(&v).unwrap();
        assert_eq!(usage.len(), 2);
        let sonnet = usage
            .iter()
            .find(|(m, _)| m == "claude-sonnet-4-5")
            .unwrap()
            .1;
        assert_eq!(sonnet.tokens.cache_creation, 40.0);
        assert_eq!(sonnet.cost_usd, Some(0.5));
        let sum = total(&usage);
        assert_eq!((sum.tokens.input, sum.tokens.output), (11.0, 20.0));
        assert_eq!(sum.stated, [true; 4]);
        assert_eq!(sum.cost_usd, Some(0.75));
    }

    #[test]
    fn cost_is_absent_when_no_model_states_it() {
        let usage = model_usage(&serde_json::json!({"m": {"inputTokens": 3}})).unwrap();
        assert_eq!(total(&usage).cost_usd, None);
        assert_eq!(total(&usage).stated, [true, false, false, false]);
        assert!(model_usage(&serde_json::json!([1])).is_none());
    }

    #[test]
    fn model_count_is_capped() {
        let many: serde_json::Map<String, Value> = (0..200)
            .map(|i| (format!("m{i}"), serde_json::json!({"inputTokens": 1})))
            .collect();
        let usage = model_usage(&Value::Object(many)).unwrap();
        assert_eq!(usage.len(), MAX_MODELS_PER_RECORD);
    }
}
