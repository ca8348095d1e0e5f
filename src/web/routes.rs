//! The routes: what each request is answered with, as a [`Reply`] value.
//!
//! * `GET <telemetry path>` (default `/metrics`): the text exposition, format 0.0.4, or OpenMetrics
//!   1.0 with exemplars when the `Accept` header prefers it ([`Format::from_accept`]): the
//!   counted families, then the `process_*` families read from `/proc/self` now
//!   ([`super::process`]), then the connection self-metrics, then `# EOF` in OpenMetrics,
//!   assembled once. Encodes what is in memory; never reads a log file. 503 until ready: after a
//!   restart the restored counters are behind what was served before, until the backlog is read
//!   again.
//! * `GET /-/healthy`: 200 while the reading thread is alive, else 503.
//! * `GET /-/ready`: 200 once the state is restored and the first scan of the files ran, else 503.
//! * `GET /`: an HTML landing page ([`super::landing`]): version, the globs with what they match
//!   now, followed files with their lag, recent denials; relative links.
//! * anything else: 404, naming the telemetry path.
//! * `GET /api/v1/denials`: the recent denials as JSON, newest first; query filters
//!   `execution_id`, `tool`, `workflow`, `reason`, `since`, `limit` ([`super::drill`]), a bad one
//!   answered 400 with one sentence.
//!
//! Everything shown was redacted before it got here.
//!
//! **Not here:** rendering families ([`crate::exposition`]), the cached renders
//! ([`super::published`]), auth, headers, gzip and which thread runs a route ([`super::front`]).
//!
//! Cost: `/-/healthy` and `/-/ready` read an atomic; `/metrics` a copy of the cached families
//! (a render once per publication) and a read of `/proc/self`; the pages take the view lock.

use std::sync::atomic::Ordering;

use hyper::header::ACCEPT;
use hyper::{Method, Request, StatusCode};
use tracing::error;

use super::connection::ConnectionStats;
use super::drill::Filter;
use super::process::ProcessStats;
use super::published::Shared;
use super::reply::Reply;
use crate::exposition::{self, Format};

/// A request, as far as the routes care: which page, in which format, with which query.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Route {
    Metrics(Format),
    Healthy,
    Ready,
    Landing,
    /// The denials API, with its query string.
    Denials(Option<String>),
    NotFound,
    /// Anything but GET and HEAD.
    MethodNotAllowed,
}

impl Route {
    /// The route of `req` on a server whose metrics are at `telemetry_path`.
    pub fn of<B>(telemetry_path: &str, req: &Request<B>) -> Route {
        if req.method() != Method::GET && req.method() != Method::HEAD {
            return Route::MethodNotAllowed;
        }
        let path = req.uri().path();
        if path == telemetry_path {
            let accept = req.headers().get(ACCEPT).and_then(|v| v.to_str().ok());
            return Route::Metrics(Format::from_accept(accept));
        }
        match path {
            "/-/healthy" => Route::Healthy,
            "/-/ready" => Route::Ready,
            "/" => Route::Landing,
            "/api/v1/denials" => Route::Denials(req.uri().query().map(str::to_string)),
            _ => Route::NotFound,
        }
    }

    /// Whether answering costs so little that it may run on the async runtime: health and
    /// readiness (atomics only), and metrics whose render is cached or small
    /// ([`Shared::is_cheap`]).
    pub fn is_cheap(&self, shared: &Shared) -> bool {
        match self {
            Route::Healthy | Route::Ready | Route::NotFound | Route::MethodNotAllowed => true,
            Route::Metrics(format) => shared.is_cheap(*format),
            Route::Landing | Route::Denials(_) => false,
        }
    }

    /// Answers from what is in memory.
    pub fn answer(self, shared: &Shared, stats: &ConnectionStats) -> Reply {
        let is = |flag: &std::sync::atomic::AtomicBool| flag.load(Ordering::Acquire);
        match self {
            Route::MethodNotAllowed => {
                Reply::text(StatusCode::METHOD_NOT_ALLOWED, "only GET and HEAD\n")
            }
            // Restored counters are behind what was served before a crash until the backlog is
            // read again: serving them would look like a counter reset to Prometheus.
            Route::Metrics(_) if !is(&shared.ready) => Reply::text(
                StatusCode::SERVICE_UNAVAILABLE,
                "Not ready: catching up after start.\n",
            ),
            Route::Metrics(format) => metrics(shared, stats, format),
            Route::Healthy if is(&shared.healthy) => Reply::text(StatusCode::OK, "Healthy.\n"),
            Route::Healthy => Reply::text(
                StatusCode::SERVICE_UNAVAILABLE,
                "The reading thread stopped.\n",
            ),
            Route::Ready if is(&shared.ready) => Reply::text(StatusCode::OK, "Ready.\n"),
            Route::Ready => Reply::text(
                StatusCode::SERVICE_UNAVAILABLE,
                "Not ready: restoring state and scanning files.\n",
            ),
            Route::Landing => super::landing::page(shared),
            Route::Denials(query) => denials_json(shared, query.as_deref()),
            Route::NotFound => Reply::sentence(
                StatusCode::NOT_FOUND,
                &format!("Not found; the metrics are at {}.", shared.telemetry_path),
            ),
        }
    }
}

/// The whole exposition of the latest publication, with the process's figures of now.
fn metrics(shared: &Shared, stats: &ConnectionStats, format: Format) -> Reply {
    let process = ProcessStats::read();
    let body = metrics_body(&shared.families(format), &process, stats, format);
    Reply::Metrics { body, format }
}

/// A `/metrics` body: the counted `families`, the `process_*` families, the connection
/// self-metrics, the trailer.
pub fn metrics_body(
    families: &[u8],
    process: &ProcessStats,
    stats: &ConnectionStats,
    format: Format,
) -> Vec<u8> {
    let own = exposition::write(format, process, String::with_capacity(2048));
    let own = exposition::write(format, stats, own);
    let trailer = format.trailer();
    let mut body = Vec::with_capacity(families.len() + own.len() + trailer.len());
    body.extend_from_slice(families);
    body.extend_from_slice(own.as_bytes());
    body.extend_from_slice(trailer.as_bytes());
    body
}

/// `/api/v1/denials`' body, written straight from the records: building a `serde_json::Value`
/// of them first copied every field, the largest passing allocation of a scrape.
#[derive(serde::Serialize)]
struct DenialsBody<T> {
    denials: T,
}

fn denials_json(shared: &Shared, query: Option<&str>) -> Reply {
    let view = shared.view.lock().expect("view lock");
    let filter = match Filter::parse(query, view.recent.capacity()) {
        Ok(filter) => filter,
        Err(sentence) => return Reply::bad_request(sentence),
    };
    let records: Vec<_> = filter.apply(view.recent.newest_first()).collect();
    match serde_json::to_vec(&DenialsBody { denials: records }) {
        Ok(body) => Reply::ok("application/json", body),
        Err(e) => {
            error!(error = %e, "cannot encode recent denials");
            Reply::text(
                StatusCode::INTERNAL_SERVER_ERROR,
                "cannot encode recent denials\n",
            )
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::web::View;

    #[test]
    fn not_found_names_the_telemetry_path() {
        let shared = Shared::new("/internal/scrape".into(), View::default());
        match Route::NotFound.answer(&shared, &ConnectionStats::default()) {
            Reply::Page { status, body, .. } => {
                assert_eq!(status, StatusCode::NOT_FOUND);
                assert_eq!(
                    &body[..],
                    b"Not found; the metrics are at /internal/scrape.\n"
                );
            }
            other => panic!("{other:?}"),
        }
    }

    #[test]
    fn requests_map_to_routes() {
        let route = |method: Method, uri: &str, accept: Option<&str>| {
            let mut req = Request::builder().method(method).uri(uri);
            if let Some(accept) = accept {
                req = req.header(ACCEPT, accept);
            }
            Route::of("/m", &req.body(()).unwrap())
        };
        assert_eq!(route(Method::GET, "/m", None), Route::Metrics(Format::Text));
        assert_eq!(
            route(Method::HEAD, "/m", Some("application/openmetrics-text")),
            Route::Metrics(Format::OpenMetrics)
        );
        assert_eq!(route(Method::POST, "/m", None), Route::MethodNotAllowed);
        assert_eq!(route(Method::GET, "/metrics", None), Route::NotFound);
        assert_eq!(
            route(Method::GET, "/api/v1/denials?tool=Bash", None),
            Route::Denials(Some("tool=Bash".into()))
        );
    }

    #[test]
    fn the_metrics_body_is_families_then_process_then_connection_metrics_then_the_trailer() {
        let shared = Shared::new("/metrics".into(), View::default());
        let stats = ConnectionStats::default();
        let body = |format| match Route::Metrics(format).answer(&shared, &stats) {
            Reply::Metrics { body, .. } => String::from_utf8(body).unwrap(),
            page => panic!("{page:?}"),
        };
        assert!(matches!(
            Route::Metrics(Format::Text).answer(&shared, &stats),
            Reply::Page {
                status: StatusCode::SERVICE_UNAVAILABLE,
                ..
            }
        ));
        shared.ready.store(true, Ordering::Release);
        let text = body(Format::Text);
        assert!(
            text.starts_with("# HELP permission_denials_total")
                || text.starts_with("# HELP denials_exporter_build_info"),
            "{text}"
        );
        assert!(
            text.ends_with("denials_exporter_http_tls_handshake_errors_total 0\n"),
            "{text}"
        );
        let at = |name: &str| text.find(&format!("\n{name} ")).expect(name);
        assert!(
            at("denials_exporter_lines_total{outcome=\"counted\"}")
                < at("process_cpu_seconds_total")
        );
        assert!(at("process_start_time_seconds") < at("denials_exporter_http_connections_open"));
        let om = body(Format::OpenMetrics);
        assert!(
            om.ends_with("denials_exporter_http_tls_handshake_errors_total 0\n# EOF\n")
                && om.matches("# EOF").count() == 1,
            "{om}"
        );
    }
}
