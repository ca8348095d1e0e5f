//! The front of the HTTP server: everything between an accepted connection and
//! [`super::http::route`] — TLS, basic auth, the configured response headers, gzip, and where
//! each request runs.
//!
//! Owns [`Web`], built once at start-up from the flags and the web config file. Every path is
//! behind basic auth when users are configured (as exporter-toolkit does, health checks
//! included; cached checks cost a hash, see [`super::auth`]).
//!
//! Invariant: `/-/healthy` and `/-/ready` are answered on the async runtime from atomics only,
//! never behind a lock the reading thread takes nor behind a render. A `/metrics` that costs at
//! most a copy or a small one-pass render ([`Shared::is_cheap`]) is answered there too, because
//! the hand-off to another thread is what a scrape waits longest for on a busy machine. Every
//! other request runs on a blocking thread, at most one per core at a time, so a slow render,
//! gzip, or a landing page waiting for a lock never stalls the runtime's one worker.
//!
//! **Not here:** the routes themselves ([`super::http`]), the config format
//! ([`super::web_config`]), connection limits ([`super::connection`]).
//!
//! Cost: per request. `/metrics` is gzipped (fastest level) when `Accept-Encoding` allows it, as
//! Prometheus asks by default.

use std::future::Future as _;
use std::io::Write as _;
use std::path::Path;
use std::sync::Arc;
use std::time::Duration;

use flate2::write::GzEncoder;
use flate2::Compression;
use http_body_util::{BodyExt, Full};
use hyper::body::{Bytes, Incoming};
use hyper::header::{
    HeaderMap, HeaderName, HeaderValue, ACCEPT, ACCEPT_ENCODING, AUTHORIZATION, CONTENT_ENCODING,
    CONTENT_TYPE, VARY, WWW_AUTHENTICATE,
};
use hyper::{Request, Response, StatusCode};
use tokio::sync::Semaphore;
use tokio_rustls::TlsAcceptor;
use tracing::{error, info};

use super::auth::BasicAuth;
use super::connection::{ConnectionCap, ConnectionStats};
use super::http::{route, text, Shared};
use super::web_config::WebConfig;

type Body = Full<Bytes>;

/// How long a TLS handshake may take before the connection is dropped.
pub const TLS_HANDSHAKE_TIMEOUT: Duration = Duration::from_secs(5);

/// The server's front, shared by every connection.
pub struct Web {
    /// `None`: plain HTTP.
    pub tls: Option<TlsAcceptor>,
    /// `None`: no authentication.
    auth: Option<Arc<BasicAuth>>,
    headers: Vec<(HeaderName, HeaderValue)>,
    pub cap: ConnectionCap,
    pub stats: Arc<ConnectionStats>,
    pub write_timeout: Duration,
    /// One permit per core: renders (and other locking pages) running at once.
    renders: Arc<Semaphore>,
}

/// The flags that shape the front.
#[derive(Debug, Clone)]
pub struct WebOptions<'a> {
    pub config_file: Option<&'a Path>,
    pub max_connections: usize,
    pub write_timeout: Duration,
}

impl Web {
    /// Reads the web config file (if any) and loads its certificates; any problem is one sentence.
    pub fn new(options: WebOptions<'_>) -> anyhow::Result<Web> {
        let config = match options.config_file {
            Some(path) => WebConfig::load(path)?,
            None => WebConfig::default(),
        };
        let tls = match &config.tls {
            Some(settings) => {
                let server_config = super::tls::server_config(settings).map_err(|e| {
                    anyhow::anyhow!(
                        "invalid --web.config.file {}: {e}",
                        options
                            .config_file
                            .expect("TLS comes from a file")
                            .display()
                    )
                })?;
                Some(TlsAcceptor::from(server_config))
            }
            None => None,
        };
        let stats = Arc::new(ConnectionStats::default());
        let cores = std::thread::available_parallelism().map_or(2, |n| n.get());
        Ok(Web {
            tls,
            auth: BasicAuth::new(config.users),
            headers: config.headers,
            cap: ConnectionCap::new(options.max_connections, stats.clone()),
            stats,
            write_timeout: options.write_timeout,
            renders: Arc::new(Semaphore::new(cores)),
        })
    }

    /// Logs what the front does (once, when serving starts).
    pub fn log_settings(&self) {
        info!(
            tls = self.tls.is_some(),
            basic_auth = self.auth.is_some(),
            extra_headers = self.headers.len(),
            write_timeout_seconds = self.write_timeout.as_secs_f64(),
            "web settings"
        );
    }

    /// Answers one request: auth, then the route (health inline, the rest on a blocking
    /// thread), then the configured headers.
    pub async fn respond(&self, shared: &Arc<Shared>, req: Request<Incoming>) -> Response<Body> {
        if let Some(auth) = &self.auth {
            if !auth.is_authorized(req.headers().get(AUTHORIZATION)).await {
                return self.with_headers(unauthorized());
            }
        }
        let path = req.uri().path();
        let is_metrics = path == shared.telemetry_path;
        let gzip = is_metrics && accepts_gzip(req.headers());
        let openmetrics = is_metrics
            && super::openmetrics::wants_openmetrics(
                req.headers().get(ACCEPT).and_then(|v| v.to_str().ok()),
            );
        let response = if path == "/-/healthy" || path == "/-/ready" {
            route(shared, req)
        } else if is_metrics && !gzip && shared.is_cheap(openmetrics) {
            // Rendered already, or a small 0.0.4 text: no hand-off to another thread, which is
            // what a scrape waits longest for while the reader and the writer hold both cores.
            finish_metrics(route(shared, req), &self.stats, false)
        } else {
            let permit = self
                .renders
                .clone()
                .acquire_owned()
                .await
                .expect("the render semaphore is never closed");
            let shared = shared.clone();
            let stats = self.stats.clone();
            let rendered = tokio::task::spawn_blocking(move || {
                let _permit = permit;
                let response = route(&shared, req);
                if is_metrics {
                    finish_metrics(response, &stats, gzip)
                } else {
                    response
                }
            })
            .await;
            match rendered {
                Ok(response) => response,
                Err(e) => {
                    error!(error = %e, "a request handler panicked");
                    text(StatusCode::INTERNAL_SERVER_ERROR, "internal error\n")
                }
            }
        };
        self.with_headers(response)
    }

    fn with_headers(&self, mut response: Response<Body>) -> Response<Body> {
        for (name, value) in &self.headers {
            response.headers_mut().insert(name.clone(), value.clone());
        }
        response
    }
}

/// A successful exposition gets the connection self-metrics appended (before `# EOF` in
/// OpenMetrics), then gzip if asked.
fn finish_metrics(response: Response<Body>, stats: &ConnectionStats, gzip: bool) -> Response<Body> {
    let content_type = response
        .headers()
        .get(CONTENT_TYPE)
        .and_then(|v| v.to_str().ok())
        .unwrap_or("");
    let openmetrics = content_type.starts_with("application/openmetrics-text");
    if response.status() != StatusCode::OK
        || !(openmetrics || content_type.starts_with("text/plain"))
    {
        return response;
    }
    let (mut parts, body) = response.into_parts();
    let Some(body) = full_bytes(body) else {
        return Response::from_parts(parts, Full::new(Bytes::new()));
    };
    let mut text = Vec::with_capacity(body.len() + 1024);
    const EOF: &[u8] = b"# EOF\n";
    match body.strip_suffix(EOF) {
        Some(families) if openmetrics => {
            text.extend_from_slice(families);
            text.extend_from_slice(stats.render(true).as_bytes());
            text.extend_from_slice(EOF);
        }
        _ => {
            text.extend_from_slice(&body);
            text.extend_from_slice(stats.render(false).as_bytes());
        }
    }
    let body = if gzip {
        parts
            .headers
            .insert(CONTENT_ENCODING, HeaderValue::from_static("gzip"));
        compress(&text)
    } else {
        text
    };
    parts
        .headers
        .insert(VARY, HeaderValue::from_static("Accept-Encoding"));
    Response::from_parts(parts, Full::new(Bytes::from(body)))
}

/// The bytes of a `Full` body (always ready: polled once, no runtime needed).
fn full_bytes(body: Body) -> Option<Bytes> {
    struct Noop;
    impl std::task::Wake for Noop {
        fn wake(self: Arc<Self>) {}
    }
    let waker = std::task::Waker::from(Arc::new(Noop));
    let mut collect = std::pin::pin!(body.collect());
    match collect
        .as_mut()
        .poll(&mut std::task::Context::from_waker(&waker))
    {
        std::task::Poll::Ready(Ok(collected)) => Some(collected.to_bytes()),
        _ => None,
    }
}

fn compress(bytes: &[u8]) -> Vec<u8> {
    let mut encoder = GzEncoder::new(Vec::with_capacity(bytes.len() / 4), Compression::fast());
    encoder
        .write_all(bytes)
        .and_then(|()| encoder.finish())
        .expect("gzip into memory cannot fail")
}

/// Whether `Accept-Encoding` allows gzip (`gzip`, `x-gzip` or `*`, with a non-zero q).
fn accepts_gzip(headers: &HeaderMap) -> bool {
    headers
        .get_all(ACCEPT_ENCODING)
        .iter()
        .filter_map(|v| v.to_str().ok())
        .flat_map(|v| v.split(','))
        .any(|item| {
            let mut params = item.split(';');
            let coding = params.next().unwrap_or("").trim();
            let q_is_zero = params.any(|p| {
                p.trim()
                    .strip_prefix("q=")
                    .and_then(|q| q.trim().parse::<f32>().ok())
                    .is_some_and(|q| q == 0.0)
            });
            !q_is_zero
                && (coding.eq_ignore_ascii_case("gzip")
                    || coding.eq_ignore_ascii_case("x-gzip")
                    || coding == "*")
        })
}

fn unauthorized() -> Response<Body> {
    let mut response = text(StatusCode::UNAUTHORIZED, "Unauthorized\n");
    response
        .headers_mut()
        .insert(WWW_AUTHENTICATE, HeaderValue::from_static("Basic"));
    response
}

#[cfg(test)]
mod tests {
    use super::*;

    fn accept(value: &str) -> bool {
        let mut headers = HeaderMap::new();
        headers.insert(ACCEPT_ENCODING, HeaderValue::from_str(value).unwrap());
        accepts_gzip(&headers)
    }

    #[test]
    fn gzip_is_negotiated_from_accept_encoding() {
        assert!(accept("gzip"));
        assert!(accept("deflate, GZIP;q=0.5"));
        assert!(accept("*"));
        assert!(accept("x-gzip"));
        assert!(!accept("gzip;q=0"));
        assert!(!accept("identity"));
        assert!(!accept("br, deflate"));
        assert!(!accepts_gzip(&HeaderMap::new()));
    }

    #[test]
    fn metrics_get_self_metrics_and_gzip() {
        let stats = ConnectionStats::default();
        let ok = || {
            let mut r = Response::new(Full::new(Bytes::from_static(b"a 1\n")));
            r.headers_mut().insert(
                CONTENT_TYPE,
                HeaderValue::from_static("text/plain; version=0.0.4"),
            );
            r
        };
        let plain_text = full_bytes(finish_metrics(ok(), &stats, false).into_body()).unwrap();
        assert!(plain_text.starts_with(b"a 1\n# HELP denials_exporter_http_connections_open"));
        let zipped = finish_metrics(ok(), &stats, true);
        assert_eq!(zipped.headers()[CONTENT_ENCODING], "gzip");
        let zipped = full_bytes(zipped.into_body()).unwrap();
        let mut unzipped = Vec::new();
        std::io::Read::read_to_end(
            &mut flate2::read::GzDecoder::new(&zipped[..]),
            &mut unzipped,
        )
        .unwrap();
        assert_eq!(unzipped, plain_text);
        let mut om = Response::new(Full::new(Bytes::from_static(b"a_total 1\n# EOF\n")));
        om.headers_mut().insert(
            CONTENT_TYPE,
            HeaderValue::from_static(super::super::openmetrics::CONTENT_TYPE),
        );
        let om = full_bytes(finish_metrics(om, &stats, false).into_body()).unwrap();
        let om = std::str::from_utf8(&om).unwrap();
        assert!(
            om.starts_with("a_total 1\n# HELP denials_exporter_http_connections_open")
                && om.ends_with("denials_exporter_http_tls_handshake_errors_total 0\n# EOF\n")
                && om.matches("# EOF").count() == 1,
            "{om}"
        );
        let not_ready = text(StatusCode::SERVICE_UNAVAILABLE, "Not ready\n");
        let passed = finish_metrics(not_ready, &stats, true);
        assert!(passed.headers().get(CONTENT_ENCODING).is_none());
    }
}
