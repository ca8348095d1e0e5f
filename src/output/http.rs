//! The HTTP server (hyper 1.x, one task per connection):
//!
//! * `GET <telemetry path>` (default `/metrics`): the text exposition, format 0.0.4, or OpenMetrics
//!   1.0 with exemplars when the `Accept` header prefers it ([`super::openmetrics`]). Encodes what
//!   is in memory; never reads a file. 503 until ready: after a restart the restored counters are
//!   behind what was served before, until the backlog is read again.
//! * `GET /-/healthy`: 200 while the reading thread is alive, else 503.
//! * `GET /-/ready`: 200 once the state is restored and the first scan of the files ran, else 503.
//! * `GET /`: an HTML landing page: version, followed files with their lag, recent denials.
//! * `GET /api/v1/denials`: the recent denials as JSON, newest first; query filters
//!   `execution_id`, `tool`, `workflow`, `reason`, `since`, `limit` ([`super::drill`]), a bad one
//!   answered 400 with one sentence.
//!
//! Everything shown was redacted before it got here; the landing page also HTML-escapes it,
//! because tool inputs are attacker-influenced. Timeouts: 5 s to read a request's header (and
//! 5 s for a TLS handshake), `--web.write-timeout` to write a response; keep-alive connections
//! close at shutdown after at most 3 s of grace. At most `--web.max-connections` are open.
//!
//! **Not here:** counting, rendering metric families ([`super::exposition`]); TLS, basic auth,
//! response headers, gzip and which thread runs a request ([`super::web`]); the connection cap,
//! write deadline and accept back-off ([`super::connection`]).

use std::convert::Infallible;
use std::fmt::Write as _;
use std::future::Future;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use http_body_util::Full;
use hyper::body::{Bytes, Incoming};
use hyper::header::{HeaderValue, ACCEPT, CONTENT_TYPE};
use hyper::server::conn::http1;
use hyper::service::service_fn;
use hyper::{Method, Request, Response, StatusCode};
use hyper_util::rt::{TokioIo, TokioTimer};
use hyper_util::server::graceful::{GracefulShutdown, Watcher};
use tokio::io::{AsyncRead, AsyncWrite};
use tokio::net::{TcpListener, TcpStream};
use tracing::{debug, error, warn};

use super::connection::{AcceptBackoff, Deadline};
use super::drill::Filter;
use super::exposition::{self, RunStats};
use super::openmetrics;
use super::recent::RecentDenials;
use super::web::{Web, TLS_HANDSHAKE_TIMEOUT};
use crate::account::Gauges;
use crate::vocab::Metrics;

/// The counters as the reading thread last published them: immutable, swapped whole.
#[derive(Debug, Default)]
pub struct Published {
    /// Which publication this is: one more than the one before, so an exposition rendered from
    /// it can be reused until the next.
    pub generation: u64,
    pub metrics: Metrics,
    pub gauges: Gauges,
    pub run: RunStats,
}

/// What the landing page and the denials API show, updated by the reading thread.
#[derive(Debug, Default)]
pub struct View {
    /// Followed files and their lag in bytes.
    pub files: Vec<(String, u64)>,
    pub recent: RecentDenials,
}

/// Everything the handlers read. No lock here is held by the reading thread for longer than
/// it takes to swap a pointer or append a few records.
pub struct Shared {
    pub published: Mutex<Arc<Published>>,
    pub view: Mutex<View>,
    pub ready: AtomicBool,
    pub healthy: AtomicBool,
    pub telemetry_path: String,
    /// The latest exposition per format (0.0.4, OpenMetrics), with the generation it shows:
    /// rendered once per publication, however many scrapers ask.
    rendered: Mutex<[Option<(u64, Bytes)>; 2]>,
}

impl Shared {
    /// Neither ready nor healthy yet: the reading thread says when it is.
    pub fn new(telemetry_path: String, view: View) -> Shared {
        Shared {
            published: Mutex::new(Arc::new(Published::default())),
            view: Mutex::new(view),
            ready: AtomicBool::new(false),
            healthy: AtomicBool::new(false),
            telemetry_path,
            rendered: Mutex::new([None, None]),
        }
    }

    /// The exposition of the latest publication, exactly as `/metrics` serves it: the 0.0.4
    /// text, or OpenMetrics with exemplars. Rendered at most once per publication and format.
    pub fn exposition(&self, openmetrics: bool) -> Bytes {
        let published = self.published.lock().expect("published lock").clone();
        let mut rendered = self.rendered.lock().expect("rendered lock");
        let slot = &mut rendered[usize::from(openmetrics)];
        if let Some((generation, body)) = slot.as_ref() {
            if *generation == published.generation {
                return body.clone();
            }
        }
        let kinds = crate::redact::kind_names();
        let body = Bytes::from(if openmetrics {
            let families = exposition::families(
                &published.metrics,
                published.gauges,
                kinds,
                Some(&published.run),
            );
            openmetrics::render(families, &published.metrics)
        } else {
            exposition::render(
                &published.metrics,
                published.gauges,
                kinds,
                Some(&published.run),
            )
        });
        *slot = Some((published.generation, body.clone()));
        body
    }

    /// Whether a scrape for this format is cheap enough to answer on the async runtime: the
    /// latest publication is rendered already (a scrape then costs a copy), or it is the 0.0.4
    /// text and the last one rendered was under [`INLINE_RENDER_BYTES`] (about a millisecond of
    /// work, one pass into one buffer). OpenMetrics goes through protobuf families and is never
    /// rendered inline.
    pub fn is_cheap(&self, openmetrics: bool) -> bool {
        let generation = self.published.lock().expect("published lock").generation;
        let rendered = self.rendered.lock().expect("rendered lock");
        match &rendered[usize::from(openmetrics)] {
            Some((g, _)) if *g == generation => true,
            Some((_, body)) => !openmetrics && body.len() < INLINE_RENDER_BYTES,
            None => false,
        }
    }

    /// Replaces the publication (the reading thread, after a batch).
    pub fn publish(&self, mut published: Published) {
        let mut current = self.published.lock().expect("published lock");
        published.generation = current.generation + 1;
        *current = Arc::new(published);
    }
}

/// The largest 0.0.4 exposition rendered on the async runtime (see [`Shared::is_cheap`]).
pub const INLINE_RENDER_BYTES: usize = 256 * 1024;

type Body = Full<Bytes>;

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
        .header_read_timeout(Duration::from_secs(5))
        .serve_connection(TokioIo::new(io), service);
    if let Err(error) = watcher.watch(conn).await {
        debug!(%error, "connection ended with an error");
    }
}

/// Answers one request from what is in memory. Called by [`Web::respond`], which runs it on a
/// blocking thread for every path but `/-/healthy` and `/-/ready`.
pub(super) fn route(shared: &Shared, req: Request<Incoming>) -> Response<Body> {
    if req.method() != Method::GET && req.method() != Method::HEAD {
        return text(StatusCode::METHOD_NOT_ALLOWED, "only GET and HEAD\n");
    }
    let path = req.uri().path();
    if path == shared.telemetry_path {
        if !shared.ready.load(Ordering::Acquire) {
            // Restored counters are behind what was served before a crash until the backlog is
            // read again: serving them would look like a counter reset to Prometheus.
            return text(
                StatusCode::SERVICE_UNAVAILABLE,
                "Not ready: catching up after start.\n",
            );
        }
        let accept = req.headers().get(ACCEPT).and_then(|v| v.to_str().ok());
        return metrics(shared, openmetrics::wants_openmetrics(accept));
    }
    match path {
        "/-/healthy" if shared.healthy.load(Ordering::Acquire) => {
            text(StatusCode::OK, "Healthy.\n")
        }
        "/-/healthy" => text(
            StatusCode::SERVICE_UNAVAILABLE,
            "The reading thread stopped.\n",
        ),
        "/-/ready" if shared.ready.load(Ordering::Acquire) => text(StatusCode::OK, "Ready.\n"),
        "/-/ready" => text(
            StatusCode::SERVICE_UNAVAILABLE,
            "Not ready: restoring state and scanning files.\n",
        ),
        "/" => landing(shared),
        "/api/v1/denials" => denials_json(shared, req.uri().query()),
        _ => text(StatusCode::NOT_FOUND, "not found; try /metrics\n"),
    }
}

fn metrics(shared: &Shared, openmetrics: bool) -> Response<Body> {
    let content_type = if openmetrics {
        openmetrics::CONTENT_TYPE
    } else {
        exposition::CONTENT_TYPE
    };
    let mut response = Response::new(Full::new(shared.exposition(openmetrics)));
    response
        .headers_mut()
        .insert(CONTENT_TYPE, HeaderValue::from_static(content_type));
    response
}

fn denials_json(shared: &Shared, query: Option<&str>) -> Response<Body> {
    let view = shared.view.lock().expect("view lock");
    let filter = match Filter::parse(query, view.recent.capacity()) {
        Ok(filter) => filter,
        Err(sentence) => return bad_request(sentence),
    };
    let records: Vec<_> = filter.apply(view.recent.newest_first()).collect();
    let body = match serde_json::to_vec(&serde_json::json!({ "denials": records })) {
        Ok(body) => body,
        Err(e) => {
            error!(error = %e, "cannot encode recent denials");
            return text(
                StatusCode::INTERNAL_SERVER_ERROR,
                "cannot encode recent denials\n",
            );
        }
    };
    let mut response = Response::new(Full::new(Bytes::from(body)));
    response
        .headers_mut()
        .insert(CONTENT_TYPE, HeaderValue::from_static("application/json"));
    response
}

fn landing(shared: &Shared) -> Response<Body> {
    let view = shared.view.lock().expect("view lock");
    let mut html = String::with_capacity(8 * 1024);
    let _ = write!(
        html,
        "<!DOCTYPE html><html><head><meta charset=\"utf-8\"><title>denials-exporter</title>\
         <style>body{{font-family:sans-serif;margin:2em}}table{{border-collapse:collapse}}\
         td,th{{border:1px solid #ccc;padding:4px 8px;text-align:left;font-size:90%}}</style></head><body>\
         <h1>denials-exporter</h1><p>Version {}. <a href=\"{}\">Metrics</a> · \
         <a href=\"/api/v1/denials\">Recent denials (JSON)</a> · <a href=\"/-/ready\">Ready</a></p>",
        env!("CARGO_PKG_VERSION"),
        escape(&shared.telemetry_path)
    );
    html.push_str("<h2>Files followed</h2><table><tr><th>path</th><th>lag (bytes)</th></tr>");
    for (path, lag) in &view.files {
        let _ = write!(html, "<tr><td>{}</td><td>{lag}</td></tr>", escape(path));
    }
    html.push_str("</table><h2>Recent denials</h2>");
    if view.recent.is_empty() {
        html.push_str("<p>None yet.</p>");
    } else {
        html.push_str(
            "<table><tr><th>time</th><th>tool</th><th>workflow</th><th>reason</th><th>execution</th>\
             <th>decision reason</th><th>input</th><th>origin</th></tr>",
        );
        for d in view.recent.newest_first() {
            let opt = |s: &Option<String>| escape(s.as_deref().unwrap_or(""));
            let _ = write!(
                html,
                "<tr><td>{}</td><td>{}</td><td>{}</td><td>{}</td><td>{}</td><td>{}</td><td><code>{}</code></td><td>{}</td></tr>",
                escape(&d.time),
                escape(&d.tool),
                escape(&d.workflow),
                d.reason.as_str(),
                opt(&d.execution_id),
                opt(&d.decision_reason),
                opt(&d.input_summary),
                d.origin.as_str(),
            );
        }
        html.push_str("</table>");
    }
    html.push_str("</body></html>\n");
    let mut response = Response::new(Full::new(Bytes::from(html)));
    response.headers_mut().insert(
        CONTENT_TYPE,
        HeaderValue::from_static("text/html; charset=utf-8"),
    );
    response
}

pub(super) fn text(status: StatusCode, body: &'static str) -> Response<Body> {
    let mut response = Response::new(Full::new(Bytes::from_static(body.as_bytes())));
    *response.status_mut() = status;
    response.headers_mut().insert(
        CONTENT_TYPE,
        HeaderValue::from_static("text/plain; charset=utf-8"),
    );
    response
}

fn bad_request(sentence: String) -> Response<Body> {
    let mut response = Response::new(Full::new(Bytes::from(format!("{sentence}\n"))));
    *response.status_mut() = StatusCode::BAD_REQUEST;
    response.headers_mut().insert(
        CONTENT_TYPE,
        HeaderValue::from_static("text/plain; charset=utf-8"),
    );
    response
}

/// HTML-escapes text.
pub fn escape(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    for c in s.chars() {
        match c {
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '&' => out.push_str("&amp;"),
            '"' => out.push_str("&quot;"),
            '\'' => out.push_str("&#39;"),
            c => out.push(c),
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn escapes_markup() {
        assert_eq!(
            escape("<script>alert('x')</script>&"),
            "&lt;script&gt;alert(&#39;x&#39;)&lt;/script&gt;&amp;"
        );
    }

    fn published(denials: u64) -> Published {
        let mut metrics = Metrics::default();
        metrics.denials.insert(
            crate::vocab::counters::DenialKey {
                tool: "Bash".into(),
                workflow: "w".into(),
                reason: crate::vocab::Reason::Hook,
            },
            denials,
        );
        Published {
            metrics,
            ..Published::default()
        }
    }

    #[test]
    fn renders_once_per_publication_and_format() {
        let shared = Shared::new("/metrics".into(), View::default());
        shared.publish(published(1));
        assert!(!shared.is_cheap(false) && !shared.is_cheap(true));
        let first = shared.exposition(false);
        assert!(std::str::from_utf8(&first).unwrap().contains("} 1\n"));
        assert!(shared.is_cheap(false) && !shared.is_cheap(true));
        // Asked again: the same buffer, not a new render.
        assert_eq!(shared.exposition(false).as_ptr(), first.as_ptr());
        let om = shared.exposition(true);
        assert!(om.starts_with(b"# HELP") && shared.is_cheap(true));

        shared.publish(published(2));
        assert!(
            !shared.is_cheap(true),
            "a new publication is not rendered yet"
        );
        assert!(
            shared.is_cheap(false),
            "a small text may be rendered inline"
        );
        let second = shared.exposition(false);
        assert_ne!(second.as_ptr(), first.as_ptr());
        assert!(std::str::from_utf8(&second).unwrap().contains("} 2\n"));
    }
}
