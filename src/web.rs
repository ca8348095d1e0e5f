//! The HTTP server: what a scraper, a browser or a probe sees of the exporter.
//!
//! One room per job, each wrapping the next and none calling back up:
//! * [`server`]: the accept loop, connections, TLS handshakes, HTTP/1.1;
//! * [`front`]: [`Web`], built from the flags and the web config file: basic auth ([`auth`]),
//!   where a route runs, gzip and the configured headers around whatever a route answers;
//! * [`routes`]: what each path answers, as a [`reply::Reply`] value; [`landing`]: the page at `/`;
//! * [`published`]: what the reading thread publishes ([`Shared`]) and the renders of it;
//! * [`recent`] and [`drill`]: the recent-denials ring and the denials API's filters;
//! * [`config`] and [`tls`]: the web config file (exporter-toolkit's format) and TLS;
//! * [`connection`]: the connection cap, write deadline, accept back-off and their self-metrics;
//! * [`process`]: the `process_*` families, read from `/proc/self` at each scrape.
//!
//! Everything here reads what the reading thread published; nothing here counts, and a request
//! never reads a log file. **Not here:** the exposition's bytes ([`crate::exposition`]), the
//! audit stream ([`crate::audit`]).

pub mod auth;
pub mod config;
pub mod connection;
pub mod drill;
pub mod front;
pub mod landing;
pub mod process;
pub mod published;
pub mod recent;
pub mod reply;
pub mod routes;
pub mod server;
pub mod tls;

pub use connection::raise_fd_limit;
pub use front::{Web, WebOptions};
pub use published::{Published, Shared, View};
pub use recent::RecentDenials;
pub use server::serve;

#[cfg(test)]
mod tests;
