//! Waits for SIGTERM (what Kubernetes sends to start a graceful shutdown) or SIGINT (Ctrl-C).
//!
//! **Not here:** what shutting down does (`crate::run`).

use tokio::signal::unix::{signal, SignalKind};

/// Resolves on the first SIGTERM or SIGINT.
pub async fn shutdown() {
    let mut term =
        signal(SignalKind::terminate()).expect("installing a SIGTERM handler at start-up");
    let mut int = signal(SignalKind::interrupt()).expect("installing a SIGINT handler at start-up");
    tokio::select! {
        _ = term.recv() => tracing::info!("SIGTERM received; shutting down"),
        _ = int.recv() => tracing::info!("SIGINT received; shutting down"),
    }
}
