//! What keeps the HTTP server alive under abusive or broken clients: a cap on open connections,
//! a write deadline on every response, back-off when `accept` fails, and a raised file limit.
//!
//! Owns [`ConnectionStats`] (the self-metrics of the connections), [`Deadline`] (an IO wrapper that
//! fails a write once a response has been written for longer than the write timeout),
//! [`AcceptBackoff`] and [`raise_fd_limit`].
//!
//! Invariants: an open connection always holds one permit of the cap, released when its IO is
//! dropped; the open-connections gauge counts exactly the permits held.
//!
//! **Not here:** the accept loop itself and TLS handshakes ([`super::server`]), what is served,
//! the names and help texts of the self-metrics ([`crate::vocab::families`]).
//!
//! Cost: per connection and per write, a few atomic operations and one timer reset.
//!
//! Limits: by default 256 connections, 10 s to write a response (`--web.max-connections`,
//! `--web.write-timeout`). Accept back-off starts at 5 ms and doubles to 1 s, like Go's net/http.

use std::future::Future as _;
use std::io;
use std::pin::Pin;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Arc;
use std::task::{Context, Poll};
use std::time::Duration;

use tokio::io::{AsyncRead, AsyncWrite, ReadBuf};
use tokio::sync::{OwnedSemaphorePermit, Semaphore};
use tokio::time::{Instant, Sleep};
use tracing::{debug, info, warn};

use crate::exposition::{Describe, Emit};
use crate::vocab::families;

/// The first sleep after a failed `accept`.
pub const ACCEPT_BACKOFF_MIN: Duration = Duration::from_millis(5);
/// The longest sleep between two failed `accept`s.
pub const ACCEPT_BACKOFF_MAX: Duration = Duration::from_secs(1);

/// Counters of the connection layer, served after the counted families on `/metrics`.
#[derive(Debug, Default)]
pub struct ConnectionStats {
    open: AtomicU64,
    rejected: AtomicU64,
    write_timeouts: AtomicU64,
    accept_errors: AtomicU64,
    tls_handshake_errors: AtomicU64,
}

impl ConnectionStats {
    pub fn count_accept_error(&self) {
        self.accept_errors.fetch_add(1, Ordering::Relaxed);
    }

    pub fn count_tls_handshake_error(&self) {
        self.tls_handshake_errors.fetch_add(1, Ordering::Relaxed);
    }

    /// Counters with every value different, for tests.
    #[cfg(test)]
    pub fn busy() -> ConnectionStats {
        ConnectionStats {
            open: AtomicU64::new(3),
            rejected: AtomicU64::new(1),
            write_timeouts: AtomicU64::new(2),
            accept_errors: AtomicU64::new(4),
            tls_handshake_errors: AtomicU64::new(5),
        }
    }
}

/// The connection self-metrics, served after every other family on `/metrics`.
impl Describe for ConnectionStats {
    fn describe(&self, out: &mut impl Emit) {
        for (family, value) in [
            (families::HTTP_CONNECTIONS_OPEN, &self.open),
            (families::HTTP_CONNECTIONS_REJECTED, &self.rejected),
            (families::HTTP_WRITE_TIMEOUTS, &self.write_timeouts),
            (families::HTTP_ACCEPT_ERRORS, &self.accept_errors),
            (
                families::HTTP_TLS_HANDSHAKE_ERRORS,
                &self.tls_handshake_errors,
            ),
        ] {
            out.family(family);
            out.integer(&[], value.load(Ordering::Relaxed));
        }
    }
}

/// The cap on open connections.
#[derive(Debug)]
pub struct ConnectionCap {
    permits: Arc<Semaphore>,
    stats: Arc<ConnectionStats>,
}

/// Held by an open connection; dropping it frees a place under the cap.
#[derive(Debug)]
pub struct Admission {
    _permit: OwnedSemaphorePermit,
    stats: Arc<ConnectionStats>,
}

impl Drop for Admission {
    fn drop(&mut self) {
        self.stats.open.fetch_sub(1, Ordering::Relaxed);
    }
}

impl ConnectionCap {
    pub fn new(max_connections: usize, stats: Arc<ConnectionStats>) -> ConnectionCap {
        ConnectionCap {
            permits: Arc::new(Semaphore::new(max_connections)),
            stats,
        }
    }

    /// A place for one more connection, or `None` (counted, and logged at powers of two so a
    /// flood cannot flood the log) when the cap is reached.
    pub fn admit(&self) -> Option<Admission> {
        match self.permits.clone().try_acquire_owned() {
            Ok(permit) => {
                self.stats.open.fetch_add(1, Ordering::Relaxed);
                Some(Admission {
                    _permit: permit,
                    stats: self.stats.clone(),
                })
            }
            Err(_) => {
                let rejected = self.stats.rejected.fetch_add(1, Ordering::Relaxed) + 1;
                if rejected.is_power_of_two() {
                    warn!(
                        rejected_total = rejected,
                        "too many open connections (--web.max-connections); closing new ones"
                    );
                }
                None
            }
        }
    }
}

/// Sleeps after a failed `accept` (out of file descriptors, mostly): 5 ms, doubling to 1 s,
/// reset by the next success. Without it the accept loop spins at 100% CPU while the limit is hit.
#[derive(Debug, Default)]
pub struct AcceptBackoff {
    delay: Option<Duration>,
}

impl AcceptBackoff {
    /// How long to sleep after this failure.
    pub fn next_delay(&mut self) -> Duration {
        let delay = match self.delay {
            None => ACCEPT_BACKOFF_MIN,
            Some(d) => (d * 2).min(ACCEPT_BACKOFF_MAX),
        };
        self.delay = Some(delay);
        delay
    }

    /// Whether the last failure was the first of its run (worth a log line).
    pub fn is_first(&self) -> bool {
        self.delay == Some(ACCEPT_BACKOFF_MIN)
    }

    pub fn reset(&mut self) {
        self.delay = None;
    }
}

/// An IO stream whose writes fail with `TimedOut` once the response being written has taken
/// longer than `timeout`. A response starts with the first write after data was read (a request
/// arrived), so keep-alive idling is not counted; a client that never reads its response is
/// dropped after `timeout`, and the memory of the response with it.
#[derive(Debug)]
pub struct Deadline<S> {
    inner: S,
    timeout: Duration,
    sleep: Pin<Box<Sleep>>,
    /// A response is being written and `sleep` is its deadline.
    is_armed: bool,
    stats: Arc<ConnectionStats>,
    _admission: Admission,
}

impl<S> Deadline<S> {
    pub fn new(inner: S, timeout: Duration, admission: Admission) -> Deadline<S> {
        let stats = admission.stats.clone();
        Deadline {
            inner,
            timeout,
            sleep: Box::pin(tokio::time::sleep(timeout)),
            is_armed: false,
            stats,
            _admission: admission,
        }
    }

    /// Arms the deadline at the first write of a response; errors once it has passed.
    fn check(&mut self, cx: &mut Context<'_>) -> io::Result<()> {
        if !self.is_armed {
            self.is_armed = true;
            let deadline = Instant::now() + self.timeout;
            self.sleep.as_mut().reset(deadline);
        }
        if self.sleep.as_mut().poll(cx).is_ready() {
            self.stats.write_timeouts.fetch_add(1, Ordering::Relaxed);
            return Err(io::Error::new(
                io::ErrorKind::TimedOut,
                "response not written within --web.write-timeout",
            ));
        }
        Ok(())
    }
}

impl<S: AsyncRead + Unpin> AsyncRead for Deadline<S> {
    fn poll_read(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &mut ReadBuf<'_>,
    ) -> Poll<io::Result<()>> {
        let before = buf.filled().len();
        let result = Pin::new(&mut self.inner).poll_read(cx, buf);
        if matches!(result, Poll::Ready(Ok(()))) && buf.filled().len() > before {
            self.is_armed = false; // a new request: the next write starts a new response
        }
        result
    }
}

impl<S: AsyncWrite + Unpin> AsyncWrite for Deadline<S> {
    fn poll_write(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &[u8],
    ) -> Poll<io::Result<usize>> {
        if let Err(e) = self.check(cx) {
            return Poll::Ready(Err(e));
        }
        Pin::new(&mut self.inner).poll_write(cx, buf)
    }

    fn poll_write_vectored(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        bufs: &[io::IoSlice<'_>],
    ) -> Poll<io::Result<usize>> {
        if let Err(e) = self.check(cx) {
            return Poll::Ready(Err(e));
        }
        Pin::new(&mut self.inner).poll_write_vectored(cx, bufs)
    }

    fn is_write_vectored(&self) -> bool {
        self.inner.is_write_vectored()
    }

    fn poll_flush(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        if let Err(e) = self.check(cx) {
            return Poll::Ready(Err(e));
        }
        Pin::new(&mut self.inner).poll_flush(cx)
    }

    fn poll_shutdown(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        Pin::new(&mut self.inner).poll_shutdown(cx)
    }
}

/// Raises the soft limit of open files to the hard limit, as Prometheus does, so the connection
/// cap is reached before the file limit. Logs the limit in force.
pub fn raise_fd_limit() {
    use rustix::process::{getrlimit, setrlimit, Resource};
    let limit = getrlimit(Resource::Nofile);
    if limit.current == limit.maximum {
        debug!(limit = ?limit.current, "open files limit already at its hard limit");
        return;
    }
    let raised = rustix::process::Rlimit {
        current: limit.maximum,
        maximum: limit.maximum,
    };
    match setrlimit(Resource::Nofile, raised) {
        Ok(()) => {
            info!(limit = ?limit.maximum, previous = ?limit.current, "raised the open files limit")
        }
        Err(error) => warn!(%error, limit = ?limit.current, "cannot raise the open files limit"),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::exposition::{write, Format};

    #[test]
    fn backoff_doubles_from_5ms_to_1s_and_resets() {
        let mut backoff = AcceptBackoff::default();
        let delays: Vec<u128> = (0..10).map(|_| backoff.next_delay().as_millis()).collect();
        assert_eq!(delays, [5, 10, 20, 40, 80, 160, 320, 640, 1000, 1000]);
        backoff.reset();
        assert_eq!(backoff.next_delay(), ACCEPT_BACKOFF_MIN);
        assert!(backoff.is_first());
    }

    #[test]
    fn the_cap_counts_admissions_and_rejections() {
        let stats = Arc::new(ConnectionStats::default());
        let cap = ConnectionCap::new(2, stats.clone());
        let a = cap.admit().unwrap();
        let _b = cap.admit().unwrap();
        assert!(cap.admit().is_none());
        drop(a);
        let _c = cap.admit().unwrap();
        let text = write(Format::Text, &*stats, String::new());
        let om = write(Format::OpenMetrics, &*stats, String::new());
        assert!(om.contains("# TYPE denials_exporter_http_connections_rejected counter\ndenials_exporter_http_connections_rejected_total 1\n"), "{om}");
        assert!(
            text.contains("denials_exporter_http_connections_open 2\n"),
            "{text}"
        );
        assert!(
            text.contains("denials_exporter_http_connections_rejected_total 1\n"),
            "{text}"
        );
    }

    #[tokio::test(start_paused = true)]
    async fn a_response_not_written_in_time_fails() {
        use tokio::io::{AsyncReadExt, AsyncWriteExt};
        let stats = Arc::new(ConnectionStats::default());
        let cap = ConnectionCap::new(1, stats.clone());
        // A peer that never reads: a 64 KiB pipe fills up.
        let (ours, mut theirs) = tokio::io::duplex(64 * 1024);
        let mut io = Deadline::new(ours, Duration::from_secs(10), cap.admit().unwrap());
        theirs.write_all(b"GET / HTTP/1.1\r\n\r\n").await.unwrap();
        let mut request = [0u8; 64];
        let _ = io.read(&mut request).await.unwrap();
        let big = vec![b'x'; 1 << 20];
        let error = io.write_all(&big).await.unwrap_err();
        assert_eq!(error.kind(), io::ErrorKind::TimedOut);
        assert!(write(Format::Text, &*stats, String::new())
            .contains("denials_exporter_http_write_timeouts_total 1\n"));
    }
}
