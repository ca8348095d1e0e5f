//! denials-exporter: counts AI-agent permission denials from executor logs, exactly once, and
//! exports them to Prometheus.
//!
//! The pipeline reads from the tree, one module per stage:
//!
//! * [`input`] turns files (and container framing) into complete application lines with where
//!   they came from. It never parses JSON.
//! * [`decode`] turns one line into a typed [`decode::Event`], or nothing. Pure; no state.
//! * [`account`] is the only writer of counting state: dedup, reconciliation of mid-stream
//!   denials against execution records, label bounds, the counter values themselves.
//! * [`output`] reads what account produced: the Prometheus exposition, the audit stream, HTTP.
//!
//! [`pipeline`] glues one chunk of bytes through those stages on one thread; [`replay`] and
//! [`run`] are the two commands built on it. [`redact`] is applied to every string that leaves.

pub(crate) mod account;
pub mod cli;
pub mod config;
pub(crate) mod decode;
#[cfg(test)]
mod exactly_once_tests;
#[cfg(test)]
mod hostile_tests;
pub(crate) mod input;
pub mod logging;
pub mod memory;
pub(crate) mod output;
pub(crate) mod pipeline;
pub mod redact;
pub mod replay;
pub mod risk;
pub mod run;
pub(crate) mod sched;
pub(crate) mod signal;
pub(crate) mod state;
pub(crate) mod vocab;
