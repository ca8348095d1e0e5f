//! The web front against the built binary: `--web.config.file` in exporter-toolkit's format (TLS
//! with a CA made at test time, plaintext to a TLS port gets no HTTP, basic auth on every path,
//! mutual TLS, the configured response headers, config errors that stop the start-up with one
//! sentence, a renewed certificate), gzip, and the landing page behind a reverse proxy that adds
//! a path prefix: relative links that follow `--web.telemetry-path`, the globs with their
//! matches, and a 404 that names the real telemetry path.

#[path = "live/mod.rs"]
mod live;
#[path = "web_support/mod.rs"]
mod web_support;

use std::io::Read;
use std::path::Path;
use std::sync::Arc;

use live::*;
use rustls::pki_types::pem::PemObject;
use rustls::ClientConfig;
use web_support::*;

/// Starts the exporter with `config` as its web config file and waits until `/-/ready` answers
/// 200 through `tls` and `auth`.
fn start_with(
    dir: &Path,
    config: &str,
    tls: Option<&Arc<ClientConfig>>,
    auth: &[(&str, &str)],
) -> Exporter {
    let config_file = dir.join("web.yml");
    std::fs::write(&config_file, config).unwrap();
    let launch = Launch::new(dir, &dir.join("*.log"))
        .fast()
        .args(["--web.config.file", config_file.to_str().unwrap()]);
    for _ in 0..5 {
        let mut exporter = launch.spawn_on(&[format!("127.0.0.1:{}", free_port())]);
        let mut exited = false;
        let ready = wait_until(TIMEOUT, || {
            exited = exporter.try_wait().is_some();
            exited || fetch(exporter.addr, tls, "/-/ready", auth).is_ok_and(|a| a.status == 200)
        });
        if ready && !exited {
            return exporter;
        }
        if !exporter.stderr().contains("cannot listen") {
            panic!("exporter did not get ready:\n{}", exporter.stderr());
        }
    }
    panic!("no free port");
}

fn tls_config(pki: &Pki, extra: &str) -> String {
    format!(
        "tls_server_config:\n  cert_file: {}\n  key_file: {}\n{extra}",
        pki.server_cert_file.display(),
        pki.server_key_file.display()
    )
}

#[test]
fn tls_serves_metrics_and_plaintext_gets_no_answer() {
    let wf = "tls";
    let dir = tempfile::tempdir().unwrap();
    Writer::open(&dir.path().join("app.log")).denials(wf, 2);
    let pki = Pki::new(dir.path(), "main");
    let client = pki.client(false);
    let exporter = start_with(dir.path(), &tls_config(&pki, ""), Some(&client), &[]);

    let ok = wait_until(TIMEOUT, || {
        fetch(exporter.addr, Some(&client), "/metrics", &[])
            .is_ok_and(|a| a.status == 200 && sum(&a.text(), DENIALS, &[("workflow", wf)]) == 2.0)
    });
    assert!(ok, "no metrics over TLS\n{}", exporter.stderr());
    let healthy = fetch(exporter.addr, Some(&client), "/-/healthy", &[]).unwrap();
    assert_eq!(healthy.status, 200);

    // Plain HTTP to the TLS port: the handshake fails and no HTTP answer comes back.
    let plain = fetch(exporter.addr, None, "/metrics", &[]);
    assert!(plain.is_err(), "plaintext got an answer: {plain:?}");
    // A client that does not trust the server's CA refuses it.
    let stranger = Pki::new(dir.path(), "other").client(false);
    assert!(fetch(exporter.addr, Some(&stranger), "/metrics", &[]).is_err());

    let metrics = fetch(exporter.addr, Some(&client), "/metrics", &[]).unwrap();
    assert!(
        sample(
            &metrics.text(),
            "denials_exporter_http_tls_handshake_errors_total",
            &[]
        )
        .is_some_and(|n| n >= 1.0),
        "{}",
        metrics.text()
    );
}

#[test]
fn basic_auth_protects_every_path() {
    let dir = tempfile::tempdir().unwrap();
    Writer::open(&dir.path().join("app.log")).denials("auth", 1);
    let hash = bcrypt::hash("s3cret", 4).unwrap();
    let config = format!(
        "basic_auth_users:\n  alice: {hash}\nhttp_server_config:\n  headers:\n    \
         X-Frame-Options: deny\n    X-Content-Type-Options: nosniff\n"
    );
    let right = basic("alice", "s3cret");
    let exporter = start_with(dir.path(), &config, None, &[("Authorization", &right)]);

    for path in ["/metrics", "/-/healthy", "/-/ready", "/", "/api/v1/denials"] {
        let ok = fetch(exporter.addr, None, path, &[("Authorization", &right)]).unwrap();
        assert_eq!(ok.status, 200, "{path} with the right password");
        assert_eq!(ok.header("x-frame-options"), Some("deny"), "{path}");
        assert_eq!(ok.header("x-content-type-options"), Some("nosniff"));

        let wrong = basic("alice", "guess");
        let unknown = basic("mallory", "s3cret");
        for auth in [
            &[("Authorization", wrong.as_str())][..],
            &[("Authorization", unknown.as_str())],
            &[],
        ] {
            let denied = fetch(exporter.addr, None, path, auth).unwrap();
            assert_eq!(denied.status, 401, "{path} {auth:?}");
            assert_eq!(denied.header("www-authenticate"), Some("Basic"));
            assert_eq!(denied.header("x-frame-options"), Some("deny"));
        }
    }
}

#[test]
fn mutual_tls_requires_a_client_certificate_from_the_client_ca() {
    let dir = tempfile::tempdir().unwrap();
    Writer::open(&dir.path().join("app.log")).denials("mtls", 1);
    let pki = Pki::new(dir.path(), "main");
    let config = tls_config(
        &pki,
        &format!(
            "  client_ca_file: {}\n  client_auth_type: RequireAndVerifyClientCert\n",
            pki.ca_file.display()
        ),
    );
    let with_cert = pki.client(true);
    let exporter = start_with(dir.path(), &config, Some(&with_cert), &[]);

    assert_eq!(
        fetch(exporter.addr, Some(&with_cert), "/metrics", &[])
            .unwrap()
            .status,
        200
    );
    let without_cert = pki.client(false);
    let refused = fetch(exporter.addr, Some(&without_cert), "/-/healthy", &[]);
    assert!(
        refused.is_err(),
        "served without a client certificate: {refused:?}"
    );

    // A certificate from another CA, for a client that trusts our server.
    let other = Pki::new(dir.path(), "other");
    let foreign = {
        let mut roots = rustls::RootCertStore::empty();
        for cert in rustls::pki_types::CertificateDer::pem_file_iter(&pki.ca_file).unwrap() {
            roots.add(cert.unwrap()).unwrap();
        }
        let cert =
            rustls::pki_types::CertificateDer::from_pem_file(&other.client_cert_file).unwrap();
        let key = rustls::pki_types::PrivateKeyDer::from_pem_file(&other.client_key_file).unwrap();
        Arc::new(
            ClientConfig::builder_with_provider(Arc::new(rustls::crypto::ring::default_provider()))
                .with_safe_default_protocol_versions()
                .unwrap()
                .with_root_certificates(roots)
                .with_client_auth_cert(vec![cert], key)
                .unwrap(),
        )
    };
    let refused = fetch(exporter.addr, Some(&foreign), "/-/healthy", &[]);
    assert!(
        refused.is_err(),
        "served a certificate of another CA: {refused:?}"
    );
}

#[test]
fn metrics_are_gzipped_when_the_scraper_accepts_it() {
    let wf = "gzip";
    let dir = tempfile::tempdir().unwrap();
    Writer::open(&dir.path().join("app.log")).denials(wf, 3);
    let exporter = Launch::new(dir.path(), &dir.path().join("*.log"))
        .fast()
        .start();
    exporter.wait_denials(wf, 3);

    let zipped = fetch(
        exporter.addr,
        None,
        "/metrics",
        &[("Accept-Encoding", "gzip")],
    )
    .unwrap();
    assert_eq!(zipped.status, 200);
    assert_eq!(zipped.header("content-encoding"), Some("gzip"));
    assert_eq!(
        zipped.header("content-type"),
        Some("text/plain; version=0.0.4")
    );
    let mut text = String::new();
    flate2::read::GzDecoder::new(&zipped.body[..])
        .read_to_string(&mut text)
        .expect("a gzip body");
    assert_eq!(sum(&text, DENIALS, &[("workflow", wf)]), 3.0);
    assert_unique_series(&text);
    assert!(zipped.body.len() < text.len() / 2, "gzip barely shrank it");

    let plain = fetch(exporter.addr, None, "/metrics", &[]).unwrap();
    assert_eq!(plain.header("content-encoding"), None);
    assert_eq!(sum(&plain.text(), DENIALS, &[("workflow", wf)]), 3.0);
    // Health stays uncompressed whatever is asked.
    let healthy = fetch(
        exporter.addr,
        None,
        "/-/healthy",
        &[("Accept-Encoding", "gzip")],
    )
    .unwrap();
    assert_eq!(
        (healthy.header("content-encoding"), healthy.text().as_str()),
        (None, "Healthy.\n")
    );
}

#[test]
fn an_invalid_web_config_stops_it_with_one_sentence() {
    let dir = tempfile::tempdir().unwrap();
    let pki = Pki::new(dir.path(), "main");
    let cases = [
        (None, "cannot read --web.config.file"),
        (
            Some("tls_server_config:\n  cert_file: x.crt\n"),
            "missing one of key or key_file",
        ),
        (
            Some("basic_auth_users:\n  bob: plaintext\n"),
            "is not a bcrypt hash",
        ),
        (
            Some("tls_server_config:\n  cert_file: nope.crt\n  key_file: nope.key\n"),
            "cannot load the certificate from",
        ),
        (
            Some("http_server_config:\n  headers:\n    Server: x\n"),
            "can not be configured",
        ),
        (Some(": : :\n"), "invalid --web.config.file"),
        (Some("bogus_key: 1\n"), "unknown field `bogus_key`"),
        (
            Some("http_server_config:\n  headerz: {}\n"),
            "unknown field `headerz`",
        ),
    ];
    for (text, want) in cases {
        let file = dir.path().join("web.yml");
        let _ = std::fs::remove_file(&file);
        if let Some(text) = text {
            std::fs::write(&file, text).unwrap();
        }
        let (status, stderr) = Launch::plain(dir.path(), &dir.path().join("*.log"))
            .args(["--web.config.file", file.to_str().unwrap()])
            .run_to_exit(&format!("127.0.0.1:{}", free_port()));
        assert_eq!(status.code(), Some(2), "{text:?}: {stderr}");
        let lines: Vec<&str> = stderr.lines().filter(|l| !l.trim().is_empty()).collect();
        assert_eq!(lines.len(), 1, "{text:?}: one sentence, got:\n{stderr}");
        assert!(lines[0].starts_with("denials-exporter: "), "{stderr}");
        assert!(lines[0].contains(want), "{text:?}: {stderr}");
        assert_eq!(
            lines[0].matches(want).count(),
            1,
            "{text:?}: the cause said once: {stderr}"
        );
    }
    // The key of another certificate.
    let other = Pki::new(dir.path(), "other");
    let file = dir.path().join("web.yml");
    std::fs::write(
        &file,
        format!(
            "tls_server_config:\n  cert_file: {}\n  key_file: {}\n",
            pki.server_cert_file.display(),
            other.server_key_file.display()
        ),
    )
    .unwrap();
    let (status, stderr) = Launch::plain(dir.path(), &dir.path().join("*.log"))
        .args(["--web.config.file", file.to_str().unwrap()])
        .run_to_exit(&format!("127.0.0.1:{}", free_port()));
    assert_eq!(status.code(), Some(2), "{stderr}");
    assert!(stderr.contains("do not match"), "{stderr}");
}

#[test]
fn a_renewed_certificate_is_served_without_a_restart() {
    let dir = tempfile::tempdir().unwrap();
    Writer::open(&dir.path().join("app.log")).denials("renew", 1);
    let old = Pki::new(dir.path(), "old");
    let old_client = old.client(false);
    let exporter = start_with(dir.path(), &tls_config(&old, ""), Some(&old_client), &[]);

    // Renew: a certificate from another CA is written over the same files.
    let new = Pki::new(dir.path(), "new");
    std::fs::copy(&new.server_key_file, &old.server_key_file).unwrap();
    std::fs::copy(&new.server_cert_file, &old.server_cert_file).unwrap();
    let new_client = new.client(false);
    let renewed = wait_until(TIMEOUT, || {
        fetch(exporter.addr, Some(&new_client), "/-/healthy", &[]).is_ok_and(|a| a.status == 200)
    });
    assert!(
        renewed,
        "the new certificate is not served\n{}",
        exporter.stderr()
    );
    // A fresh client (no session to resume) that trusts only the old CA now refuses the server.
    assert!(fetch(exporter.addr, Some(&old.client(false)), "/-/healthy", &[]).is_err());
    assert!(exporter.stderr().contains("TLS certificate reloaded"));
}

#[test]
fn the_landing_page_works_behind_a_path_prefix_and_the_404_names_the_telemetry_path() {
    let dir = tempfile::tempdir().unwrap();
    Writer::open(&dir.path().join("app.log")).denials("prefix", 1);
    let exporter = Launch::new(dir.path(), &dir.path().join("*.log"))
        .fast()
        .args(["--web.telemetry-path", "/internal/scrape"])
        .start();
    let proxy = prefix_proxy("/exporter", exporter.addr);

    let page = fetch(proxy, None, "/exporter/", &[]).unwrap();
    assert_eq!(page.status, 200, "{}", page.text());
    let hrefs = links(&page.text());
    for href in &hrefs {
        let target = resolve("/exporter/", href);
        let answer = fetch(proxy, None, &target, &[]).unwrap();
        assert_eq!(
            (answer.status, answer.header("x-proxy")),
            (200, None),
            "{href} -> {target}"
        );
    }
    for endpoint in ["./api/v1/denials", "./-/healthy", "./-/ready"] {
        assert!(hrefs.iter().any(|h| h == endpoint), "{endpoint}: {hrefs:?}");
    }
    assert!(
        hrefs
            .iter()
            .any(|h| h == "./api/v1/denials?workflow=prefix"),
        "the workflow's total links to its denials: {hrefs:?}"
    );
    let scrape = resolve("/exporter/", &hrefs[0]);
    assert_eq!(
        scrape, "/exporter/internal/scrape",
        "the first link is Metrics"
    );
    let metrics = fetch(proxy, None, &scrape, &[]).unwrap().text();
    assert_eq!(sum(&metrics, DENIALS, &[("workflow", "prefix")]), 1.0);

    for path in ["/metrics", "/nope"] {
        let missing = fetch(exporter.addr, None, path, &[]).unwrap();
        assert_eq!(missing.status, 404);
        assert_eq!(
            missing.text(),
            "Not found; the metrics are at /internal/scrape.\n"
        );
    }
}

#[test]
fn the_landing_page_shows_each_glob_with_what_it_matches_now() {
    let dir = tempfile::tempdir().unwrap();
    let logs = dir.path().join("logs");
    std::fs::create_dir(&logs).unwrap();
    Writer::open(&logs.join("a.log")).denials("globs", 1);
    Writer::open(&logs.join("b.log")).denials("globs", 1);
    let matching = logs.join("*.log");
    let empty = dir.path().join("elsewhere-*.jsonl");
    let exporter = Launch::new(dir.path(), &matching)
        .fast()
        .args(["--path", empty.to_str().unwrap()])
        .start();
    let row = |glob: &std::path::Path, n: usize| {
        format!(
            "<tr><td><code>{}</code></td><td>{n}</td></tr>",
            glob.display()
        )
    };

    let page = fetch(exporter.addr, None, "/", &[]).unwrap().text();
    assert!(page.contains(&row(&matching, 2)), "{page}");
    assert!(page.contains(&row(&empty, 0)), "{page}");
    // Counted when asked, not when the exporter started.
    std::fs::write(dir.path().join("elsewhere-1.jsonl"), "").unwrap();
    std::fs::write(logs.join("c.log"), "").unwrap();
    let page = fetch(exporter.addr, None, "/", &[]).unwrap().text();
    assert!(page.contains(&row(&matching, 3)), "{page}");
    assert!(page.contains(&row(&empty, 1)), "{page}");
}
