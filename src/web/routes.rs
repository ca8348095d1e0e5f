//! The routes: what each request is answered with, as a [`Reply`] value.
//!
//! * `GET <telemetry path>` (default `/metrics`): the text exposition, format 0.0.4, or OpenMetrics
//!   1.0 with exemplars when the `Accept` header prefers it ([`Format::from_accept`]): the
//!   counted families, then the connection self-metrics, then `# EOF` in OpenMetrics, assembled
//!   once. Encodes what is in memory; never reads a file. 503 until ready: after a restart the
//!   restored counters are behind what was served before, until the backlog is read again.
//! * `GET /-/healthy`: 200 while the reading thread is alive, else 503.
//! * `GET /-/ready`: 200 once the state is restored and the first scan of the files ran, else 503.
//! * `GET /`: an HTML landing page: version, followed files with their lag, recent denials.
//! * `GET /api/v1/denials`: the recent denials as JSON, newest first; query filters
//!   `execution_id`, `tool`, `workflow`, `reason`, `since`, `limit` ([`super::drill`]), a bad one
//!   answered 400 with one sentence.
//!
//! Everything shown was redacted before it got here; the landing page also HTML-escapes it,
//! because tool inputs are attacker-influenced.
//!
//! **Not here:** rendering families ([`crate::exposition`]), the cached renders
//! ([`super::published`]), auth, headers, gzip and which thread runs a route ([`super::front`]).
//!
//! Cost: `/-/healthy` and `/-/ready` read an atomic; `/metrics` a copy of the cached families
//! (a render once per publication); the pages take the view lock.

use std::fmt::Write as _;
use std::sync::atomic::Ordering;

use hyper::body::Bytes;
use hyper::header::ACCEPT;
use hyper::{Method, Request, StatusCode};
use tracing::error;

use super::connection::ConnectionStats;
use super::drill::Filter;
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
            Route::Landing => landing(shared),
            Route::Denials(query) => denials_json(shared, query.as_deref()),
            Route::NotFound => Reply::text(StatusCode::NOT_FOUND, "not found; try /metrics\n"),
        }
    }
}

/// The whole exposition of the latest publication.
fn metrics(shared: &Shared, stats: &ConnectionStats, format: Format) -> Reply {
    let body = metrics_body(&shared.families(format), stats, format);
    Reply::Metrics { body, format }
}

/// A `/metrics` body: the counted `families`, the connection self-metrics, the trailer.
pub fn metrics_body(families: &[u8], stats: &ConnectionStats, format: Format) -> Vec<u8> {
    let own = exposition::write(format, stats, String::with_capacity(1024));
    let trailer = format.trailer();
    let mut body = Vec::with_capacity(families.len() + own.len() + trailer.len());
    body.extend_from_slice(families);
    body.extend_from_slice(own.as_bytes());
    body.extend_from_slice(trailer.as_bytes());
    body
}

fn denials_json(shared: &Shared, query: Option<&str>) -> Reply {
    let view = shared.view.lock().expect("view lock");
    let filter = match Filter::parse(query, view.recent.capacity()) {
        Ok(filter) => filter,
        Err(sentence) => return Reply::bad_request(sentence),
    };
    let records: Vec<_> = filter.apply(view.recent.newest_first()).collect();
    match serde_json::to_vec(&serde_json::json!({ "denials": records })) {
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

fn landing(shared: &Shared) -> Reply {
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
            "<table><tr><th>time</th><th>tool</th><th>workflow</th><th>reason</th><th>risk</th><th>execution</th>\
             <th>decision reason</th><th>input</th><th>origin</th></tr>",
        );
        for d in view.recent.newest_first() {
            let opt = |s: &Option<String>| escape(s.as_deref().unwrap_or(""));
            let _ = write!(
                html,
                "<tr><td>{}</td><td>{}</td><td>{}</td><td>{}</td><td>{}</td><td>{}</td><td>{}</td><td><code>{}</code></td><td>{}</td></tr>",
                escape(&d.time),
                escape(&d.tool),
                escape(&d.workflow),
                d.reason.as_str(),
                escape(&d.risk),
                opt(&d.execution_id),
                opt(&d.decision_reason),
                opt(&d.input_summary),
                d.origin.as_str(),
            );
        }
        html.push_str("</table>");
    }
    html.push_str("</body></html>\n");
    Reply::ok("text/html; charset=utf-8", Bytes::from(html))
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
    use crate::web::View;

    #[test]
    fn escapes_markup() {
        assert_eq!(
            escape("<script>alert('x')</script>&"),
            "&lt;script&gt;alert(&#39;x&#39;)&lt;/script&gt;&amp;"
        );
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
    fn the_metrics_body_is_families_then_connection_metrics_then_the_trailer() {
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
        let om = body(Format::OpenMetrics);
        assert!(
            om.ends_with("denials_exporter_http_tls_handshake_errors_total 0\n# EOF\n")
                && om.matches("# EOF").count() == 1,
            "{om}"
        );
    }
}
