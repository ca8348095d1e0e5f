//! The landing page at `/`, built to answer an operator's first question (what happened, and
//! was any of it dangerous?) before the details: the exporter's states (health, readiness,
//! faults, the state file's last write) as words, the dangerous attempts counted since start
//! with the most recent of them, what `pending` means when there are any, the totals by risk
//! class, reason and workflow, then the recent denials, the configured globs with how many paths
//! each matches now, and the followed files with their lag.
//!
//! Owns the page's HTML and the headers it is served with: one server-rendered page, no script,
//! its one stylesheet inline and allowed by hash in a `Content-Security-Policy` that allows
//! nothing else. Links are relative (`./metrics`, `./api/v1/denials?risk=…`), so the page works
//! behind a reverse proxy that serves the exporter under a path prefix; the metrics link follows
//! `--web.telemetry-path`. A glob's matches are counted at request time with the `glob` crate the
//! follower expands `--path` with, before the view lock is taken, so a slow directory never holds
//! up the reading thread. Everything shown was redacted before it got here (globs when the server
//! was set up, [`Shared::with_globs`]) and is HTML-escaped, because tool inputs are
//! attacker-influenced.
//!
//! **Not here:** the figures ([`summary`]), following files (`crate::input`), the other routes
//! ([`super::routes`]).
//!
//! Cost: per request, one expansion of each glob (a directory listing each), one pass over the
//! counted series, and the view lock.

mod summary;

use std::fmt::Write as _;
use std::sync::OnceLock;
use std::time::{SystemTime, UNIX_EPOCH};

use base64::Engine as _;
use hyper::body::Bytes;
use hyper::header::{HeaderName, HeaderValue};

use super::published::Shared;
use super::reply::Reply;
use crate::decode::time::{format_rfc3339, parse_rfc3339};
use crate::vocab::{AuditRecord, RISK_PENDING};
use summary::{is_dangerous, StateFile, Summary};

/// Recent denials shown before the rest are folded away.
const RECENT_SHOWN: usize = 15;
/// Dangerous recent denials shown at the top.
const DANGEROUS_SHOWN: usize = 8;

/// The page's stylesheet: the only thing its policy lets it load.
const STYLE: &str = "\
:root{--fg:#1d2433;--muted:#5b6578;--line:#d9dee7;--bg:#f6f7f9;--ok:#067647;--okbg:#ecfdf3;\
--warn:#93370d;--warnbg:#fffaeb;--bad:#b42318;--badbg:#fef3f2;--info:#175cd3;--infobg:#eff8ff}\
*{box-sizing:border-box}\
body{margin:0;background:var(--bg);color:var(--fg);font:14px/1.45 system-ui,-apple-system,\"Segoe UI\",Roboto,sans-serif}\
header{display:flex;align-items:baseline;gap:12px;flex-wrap:wrap;padding:14px 24px;background:#fff;border-bottom:1px solid var(--line)}\
header h1{font-size:18px;margin:0}header .ver{color:var(--muted)}\
nav{margin-left:auto;display:flex;gap:16px}a{color:var(--info)}\
main{max-width:1180px;margin:0 auto;padding:18px 24px 32px}\
h2{font-size:15px;margin:22px 0 8px}\
.states{display:grid;grid-template-columns:repeat(4,1fr);gap:12px}\
.state{background:#fff;border:1px solid var(--line);border-left:5px solid var(--muted);border-radius:6px;padding:10px 12px}\
.state h3{margin:0;font-size:12px;font-weight:600;text-transform:uppercase;letter-spacing:.04em;color:var(--muted)}\
.state .v{margin:2px 0;font-size:18px;font-weight:650}.state p{margin:2px 0;color:var(--muted)}\
.state ul{margin:4px 0 0;padding-left:18px;color:var(--fg)}\
.ok{border-left-color:var(--ok)}.ok .v{color:var(--ok)}\
.warn{border-left-color:#dc6803}.warn .v{color:var(--warn)}\
.bad{border-left-color:var(--bad)}.bad .v{color:var(--bad)}\
.neutral .v{color:var(--fg)}\
.verdict{margin-top:16px;border-radius:6px;padding:14px 16px;border:1px solid}\
.verdict p{margin:0}.verdict .big{font-size:20px;font-weight:650}\
.verdict.danger{background:var(--badbg);border-color:#fda29b;color:var(--bad)}\
.verdict.calm{background:var(--okbg);border-color:#abefc6;color:var(--ok)}\
.verdict .sub{color:var(--fg);margin-top:4px}\
.note{background:var(--infobg);border:1px solid #b2ddff;border-radius:6px;padding:10px 14px;margin-top:12px}\
.note p{margin:0}\
.grid3{display:grid;grid-template-columns:3fr 2fr 2fr;gap:12px;align-items:start}\
table{border-collapse:collapse;width:100%;background:#fff;border:1px solid var(--line);border-radius:6px}\
th,td{padding:5px 9px;text-align:left;border-bottom:1px solid var(--line);vertical-align:top}\
th{font-size:12px;color:var(--muted);font-weight:600;background:#fafbfc}\
td.n,th.n{text-align:right;font-variant-numeric:tabular-nums}\
tr.total td{font-weight:650;border-bottom:0}\
tr.danger td{background:var(--badbg)}\
.badge{display:inline-block;padding:0 7px;border-radius:9px;font-size:12px;font-weight:600;border:1px solid var(--line);color:var(--muted);white-space:nowrap}\
.badge.danger{background:var(--bad);border-color:var(--bad);color:#fff}\
.badge.pending{background:var(--infobg);border-color:#b2ddff;color:var(--info)}\
code{font:12px ui-monospace,SFMono-Regular,Menlo,monospace}td.what code,td.path code{word-break:break-all}\
td.t,td.id{white-space:nowrap}table.fixed{table-layout:fixed}table.fixed td{overflow-wrap:anywhere}\
table.fixed td.id{white-space:normal}col.c-time{width:166px}col.c-class{width:142px}col.c-tool{width:140px}\
col.c-workflow{width:105px}col.c-reason{width:100px}col.c-id{width:130px}col.c-origin{width:104px}\
td.what{min-width:220px;max-width:420px;overflow-wrap:anywhere}td.tool{max-width:210px;overflow-wrap:break-word}\
.muted{color:var(--muted)}\
details{margin-top:8px}summary{cursor:pointer;color:var(--info)}\
footer{color:var(--muted);font-size:12px;margin-top:26px}\
@media (max-width:900px){.states,.grid3{grid-template-columns:1fr 1fr}}";

/// What the page's class column says a class means.
fn class_meaning(class: &str) -> &'static str {
    match class {
        "remote_code" => "running code from the network or hidden from review",
        "exfiltration" => "sending data to a host outside the allowlist",
        "credential_access" => "reading or wielding credentials",
        "history_rewrite" => "rewriting or deleting shared history",
        "data_destruction" => "destroying data outside the workspace",
        "infra_change" => "changing infrastructure or publishing",
        "privilege_escalation" => "raising privileges or persisting",
        "none" => "seen, and no rule matched",
        "unknown" => "nothing seen to classify",
        RISK_PENDING => "waits for its execution's record",
        _ => "a class of your --risk-rule",
    }
}

/// The headers the page is served with: a policy that allows its own stylesheet (by hash) and
/// nothing else (no script, image, frame, form or base), and no sniffing, framing or referrer.
fn headers() -> &'static [(HeaderName, HeaderValue)] {
    static HEADERS: OnceLock<Vec<(HeaderName, HeaderValue)>> = OnceLock::new();
    HEADERS.get_or_init(|| {
        let digest = ring::digest::digest(&ring::digest::SHA256, STYLE.as_bytes());
        let hash = base64::engine::general_purpose::STANDARD.encode(digest.as_ref());
        let policy = format!(
            "default-src 'none'; style-src 'sha256-{hash}'; base-uri 'none'; \
             form-action 'none'; frame-ancestors 'none'"
        );
        [
            ("content-security-policy", policy.as_str()),
            ("x-content-type-options", "nosniff"),
            ("x-frame-options", "DENY"),
            ("referrer-policy", "no-referrer"),
            ("cross-origin-opener-policy", "same-origin"),
            ("cross-origin-resource-policy", "same-origin"),
            ("cache-control", "no-store"),
        ]
        .into_iter()
        .map(|(name, value)| {
            (
                HeaderName::from_static(name),
                HeaderValue::from_str(value).expect("the policy is ASCII"),
            )
        })
        .collect()
    })
}

/// The landing page.
pub fn page(shared: &Shared) -> Reply {
    let globs: Vec<(&str, Matches)> = shared
        .globs()
        .iter()
        .map(|(shown, pattern)| (shown.as_str(), Matches::of(pattern)))
        .collect();
    let published = shared.published.lock().expect("published lock").clone();
    let summary = Summary::of(&published.metrics, &published.run, shared.has_state_file);
    let now = SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map_or(0.0, |d| d.as_secs_f64());
    let mut html = String::with_capacity(16 * 1024);
    let _ = write!(
        html,
        "<!DOCTYPE html><html lang=\"en\"><head><meta charset=\"utf-8\">\
         <meta name=\"viewport\" content=\"width=device-width,initial-scale=1\">\
         <title>denials-exporter</title><style>{STYLE}</style></head><body>\
         <header><h1>denials-exporter</h1><span class=\"ver\">{}</span><nav>\
         <a href=\"{}\">Metrics</a><a href=\"./api/v1/denials\">Denials API</a>\
         <a href=\"./-/healthy\">/-/healthy</a><a href=\"./-/ready\">/-/ready</a></nav></header><main>",
        env!("CARGO_PKG_VERSION"),
        escape(&relative(&shared.telemetry_path))
    );
    states(&mut html, shared, &summary, now);
    verdict(&mut html, &summary);
    let view = shared.view.lock().expect("view lock");
    dangerous_recent(&mut html, &summary, view.recent.newest_first(), now);
    if summary.pending > 0 {
        let _ = write!(
            html,
            "<section class=\"note\" id=\"pending\"><p><strong>{} pending.</strong> {} counted \
             as {} happened, but what {} attempted is not known yet: the Agent SDK reports a \
             hook's or a rule's denial without its input, and the execution's final record \
             brings it. The class is decided when that record arrives, or from the reason text \
             when the execution is evicted first (--execution-idle-timeout, --max-executions).</p></section>",
            summary.pending,
            plural(summary.pending, "This denial was", "These denials were"),
            plural(summary.pending, "it", "they"),
            plural(summary.pending, "it", "they"),
        );
    }
    totals(&mut html, &summary);
    recent(
        &mut html,
        view.recent.newest_first(),
        view.recent.capacity(),
    );
    html.push_str("<h2>Inputs</h2><div class=\"grid3\"><div><table><tr><th>--path</th><th class=\"n\">paths matched now</th></tr>");
    for (glob, matches) in &globs {
        let _ = write!(html, "<tr><td><code>{}</code></td><td>", escape(glob));
        let _ = match matches {
            Matches::Count(n) => write!(html, "{n}"),
            Matches::Invalid(error) => write!(html, "invalid pattern: {}", escape(error)),
        };
        html.push_str("</td></tr>");
    }
    html.push_str(
        "</table></div><div><table><tr><th>file followed</th><th class=\"n\">lag (bytes)</th></tr>",
    );
    for (path, lag) in &view.files {
        let _ = write!(
            html,
            "<tr><td class=\"path\"><code>{}</code></td><td class=\"n\">{lag}</td></tr>",
            escape(path)
        );
    }
    drop(view);
    let _ = writeln!(
        html,
        "</table></div></div><footer>Counts are since start{}. Everything shown is redacted. \
         denials-exporter {} · <a href=\"{}\">Metrics</a></footer></main></body></html>",
        if shared.has_state_file {
            ", kept across restarts by the state file"
        } else {
            " of this process (no --state-file)"
        },
        env!("CARGO_PKG_VERSION"),
        escape(&relative(&shared.telemetry_path))
    );
    Reply::Html {
        body: Bytes::from(html),
        headers: headers(),
    }
}

/// The four state tiles: health, readiness, faults, the state file.
fn states(html: &mut String, shared: &Shared, summary: &Summary, now: f64) {
    use std::sync::atomic::Ordering;
    html.push_str("<section class=\"states\" aria-label=\"Exporter state\">");
    let healthy = shared.healthy.load(Ordering::Acquire);
    tile(
        html,
        "health",
        "Health",
        if healthy { "ok" } else { "bad" },
        if healthy { "Healthy" } else { "Unhealthy" },
        if healthy {
            "The reading thread is running."
        } else {
            "The reading thread stopped; see the exporter's log."
        },
    );
    let ready = shared.ready.load(Ordering::Acquire);
    tile(
        html,
        "readiness",
        "Readiness",
        if ready { "ok" } else { "warn" },
        if ready { "Ready" } else { "Not ready" },
        if ready {
            "State restored and files scanned; /metrics is served."
        } else {
            "Restoring state and scanning files; /metrics answers 503 until done."
        },
    );
    let _ = write!(
        html,
        "<div class=\"state {}\" id=\"faults\"><h3>Faults</h3><p class=\"v\">{}</p>",
        if summary.faults.is_empty() {
            "ok"
        } else {
            "warn"
        },
        match summary
            .faults
            .iter()
            .fold(0u64, |a, f| a.saturating_add(f.count))
        {
            0 => "None".to_string(),
            n => format!("{n} {}", plural(n, "fault", "faults")),
        }
    );
    if summary.faults.is_empty() {
        html.push_str("<p>No bad input, failed write or reached bound since start.</p>");
    } else {
        html.push_str("<ul>");
        for fault in &summary.faults {
            let _ = write!(
                html,
                "<li title=\"{}\">{} {}</li>",
                escape(&fault.series),
                fault.count,
                fault.what()
            );
        }
        html.push_str("</ul>");
    }
    html.push_str("</div>");
    let (class, value, detail) = match summary.state {
        StateFile::NotKept => (
            "neutral",
            "Not kept".to_string(),
            "No --state-file: counting restarts from zero at each start.".to_string(),
        ),
        StateFile::NotWritten { errors: 0 } => (
            "warn",
            "Not written yet".to_string(),
            "The first write comes once the files are scanned.".to_string(),
        ),
        StateFile::NotWritten { errors } => (
            "bad",
            "Cannot write".to_string(),
            format!(
                "{errors} {} failed; none succeeded.",
                plural(errors, "write", "writes")
            ),
        ),
        StateFile::Written { at, errors } => (
            if errors == 0 { "ok" } else { "warn" },
            format!("Written {}", age(now - at)),
            if errors == 0 {
                format!("At {}.", format_rfc3339(at))
            } else {
                format!(
                    "At {}; {errors} {} failed since start.",
                    format_rfc3339(at),
                    plural(errors, "write", "writes")
                )
            },
        ),
    };
    tile(html, "state-file", "State file", class, &value, &detail);
    html.push_str("</section>");
}

fn tile(html: &mut String, id: &str, title: &str, class: &str, value: &str, detail: &str) {
    let _ = write!(
        html,
        "<div class=\"state {class}\" id=\"{id}\"><h3>{title}</h3><p class=\"v\">{}</p><p>{}</p></div>",
        escape(value),
        escape(detail)
    );
}

/// The one-line answer: how many dangerous attempts, of how many denials.
fn verdict(html: &mut String, summary: &Summary) {
    if summary.dangerous == 0 {
        let _ = write!(
            html,
            "<section class=\"verdict calm\" id=\"verdict\"><p class=\"big\">No dangerous attempts</p>\
             <p class=\"sub\">{} {} counted since start; none tried anything in a dangerous class{}.</p></section>",
            summary.total,
            plural(summary.total, "denial", "denials"),
            if summary.pending > 0 { " so far (some are still pending)" } else { "" }
        );
        return;
    }
    let _ = write!(
        html,
        "<section class=\"verdict danger\" id=\"verdict\"><p class=\"big\">{} dangerous {} \
         among {} {} since start</p><p class=\"sub\">",
        summary.dangerous,
        plural(summary.dangerous, "attempt", "attempts"),
        summary.total,
        plural(summary.total, "denial", "denials"),
    );
    let mut first = true;
    for (class, n) in summary.by_class.iter().filter(|(c, _)| is_dangerous(c)) {
        let _ = write!(
            html,
            "{}<a href=\"./api/v1/denials?risk={}\"><span class=\"badge danger\">{}</span></a> {n}",
            if first { "" } else { " · " },
            query_value(class),
            escape(class)
        );
        first = false;
    }
    html.push_str(
        ". Each was denied, but something tried it: find the execution and what it read.</p></section>",
    );
}

/// The most recent dangerous denials the ring still holds.
fn dangerous_recent<'a>(
    html: &mut String,
    summary: &Summary,
    recent: impl Iterator<Item = &'a AuditRecord>,
    now: f64,
) {
    if summary.dangerous == 0 {
        return;
    }
    let dangerous: Vec<&AuditRecord> = recent.filter(|d| is_dangerous(&d.risk)).collect();
    html.push_str("<section id=\"dangerous\"><h2>Dangerous attempts, most recent first</h2>");
    if dangerous.is_empty() {
        html.push_str(
            "<p class=\"muted\">None of them is among the recent denials kept; the audit stream \
             (--audit-log) has every one.</p></section>",
        );
        return;
    }
    html.push_str(
        "<table><tr><th>when</th><th>class</th><th>tool</th><th>workflow</th><th>reason</th>\
         <th>execution</th><th>what was attempted</th></tr>",
    );
    for d in dangerous.iter().take(DANGEROUS_SHOWN) {
        let when = parse_rfc3339(&d.time).map_or_else(String::new, |t| age(now - t));
        let _ = write!(
            html,
            "<tr class=\"danger\"><td class=\"t\" title=\"{}\">{}</td><td>{}</td><td class=\"tool\">{}</td><td>{}</td><td>{}</td>\
             <td class=\"id\"><code>{}</code></td><td class=\"what\">{}</td></tr>",
            escape(&d.time),
            if when.is_empty() { escape(&d.time) } else { when },
            badge(&d.risk),
            escape(&d.tool),
            workflow_and_pod(d),
            d.reason.as_str(),
            escape(d.execution_id.as_deref().unwrap_or("")),
            attempted(d)
        );
    }
    html.push_str("</table>");
    if dangerous.len() > DANGEROUS_SHOWN {
        let _ = write!(
            html,
            "<p class=\"muted\">{} more below, and in the denials API.</p>",
            dangerous.len() - DANGEROUS_SHOWN
        );
    }
    html.push_str("</section>");
}

/// The totals since start, by class, reason and workflow.
fn totals(html: &mut String, summary: &Summary) {
    html.push_str("<section id=\"totals\"><h2>Denials since start</h2><div class=\"grid3\">");
    html.push_str(
        "<table id=\"by-class\"><tr><th>risk class</th><th>meaning</th><th class=\"n\">denials</th></tr>",
    );
    for (class, n) in &summary.by_class {
        let _ = write!(
            html,
            "<tr{}><td><a href=\"./api/v1/denials?risk={}\">{}</a></td><td class=\"muted\">{}</td><td class=\"n\">{n}</td></tr>",
            if is_dangerous(class) { " class=\"danger\"" } else { "" },
            query_value(class),
            badge(class),
            class_meaning(class),
        );
    }
    total_row(html, 2, summary.total);
    html.push_str("<table id=\"by-reason\"><tr><th>reason (which layer said no)</th><th class=\"n\">denials</th></tr>");
    for (reason, n) in &summary.by_reason {
        let _ = write!(
            html,
            "<tr><td><a href=\"./api/v1/denials?reason={reason}\">{reason}</a></td><td class=\"n\">{n}</td></tr>"
        );
    }
    total_row(html, 1, summary.total);
    html.push_str(
        "<table id=\"by-workflow\"><tr><th>workflow</th><th class=\"n\">denials</th></tr>",
    );
    for (workflow, n) in &summary.by_workflow {
        let _ = write!(
            html,
            "<tr><td><a href=\"./api/v1/denials?workflow={}\">{}</a></td><td class=\"n\">{n}</td></tr>",
            query_value(workflow),
            escape(workflow)
        );
    }
    total_row(html, 1, summary.total);
    html.push_str("</div></section>");
}

fn total_row(html: &mut String, span: usize, total: u64) {
    let _ = write!(
        html,
        "<tr class=\"total\"><td colspan=\"{span}\">total</td><td class=\"n\">{total}</td></tr></table>"
    );
}

/// The recent denials, newest first; past [`RECENT_SHOWN`] folded into a `<details>`.
fn recent<'a>(html: &mut String, records: impl Iterator<Item = &'a AuditRecord>, capacity: usize) {
    html.push_str("<section id=\"recent\"><h2>Recent denials</h2>");
    if capacity == 0 {
        html.push_str("<p class=\"muted\">Not kept (--recent-denials 0).</p></section>");
        return;
    }
    let records: Vec<&AuditRecord> = records.collect();
    if records.is_empty() {
        html.push_str("<p class=\"muted\">None yet.</p></section>");
        return;
    }
    let head = "<table class=\"fixed\"><colgroup><col class=\"c-time\"><col class=\"c-class\">\
                <col class=\"c-tool\"><col class=\"c-workflow\"><col class=\"c-reason\"><col class=\"c-id\">\
                <col><col class=\"c-origin\"></colgroup><tr><th>time (UTC)</th><th>class</th><th>tool</th><th>workflow</th><th>reason</th>\
                <th>execution</th><th>what was attempted, or why it was denied</th><th>origin</th></tr>";
    html.push_str(head);
    for (i, d) in records.iter().enumerate() {
        if i == RECENT_SHOWN {
            let _ = write!(
                html,
                "</table><details><summary>{} older (the last {capacity} are kept)</summary>{head}",
                records.len() - RECENT_SHOWN
            );
        }
        let _ = write!(
            html,
            "<tr{}><td class=\"t\" title=\"{}\">{}</td><td>{}</td><td class=\"tool\">{}</td><td>{}</td><td>{}</td><td class=\"id\"><code>{}</code></td>\
             <td class=\"what\">{}</td><td class=\"muted\">{}</td></tr>",
            if is_dangerous(&d.risk) { " class=\"danger\"" } else { "" },
            escape(&d.time),
            escape(&shown_time(&d.time)),
            badge(&d.risk),
            escape(&d.tool),
            workflow_and_pod(d),
            d.reason.as_str(),
            escape(d.execution_id.as_deref().unwrap_or("")),
            attempted(d),
            d.origin.as_str(),
        );
    }
    html.push_str("</table>");
    if records.len() > RECENT_SHOWN {
        html.push_str("</details>");
    }
    html.push_str("</section>");
}

/// A record's RFC 3339 time to the second, as `2026-06-12 10:00:00` (UTC); another text as it is.
fn shown_time(time: &str) -> String {
    match parse_rfc3339(time) {
        Some(secs) => {
            let full = format_rfc3339(secs.floor());
            full.get(..19).unwrap_or(&full).replacen('T', " ", 1)
        }
        None => time.to_string(),
    }
}

/// The workflow, and under it `namespace/pod` where the file's path gave them
/// (`--labels-from-path`).
fn workflow_and_pod(d: &AuditRecord) -> String {
    let pod = match (&d.namespace, &d.pod) {
        (Some(ns), Some(pod)) => format!("{ns}/{pod}"),
        (None, Some(one)) | (Some(one), None) => one.clone(),
        (None, None) => return escape(&d.workflow),
    };
    format!(
        "{}<br><span class=\"muted pod\">{}</span>",
        escape(&d.workflow),
        escape(&pod)
    )
}

/// The input summary as code, else the decision reason, else nothing.
fn attempted(d: &AuditRecord) -> String {
    match (&d.input_summary, &d.decision_reason) {
        (Some(input), _) if !input.is_empty() => format!("<code>{}</code>", escape(input)),
        (_, Some(reason)) => escape(reason),
        _ => String::new(),
    }
}

fn badge(class: &str) -> String {
    let kind = if is_dangerous(class) {
        " danger"
    } else if class == RISK_PENDING {
        " pending"
    } else {
        ""
    };
    format!("<span class=\"badge{kind}\">{}</span>", escape(class))
}

fn plural(n: u64, one: &'static str, many: &'static str) -> &'static str {
    if n == 1 {
        one
    } else {
        many
    }
}

/// How long ago, in words: `4 s ago`, `3 min ago`, `2 h ago`, `5 d ago`.
fn age(seconds: f64) -> String {
    let s = seconds.max(0.0) as u64;
    match s {
        0..=1 => "just now".to_string(),
        2..=119 => format!("{s} s ago"),
        120..=7199 => format!("{} min ago", s / 60),
        7200..=172_799 => format!("{} h ago", s / 3600),
        _ => format!("{} d ago", s / 86_400),
    }
}

/// A label value as a query value: label values are `[A-Za-z0-9_.:/@-]`, and anything else
/// is percent-encoded.
fn query_value(value: &str) -> String {
    let mut out = String::with_capacity(value.len());
    for byte in value.bytes() {
        if byte.is_ascii_alphanumeric() || b"_.:/@-".contains(&byte) {
            out.push(char::from(byte));
        } else {
            let _ = write!(out, "%{byte:02X}");
        }
    }
    out
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
mod tests;
