//! Spend by model: what one record adds to `agent_tokens_by_model_total` and
//! `agent_cost_usd_total`, from the SDK's `modelUsage`.
//!
//! `modelUsage` is a running total per session (per correlation key): a streaming-input session's
//! results (and the executor's completed lines for them) each carry the session's cumulative
//! figure, so what a record adds is the increase over the last one seen for that execution, model
//! by model ([`SeenModels`], kept in the execution's reconciliation state). A record without
//! `modelUsage` but with `model_usage_since_last_result` adds that delta as it is. A record with
//! neither adds its top-level increase under the model `unknown`, so that the by-model counters
//! always sum to `agent_tokens_total` (and to the cost of the records that state one).
//!
//! **Not here:** admitting the model name as a label value ([`super::labels`]), where the counters
//! live ([`crate::vocab::counters`]).
//!
//! Cold: per record line.

use crate::decode::{ModelSpend, ModelUsage, Record};
use crate::vocab::counters::ModelSeries;

use super::small_map::SmallMap;
use super::totals::{increase, tokens_array, Totals};

/// Models remembered per execution, at most (beside the decoder's cap per record).
pub const MAX_MODELS_PER_EXECUTION: usize = 64;

/// The model name for spend that no `modelUsage` attributes.
pub const UNKNOWN_MODEL: &str = "unknown";

/// The last cumulative `modelUsage` of an execution, by raw model name: tokens by kind, then cost.
pub type SeenModels = SmallMap<[f64; 5]>;

/// What a record adds, by raw model name (not yet a label value).
pub fn record_spend(
    seen: &mut SeenModels,
    record: &Record,
    previous: &Totals,
    current: &Totals,
) -> Vec<(String, ModelSeries)> {
    let cost_increase = increase(previous.cost_usd, current.cost_usd);
    let mut unattributed = ModelSeries::default();
    let mut spend = match (&record.model_usage, &record.model_usage_delta) {
        (Some(cumulative), _) => {
            // Tokens of a kind that modelUsage does not state (the record took them from its
            // top-level fields): the record's figure minus the models', as a running total too.
            let before = seen_tokens(seen);
            let spend = increases(seen, cumulative);
            let now = seen_tokens(seen);
            for i in 0..4 {
                let was = (previous.tokens[i] - before[i]).max(0.0);
                let is = (current.tokens[i] - now[i]).max(0.0);
                unattributed.tokens[i] = increase(was, is);
            }
            if !has_cost(cumulative) {
                unattributed.cost_usd = cost_increase;
            }
            spend
        }
        (None, Some(delta)) => {
            let spend = add_delta(seen, delta);
            if !has_cost(delta) {
                unattributed.cost_usd = cost_increase;
            }
            spend
        }
        (None, None) => {
            unattributed = ModelSeries {
                tokens: std::array::from_fn(|i| increase(previous.tokens[i], current.tokens[i])),
                cost_usd: cost_increase,
                cost_exemplar: None,
            };
            Vec::new()
        }
    };
    spend.push((UNKNOWN_MODEL.to_string(), unattributed));
    spend.retain(|(_, s)| *s != ModelSeries::default());
    spend
}

/// Tokens by kind summed over the models seen.
fn seen_tokens(seen: &SeenModels) -> [f64; 4] {
    let mut sum = [0.0; 4];
    for v in seen.values() {
        for i in 0..4 {
            sum[i] += v[i];
        }
    }
    sum
}

/// The increases of a cumulative `modelUsage` over what was seen; remembers it.
fn increases(seen: &mut SeenModels, cumulative: &ModelUsage) -> Vec<(String, ModelSeries)> {
    cumulative
        .iter()
        .map(|(model, spend)| {
            // Kept per execution in the state file: a model name that holds a secret is not.
            let model = &super::label_value(model).to_string();
            let now = as_array(spend);
            let before = seen.get(model).copied().unwrap_or_default();
            let step: [f64; 5] = std::array::from_fn(|i| increase(before[i], now[i]));
            remember(seen, model, now);
            (model.to_string(), as_series(step))
        })
        .collect()
}

/// A per-result delta, as it is; added to what was seen so that a later cumulative figure
/// yields only what is new.
fn add_delta(seen: &mut SeenModels, delta: &ModelUsage) -> Vec<(String, ModelSeries)> {
    delta
        .iter()
        .map(|(model, spend)| {
            let model = &super::label_value(model).to_string();
            let step = as_array(spend);
            let before = seen.get(model).copied().unwrap_or_default();
            remember(seen, model, std::array::from_fn(|i| before[i] + step[i]));
            (model.to_string(), as_series(step))
        })
        .collect()
}

fn remember(seen: &mut SeenModels, model: &str, value: [f64; 5]) {
    if seen.len() < MAX_MODELS_PER_EXECUTION || seen.contains_key(model) {
        seen.insert(model, value);
    }
}

fn has_cost(usage: &ModelUsage) -> bool {
    usage.iter().any(|(_, s)| s.cost_usd.is_some())
}

fn as_array(spend: &ModelSpend) -> [f64; 5] {
    let [a, b, c, d] = tokens_array(&spend.tokens);
    [a, b, c, d, spend.cost_usd.unwrap_or(0.0)]
}

fn as_series(v: [f64; 5]) -> ModelSeries {
    ModelSeries {
        tokens: [v[0], v[1], v[2], v[3]],
        cost_usd: v[4],
        cost_exemplar: None,
    }
}

#[cfg(test)]
mod tests {
    use std::collections::BTreeMap;

    use super::*;
    use crate::config::Fields;
    use crate::decode::{decode, Event};

    fn record(line: &str) -> Record {
        match decode(line.as_bytes(), &Fields::default()) {
            Ok(Event::Record(r)) => r,
            other => panic!("{other:?}"),
        }
    }

    fn totals(r: &Record) -> Totals {
        Totals {
            cost_usd: r.cost_usd.unwrap_or(0.0),
            tokens: r.tokens.as_ref().map(tokens_array).unwrap_or_default(),
            ..Totals::default()
        }
    }

    /// Applies records of one session in order; returns the summed spend by model.
    fn session(lines: &[&str]) -> BTreeMap<String, ModelSeries> {
        let mut seen = SeenModels::new();
        let mut previous = Totals::default();
        let mut sum: BTreeMap<String, ModelSeries> = BTreeMap::new();
        for line in lines {
            let r = record(line);
            let current = totals(&r);
            for (model, s) in record_spend(&mut seen, &r, &previous, &current) {
                let e = sum.entry(model).or_default();
                for i in 0..4 {
                    e.tokens[i] += s.tokens[i];
                }
                e.cost_usd += s.cost_usd;
            }
            previous = current;
        }
        sum
    }

    #[test]
    fn cumulative_model_usage_counts_increases_per_model() {
        let r0 = r#"{"type":"result","session_id":"s","total_cost_usd":0.3,"modelUsage":{"sonnet":{"inputTokens":100,"outputTokens":10,"costUSD":0.3}}}"#;
        let r1 = r#"{"type":"result","session_id":"s","total_cost_usd":0.5,"modelUsage":{"sonnet":{"inputTokens":100,"outputTokens":10,"costUSD":0.3},"haiku":{"inputTokens":40,"costUSD":0.2}}}"#;
        let r2 = r#"{"type":"result","session_id":"s","total_cost_usd":0.6,"modelUsage":{"sonnet":{"inputTokens":100,"outputTokens":10,"costUSD":0.3},"haiku":{"inputTokens":70,"costUSD":0.3}}}"#;
        let sum = session(&[r0, r1, r2]);
        assert_eq!(sum["sonnet"].tokens, [100.0, 10.0, 0.0, 0.0]);
        assert_eq!(
            sum["haiku"].tokens[0], 70.0,
            "the last cumulative figure, not 40+70"
        );
        assert!((sum["haiku"].cost_usd - 0.3).abs() < 1e-12);
        assert!(!sum.contains_key(UNKNOWN_MODEL));
    }

    #[test]
    fn delta_only_results_add_as_they_are() {
        let r0 = r#"{"type":"result","session_id":"s","model_usage_since_last_result":{"haiku":{"inputTokens":40,"costUSD":0.2}}}"#;
        let r1 = r#"{"type":"result","session_id":"s","model_usage_since_last_result":{"haiku":{"inputTokens":30,"costUSD":0.1}}}"#;
        // A later cumulative figure adds only what the deltas did not.
        let r2 = r#"{"type":"result","session_id":"s","modelUsage":{"haiku":{"inputTokens":75,"costUSD":0.3}}}"#;
        let sum = session(&[r0, r1, r2]);
        assert_eq!(sum["haiku"].tokens[0], 75.0);
        assert!((sum["haiku"].cost_usd - 0.3).abs() < 1e-12);
    }

    #[test]
    fn without_model_usage_the_top_level_figures_go_to_unknown() {
        let r0 = r#"{"executionId":"e","costUsd":1.5,"inputTokens":10,"outputTokens":2,"msg":"Claude Agent SDK execution completed"}"#;
        let sum = session(&[r0]);
        assert_eq!(sum[UNKNOWN_MODEL].tokens, [10.0, 2.0, 0.0, 0.0]);
        assert_eq!(sum[UNKNOWN_MODEL].cost_usd, 1.5);
        // Tokens by model without a cost per model: the record's cost stays unattributed.
        let r1 = r#"{"executionId":"e","costUsd":0.5,"modelUsage":{"m":{"inputTokens":3}},"msg":"Claude Agent SDK execution completed"}"#;
        let sum = session(&[r1]);
        assert_eq!(sum["m"].tokens[0], 3.0);
        assert_eq!(sum[UNKNOWN_MODEL].cost_usd, 0.5);
        // A kind modelUsage does not state comes from the top-level field, unattributed, and
        // counts as a running total like the rest.
        let r2 = r#"{"executionId":"e","cacheReadInputTokens":50,"modelUsage":{"m":{"inputTokens":3,"outputTokens":1,"costUSD":0.1}},"msg":"Claude Agent SDK execution completed"}"#;
        let r3 = r#"{"executionId":"e","cacheReadInputTokens":80,"modelUsage":{"m":{"inputTokens":5,"outputTokens":1,"costUSD":0.2}},"msg":"Claude Agent SDK execution completed"}"#;
        let sum = session(&[r2, r3]);
        assert_eq!(sum["m"].tokens, [5.0, 1.0, 0.0, 0.0]);
        assert_eq!(sum[UNKNOWN_MODEL].tokens, [0.0, 0.0, 80.0, 0.0]);
        assert_eq!(sum[UNKNOWN_MODEL].cost_usd, 0.0);
    }

    #[test]
    fn seen_models_are_capped() {
        let mut seen = SeenModels::new();
        for i in 0..(MAX_MODELS_PER_EXECUTION + 10) {
            remember(&mut seen, &format!("m{i}"), [1.0; 5]);
        }
        assert_eq!(seen.len(), MAX_MODELS_PER_EXECUTION);
    }
}
