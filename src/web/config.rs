//! `--web.config.file`: the YAML web configuration shared by Prometheus exporters
//! (exporter-toolkit's format), turned into checked settings for TLS, basic auth and extra
//! response headers.
//!
//! Owns the file format and its validation: unknown keys are errors (as exporter-toolkit's strict
//! parsing), relative file names are taken from the config file's directory, every bcrypt hash
//! must parse, and only the headers exporter-toolkit allows may be set. A setting of that format
//! this exporter cannot honour (`cipher_suites`, `curve_preferences`, `client_allowed_sans`, a
//! non-zero `rate_limit`) is an error, never silently ignored: a security setting that looks
//! applied but is not is worse than a refusal.
//!
//! **Not here:** loading certificates and building the TLS configuration ([`super::tls`]),
//! checking passwords ([`super::auth`]).
//!
//! Cost: read once at start-up. By default (no file) the server speaks plain HTTP without
//! authentication; with a file but no `tls_server_config` it speaks plain HTTP with basic auth.
//! Unlike exporter-toolkit the file itself is not read again per request (restart to change users,
//! headers or policies); the certificate and key files it names are reloaded when they change
//! ([`super::tls`]).

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use hyper::header::{HeaderName, HeaderValue};
use serde::Deserialize;

/// Why the web config file cannot be used. Every message names the file and says the cause
/// once: the cause is part of the sentence, not a chained source, which the start-up error
/// (printed with its chain) would repeat after it.
#[derive(Debug, thiserror::Error)]
pub enum WebConfigError {
    #[error("cannot read --web.config.file {}: {cause}", path.display())]
    Read {
        path: PathBuf,
        cause: std::io::Error,
    },
    #[error("invalid --web.config.file {}: {cause}", path.display())]
    Yaml {
        path: PathBuf,
        cause: yaml_serde::Error,
    },
    #[error("invalid --web.config.file {}: {problem}", path.display())]
    Invalid { path: PathBuf, problem: String },
}

/// The checked content of a web config file.
#[derive(Debug, Clone, Default)]
pub struct WebConfig {
    /// `None`: plain HTTP.
    pub tls: Option<TlsSettings>,
    /// User name → bcrypt hash; empty: no authentication.
    pub users: BTreeMap<String, String>,
    /// Added to every response (only names exporter-toolkit allows, non-blank values).
    pub headers: Vec<(HeaderName, HeaderValue)>,
}

/// PEM text, given inline or as a file (already resolved against the config's directory).
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Pem {
    Inline(String),
    File(PathBuf),
}

/// Which client certificates a TLS listener asks for, by exporter-toolkit's names (Go's
/// `tls.ClientAuthType`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ClientAuth {
    /// No certificate is asked for.
    NoClientCert,
    /// Asked for, not required, not verified.
    RequestClientCert,
    /// Required, not verified.
    RequireAnyClientCert,
    /// Verified against the client CA if one is sent.
    VerifyClientCertIfGiven,
    /// Required and verified against the client CA: the only setting that authenticates clients.
    RequireAndVerifyClientCert,
}

/// A TLS protocol version as the file names it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub enum TlsVersion {
    Tls10,
    Tls11,
    Tls12,
    Tls13,
}

/// The checked `tls_server_config`.
#[derive(Debug, Clone)]
pub struct TlsSettings {
    pub cert: Pem,
    pub key: Pem,
    /// Required for the two verifying client-auth types; refused with `NoClientCert`.
    pub client_ca: Option<Pem>,
    pub client_auth: ClientAuth,
    /// Lowest and highest version allowed; rustls speaks only TLS 1.2 and 1.3, so at least one of
    /// those lies in the range.
    pub min_version: TlsVersion,
    pub max_version: TlsVersion,
    /// `prefer_server_cipher_suites` (default true).
    pub prefer_server_order: bool,
}

/// The headers exporter-toolkit lets a config set, with their allowed values (empty: any).
const ALLOWED_HEADERS: &[(&str, &[&str])] = &[
    ("Strict-Transport-Security", &[]),
    ("X-Content-Type-Options", &["nosniff"]),
    ("X-Frame-Options", &["deny", "sameorigin"]),
    ("X-XSS-Protection", &[]),
    ("Content-Security-Policy", &[]),
];

#[derive(Debug, Default, Deserialize)]
#[serde(deny_unknown_fields, default)]
struct FileConfig {
    tls_server_config: TlsFile,
    http_server_config: HttpFile,
    basic_auth_users: Option<BTreeMap<String, String>>,
    rate_limit: Option<RateLimitFile>,
}

#[derive(Debug, Default, Deserialize)]
#[serde(deny_unknown_fields, default)]
struct TlsFile {
    cert: String,
    key: String,
    client_ca: String,
    cert_file: String,
    key_file: String,
    client_ca_file: String,
    client_auth_type: String,
    min_version: Option<String>,
    max_version: Option<String>,
    cipher_suites: Vec<String>,
    curve_preferences: Vec<String>,
    prefer_server_cipher_suites: Option<bool>,
    client_allowed_sans: Option<Vec<String>>,
}

#[derive(Debug, Default, Deserialize)]
#[serde(deny_unknown_fields, default)]
struct HttpFile {
    /// Accepted for compatibility; this server speaks HTTP/1.1 only.
    #[allow(dead_code)]
    http2: Option<bool>,
    headers: Option<BTreeMap<String, String>>,
}

#[derive(Debug, Default, Deserialize)]
#[serde(deny_unknown_fields, default)]
struct RateLimitFile {
    interval: Option<yaml_serde::Value>,
    #[allow(dead_code)]
    burst: Option<i64>,
}

impl WebConfig {
    /// Reads and checks the file at `path`.
    pub fn load(path: &Path) -> Result<WebConfig, WebConfigError> {
        let text = std::fs::read_to_string(path).map_err(|cause| WebConfigError::Read {
            path: path.to_path_buf(),
            cause,
        })?;
        let dir = path.parent().unwrap_or(Path::new("."));
        WebConfig::parse(&text, dir).map_err(|e| match e {
            ParseError::Yaml(cause) => WebConfigError::Yaml {
                path: path.to_path_buf(),
                cause,
            },
            ParseError::Invalid(problem) => WebConfigError::Invalid {
                path: path.to_path_buf(),
                problem,
            },
        })
    }

    /// Parses and checks `text`; relative file names are joined to `dir`.
    fn parse(text: &str, dir: &Path) -> Result<WebConfig, ParseError> {
        // An empty file (or one of comments only) is a valid, empty configuration.
        let file: Option<FileConfig> = yaml_serde::from_str(text).map_err(ParseError::Yaml)?;
        let file = file.unwrap_or_default();
        if let Some(rate) = &file.rate_limit {
            if rate.interval.as_ref().is_some_and(|i| !is_zero_duration(i)) {
                return Err(invalid(
                    "rate_limit is not supported by denials-exporter; remove it",
                ));
            }
        }
        let users = file.basic_auth_users.unwrap_or_default();
        for (user, hash) in &users {
            hash.parse::<bcrypt::HashParts>().map_err(|e| {
                invalid(format!(
                    "basic_auth_users: the password of {user:?} is not a bcrypt hash ({e})"
                ))
            })?;
        }
        Ok(WebConfig {
            tls: tls_settings(file.tls_server_config, dir)?,
            users,
            headers: headers(file.http_server_config.headers.unwrap_or_default())?,
        })
    }

    /// Whether basic auth protects every path.
    #[cfg(test)]
    pub fn has_users(&self) -> bool {
        !self.users.is_empty()
    }
}

enum ParseError {
    Yaml(yaml_serde::Error),
    Invalid(String),
}

fn invalid(problem: impl Into<String>) -> ParseError {
    ParseError::Invalid(problem.into())
}

/// `0`, `"0"`, `"0s"`: a Go duration of zero, which turns exporter-toolkit's rate limiter off.
fn is_zero_duration(value: &yaml_serde::Value) -> bool {
    match value {
        yaml_serde::Value::Null => true,
        yaml_serde::Value::Number(n) => n.as_f64() == Some(0.0),
        yaml_serde::Value::String(s) => s.trim_end_matches(['s', 'm', 'h']) == "0",
        _ => false,
    }
}

fn tls_settings(tls: TlsFile, dir: &Path) -> Result<Option<TlsSettings>, ParseError> {
    let enabled = [
        &tls.cert,
        &tls.key,
        &tls.client_ca,
        &tls.cert_file,
        &tls.key_file,
        &tls.client_ca_file,
        &tls.client_auth_type,
    ]
    .iter()
    .any(|s| !s.is_empty());
    if !enabled {
        return Ok(None);
    }
    if !tls.cipher_suites.is_empty() || !tls.curve_preferences.is_empty() {
        return Err(invalid(
            "tls_server_config: cipher_suites and curve_preferences are not supported \
             (rustls uses its own safe defaults); remove them",
        ));
    }
    if tls.client_allowed_sans.is_some() {
        return Err(invalid(
            "tls_server_config: client_allowed_sans is not supported; \
             issue client certificates from a CA only for allowed clients",
        ));
    }
    let cert = pem(&tls.cert, &tls.cert_file, "cert", dir)?
        .ok_or_else(|| invalid("tls_server_config: missing one of cert or cert_file"))?;
    let key = pem(&tls.key, &tls.key_file, "key", dir)?
        .ok_or_else(|| invalid("tls_server_config: missing one of key or key_file"))?;
    let client_ca = pem(&tls.client_ca, &tls.client_ca_file, "client_ca", dir)?;
    let client_auth = match tls.client_auth_type.as_str() {
        "" | "NoClientCert" => ClientAuth::NoClientCert,
        "RequestClientCert" => ClientAuth::RequestClientCert,
        // "RequireClientCert" is exporter-toolkit's older name for the same policy.
        "RequireAnyClientCert" | "RequireClientCert" => ClientAuth::RequireAnyClientCert,
        "VerifyClientCertIfGiven" => ClientAuth::VerifyClientCertIfGiven,
        "RequireAndVerifyClientCert" => ClientAuth::RequireAndVerifyClientCert,
        other => {
            return Err(invalid(format!(
                "tls_server_config: invalid client_auth_type {other:?}; expected one of \
                 NoClientCert, RequestClientCert, RequireAnyClientCert, \
                 VerifyClientCertIfGiven, RequireAndVerifyClientCert"
            )))
        }
    };
    match (client_auth, client_ca.is_some()) {
        (ClientAuth::NoClientCert, true) => {
            return Err(invalid(
                "tls_server_config: client_ca_file is set but client_auth_type is NoClientCert; \
                 set client_auth_type: RequireAndVerifyClientCert",
            ))
        }
        (ClientAuth::VerifyClientCertIfGiven | ClientAuth::RequireAndVerifyClientCert, false) => {
            return Err(invalid(format!(
                "tls_server_config: client_auth_type {} needs client_ca_file (or client_ca)",
                tls.client_auth_type
            )))
        }
        _ => {}
    }
    let min_version = version(tls.min_version.as_deref(), TlsVersion::Tls12, "min_version")?;
    let max_version = version(tls.max_version.as_deref(), TlsVersion::Tls13, "max_version")?;
    if max_version < TlsVersion::Tls12 || min_version > max_version {
        return Err(invalid(format!(
            "tls_server_config: no TLS version left between min_version {min_version:?} and \
             max_version {max_version:?} (TLS12 and TLS13 are supported)"
        )));
    }
    Ok(Some(TlsSettings {
        cert,
        key,
        client_ca,
        client_auth,
        min_version,
        max_version,
        prefer_server_order: tls.prefer_server_cipher_suites.unwrap_or(true),
    }))
}

/// The inline text or the file (joined to `dir`) of one PEM setting; both set is an error.
fn pem(inline: &str, file: &str, name: &str, dir: &Path) -> Result<Option<Pem>, ParseError> {
    match (inline.is_empty(), file.is_empty()) {
        (true, true) => Ok(None),
        (false, true) => Ok(Some(Pem::Inline(inline.to_string()))),
        (true, false) => Ok(Some(Pem::File(dir.join(file)))),
        (false, false) => Err(invalid(format!(
            "tls_server_config: set {name} or {name}_file, not both"
        ))),
    }
}

fn version(value: Option<&str>, default: TlsVersion, key: &str) -> Result<TlsVersion, ParseError> {
    match value {
        None | Some("") => Ok(default),
        Some("TLS10") => Ok(TlsVersion::Tls10),
        Some("TLS11") => Ok(TlsVersion::Tls11),
        Some("TLS12") => Ok(TlsVersion::Tls12),
        Some("TLS13") => Ok(TlsVersion::Tls13),
        Some(other) => Err(invalid(format!(
            "tls_server_config: invalid {key} {other:?}; expected TLS10, TLS11, TLS12 or TLS13"
        ))),
    }
}

fn headers(
    configured: BTreeMap<String, String>,
) -> Result<Vec<(HeaderName, HeaderValue)>, ParseError> {
    let mut out = Vec::new();
    for (name, value) in configured {
        let Some((_, allowed)) = ALLOWED_HEADERS.iter().find(|(n, _)| *n == name) else {
            return Err(invalid(format!(
                "http_server_config: header {name:?} can not be configured (allowed: {})",
                ALLOWED_HEADERS
                    .iter()
                    .map(|(n, _)| *n)
                    .collect::<Vec<_>>()
                    .join(", ")
            )));
        };
        if value.is_empty() {
            continue; // "Unset if blank."
        }
        if !allowed.is_empty() && !allowed.contains(&value.as_str()) {
            return Err(invalid(format!(
                "http_server_config: invalid value {value:?} for header {name}; expected one of {allowed:?}"
            )));
        }
        let header_value = HeaderValue::from_str(&value).map_err(|_| {
            invalid(format!(
                "http_server_config: the value of header {name} is not a valid header value"
            ))
        })?;
        let header_name = HeaderName::from_bytes(name.as_bytes()).expect("allowed names are valid");
        out.push((header_name, header_value));
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    const HASH: &str = "$2y$10$X0h1gDsPszWURQaxFh.zoubFi6DXncSjhoQNJgRrnGs7EsimhC7zG";

    fn parse(text: &str) -> Result<WebConfig, String> {
        WebConfig::parse(text, Path::new("/etc/x")).map_err(|e| match e {
            ParseError::Yaml(e) => e.to_string(),
            ParseError::Invalid(p) => p,
        })
    }

    #[test]
    fn empty_files_mean_plain_http_without_auth() {
        for text in [
            "",
            "# nothing\n",
            "tls_server_config: {}\n",
            "basic_auth_users:\n",
        ] {
            let config = parse(text).unwrap_or_else(|e| panic!("{text:?}: {e}"));
            assert!(config.tls.is_none() && !config.has_users(), "{text:?}");
        }
    }

    #[test]
    fn valid_cases() {
        let config = parse(&format!(
            "tls_server_config:\n  cert_file: server.crt\n  key_file: /abs/server.key\n  \
             client_ca_file: ca.crt\n  client_auth_type: RequireAndVerifyClientCert\n  \
             min_version: TLS13\n\
             http_server_config:\n  http2: false\n  headers:\n    X-Frame-Options: deny\n    \
             Strict-Transport-Security: max-age=31536000\n    X-XSS-Protection: \"\"\n\
             basic_auth_users:\n  alice: {HASH}\n"
        ))
        .unwrap();
        let tls = config.tls.unwrap();
        assert_eq!(tls.cert, Pem::File("/etc/x/server.crt".into()));
        assert_eq!(tls.key, Pem::File("/abs/server.key".into()));
        assert_eq!(tls.client_ca, Some(Pem::File("/etc/x/ca.crt".into())));
        assert_eq!(tls.client_auth, ClientAuth::RequireAndVerifyClientCert);
        assert_eq!(
            (tls.min_version, tls.max_version),
            (TlsVersion::Tls13, TlsVersion::Tls13)
        );
        assert_eq!(config.users.get("alice").map(String::as_str), Some(HASH));
        let names: Vec<&str> = config.headers.iter().map(|(n, _)| n.as_str()).collect();
        assert_eq!(names, ["strict-transport-security", "x-frame-options"]);

        let inline = parse("tls_server_config:\n  cert: \"-----BEGIN\"\n  key: k\n").unwrap();
        assert_eq!(inline.tls.unwrap().cert, Pem::Inline("-----BEGIN".into()));
        assert!(parse("rate_limit:\n  interval: 0s\n  burst: 3\n").is_ok());
    }

    #[test]
    fn invalid_cases() {
        let cases: &[(&str, &str)] = &[
            ("tls_server_config:\n  cert_file: a\n", "missing one of key or key_file"),
            ("tls_server_config:\n  key_file: a\n", "missing one of cert or cert_file"),
            (
                "tls_server_config:\n  cert_file: a\n  cert: b\n  key_file: k\n",
                "set cert or cert_file, not both",
            ),
            (
                "tls_server_config:\n  cert_file: a\n  key_file: b\n  client_auth_type: Bogus\n",
                "invalid client_auth_type \"Bogus\"",
            ),
            (
                "tls_server_config:\n  cert_file: a\n  key_file: b\n  client_ca_file: c\n",
                "client_auth_type is NoClientCert",
            ),
            (
                "tls_server_config:\n  cert_file: a\n  key_file: b\n  client_auth_type: RequireAndVerifyClientCert\n",
                "needs client_ca_file",
            ),
            (
                "tls_server_config:\n  cert_file: a\n  key_file: b\n  max_version: TLS11\n",
                "no TLS version left",
            ),
            (
                "tls_server_config:\n  cert_file: a\n  key_file: b\n  min_version: TLS14\n",
                "invalid min_version \"TLS14\"",
            ),
            (
                "tls_server_config:\n  cert_file: a\n  key_file: b\n  cipher_suites: [TLS_AES_128_GCM_SHA256]\n",
                "cipher_suites and curve_preferences are not supported",
            ),
            (
                "tls_server_config:\n  cert_file: a\n  key_file: b\n  client_allowed_sans: [x]\n",
                "client_allowed_sans is not supported",
            ),
            ("basic_auth_users:\n  bob: plaintext\n", "\"bob\" is not a bcrypt hash"),
            (
                "http_server_config:\n  headers:\n    Content-Type: text/html\n",
                "header \"Content-Type\" can not be configured",
            ),
            (
                "http_server_config:\n  headers:\n    X-Content-Type-Options: sniff\n",
                "invalid value \"sniff\" for header X-Content-Type-Options",
            ),
            ("rate_limit:\n  interval: 1s\n", "rate_limit is not supported"),
            ("tls_server_config:\n  certfile: a\n", "unknown field `certfile`"),
            ("nonsense: 1\n", "unknown field `nonsense`"),
            ("- a list\n", "invalid type"),
        ];
        for (text, want) in cases {
            match parse(text) {
                Ok(c) => panic!("{text:?} was accepted: {c:?}"),
                Err(e) => assert!(e.contains(want), "{text:?}: {e}"),
            }
        }
    }

    #[test]
    fn errors_name_the_file() {
        let dir = tempfile::tempdir().unwrap();
        let missing = dir.path().join("missing.yml");
        let e = WebConfig::load(&missing).unwrap_err().to_string();
        assert!(
            e.starts_with(&format!(
                "cannot read --web.config.file {}",
                missing.display()
            )),
            "{e}"
        );
        let bad = dir.path().join("bad.yml");
        std::fs::write(&bad, "basic_auth_users:\n  bob: x\n").unwrap();
        let e = WebConfig::load(&bad).unwrap_err().to_string();
        assert!(
            e.starts_with(&format!("invalid --web.config.file {}", bad.display())),
            "{e}"
        );
        assert_eq!(e.lines().count(), 1, "{e}");
    }
}
