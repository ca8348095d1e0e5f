//! Failed TLS handshakes leave a trace, against the built binary: a client certificate rustls
//! refuses (an X.509 v1 one, as `openssl x509 -req` without extensions makes, which Go's
//! exporter-toolkit accepts) is logged at warn with its reason and counted in
//! `denials_exporter_tls_handshake_errors_total{reason}`; a handshake that fails elsewhere (no
//! client certificate) is counted as `other`. Needs the `openssl` command.

#[path = "live/mod.rs"]
mod live;
#[path = "web_support/mod.rs"]
mod web_support;

use std::path::Path;
use std::process::Command;
use std::sync::Arc;

use live::*;
use rustls::pki_types::pem::PemObject;
use rustls::pki_types::{CertificateDer, PrivateKeyDer};
use rustls::ClientConfig;
use web_support::*;

const ERRORS: &str = "denials_exporter_tls_handshake_errors_total";

fn openssl(dir: &Path, args: &[&str]) {
    run_tool(Command::new("openssl").current_dir(dir).args(args));
}

/// A CA of its own (`v1-ca.crt`) and a client certificate it signed without extensions:
/// X.509 v1. Returns the paths of the CA, the client certificate and its key.
fn v1_client(dir: &Path) -> (std::path::PathBuf, std::path::PathBuf, std::path::PathBuf) {
    let ec = [
        "-newkey",
        "ec",
        "-pkeyopt",
        "ec_paramgen_curve:P-256",
        "-nodes",
    ];
    let mut ca = vec!["req", "-x509", "-subj", "/CN=v1 test CA", "-days", "2"];
    ca.extend(ec);
    ca.extend(["-keyout", "v1-ca.key", "-out", "v1-ca.crt"]);
    openssl(dir, &ca);
    let mut csr = vec!["req", "-new", "-subj", "/CN=scraper"];
    csr.extend(ec);
    csr.extend(["-keyout", "v1-client.key", "-out", "v1-client.csr"]);
    openssl(dir, &csr);
    openssl(
        dir,
        &[
            "x509",
            "-req",
            "-in",
            "v1-client.csr",
            "-CA",
            "v1-ca.crt",
            "-CAkey",
            "v1-ca.key",
            "-CAcreateserial",
            "-days",
            "2",
            "-out",
            "v1-client.crt",
        ],
    );
    let text = Command::new("openssl")
        .args(["x509", "-noout", "-text", "-in"])
        .arg(dir.join("v1-client.crt"))
        .output()
        .unwrap();
    assert!(
        String::from_utf8_lossy(&text.stdout).contains("Version: 1 (0x0)"),
        "openssl made no v1 certificate"
    );
    (
        dir.join("v1-ca.crt"),
        dir.join("v1-client.crt"),
        dir.join("v1-client.key"),
    )
}

/// Presents a certificate as it is: rustls's own client setup would refuse a v1 one.
#[derive(Debug)]
struct AsIs(Arc<rustls::sign::CertifiedKey>);

impl rustls::client::ResolvesClientCert for AsIs {
    fn resolve(
        &self,
        _root_hint_subjects: &[&[u8]],
        _sigschemes: &[rustls::SignatureScheme],
    ) -> Option<Arc<rustls::sign::CertifiedKey>> {
        Some(self.0.clone())
    }

    fn has_certs(&self) -> bool {
        true
    }
}

/// A client trusting `pki`'s server and presenting `cert`.
fn client_with(pki: &Pki, cert: &Path, key: &Path) -> Arc<ClientConfig> {
    let mut roots = rustls::RootCertStore::empty();
    for ca in CertificateDer::pem_file_iter(&pki.ca_file).unwrap() {
        roots.add(ca.unwrap()).unwrap();
    }
    let provider = Arc::new(rustls::crypto::ring::default_provider());
    let signing = provider
        .key_provider
        .load_private_key(PrivateKeyDer::from_pem_file(key).unwrap())
        .unwrap();
    let certified = rustls::sign::CertifiedKey::new(
        vec![CertificateDer::from_pem_file(cert).unwrap()],
        signing,
    );
    Arc::new(
        ClientConfig::builder_with_provider(provider)
            .with_safe_default_protocol_versions()
            .unwrap()
            .with_root_certificates(roots)
            .with_client_cert_resolver(Arc::new(AsIs(Arc::new(certified)))),
    )
}

#[test]
fn a_refused_client_certificate_is_logged_with_its_reason_and_counted() {
    let dir = tempfile::tempdir().unwrap();
    Writer::open(&dir.path().join("app.log")).denials("tls", 1);
    let pki = Pki::new(dir.path(), "main");
    let (v1_ca, v1_cert, v1_key) = v1_client(dir.path());
    // Both CAs are trusted: the v1 certificate is refused for its version, not its issuer.
    let client_cas = dir.path().join("client-cas.crt");
    let both =
        std::fs::read_to_string(&pki.ca_file).unwrap() + &std::fs::read_to_string(&v1_ca).unwrap();
    std::fs::write(&client_cas, both).unwrap();
    let config = format!(
        "tls_server_config:\n  cert_file: {}\n  key_file: {}\n  client_ca_file: {}\n  client_auth_type: RequireAndVerifyClientCert\n",
        pki.server_cert_file.display(),
        pki.server_key_file.display(),
        client_cas.display()
    );
    let config_file = dir.path().join("web.yml");
    std::fs::write(&config_file, config).unwrap();
    let good = pki.client(true);
    let exporter = Launch::new(dir.path(), &dir.path().join("*.log"))
        .fast()
        .args(["--web.config.file", config_file.to_str().unwrap()])
        .spawn_on(&[format!("127.0.0.1:{}", free_port())]);
    assert!(
        wait_until(TIMEOUT, || fetch(
            exporter.addr,
            Some(&good),
            "/-/ready",
            &[]
        )
        .is_ok_and(|a| a.status == 200)),
        "not ready\n{}",
        exporter.stderr()
    );

    let v1 = client_with(&pki, &v1_cert, &v1_key);
    let refused = fetch(exporter.addr, Some(&v1), "/-/healthy", &[]);
    assert!(
        refused.is_err(),
        "served a v1 client certificate: {refused:?}"
    );
    let none = fetch(exporter.addr, Some(&pki.client(false)), "/-/healthy", &[]);
    assert!(
        none.is_err(),
        "served without a client certificate: {none:?}"
    );

    let counted = |reason: &str| {
        fetch(exporter.addr, Some(&good), "/metrics", &[])
            .ok()
            .and_then(|a| sample(&a.text(), ERRORS, &[("reason", reason)]))
    };
    assert!(
        wait_until(TIMEOUT, || counted("certificate_not_v3") == Some(1.0)
            && counted("other") == Some(1.0)),
        "not counted: v1 {:?}, other {:?}\n{}",
        counted("certificate_not_v3"),
        counted("other"),
        exporter.stderr()
    );
    let log = exporter.stderr();
    assert!(
        log.contains("client certificate refused") && log.contains("certificate_not_v3"),
        "the refusal left no trace in the log:\n{log}"
    );
    assert!(
        log.contains("WARN") || log.contains("\"level\":\"WARN\""),
        "{log}"
    );
}
