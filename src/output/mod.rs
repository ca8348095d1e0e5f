//! What leaves the process: the metrics store and its exposition, the audit stream, the recent
//! denials ring, and HTTP.
//!
//! Everything here reads what [`crate::account`] produced; nothing here counts. A scrape encodes
//! what is in memory and never reads a log file.

pub mod audit;
pub mod auth;
pub mod connection;
pub mod drill;
pub mod exposition;
pub mod http;
pub mod openmetrics;
pub mod recent;
pub mod text;
pub mod tls;
pub mod web;
pub mod web_config;

#[cfg(test)]
mod golden_tests;
