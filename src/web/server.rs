//! The accept loop: listeners, connections, TLS handshakes, HTTP/1.1 (hyper 1.x, one task per
//! connection).
//!
//! Owns the connection lifecycle: a failed `accept` backs off instead of spinning; a connection
//! beyond `--web.max-connections` is closed at once; each admitted one gets its own task, the
//! TLS handshake if any (bounded by [`TLS_HANDSHAKE_TIMEOUT`]), then HTTP/1.1 with a header
//! read timeout and a write deadline, each request handed to the front ([`Web::respond`]).
//!
//! Timeouts: 5 s to read a request's header, 5 s for a TLS handshake, `--web.write-timeout` to
//! write a response; keep-alive connections close at shutdown after at most 3 s of grace.
//!
//! **Not here:** what a request is answered with ([`super::routes`]), auth, gzip and headers
//! ([`super::front`]), the cap, write deadline and back-off themselves ([`super::connection`]),
//! the TLS configuration ([`super::tls`]).
//!
//! Binding ([`bind`]): `:PORT` listens on every address family: one IPv6 socket with
//! `IPV6_V6ONLY` off, so IPv4 clients are accepted too as mapped addresses whatever the host's
//! `net.ipv6.bindv6only`, or `0.0.0.0` when the host has no IPv6.
//!
//! Cost: per connection.

use std::convert::Infallible;
use std::future::Future;
use std::io;
use std::net::{Ipv4Addr, Ipv6Addr, SocketAddr};
use std::os::fd::AsRawFd;
use std::sync::Arc;
use std::time::Duration;

use hyper::server::conn::http1;
use hyper::service::service_fn;
use hyper_util::rt::{TokioIo, TokioTimer};
use hyper_util::server::graceful::{GracefulShutdown, Watcher};
use tokio::io::{AsyncRead, AsyncWrite};
use tokio::net::{TcpListener, TcpSocket, TcpStream};
use tracing::{debug, warn};

use super::connection::{AcceptBackoff, Deadline};
use super::front::Web;
use super::published::Shared;
use crate::config::Listen;

/// How long a TLS handshake may take before the connection is dropped.
pub const TLS_HANDSHAKE_TIMEOUT: Duration = Duration::from_secs(5);

/// How long a request's header may take to arrive.
const HEADER_READ_TIMEOUT: Duration = Duration::from_secs(5);

/// The accept queue of each listener.
const BACKLOG: u32 = 1024;

/// Listens on one `--web.listen-address`.
pub async fn bind(listen: Listen) -> io::Result<TcpListener> {
    match listen {
        Listen::Socket(addr) => TcpListener::bind(addr).await,
        Listen::AllFamilies(port) => match bind_dual_stack(port) {
            Ok(listener) => Ok(listener),
            // No IPv6 on this host (disabled, or no address): IPv4 alone.
            Err(e) if no_ipv6(&e) => {
                debug!(error = %e, "no IPv6 on this host; listening on IPv4 only");
                listen_on(TcpSocket::new_v4()?, (Ipv4Addr::UNSPECIFIED, port).into())
            }
            Err(e) => Err(e),
        },
    }
}

/// `[::]:port` accepting IPv4 too.
fn bind_dual_stack(port: u16) -> io::Result<TcpListener> {
    let socket = TcpSocket::new_v6()?;
    let off: libc::c_int = 0;
    // SAFETY: a valid socket descriptor, and a pointer to a c_int of the length given.
    let rc = unsafe {
        libc::setsockopt(
            socket.as_raw_fd(),
            libc::IPPROTO_IPV6,
            libc::IPV6_V6ONLY,
            std::ptr::addr_of!(off).cast(),
            std::mem::size_of::<libc::c_int>() as libc::socklen_t,
        )
    };
    if rc != 0 {
        return Err(io::Error::last_os_error());
    }
    listen_on(socket, (Ipv6Addr::UNSPECIFIED, port).into())
}

fn listen_on(socket: TcpSocket, addr: SocketAddr) -> io::Result<TcpListener> {
    socket.set_reuseaddr(true)?; // what TcpListener::bind does: a restart reuses the port at once
    socket.bind(addr)?;
    socket.listen(BACKLOG)
}

/// Whether `error` says the host has no IPv6 (as opposed to the port being taken).
fn no_ipv6(error: &io::Error) -> bool {
    matches!(
        error.raw_os_error(),
        Some(libc::EAFNOSUPPORT | libc::EADDRNOTAVAIL | libc::EPROTONOSUPPORT)
    )
}

/// Serves until `shutdown` resolves, then closes connections gracefully.
///
/// Each listener has its own accept task. A failed `accept` (out of file descriptors, mostly)
/// backs off instead of spinning; a connection beyond `--web.max-connections` is closed at once.
/// Each admitted connection gets its own task: the TLS handshake (if any, bounded by
/// [`TLS_HANDSHAKE_TIMEOUT`]), then HTTP/1.1 with a header read timeout and a write deadline.
pub async fn serve(
    listeners: Vec<TcpListener>,
    shared: Arc<Shared>,
    web: Web,
    shutdown: impl Future<Output = ()>,
) {
    web.log_settings();
    let web = Arc::new(web);
    let graceful = Arc::new(GracefulShutdown::new());
    let (stop_tx, _) = tokio::sync::broadcast::channel::<()>(1);
    let mut accept_tasks = Vec::new();
    for listener in listeners {
        let shared = shared.clone();
        let web = web.clone();
        let graceful = graceful.clone();
        let mut stop = stop_tx.subscribe();
        accept_tasks.push(tokio::spawn(async move {
            let mut backoff = AcceptBackoff::default();
            loop {
                let stream = tokio::select! {
                    accepted = listener.accept() => match accepted {
                        Ok((stream, _)) => stream,
                        Err(error) => {
                            web.stats.count_accept_error();
                            let delay = backoff.next_delay();
                            if backoff.is_first() {
                                warn!(%error, "accept failed; backing off");
                            } else {
                                debug!(%error, delay_ms = delay.as_millis() as u64, "accept failed");
                            }
                            tokio::select! {
                                _ = tokio::time::sleep(delay) => continue,
                                _ = stop.recv() => break,
                            }
                        }
                    },
                    _ = stop.recv() => break,
                };
                backoff.reset();
                let Some(admission) = web.cap.admit() else {
                    drop(stream); // over the cap: closed at once, counted
                    continue;
                };
                let io = Deadline::new(stream, web.write_timeout, admission);
                tokio::spawn(connection(io, web.clone(), shared.clone(), graceful.watcher()));
            }
        }));
    }
    shutdown.await;
    let _ = stop_tx.send(());
    for task in accept_tasks {
        let _ = task.await;
    }
    let Ok(graceful) = Arc::try_unwrap(graceful) else {
        return; // unreachable: every accept task holding a clone has ended
    };
    if tokio::time::timeout(Duration::from_secs(3), graceful.shutdown())
        .await
        .is_err()
    {
        debug!("connections still open after 3 s; closing");
    }
}

/// One connection: the TLS handshake if configured, then HTTP.
async fn connection(io: Deadline<TcpStream>, web: Arc<Web>, shared: Arc<Shared>, watcher: Watcher) {
    let Some(acceptor) = web.tls.clone() else {
        return http_connection(io, web, shared, watcher).await;
    };
    match tokio::time::timeout(TLS_HANDSHAKE_TIMEOUT, acceptor.accept(io)).await {
        Ok(Ok(tls)) => http_connection(tls, web, shared, watcher).await,
        Ok(Err(error)) => {
            web.stats.count_tls_handshake_error();
            debug!(%error, "TLS handshake failed");
        }
        Err(_) => {
            web.stats.count_tls_handshake_error();
            debug!("TLS handshake timed out");
        }
    }
}

async fn http_connection<IO>(io: IO, web: Arc<Web>, shared: Arc<Shared>, watcher: Watcher)
where
    IO: AsyncRead + AsyncWrite + Unpin + Send + 'static,
{
    let service = service_fn(move |req| {
        let web = web.clone();
        let shared = shared.clone();
        async move { Ok::<_, Infallible>(web.respond(&shared, req).await) }
    });
    let conn = http1::Builder::new()
        .timer(TokioTimer::new())
        .header_read_timeout(HEADER_READ_TIMEOUT)
        .serve_connection(TokioIo::new(io), service);
    if let Err(error) = watcher.watch(conn).await {
        debug!(%error, "connection ended with an error");
    }
}
