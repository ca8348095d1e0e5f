//! The test-only trees that drive the whole line path, kept out of the stage modules:
//!
//! * [`exactly_once`]: seeded schedules of writer operations, rotations and crashes against a
//!   model of what was written; every denial must be counted once.
//! * [`hostile`]: generated and kept hostile inputs, with memory and work bounds asserted.
//!
//! Unit tests stay at the bottom of the file they test (or, when large, in its `tests.rs`
//! child); integration tests that run the built binary are in `tests/`.

mod exactly_once;
mod hostile;
