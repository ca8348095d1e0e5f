//! The built binary's HTTP surface: `/metrics`, `/-/healthy`, `/-/ready`, the landing page, the
//! recent-denials JSON and its drill-down filters, OpenMetrics with exemplars by content
//! negotiation, 404 and 405, `--recent-denials 0`, several listen addresses, a custom
//! telemetry path, the `process_*` families of the exporter's own process, redaction kinds served
//! only once seen, and start-up errors that must be one sentence and a non-zero exit.

#[path = "live/mod.rs"]
mod live;

use std::net::TcpListener;

use live::*;

#[test]
fn metrics_health_readiness_and_unknown_paths() {
    let wf = "http";
    let dir = tempfile::tempdir().unwrap();
    Writer::open(&dir.path().join("app.log")).denials(wf, 2);
    let exporter = Launch::new(dir.path(), &dir.path().join("*.log"))
        .fast()
        .start();
    exporter.wait_denials(wf, 2);

    let metrics = get(exporter.addr, "/metrics").unwrap();
    assert_eq!(metrics.status, 200);
    assert_eq!(
        metrics.header("content-type"),
        Some("text/plain; version=0.0.4")
    );
    assert!(metrics
        .body
        .contains("# TYPE permission_denials_total counter"));
    assert_eq!(
        sample(
            &metrics.body,
            DENIALS,
            &[("reason", "rule"), ("tool", "Bash"), ("workflow", wf)]
        ),
        Some(2.0)
    );
    assert_eq!(sample(&metrics.body, FILES_FOLLOWED, &[]), Some(1.0));

    let healthy = get(exporter.addr, "/-/healthy").unwrap();
    assert_eq!((healthy.status, healthy.body.as_str()), (200, "Healthy.\n"));
    let ready = get(exporter.addr, "/-/ready").unwrap();
    assert_eq!((ready.status, ready.body.as_str()), (200, "Ready.\n"));

    for path in ["/nope", "/metrics/x", "/api/v1/denials/1", "/-/"] {
        assert_eq!(get(exporter.addr, path).unwrap().status, 404, "{path}");
    }
    assert_eq!(
        request(exporter.addr, "POST", "/metrics").unwrap().status,
        405
    );
    assert_eq!(
        request(exporter.addr, "HEAD", "/metrics").unwrap().status,
        200
    );
}

#[test]
fn the_landing_page_lists_files_and_escapes_recent_denials() {
    let wf = "landing";
    let dir = tempfile::tempdir().unwrap();
    let log = dir.path().join("app.log");
    let evil = dir.path().join("evil<b>&.log");
    let mut w = Writer::open(&log);
    w.write(&denial_with_reason(
        wf,
        "blocked <script>alert(\"x\")</script> & more",
    ));
    w.write(&denial_with_reason(wf, "second"));
    w.write("{\"level\":30"); // 11 bytes of an unfinished line: the lag
    Writer::open(&evil).write(&denial_with_reason(wf, "third"));
    let exporter = Launch::new(dir.path(), &dir.path().join("*.log"))
        .fast()
        .start();
    exporter.wait_denials(wf, 3);

    let page = get(exporter.addr, "/").unwrap();
    assert_eq!(page.status, 200);
    assert_eq!(
        page.header("content-type"),
        Some("text/html; charset=utf-8")
    );
    let body = &page.body;
    assert!(
        body.contains(&format!(
            "<td class=\"path\"><code>{}</code></td><td class=\"n\">11</td>",
            log.display()
        )),
        "{body}"
    );
    let evil_escaped = format!("{}/evil&lt;b&gt;&amp;.log", dir.path().display());
    assert!(
        body.contains(&format!(
            "<td class=\"path\"><code>{evil_escaped}</code></td><td class=\"n\">0</td>"
        )),
        "{body}"
    );
    assert!(
        body.contains("blocked &lt;script&gt;alert(&quot;x&quot;)&lt;/script&gt; &amp; more"),
        "{body}"
    );
    assert!(!body.contains("<script"), "{body}");
    assert!(!body.contains("evil<b>"), "{body}");
    assert!(
        body.contains("<td class=\"tool\">Bash</td>") && body.contains(&format!("<td>{wf}</td>"))
    );
    // Origin is spelled as in the audit log and the API.
    assert!(
        body.contains("<td class=\"muted\">mid_stream</td>"),
        "{body}"
    );
    assert!(!body.contains("mid-stream"), "{body}");

    // The same denials as JSON, newest first, unescaped (JSON is not HTML).
    let api = get(exporter.addr, "/api/v1/denials").unwrap();
    assert_eq!(api.status, 200);
    assert_eq!(api.header("content-type"), Some("application/json"));
    let json: serde_json::Value = serde_json::from_str(&api.body).unwrap();
    let denials = json["denials"].as_array().unwrap();
    assert_eq!(denials.len(), 3, "{json}");
    let reasons: Vec<&str> = denials
        .iter()
        .map(|d| d["decision_reason"].as_str().unwrap())
        .collect();
    // The two files may be read in either order; within app.log, the second is newer.
    let first = reasons
        .iter()
        .position(|r| r.starts_with("blocked"))
        .unwrap();
    let second = reasons.iter().position(|r| *r == "second").unwrap();
    assert!(second < first, "newest first: {reasons:?}");
    assert_eq!(
        reasons[first],
        "blocked <script>alert(\"x\")</script> & more"
    );
    for d in denials {
        assert_eq!(d["tool"], "Bash");
        assert_eq!(d["workflow"], wf);
        assert_eq!(d["reason"], "rule");
        assert_eq!(d["origin"], "mid_stream");
        assert_eq!(d["format"], "pino");
    }
    assert_eq!(denials[second]["source_file"], log.display().to_string());
}

#[test]
fn the_denials_api_filters_for_drill_down() {
    let dir = tempfile::tempdir().unwrap();
    let mut w = Writer::open(&dir.path().join("app.log"));
    w.denials("drill_a", 2);
    w.write(
        "{\"time\":1000000000000,\"executionId\":\"exec_old\",\"workflow\":\"drill_b\",\
         \"event\":\"agent.permission.denied\",\"toolName\":\"Write\",\"decisionReasonType\":\"mode\"}\n",
    );
    w.write(
        "{\"executionId\":\"exec_rec\",\"workflow\":\"drill_b\",\"permissionDenials\":\
         [{\"toolName\":\"Read\",\"toolUseId\":\"toolu_1\"}],\"msg\":\"Claude Agent SDK execution completed\"}\n",
    );
    let exporter = Launch::new(dir.path(), &dir.path().join("*.log"))
        .fast()
        .args(["--recent-denials", "3"])
        .start();
    exporter.wait_denials("drill_b", 2);
    let ask = |query: &str| {
        let r = get(exporter.addr, &format!("/api/v1/denials{query}")).unwrap();
        assert_eq!(r.status, 200, "{query}: {}", r.body);
        let json: serde_json::Value = serde_json::from_str(&r.body).unwrap();
        json["denials"]
            .as_array()
            .unwrap()
            .iter()
            .map(|d| {
                format!(
                    "{}/{}/{}",
                    d["workflow"].as_str().unwrap(),
                    d["tool"].as_str().unwrap(),
                    d["reason"].as_str().unwrap()
                )
            })
            .collect::<Vec<_>>()
    };
    // The ring keeps 3 of the 4 denials: the default limit is the ring size.
    assert_eq!(
        ask(""),
        [
            "drill_b/Read/unknown",
            "drill_b/Write/mode",
            "drill_a/Bash/rule"
        ]
    );
    assert_eq!(
        ask("?workflow=drill_b"),
        ["drill_b/Read/unknown", "drill_b/Write/mode"]
    );
    assert_eq!(
        ask("?workflow=drill_b&reason=unknown"),
        ["drill_b/Read/unknown"]
    );
    assert_eq!(
        ask("?execution_id=exec_old&tool=Write"),
        ["drill_b/Write/mode"]
    );
    assert_eq!(ask("?tool=Bash&workflow=drill_a"), ["drill_a/Bash/rule"]);
    // exec_old's denial is from 2001; the others were read (or logged) just now.
    assert_eq!(
        ask("?since=2020-01-01T00%3A00%3A00Z&workflow=drill_b"),
        ["drill_b/Read/unknown"]
    );
    assert_eq!(ask("?since=1577836800&limit=1"), ["drill_b/Read/unknown"]);
    assert_eq!(ask("?limit=1000").len(), 3, "limit stops at the ring size");
    assert!(ask("?workflow=nowhere").is_empty());

    for (query, want) in [
        ("?reason=because", "reason must be one of"),
        ("?tool=%3Cscript%3E", "tool must be"),
        ("?since=last+week", "since must be"),
        ("?limit=0", "limit must be"),
        ("?page=2", "unknown parameter page"),
    ] {
        let r = get(exporter.addr, &format!("/api/v1/denials{query}")).unwrap();
        assert_eq!(r.status, 400, "{query}");
        assert_eq!(r.header("content-type"), Some("text/plain; charset=utf-8"));
        let lines: Vec<&str> = r.body.lines().collect();
        assert_eq!(lines.len(), 1, "{query}: one sentence: {}", r.body);
        assert!(lines[0].contains(want), "{query}: {}", r.body);
        assert!(!r.body.contains("<script"), "{}", r.body);
    }
}

#[test]
fn openmetrics_by_content_negotiation_with_redacted_exemplars() {
    let dir = tempfile::tempdir().unwrap();
    let secret = "ghp_0123456789abcdefghijABCDEFGHIJ012345";
    let mut w = Writer::open(&dir.path().join("app.log"));
    w.write(&format!(
        "{{\"executionId\":\"exec_om\",\"workflow\":\"om\",\"event\":\"agent.permission.denied\",\
         \"toolName\":\"Bash\",\"toolUseId\":\"toolu_om1\",\"decisionReasonType\":\"rule\"}}\n\
         {{\"executionId\":\"{secret}\",\"workflow\":\"om\",\"costUsd\":0.5,\"modelUsage\":\
         {{\"claude-haiku-4-5\":{{\"inputTokens\":10,\"costUSD\":0.5}}}},\
         \"permissionDenials\":[{{\"toolName\":\"Read\",\"toolUseId\":\"toolu_om2\"}}],\
         \"msg\":\"Claude Agent SDK execution completed\"}}\n"
    ));
    let exporter = Launch::new(dir.path(), &dir.path().join("*.log"))
        .fast()
        .start();
    exporter.wait_denials("om", 2);

    // What Prometheus sends: OpenMetrics first, the 0.0.4 text as a fallback.
    let accept = "application/openmetrics-text;version=1.0.0,application/openmetrics-text;version=0.0.1;q=0.75,text/plain;version=0.0.4;q=0.5,*/*;q=0.1";
    let om = request_with(exporter.addr, "GET", "/metrics", &[("Accept", accept)]).unwrap();
    assert_eq!(om.status, 200);
    assert_eq!(
        om.header("content-type"),
        Some("application/openmetrics-text; version=1.0.0; charset=utf-8")
    );
    let body = &om.body;
    assert!(body.ends_with("# EOF\n"), "{body}");
    assert_eq!(body.matches("# EOF").count(), 1, "{body}");
    // The HTTP self-metrics too, as OpenMetrics families (they were left out before).
    assert!(
        body.contains(
            "# TYPE denials_exporter_http_connections_rejected counter\n\
             denials_exporter_http_connections_rejected_total 0\n"
        ),
        "{body}"
    );
    let line = |prefix: &str| {
        body.lines()
            .find(|l| l.starts_with(prefix))
            .unwrap_or_else(|| panic!("no {prefix} in\n{body}"))
            .to_string()
    };
    let rule =
        line("permission_denials_total{reason=\"rule\",tool=\"Bash\",workflow=\"om\"} 1.0 # ");
    assert!(
        rule.contains("# {execution_id=\"exec_om\",tool_use_id=\"toolu_om1\"} 1.0 "),
        "{rule}"
    );
    // The record's execution id is a token: the exemplar carries it redacted.
    let record =
        line("permission_denials_total{reason=\"unknown\",tool=\"Read\",workflow=\"om\"} 1.0 # ");
    assert!(record.contains("tool_use_id=\"toolu_om2\""), "{record}");
    let cost = line("agent_cost_usd_total{model=\"claude-haiku-4-5\",workflow=\"om\"} 0.5 # ");
    assert!(cost.contains("[REDACTED:"), "{cost}");
    assert!(!body.contains(secret), "{body}");
    for l in body.lines().filter(|l| l.contains(" # {")) {
        let labels = &l[l.find(" # {").unwrap() + 4..l.rfind('}').unwrap()];
        let chars: usize = labels
            .split("\",")
            .map(|kv| kv.replace(['=', '"'], "").chars().count())
            .sum();
        assert!(chars <= 128, "exemplar labels over 128 characters: {l}");
    }

    // Without asking, the 0.0.4 text as before, and no exemplars.
    let plain = get(exporter.addr, "/metrics").unwrap();
    assert_eq!(
        plain.header("content-type"),
        Some("text/plain; version=0.0.4")
    );
    assert!(!plain.body.contains(" # {") && !plain.body.contains("# EOF"));
}

#[test]
fn recent_denials_zero_turns_the_ring_off() {
    let wf = "no_ring";
    let dir = tempfile::tempdir().unwrap();
    Writer::open(&dir.path().join("app.log")).denials(wf, 3);
    let exporter = Launch::new(dir.path(), &dir.path().join("*.log"))
        .fast()
        .args(["--recent-denials", "0"])
        .start();
    exporter.wait_denials(wf, 3);
    let page = get(exporter.addr, "/").unwrap();
    assert_eq!(page.status, 200);
    assert!(
        page.body.contains("Not kept (--recent-denials 0)."),
        "{}",
        page.body
    );
    let api = get(exporter.addr, "/api/v1/denials").unwrap();
    let json: serde_json::Value = serde_json::from_str(&api.body).unwrap();
    assert_eq!(json["denials"], serde_json::json!([]));
}

#[test]
fn every_listen_address_serves_and_the_telemetry_path_moves() {
    let wf = "two_addrs";
    let dir = tempfile::tempdir().unwrap();
    Writer::open(&dir.path().join("app.log")).denials(wf, 1);
    let launch = Launch::new(dir.path(), &dir.path().join("*.log"))
        .fast()
        .args(["--web.telemetry-path", "/custom/metrics"]);
    let mut exporter = None;
    for _ in 0..5 {
        let listen = [
            format!("127.0.0.1:{}", free_port()),
            format!("127.0.0.1:{}", free_port()),
        ];
        let mut e = launch.spawn_on(&listen);
        match e.wait_ready() {
            Ok(()) => {
                exporter = Some((e, listen));
                break;
            }
            Err(stderr) if stderr.contains("cannot listen") => continue,
            Err(stderr) => panic!("{stderr}"),
        }
    }
    let (exporter, listen) = exporter.expect("two free ports");
    for addr in &listen {
        let addr = addr.parse().unwrap();
        let ok = wait_until(TIMEOUT, || {
            get(addr, "/custom/metrics")
                .is_ok_and(|r| r.status == 200 && sum(&r.body, DENIALS, &[("workflow", wf)]) == 1.0)
        });
        assert!(ok, "{addr} does not serve\n{}", exporter.stderr());
        assert_eq!(get(addr, "/metrics").unwrap().status, 404);
        assert_eq!(get(addr, "/-/ready").unwrap().status, 200);
    }
}

/// Exits non-zero, with exactly one non-empty line on stderr, which contains `want`.
fn fails_with_one_sentence(extra: &[&str], want: &str) {
    let dir = tempfile::tempdir().unwrap();
    let port = free_port();
    let (status, stderr) = Launch::plain(dir.path(), &dir.path().join("*.log"))
        .args(extra)
        .run_to_exit(&format!("127.0.0.1:{port}"));
    assert!(!status.success(), "{extra:?}: {status}");
    let lines: Vec<&str> = stderr.lines().filter(|l| !l.trim().is_empty()).collect();
    assert_eq!(lines.len(), 1, "{extra:?}: one sentence, got:\n{stderr}");
    assert!(lines[0].contains(want), "{extra:?}: {stderr}");
}

#[test]
fn bad_flags_and_addresses_stop_it_with_one_sentence() {
    // Every --web.listen-address value is kept, so an invalid one beside a valid one fails.
    fails_with_one_sentence(
        &["--web.listen-address", "not-an-address"],
        "invalid --web.listen-address \"not-an-address\"",
    );
    fails_with_one_sentence(&["--stat-interval", "0"], "must be positive");
    fails_with_one_sentence(
        &["--web.telemetry-path", "metrics"],
        "--web.telemetry-path must start with '/'",
    );
    fails_with_one_sentence(&["--path", "[unclosed"], "invalid --path glob");

    // An address already taken.
    let taken = TcpListener::bind("127.0.0.1:0").unwrap();
    let addr = taken.local_addr().unwrap().to_string();
    let dir = tempfile::tempdir().unwrap();
    let (status, stderr) = Launch::plain(dir.path(), &dir.path().join("*.log")).run_to_exit(&addr);
    assert!(!status.success());
    let lines: Vec<&str> = stderr.lines().filter(|l| !l.trim().is_empty()).collect();
    assert_eq!(lines.len(), 1, "one sentence, got:\n{stderr}");
    assert!(
        lines[0].contains(&format!("cannot listen on {addr}")),
        "{stderr}"
    );

    // An unknown flag: one sentence too, naming the flag.
    let (status, stderr) = Launch::plain(dir.path(), &dir.path().join("*.log"))
        .arg("--no-such-flag")
        .run_to_exit("127.0.0.1:1");
    assert_eq!(status.code(), Some(2));
    assert_eq!(stderr.lines().count(), 1, "{stderr}");
    assert!(
        stderr.starts_with("denials-exporter: unexpected argument '--no-such-flag'"),
        "{stderr}"
    );
}

fn epoch_seconds() -> f64 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .unwrap()
        .as_secs_f64()
}

/// The `Max open files` soft limit and the resident set (bytes) of process `pid`, and how many
/// descriptors it has open, as `/proc` tells another process.
fn proc_view(pid: u32) -> (f64, f64, f64) {
    let limits = std::fs::read_to_string(format!("/proc/{pid}/limits")).unwrap();
    let max_fds = limits
        .lines()
        .find_map(|l| l.strip_prefix("Max open files"))
        .and_then(|l| l.split_whitespace().next())
        .and_then(|n| n.parse().ok())
        .expect("Max open files");
    let status = std::fs::read_to_string(format!("/proc/{pid}/status")).unwrap();
    let rss_kib: f64 = status
        .lines()
        .find_map(|l| l.strip_prefix("VmRSS:"))
        .and_then(|l| l.split_whitespace().next())
        .and_then(|n| n.parse().ok())
        .expect("VmRSS");
    let fds = std::fs::read_dir(format!("/proc/{pid}/fd"))
        .unwrap()
        .count();
    (max_fds, rss_kib * 1024.0, fds as f64)
}

#[test]
fn process_metrics_describe_the_running_exporter_at_each_scrape() {
    let dir = tempfile::tempdir().unwrap();
    let log = dir.path().join("app.log");
    Writer::open(&log).denials("process", 1);
    let launch = Launch::new(dir.path(), &dir.path().join("*.log")).fast();
    let before = epoch_seconds();
    let exporter = launch.start();
    let text = exporter.metrics();
    let (max_fds, rss, fds) = proc_view(exporter.pid());
    let value = |text: &str, name: &str| {
        sample(text, name, &[]).unwrap_or_else(|| panic!("no {name} in\n{text}"))
    };

    let start = value(&text, "process_start_time_seconds");
    assert!(
        start >= before - 1.0 && start <= epoch_seconds() + 1.0,
        "started at {start}, spawned at {before}"
    );
    assert_eq!(value(&text, "process_max_fds"), max_fds);
    let open = value(&text, "process_open_fds");
    assert!((open - fds).abs() <= 8.0, "{open} open, /proc lists {fds}");
    let resident = value(&text, "process_resident_memory_bytes");
    assert!(
        resident > rss / 2.0 && resident < rss * 2.0,
        "{resident} resident, /proc says {rss}"
    );
    assert!(value(&text, "process_virtual_memory_bytes") >= resident);
    let cpu = value(&text, "process_cpu_seconds_total");
    assert!(cpu >= 0.0);

    // Read at the scrape, not at the last publication: work done since shows. The kernel
    // counts CPU time in clock ticks, and 100,000 lines may take less than one: write another
    // 100,000 until the time moves (a million lines at most).
    let mut w = Writer::open(&log);
    let mut later = String::new();
    for round in 1..=10 {
        for _ in 0..20 {
            w.write(&noise().repeat(5000));
        }
        exporter.wait_at_least("lines read", f64::from(round) * 100_000.0, |t| {
            sum(t, LINES, &[])
        });
        later = exporter.metrics();
        if value(&later, "process_cpu_seconds_total") > cpu {
            break;
        }
    }
    assert!(value(&later, "process_cpu_seconds_total") > cpu, "{later}");
    assert_eq!(value(&later, "process_start_time_seconds"), start);

    // Both formats.
    let om = request_with(
        exporter.addr,
        "GET",
        "/metrics",
        &[("Accept", "application/openmetrics-text")],
    )
    .unwrap()
    .body;
    assert!(
        om.contains("# TYPE process_cpu_seconds counter\nprocess_cpu_seconds_total "),
        "{om}"
    );
    assert!(om.contains("# TYPE process_resident_memory_bytes gauge\n"));

    // A restart is a new start time: what `changes(process_start_time_seconds[…])` counts.
    drop(exporter);
    let again = launch.start();
    assert!(value(&again.metrics(), "process_start_time_seconds") > start);
}

#[test]
fn a_redaction_kind_is_served_once_it_replaced_something() {
    let dir = tempfile::tempdir().unwrap();
    let log = dir.path().join("app.log");
    Writer::open(&log).denials("clean", 2);
    let exporter = Launch::new(dir.path(), &dir.path().join("*.log"))
        .fast()
        .start();
    exporter.wait_denials("clean", 2);
    let kinds = |text: &str| series(text, "denials_exporter_redactions_total");
    let clean = exporter.metrics();
    assert_eq!(kinds(&clean), [], "no secret met, no series:\n{clean}");

    let token = format!("ghp_{}", "A1b2C3d4E5f6G7h8I9j0K1l2M3n4O5p6Q7r8");
    Writer::open(&log).write(&denial_with_reason(
        "dirty",
        &format!("token {token} leaked"),
    ));
    exporter.wait_denials("dirty", 1);
    exporter.wait_at_least("redactions", 1.0, |t| {
        sum(t, "denials_exporter_redactions_total", &[])
    });
    let dirty = exporter.metrics();
    let seen = kinds(&dirty);
    assert!(!seen.is_empty() && seen.len() <= 2, "{seen:?}");
    for (labels, n) in &seen {
        assert!(*n >= 1.0, "a kind at 0: {labels:?}");
    }
    assert!(!dirty.contains(&token));
}
