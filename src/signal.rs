//! The signals the sidecar answers: SIGTERM (what Kubernetes sends to start a graceful
//! shutdown) and SIGINT (Ctrl-C) stop it; SIGHUP asks it to reopen and rescan.
//!
//! **Not here:** what shutting down or a hang-up does (`crate::run`).

use tokio::signal::unix::{signal, Signal, SignalKind};

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

/// The stream of SIGHUPs. Installing it replaces the default action (terminate, without a
/// state write) for the life of the process; call it inside the runtime, before getting ready.
pub fn hangups() -> std::io::Result<Signal> {
    signal(SignalKind::hangup())
}
