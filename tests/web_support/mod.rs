//! Helpers for the TLS and authentication tests: a throw-away PKI made at test time (rcgen; no
//! key is ever committed), an HTTP/1.1 exchange over plain TCP or rustls with extra headers, and
//! a byte-exact response (gzip bodies are not text).
#![allow(dead_code)]

use std::io::{Read, Write};
use std::net::{SocketAddr, TcpStream};
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::Duration;

use rcgen::{
    BasicConstraints, CertificateParams, CertifiedIssuer, DnType, ExtendedKeyUsagePurpose, IsCa,
    KeyPair,
};
use rustls::pki_types::{CertificateDer, PrivateKeyDer, ServerName};
use rustls::{ClientConfig, ClientConnection, RootCertStore, StreamOwned};

/// A CA, a server certificate for `localhost` and 127.0.0.1, and a client certificate, written
/// as PEM files into a directory.
pub struct Pki {
    pub ca_file: PathBuf,
    pub server_cert_file: PathBuf,
    pub server_key_file: PathBuf,
    pub client_cert_file: PathBuf,
    pub client_key_file: PathBuf,
    ca_der: CertificateDer<'static>,
    client_cert_der: CertificateDer<'static>,
    client_key_der: Vec<u8>,
}

impl Pki {
    /// Makes the keys and certificates; `name` prefixes the files (two PKIs may share a dir).
    pub fn new(dir: &Path, name: &str) -> Pki {
        let mut ca_params = CertificateParams::new(Vec::<String>::new()).unwrap();
        ca_params.is_ca = IsCa::Ca(BasicConstraints::Unconstrained);
        ca_params
            .distinguished_name
            .push(DnType::CommonName, format!("{name} test CA"));
        let ca = CertifiedIssuer::self_signed(ca_params, KeyPair::generate().unwrap()).unwrap();

        let mut server_params =
            CertificateParams::new(vec!["localhost".to_string(), "127.0.0.1".to_string()]).unwrap();
        server_params.extended_key_usages = vec![ExtendedKeyUsagePurpose::ServerAuth];
        let server_key = KeyPair::generate().unwrap();
        let server = server_params.signed_by(&server_key, &ca).unwrap();

        let mut client_params = CertificateParams::new(vec!["scraper".to_string()]).unwrap();
        client_params.extended_key_usages = vec![ExtendedKeyUsagePurpose::ClientAuth];
        let client_key = KeyPair::generate().unwrap();
        let client = client_params.signed_by(&client_key, &ca).unwrap();

        let write = |file: &str, text: &str| {
            let path = dir.join(format!("{name}-{file}"));
            std::fs::write(&path, text).unwrap();
            path
        };
        Pki {
            ca_file: write("ca.crt", &ca.pem()),
            server_cert_file: write("server.crt", &server.pem()),
            server_key_file: write("server.key", &server_key.serialize_pem()),
            client_cert_file: write("client.crt", &client.pem()),
            client_key_file: write("client.key", &client_key.serialize_pem()),
            ca_der: ca.der().clone(),
            client_cert_der: client.der().clone(),
            client_key_der: client_key.serialize_der(),
        }
    }

    /// A client trusting this CA, presenting this PKI's client certificate if `with_cert`.
    pub fn client(&self, with_cert: bool) -> Arc<ClientConfig> {
        let mut roots = RootCertStore::empty();
        roots.add(self.ca_der.clone()).unwrap();
        let builder =
            ClientConfig::builder_with_provider(Arc::new(rustls::crypto::ring::default_provider()))
                .with_safe_default_protocol_versions()
                .unwrap()
                .with_root_certificates(roots);
        let config = if with_cert {
            builder
                .with_client_auth_cert(
                    vec![self.client_cert_der.clone()],
                    PrivateKeyDer::try_from(self.client_key_der.clone()).unwrap(),
                )
                .unwrap()
        } else {
            builder.with_no_client_auth()
        };
        Arc::new(config)
    }
}

/// One HTTP answer, body as bytes.
#[derive(Debug, Clone)]
pub struct Answer {
    pub status: u16,
    /// Header names lower-cased.
    pub headers: Vec<(String, String)>,
    pub body: Vec<u8>,
}

impl Answer {
    pub fn header(&self, name: &str) -> Option<&str> {
        self.headers
            .iter()
            .find(|(n, _)| n == &name.to_ascii_lowercase())
            .map(|(_, v)| v.as_str())
    }

    pub fn text(&self) -> String {
        String::from_utf8_lossy(&self.body).into_owned()
    }
}

/// `GET path` with `headers`, over TLS when `tls` is given, else plain TCP.
pub fn fetch(
    addr: SocketAddr,
    tls: Option<&Arc<ClientConfig>>,
    path: &str,
    headers: &[(&str, &str)],
) -> std::io::Result<Answer> {
    let tcp = TcpStream::connect_timeout(&addr, Duration::from_secs(5))?;
    tcp.set_read_timeout(Some(Duration::from_secs(10)))?;
    tcp.set_write_timeout(Some(Duration::from_secs(10)))?;
    let mut request = format!("GET {path} HTTP/1.1\r\nHost: localhost\r\nConnection: close\r\n");
    for (name, value) in headers {
        request.push_str(&format!("{name}: {value}\r\n"));
    }
    request.push_str("\r\n");
    let raw = match tls {
        None => exchange(tcp, &request)?,
        Some(config) => {
            let name = ServerName::try_from("localhost").unwrap();
            let conn =
                ClientConnection::new(config.clone(), name).map_err(std::io::Error::other)?;
            exchange(StreamOwned::new(conn, tcp), &request)?
        }
    };
    parse(&raw)
}

fn exchange(mut stream: impl Read + Write, request: &str) -> std::io::Result<Vec<u8>> {
    stream.write_all(request.as_bytes())?;
    stream.flush()?;
    let mut raw = Vec::new();
    match stream.read_to_end(&mut raw) {
        Ok(_) => Ok(raw),
        // A peer that closes without TLS close_notify still sent a whole answer.
        Err(e) if e.kind() == std::io::ErrorKind::UnexpectedEof && !raw.is_empty() => Ok(raw),
        Err(e) => Err(e),
    }
}

fn parse(raw: &[u8]) -> std::io::Result<Answer> {
    let end = raw
        .windows(4)
        .position(|w| w == b"\r\n\r\n")
        .ok_or_else(|| std::io::Error::other(format!("no HTTP header in {raw:?}")))?;
    let head = String::from_utf8_lossy(&raw[..end]);
    let mut lines = head.split("\r\n");
    let status = lines
        .next()
        .filter(|l| l.starts_with("HTTP/1."))
        .and_then(|l| l.split(' ').nth(1))
        .and_then(|s| s.parse().ok())
        .ok_or_else(|| std::io::Error::other(format!("bad status line in {head:?}")))?;
    let headers = lines
        .filter_map(|l| l.split_once(':'))
        .map(|(n, v)| (n.trim().to_ascii_lowercase(), v.trim().to_string()))
        .collect();
    Ok(Answer {
        status,
        headers,
        body: raw[end + 4..].to_vec(),
    })
}

/// `Authorization: Basic …` for `user:password`.
pub fn basic(user: &str, password: &str) -> String {
    use base64::Engine as _;
    format!(
        "Basic {}",
        base64::engine::general_purpose::STANDARD.encode(format!("{user}:{password}"))
    )
}

/// A reverse proxy that serves `upstream` under a path prefix, as an ingress with a rewrite rule
/// does: `GET <prefix>/x` is sent upstream as `GET /x`; a path outside the prefix gets a 404 from
/// the proxy itself (`X-Proxy: outside`). One connection at a time, for the test's lifetime.
pub fn prefix_proxy(prefix: &'static str, upstream: SocketAddr) -> SocketAddr {
    let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let addr = listener.local_addr().unwrap();
    std::thread::spawn(move || {
        for client in listener.incoming().flatten() {
            let _ = proxy_one(client, prefix, upstream);
        }
    });
    addr
}

fn proxy_one(mut client: TcpStream, prefix: &str, upstream: SocketAddr) -> std::io::Result<()> {
    client.set_read_timeout(Some(Duration::from_secs(10)))?;
    let mut head = Vec::new();
    let mut byte = [0u8; 1];
    while !head.ends_with(b"\r\n\r\n") && client.read(&mut byte)? == 1 {
        head.push(byte[0]);
    }
    let head = String::from_utf8_lossy(&head).into_owned();
    let (line, rest) = head.split_once("\r\n").unwrap_or((&head, ""));
    let mut parts = line.splitn(3, ' ');
    let (method, path, version) = (
        parts.next().unwrap_or(""),
        parts.next().unwrap_or(""),
        parts.next().unwrap_or(""),
    );
    let Some(inner) = path.strip_prefix(prefix).filter(|p| p.starts_with('/')) else {
        return client.write_all(
            b"HTTP/1.1 404 Not Found\r\nX-Proxy: outside\r\nContent-Length: 0\r\nConnection: close\r\n\r\n",
        );
    };
    let mut server = TcpStream::connect_timeout(&upstream, Duration::from_secs(5))?;
    server.set_read_timeout(Some(Duration::from_secs(10)))?;
    write!(server, "{method} {inner} {version}\r\n{rest}")?;
    let mut answer = Vec::new();
    server.read_to_end(&mut answer)?;
    client.write_all(&answer)
}

/// Where a browser goes for `href` on the page at `base` (a path ending in `/`): absolute paths
/// as they are, relative ones (`./x`, `x`) under `base`.
pub fn resolve(base: &str, href: &str) -> String {
    if href.starts_with('/') {
        return href.to_string();
    }
    format!("{base}{}", href.strip_prefix("./").unwrap_or(href))
}

/// The `href` values of the links on an HTML page.
pub fn links(html: &str) -> Vec<String> {
    html.split("href=\"")
        .skip(1)
        .filter_map(|rest| rest.split_once('"'))
        .map(|(href, _)| href.replace("&amp;", "&"))
        .collect()
}
