//! The running totals an execution record carries (cost, duration, turns, tokens), and how two
//! of them make an increase.
//!
//! Owns [`Totals`] (the last record's totals, kept per execution by [`super::reconcile`]) and
//! [`increase`]. Both reconciliation and spend by model ([`super::spend`]) read these; neither
//! reads the other's internals through here. **Not here:** which record is new (reconcile),
//! spend by model (spend).
//!
//! Cold: per record line.

use serde::{Deserialize, Serialize};

use crate::decode::Tokens;

/// The totals of the last record of an execution (running totals for stream-json sessions).
#[derive(Debug, Clone, Copy, Default, PartialEq, Serialize, Deserialize)]
pub struct Totals {
    pub cost_usd: f64,
    pub duration_seconds: f64,
    pub turns: f64,
    pub tokens: [f64; 4],
    pub denials: u64,
    pub records: u64,
}

/// Tokens as the array order of [`Totals::tokens`].
pub fn tokens_array(t: &Tokens) -> [f64; 4] {
    t.as_array()
}

/// The increase from `previous` to `current` of a running total; a drop means a new run, whose
/// whole value is the increase. A drop within rounding (a running total of dollars summed in a
/// different order, 1e-9 relative) is no change, not a new run.
pub fn increase(previous: f64, current: f64) -> f64 {
    if current >= previous {
        current - previous
    } else if previous - current <= 1e-9 * previous.abs() {
        0.0
    } else {
        current
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn running_totals_become_increases() {
        assert_eq!(increase(1.0, 1.5), 0.5);
        assert_eq!(increase(1.5, 0.25), 0.25);
        assert_eq!(increase(0.1 + 0.2, 0.3), 0.0, "rounding is not a new run");
    }
}
