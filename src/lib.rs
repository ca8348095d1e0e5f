//! denials-exporter: counts AI-agent permission denials from executor logs, exactly once, and
//! exports them to Prometheus.
//!
//! The pipeline reads from the tree, one module per stage, each using only the ones before it
//! (`tests/layout.rs` holds the order):
//!
//! * [`json`]: where a JSON string's next byte to escape is, for the stages that read and write
//!   JSON by hand. Uses nothing.
//! * [`vocab`]: what every stage says: reasons, label names, line outcomes, the counter set, the
//!   metric families' names and help texts, the audit record. Uses nothing.
//! * [`risk`]: the risk class of what a denial attempted, from its tool input or reason text: a
//!   pure function of its rules, which [`config`] checks the user's rules with and [`account`]
//!   calls for every denial.
//! * [`memory`], [`build_info`], `sched` and `signal`: process helpers that know no stage.
//! * [`cli`] and [`config`]: the flags, then the checked [`config::Config`] and
//!   [`config::RunConfig`].
//! * [`redact`] is applied to every string that leaves; [`logging`] is the exporter's own log.
//! * [`input`] turns files (and container framing) into complete application lines with where
//!   they came from. It never parses JSON, and uses no other module: what it needs of the
//!   configuration it is given.
//! * [`decode`] turns one line into a typed [`decode::Event`], or nothing. Pure; no state.
//! * [`account`] is the only writer of counting state: dedup, reconciliation of mid-stream
//!   denials against execution records, label bounds, risk classes, the counter values
//!   themselves, and the audit records and exemplars (redacted, or handed raw to the audit
//!   writer thread to redact).
//! * [`audit`] writes the audit stream; [`pipeline`] glues one chunk of bytes through input,
//!   decode and account on one thread, and hands the records to the audit writer.
//! * What reads the counts: [`exposition`] (one writer per format) and [`web`] (the HTTP server).
//! * [`state`] composes every stage's part into the state file.
//! * [`replay`] and [`run`] are the two commands, wiring only ([`demo`] for `run --demo`).

pub(crate) mod account;
pub(crate) mod audit;
pub mod build_info;
pub mod cli;
pub mod config;
pub(crate) mod decode;
pub(crate) mod demo;
pub(crate) mod exposition;
pub(crate) mod input;
pub(crate) mod json;
pub mod logging;
pub mod memory;
pub(crate) mod pipeline;
pub mod redact;
pub mod replay;
pub mod risk;
pub mod run;
pub(crate) mod sched;
pub(crate) mod signal;
pub(crate) mod state;
#[cfg(test)]
mod tests;
pub(crate) mod vocab;
pub(crate) mod web;
