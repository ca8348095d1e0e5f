//! The landing page at `/`: version, the configured globs with how many paths each matches now,
//! the followed files with their lag, the recent denials, and links to the other routes.
//!
//! Owns the page's HTML. Links are relative (`./metrics`, `./-/ready`), so the page works behind
//! a reverse proxy that serves the exporter under a path prefix; the metrics link follows
//! `--web.telemetry-path`. A glob's matches are counted at request time with the `glob` crate the
//! follower expands `--path` with, before the view lock is taken, so a slow directory never holds
//! up the reading thread. Everything shown was redacted before it got here (globs when the server
//! was set up, [`Shared::with_globs`]) and is HTML-escaped, because tool inputs are
//! attacker-influenced.
//!
//! **Not here:** following files (`crate::input`), the other routes ([`super::routes`]).
//!
//! Cost: per request, one expansion of each glob (a directory listing each) and the view lock.

use std::fmt::Write as _;

use hyper::body::Bytes;

use super::published::Shared;
use super::reply::Reply;

/// The landing page.
pub fn page(shared: &Shared) -> Reply {
    let globs: Vec<(&str, Matches)> = shared
        .globs()
        .iter()
        .map(|(shown, pattern)| (shown.as_str(), Matches::of(pattern)))
        .collect();
    let mut html = String::with_capacity(8 * 1024);
    let _ = write!(
        html,
        "<!DOCTYPE html><html><head><meta charset=\"utf-8\"><title>denials-exporter</title>\
         <style>body{{font-family:sans-serif;margin:2em}}table{{border-collapse:collapse}}\
         td,th{{border:1px solid #ccc;padding:4px 8px;text-align:left;font-size:90%}}</style></head><body>\
         <h1>denials-exporter</h1><p>Version {}. <a href=\"{}\">Metrics</a> · \
         <a href=\"./api/v1/denials\">Recent denials (JSON)</a> · <a href=\"./-/healthy\">Healthy</a> · \
         <a href=\"./-/ready\">Ready</a></p>",
        env!("CARGO_PKG_VERSION"),
        escape(&relative(&shared.telemetry_path))
    );
    html.push_str("<h2>Globs</h2><table><tr><th>--path</th><th>paths matched now</th></tr>");
    for (glob, matches) in &globs {
        let _ = write!(html, "<tr><td><code>{}</code></td><td>", escape(glob));
        let _ = match matches {
            Matches::Count(n) => write!(html, "{n}"),
            Matches::Invalid(error) => write!(html, "invalid pattern: {}", escape(error)),
        };
        html.push_str("</td></tr>");
    }
    let view = shared.view.lock().expect("view lock");
    html.push_str(
        "</table><h2>Files followed</h2><table><tr><th>path</th><th>lag (bytes)</th></tr>",
    );
    for (path, lag) in &view.files {
        let _ = write!(html, "<tr><td>{}</td><td>{lag}</td></tr>", escape(path));
    }
    html.push_str("</table><h2>Recent denials</h2>");
    if view.recent.is_empty() {
        html.push_str("<p>None yet.</p>");
    } else {
        html.push_str(
            "<table><tr><th>time</th><th>tool</th><th>workflow</th><th>pod</th><th>reason</th><th>risk</th><th>execution</th>\
             <th>decision reason</th><th>input</th><th>origin</th></tr>",
        );
        for d in view.recent.newest_first() {
            let opt = |s: &Option<String>| escape(s.as_deref().unwrap_or(""));
            let _ = write!(
                html,
                "<tr><td>{}</td><td>{}</td><td>{}</td><td>{}</td><td>{}</td><td>{}</td><td>{}</td><td>{}</td><td><code>{}</code></td><td>{}</td></tr>",
                escape(&d.time),
                escape(&d.tool),
                escape(&d.workflow),
                // namespace/pod when the file's path gave them (--labels-from-path)
                match (&d.namespace, &d.pod) {
                    (Some(ns), Some(pod)) => escape(&format!("{ns}/{pod}")),
                    (None, pod) => opt(pod),
                    (ns, None) => opt(ns),
                },
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

/// What a glob matches now.
#[derive(Debug, Clone, PartialEq, Eq)]
enum Matches {
    /// Paths matched (files, and anything else the pattern names), as the follower expands it.
    Count(usize),
    /// The pattern does not parse; the follower warns and skips it.
    Invalid(String),
}

impl Matches {
    fn of(pattern: &str) -> Matches {
        match glob::glob(pattern) {
            Ok(paths) => Matches::Count(paths.flatten().count()),
            Err(error) => Matches::Invalid(error.to_string()),
        }
    }
}

/// The link from `/` to an absolute `path` on the same server, relative so that a path prefix
/// in front of the exporter is kept: `./` and the path without its leading `/` (the `./` keeps
/// a first segment holding a `:` from reading as a URL scheme).
pub fn relative(path: &str) -> String {
    format!("./{}", path.trim_start_matches('/'))
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
    fn links_are_relative_to_the_page() {
        assert_eq!(relative("/metrics"), "./metrics");
        assert_eq!(relative("/a:b/m"), "./a:b/m");
        assert_eq!(relative("//x"), "./x");
    }

    fn html(shared: &Shared) -> String {
        match page(shared) {
            Reply::Page { body, .. } => String::from_utf8(body.to_vec()).unwrap(),
            other => panic!("{other:?}"),
        }
    }

    #[test]
    fn shows_each_glob_with_what_it_matches_now() {
        let dir = tempfile::tempdir().unwrap();
        for name in ["a.log", "b.log", "c.txt"] {
            std::fs::write(dir.path().join(name), "").unwrap();
        }
        let logs = format!("{}/*.log", dir.path().display());
        let none = format!("{}/none-*.log", dir.path().display());
        let shared = Shared::new("/m/x".into(), View::default()).with_globs(vec![
            logs.clone(),
            none.clone(),
            "[".into(),
        ]);
        let page = html(&shared);
        assert!(
            page.contains(&format!("<code>{logs}</code></td><td>2</td>")),
            "{page}"
        );
        assert!(
            page.contains(&format!("<code>{none}</code></td><td>0</td>")),
            "{page}"
        );
        assert!(
            page.contains("<code>[</code></td><td>invalid pattern: "),
            "{page}"
        );
        std::fs::write(dir.path().join("d.log"), "").unwrap();
        assert!(html(&shared).contains(&format!("<code>{logs}</code></td><td>3</td>")));
        assert!(page.contains("<a href=\"./m/x\">Metrics</a>"), "{page}");
        assert!(!page.contains("href=\"/"), "an absolute link: {page}");
    }
}
