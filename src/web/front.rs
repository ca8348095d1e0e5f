//! The front of the HTTP server: what wraps every route — basic auth, where a route runs, gzip,
//! and the configured response headers. It hands a request to the routes and gets a [`Reply`]
//! back; it never receives a call back from them, and it never reopens what they answered.
//!
//! Owns [`Web`], built once at start-up from the flags and the web config file. Every path is
//! behind basic auth when users are configured (as exporter-toolkit does, health checks
//! included; cached checks cost a hash, see [`super::auth`]).
//!
//! Invariant: `/-/healthy` and `/-/ready` are answered on the async runtime from atomics only,
//! never behind a lock the reading thread takes nor behind a render. A `/metrics` that costs at
//! most a copy or a small one-pass render ([`super::Shared::is_cheap`]) is answered there too,
//! because the hand-off to another thread is what a scrape waits longest for on a busy machine.
//! Every other request runs on a blocking thread, at most one per core at a time, so a slow
//! render, gzip, or a landing page waiting for a lock never stalls the runtime's one worker.
//!
//! **Not here:** the routes ([`super::routes`]), the accept loop and TLS handshakes
//! ([`super::server`]), the config format ([`super::config`]), connection limits
//! ([`super::connection`]).
//!
//! Cost: per request. `/metrics` is gzipped (fastest level) when `Accept-Encoding` allows it, as
//! Prometheus asks by default.

use std::path::Path;
use std::sync::Arc;
use std::time::Duration;

use hyper::header::{
    HeaderMap, HeaderName, HeaderValue, ACCEPT_ENCODING, AUTHORIZATION, WWW_AUTHENTICATE,
};
use hyper::{Request, Response, StatusCode};
use tokio::sync::Semaphore;
use tokio_rustls::TlsAcceptor;
use tracing::{error, info};

use super::auth::BasicAuth;
use super::config::WebConfig;
use super::connection::{ConnectionCap, ConnectionStats};
use super::published::Shared;
use super::reply::{Body, Reply};
use super::routes::Route;

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

    /// Answers one request: auth, then the route (cheap ones inline, the rest on a blocking
    /// thread), then gzip and the configured headers.
    pub async fn respond<B>(&self, shared: &Arc<Shared>, req: Request<B>) -> Response<Body> {
        if let Some(auth) = &self.auth {
            if !auth.is_authorized(req.headers().get(AUTHORIZATION)).await {
                return self.with_headers(unauthorized());
            }
        }
        let route = Route::of(&shared.telemetry_path, &req);
        let gzip = matches!(route, Route::Metrics(_)) && accepts_gzip(req.headers());
        drop(req);
        let reply = if !gzip && route.is_cheap(shared) {
            // No hand-off to another thread, which is what a scrape waits longest for while
            // the reader and the writer hold both cores.
            route.answer(shared, &self.stats)
        } else {
            let permit = self
                .renders
                .clone()
                .acquire_owned()
                .await
                .expect("the render semaphore is never closed");
            let shared = shared.clone();
            let stats = self.stats.clone();
            let answered = tokio::task::spawn_blocking(move || {
                let _permit = permit;
                route.answer(&shared, &stats).into_response(gzip)
            })
            .await;
            return self.with_headers(match answered {
                Ok(response) => response,
                Err(e) => {
                    error!(error = %e, "a request handler panicked");
                    Reply::text(StatusCode::INTERNAL_SERVER_ERROR, "internal error\n")
                        .into_response(false)
                }
            });
        };
        self.with_headers(reply.into_response(gzip))
    }

    fn with_headers(&self, mut response: Response<Body>) -> Response<Body> {
        for (name, value) in &self.headers {
            response.headers_mut().insert(name.clone(), value.clone());
        }
        response
    }
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
    let mut response = Reply::text(StatusCode::UNAUTHORIZED, "Unauthorized\n").into_response(false);
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
}
