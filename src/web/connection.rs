//! What keeps the HTTP server alive under abusive or broken clients: a table of open connections
//! that makes room for a new one, a write deadline on every response, back-off when `accept`
//! fails, and a raised file limit.
//!
//! Owns [`ConnectionStats`] (the self-metrics of the connections), [`ConnectionCap`] (the table:
//! when full, a new connection evicts the one idle longest that is not serving a request, so a
//! flood of silent connections cannot lock the scraper out), [`Deadline`] (an IO wrapper that
//! fails a write once a response has been written for longer than the write timeout, and every
//! read and write of an evicted connection), [`AcceptBackoff`] and [`raise_fd_limit`].
//!
//! "Serving a request": a plain HTTP/1 connection from the end of a request header
//! (`\r\n\r\n`, found across reads) to the first write of its response. Over TLS the bytes seen
//! here are encrypted, so a TLS connection is only ever ordered by its last byte read or written
//! (one serving a request is the most recently active, so the last to go).
//!
//! Invariants: an open connection always holds one entry of the table, removed when its IO is
//! dropped or when it is evicted; the open-connections gauge counts exactly the entries.
//!
//! **Not here:** the accept loop itself, the header read timeout (hyper's, 5 s) and TLS
//! handshakes ([`super::server`]), what is served, the names and help texts of the self-metrics
//! ([`crate::vocab::families`]).
//!
//! Cost: per read and write, a few atomic operations, a scan of the bytes read for the header
//! end (plain HTTP only) and one timer reset; per connection admitted into a full table, one pass
//! over the table (at most `--web.max-connections` entries).
//!
//! Limits: by default 256 connections, 10 s to write a response (`--web.max-connections`,
//! `--web.write-timeout`). Accept back-off starts at 5 ms and doubles to 1 s, like Go's net/http.

use std::collections::HashMap;
use std::future::Future as _;
use std::io;
use std::pin::Pin;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Arc, Mutex};
use std::task::{Context, Poll, Waker};
use std::time::Duration;

use tokio::io::{AsyncRead, AsyncWrite, ReadBuf};
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
    evicted: AtomicU64,
    write_timeouts: AtomicU64,
    accept_errors: AtomicU64,
    tls_handshake_errors: AtomicU64,
}

impl ConnectionStats {
    pub fn count_accept_error(&self) {
        self.accept_errors.fetch_add(1, Ordering::Relaxed);
    }

    /// A TLS handshake failed or timed out: counted, and by reason (see
    /// [`super::tls::HandshakeErrors::failed`]), logged at warn at most every 10 s.
    pub fn count_tls_handshake_error(&self) {
        self.tls_handshake_errors.fetch_add(1, Ordering::Relaxed);
        super::tls::HANDSHAKE_ERRORS.failed();
    }

    /// Counters with every value different, for tests.
    #[cfg(test)]
    pub fn busy() -> ConnectionStats {
        ConnectionStats {
            open: AtomicU64::new(3),
            rejected: AtomicU64::new(1),
            evicted: AtomicU64::new(6),
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
            (families::HTTP_CONNECTIONS_EVICTED, &self.evicted),
            (families::HTTP_WRITE_TIMEOUTS, &self.write_timeouts),
            (families::HTTP_ACCEPT_ERRORS, &self.accept_errors),
            (
                families::HTTP_TLS_HANDSHAKE_ERRORS,
                &self.tls_handshake_errors,
            ),
        ] {
            if family == families::HTTP_TLS_HANDSHAKE_ERRORS {
                out.family(families::TLS_HANDSHAKE_ERRORS);
                for (reason, n) in super::tls::HANDSHAKE_ERRORS.counts() {
                    out.integer(&[("reason", reason)], n);
                }
            }
            out.family(family);
            out.integer(&[], value.load(Ordering::Relaxed));
        }
    }
}

/// The table of open connections, capped at `--web.max-connections`.
///
/// When it is full, a new connection takes the place of the one idle longest that is not serving
/// a request (evicted: its reads and writes fail at once, and it closes), so a flood of silent
/// connections cannot lock the scraper out. Only when every open connection is serving a request
/// is the new one closed at once (rejected).
#[derive(Debug)]
pub struct ConnectionCap {
    max: usize,
    table: Arc<Table>,
    stats: Arc<ConnectionStats>,
}

/// The open connections, by id; shared by the cap and every [`Admission`].
#[derive(Debug)]
struct Table {
    epoch: Instant,
    slots: Mutex<HashMap<u64, Arc<Slot>>>,
    next_id: AtomicU64,
}

/// What the table knows of one connection.
#[derive(Debug, Default)]
struct Slot {
    /// Nanoseconds after the table's epoch of the last byte read or written.
    active_at: AtomicU64,
    /// A complete request header was read and no response written since: never evicted.
    serving: AtomicBool,
    evicted: AtomicBool,
    /// Woken when the connection is evicted, so a read waiting on a silent peer ends.
    waker: Mutex<Option<Waker>>,
}

impl Table {
    fn now(&self) -> u64 {
        u64::try_from(self.epoch.elapsed().as_nanos()).unwrap_or(u64::MAX)
    }
}

/// Held by an open connection; dropping it frees its place in the table.
#[derive(Debug)]
pub struct Admission {
    id: u64,
    slot: Arc<Slot>,
    table: Arc<Table>,
    stats: Arc<ConnectionStats>,
}

impl Admission {
    fn touch(&self) {
        self.slot
            .active_at
            .store(self.table.now(), Ordering::Relaxed);
    }

    fn is_evicted(&self) -> bool {
        self.slot.evicted.load(Ordering::Relaxed)
    }

    /// Remembers the waker of a read that is waiting, to end it at eviction.
    fn wait_on(&self, cx: &Context<'_>) {
        let mut waker = self.slot.waker.lock().expect("waker lock");
        if !waker.as_ref().is_some_and(|w| w.will_wake(cx.waker())) {
            *waker = Some(cx.waker().clone());
        }
    }
}

impl Drop for Admission {
    fn drop(&mut self) {
        let removed = self
            .table
            .slots
            .lock()
            .expect("connection table lock")
            .remove(&self.id);
        if removed.is_some() {
            self.stats.open.fetch_sub(1, Ordering::Relaxed);
        }
    }
}

impl ConnectionCap {
    pub fn new(max_connections: usize, stats: Arc<ConnectionStats>) -> ConnectionCap {
        ConnectionCap {
            max: max_connections,
            table: Arc::new(Table {
                epoch: Instant::now(),
                slots: Mutex::new(HashMap::new()),
                next_id: AtomicU64::new(0),
            }),
            stats,
        }
    }

    /// A place for one more connection: a free one, or the place of the connection idle longest
    /// that is not serving a request (evicted, counted). `None` (counted, and logged at powers of
    /// two so a flood cannot flood the log) when every open connection is serving a request.
    pub fn admit(&self) -> Option<Admission> {
        let mut slots = self.table.slots.lock().expect("connection table lock");
        if slots.len() >= self.max {
            let victim = slots
                .iter()
                .filter(|(_, slot)| !slot.serving.load(Ordering::Relaxed))
                .min_by_key(|(_, slot)| slot.active_at.load(Ordering::Relaxed))
                .map(|(id, _)| *id);
            let Some(victim) = victim.and_then(|id| slots.remove(&id)) else {
                drop(slots);
                self.reject();
                return None;
            };
            self.evict(&victim);
        } else {
            self.stats.open.fetch_add(1, Ordering::Relaxed);
        }
        let id = self.table.next_id.fetch_add(1, Ordering::Relaxed);
        let slot = Arc::new(Slot::default());
        slot.active_at.store(self.table.now(), Ordering::Relaxed);
        slots.insert(id, slot.clone());
        Some(Admission {
            id,
            slot,
            table: self.table.clone(),
            stats: self.stats.clone(),
        })
    }

    fn evict(&self, victim: &Slot) {
        victim.evicted.store(true, Ordering::Relaxed);
        if let Some(waker) = victim.waker.lock().expect("waker lock").take() {
            waker.wake();
        }
        let evicted = self.stats.evicted.fetch_add(1, Ordering::Relaxed) + 1;
        if evicted.is_power_of_two() {
            info!(
                evicted_total = evicted,
                "connection table full (--web.max-connections); closing the connection idle longest"
            );
        }
    }

    fn reject(&self) {
        let rejected = self.stats.rejected.fetch_add(1, Ordering::Relaxed) + 1;
        if rejected.is_power_of_two() {
            warn!(
                rejected_total = rejected,
                "too many open connections (--web.max-connections), all serving; closing new ones"
            );
        }
    }
}

/// Finds the end of a plain HTTP/1 request header (`\r\n\r\n`) across reads.
#[derive(Debug, Default)]
struct HeaderEnd {
    /// How many bytes of `\r\n\r\n` the bytes read so far end with.
    matched: usize,
    /// The first byte read was a TLS record: the bytes here are encrypted.
    is_tls: Option<bool>,
}

impl HeaderEnd {
    const END: &'static [u8] = b"\r\n\r\n";
    /// The content type of a TLS handshake record, the first byte a TLS client sends.
    const TLS_HANDSHAKE: u8 = 0x16;

    /// Whether `bytes`, read after the earlier ones, complete a request header.
    fn complete(&mut self, bytes: &[u8]) -> bool {
        let Some(&first) = bytes.first() else {
            return false;
        };
        if *self.is_tls.get_or_insert(first == Self::TLS_HANDSHAKE) {
            return false;
        }
        let mut complete = false;
        for &b in bytes {
            self.matched = if b == Self::END[self.matched] {
                self.matched + 1
            } else if b == b'\r' {
                1
            } else {
                0
            };
            if self.matched == Self::END.len() {
                complete = true;
                self.matched = 0;
            }
        }
        complete
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
    admission: Admission,
    header: HeaderEnd,
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
            admission,
            header: HeaderEnd::default(),
        }
    }

    /// Fails every read and write of an evicted connection, so it closes.
    fn check_evicted(&self) -> io::Result<()> {
        if self.admission.is_evicted() {
            return Err(io::Error::new(
                io::ErrorKind::ConnectionAborted,
                "evicted: the connection table was full and this connection was idle longest",
            ));
        }
        Ok(())
    }

    /// A response is being written: the connection is active and no longer serving a request.
    fn wrote(&self) {
        self.admission.touch();
        self.admission.slot.serving.store(false, Ordering::Relaxed);
    }

    /// Arms the deadline at the first write of a response; errors once it has passed.
    fn check(&mut self, cx: &mut Context<'_>) -> io::Result<()> {
        self.check_evicted()?;
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
        self.check_evicted()?;
        let before = buf.filled().len();
        let result = Pin::new(&mut self.inner).poll_read(cx, buf);
        match result {
            Poll::Ready(Ok(())) if buf.filled().len() > before => {
                self.is_armed = false; // a new request: the next write starts a new response
                self.admission.touch();
                if self.header.complete(&buf.filled()[before..]) {
                    self.admission.slot.serving.store(true, Ordering::Relaxed);
                }
            }
            Poll::Pending => {
                // Registered before the second look, so an eviction in between still wakes us.
                self.admission.wait_on(cx);
                self.check_evicted()?;
            }
            _ => {}
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
        self.wrote();
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
        self.wrote();
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
    fn a_full_table_evicts_the_connection_idle_longest() {
        let stats = Arc::new(ConnectionStats::default());
        let cap = ConnectionCap::new(2, stats.clone());
        let a = cap.admit().expect("a free place");
        std::thread::sleep(Duration::from_millis(2));
        let b = cap.admit().expect("a free place");
        let c = cap.admit().expect("the place of the idle longest");
        assert!(a.is_evicted() && !b.is_evicted() && !c.is_evicted());
        drop(a); // the evicted connection closes: its place was already taken
        let text = write(Format::Text, &*stats, String::new());
        let om = write(Format::OpenMetrics, &*stats, String::new());
        assert!(om.contains("# TYPE denials_exporter_http_connections_evicted counter\ndenials_exporter_http_connections_evicted_total 1\n"), "{om}");
        assert!(
            text.contains("denials_exporter_http_connections_open 2\n"),
            "{text}"
        );
        assert!(
            text.contains("denials_exporter_http_connections_rejected_total 0\n"),
            "{text}"
        );
    }

    #[tokio::test]
    async fn a_connection_serving_a_request_is_never_evicted() {
        use tokio::io::{AsyncReadExt, AsyncWriteExt};
        let stats = Arc::new(ConnectionStats::default());
        let cap = ConnectionCap::new(1, stats.clone());
        let (ours, mut theirs) = tokio::io::duplex(1024);
        let mut io = Deadline::new(ours, Duration::from_secs(10), cap.admit().unwrap());
        theirs.write_all(b"GET / HTTP/1.1\r\n\r").await.unwrap();
        let mut request = [0u8; 64];
        let _ = io.read(&mut request).await.unwrap();
        theirs.write_all(b"\n").await.unwrap();
        let _ = io.read(&mut request).await.unwrap();
        assert!(
            cap.admit().is_none(),
            "the request being served was evicted"
        );
        assert!(write(Format::Text, &*stats, String::new())
            .contains("denials_exporter_http_connections_rejected_total 1\n"));
        // Once its response is written it is idle again, and gives way.
        io.write_all(b"HTTP/1.1 200 OK\r\n\r\n").await.unwrap();
        assert!(cap.admit().is_some());
    }

    #[tokio::test]
    async fn an_evicted_connection_waiting_for_a_request_closes() {
        use tokio::io::AsyncReadExt;
        let stats = Arc::new(ConnectionStats::default());
        let cap = ConnectionCap::new(1, stats.clone());
        let (ours, _theirs) = tokio::io::duplex(1024);
        let mut io = Deadline::new(ours, Duration::from_secs(10), cap.admit().unwrap());
        let silent = tokio::spawn(async move {
            let mut request = [0u8; 64];
            io.read(&mut request).await
        });
        tokio::task::yield_now().await;
        let _newcomer = cap.admit().expect("the silent connection gives way");
        let error = silent.await.unwrap().unwrap_err();
        assert_eq!(error.kind(), io::ErrorKind::ConnectionAborted);
    }

    #[test]
    fn a_header_end_is_found_across_reads_and_never_in_tls() {
        let mut plain = HeaderEnd::default();
        assert!(!plain.complete(b"GET / HTTP/1.1\r\nHost: x\r"));
        assert!(!plain.complete(b"\n\r"));
        assert!(plain.complete(b"\n"));
        assert!(!plain.complete(b"GET /x HTTP/1.1\r\n\r\r\n"));
        let mut tls = HeaderEnd::default();
        assert!(!tls.complete(&[0x16, 3, 1, b'\r', b'\n', b'\r', b'\n']));
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
