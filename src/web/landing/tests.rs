//! The landing page's HTML, from a [`Shared`] built by hand: globs with their matches, relative
//! links, the states, the dangerous attempts first, and the headers the page is served with.

use std::sync::atomic::Ordering;

use super::*;
use crate::vocab::counters::{DenialKey, RiskKey};
use crate::vocab::{AuditKind, Origin, Reason};
use crate::web::{Published, RecentDenials, View};

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
    assert_eq!(query_value("a b&c/d"), "a%20b%26c/d");
}

fn html(shared: &Shared) -> String {
    match page(shared) {
        Reply::Html { body, .. } => String::from_utf8(body.to_vec()).unwrap(),
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
    assert!(!page.contains("<script"), "{page}");
}

fn record(risk: &str, input: &str) -> AuditRecord {
    AuditRecord {
        kind: AuditKind::Denial,
        time: "2026-06-12T10:00:00.000Z".into(),
        tool: "Bash".into(),
        workflow: "review".into(),
        namespace: None,
        pod: None,
        reason: Reason::Hook,
        risk: risk.into(),
        execution_id: Some("exec_1".into()),
        tool_use_id: None,
        decision_reason: None,
        input_summary: Some(input.into()),
        source_file: "-".into(),
        origin: Origin::MidStream,
        format: "pino",
        count: 1,
    }
}

fn counted(shared: &Shared, denials: u64, risks: &[(&str, u64)]) {
    let mut published = Published::default();
    published.metrics.denials.insert(
        DenialKey {
            path: Default::default(),
            tool: "Bash".into(),
            workflow: "review".into(),
            reason: Reason::Hook,
        },
        denials,
    );
    for &(risk, n) in risks {
        published.metrics.denial_risks.insert(
            RiskKey {
                path: Default::default(),
                tool: "Bash".into(),
                workflow: "review".into(),
                risk: risk.into(),
            },
            n,
        );
    }
    shared.publish(published);
}

/// A landing page's state whose recent denials (the last 100 kept) are `records`.
fn showing(records: &[AuditRecord]) -> Shared {
    let mut recent = RecentDenials::new(100);
    recent.extend(records);
    let view = View {
        files: Vec::new(),
        recent,
    };
    Shared::new("/metrics".into(), view)
}

#[test]
fn dangerous_attempts_come_first_and_pending_is_explained() {
    let shared = showing(&[
        record("none", "npm test"),
        record("history_rewrite", "git push --force <b>origin</b> main"),
        record("pending", ""),
    ]);
    counted(&shared, 3, &[("none", 1), ("history_rewrite", 1)]);
    shared.healthy.store(true, Ordering::Release);
    let page = html(&shared);
    let at = |needle: &str| {
        page.find(needle)
            .unwrap_or_else(|| panic!("{needle} in {page}"))
    };
    assert!(
        page.contains("1 dangerous attempt among 3 denials since start"),
        "{page}"
    );
    assert!(at("id=\"verdict\"") < at("id=\"dangerous\""));
    assert!(at("id=\"dangerous\"") < at("id=\"totals\""));
    assert!(at("id=\"totals\"") < at("id=\"recent\""));
    assert!(
        page.contains("<tr class=\"danger\"><td class=\"t\" title=\"2026-06-12T10:00:00.000Z\">"),
        "{page}"
    );
    assert!(
        page.contains("git push --force &lt;b&gt;origin&lt;/b&gt; main"),
        "{page}"
    );
    assert!(
        page.contains("<strong>1 pending.</strong> This denial was counted"),
        "{page}"
    );
    assert!(page.contains("<span class=\"badge danger\">history_rewrite</span>"));
    assert!(page.contains("<span class=\"badge pending\">pending</span>"));
    assert!(
        page.contains("id=\"health\"><h3>Health</h3><p class=\"v\">Healthy</p>"),
        "{page}"
    );
    assert!(page.contains("id=\"readiness\"><h3>Readiness</h3><p class=\"v\">Not ready</p>"));
    assert!(page.contains("id=\"faults\"><h3>Faults</h3><p class=\"v\">None</p>"));
    assert!(page.contains("id=\"state-file\"><h3>State file</h3><p class=\"v\">Not kept</p>"));
}

#[test]
fn a_denial_shows_the_pod_its_path_named() {
    let mut from_pod = record("history_rewrite", "git push --force origin main");
    from_pod.namespace = Some("agents".into());
    from_pod.pod = Some("executor-7d9f6c5b8-x2x9q".into());
    let shared = showing(&[from_pod, record("none", "npm test")]);
    counted(&shared, 2, &[("none", 1), ("history_rewrite", 1)]);
    let page = html(&shared);
    let shown = "review<br><span class=\"muted pod\">agents/executor-7d9f6c5b8-x2x9q</span>";
    // Once among the dangerous attempts, once among the recent denials; the other row has none.
    assert_eq!(page.matches(shown).count(), 2, "{page}");
    assert_eq!(page.matches("muted pod").count(), 2, "{page}");
}

#[test]
fn no_danger_is_said_in_words_and_older_rows_fold_away() {
    let many: Vec<AuditRecord> = (0..20).map(|_| record("none", "ls")).collect();
    let shared = showing(&many);
    counted(&shared, 20, &[("none", 20)]);
    let page = html(&shared);
    assert!(page.contains("No dangerous attempts"), "{page}");
    assert!(!page.contains("id=\"dangerous\"") && !page.contains("id=\"pending\""));
    assert!(
        page.contains("<details><summary>5 older (the last 100 are kept)</summary>"),
        "{page}"
    );
}

#[test]
fn the_policy_allows_the_stylesheet_and_nothing_else() {
    let headers = headers();
    let get = |name: &str| {
        headers
            .iter()
            .find(|(n, _)| n == name)
            .map(|(_, v)| v.to_str().unwrap().to_string())
            .unwrap_or_else(|| panic!("no {name}"))
    };
    let policy = get("content-security-policy");
    let digest = ring::digest::digest(&ring::digest::SHA256, STYLE.as_bytes());
    let hash = base64::engine::general_purpose::STANDARD.encode(digest.as_ref());
    assert!(policy.starts_with("default-src 'none'; "), "{policy}");
    assert!(
        policy.contains(&format!("style-src 'sha256-{hash}'")),
        "{policy}"
    );
    assert!(!policy.contains("unsafe"), "{policy}");
    assert!(policy.contains("frame-ancestors 'none'"), "{policy}");
    assert_eq!(get("x-content-type-options"), "nosniff");
    assert_eq!(get("referrer-policy"), "no-referrer");
    let shared = Shared::new("/metrics".into(), View::default());
    assert!(html(&shared).contains(&format!("<style>{STYLE}</style>")));
}

#[test]
fn ages_are_words() {
    assert_eq!(age(0.4), "just now");
    assert_eq!(age(42.0), "42 s ago");
    assert_eq!(age(600.0), "10 min ago");
    assert_eq!(age(3.0 * 3600.0), "3 h ago");
    assert_eq!(age(3.0 * 86_400.0), "3 d ago");
    assert_eq!(
        shown_time("2026-06-12T10:00:00.999Z"),
        "2026-06-12 10:00:00"
    );
    assert_eq!(shown_time("not a time"), "not a time");
}
