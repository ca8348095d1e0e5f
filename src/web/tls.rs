//! The checked `tls_server_config` turned into a rustls server configuration (ring provider).
//!
//! Owns loading the PEM certificate chain, private key and client CAs, and the mapping of
//! exporter-toolkit's client-auth policies onto rustls verifiers. `RequireAndVerifyClientCert`
//! and `VerifyClientCertIfGiven` verify the chain against the client CA; `RequestClientCert`
//! and `RequireAnyClientCert` only check that the client holds the key of whatever certificate
//! it sends (as Go's do): they authenticate nobody.
//!
//! Also owns why handshakes fail ([`HandshakeFailure`], [`HANDSHAKE_ERRORS`]): every client
//! certificate verifier is wrapped so that a refused certificate is counted by reason and logged
//! at warn (at most one line per 10 s, with how many were not logged); rustls itself only tells
//! the client. Client certificates must be X.509 v3 (webpki refuses v1, which Go accepts).
//!
//! **Not here:** parsing the config file ([`super::config`]), the handshake timeout and the
//! accept loop ([`super::server`]).
//!
//! Cost: cold: everything is loaded at start-up; after that, at most once a second a handshake
//! checks the certificate files' modification times and reloads them if they changed (the client
//! CA is not reloaded: restart for that). TLS 1.2 and 1.3 only (rustls); a `min_version` of TLS10 or TLS11
//! therefore means TLS12. The server speaks HTTP/1.1 only (ALPN `http/1.1`).

use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant, SystemTime};

use rustls::client::danger::HandshakeSignatureValid;
use rustls::crypto::{ring, verify_tls12_signature, verify_tls13_signature, CryptoProvider};
use rustls::pki_types::pem::PemObject;
use rustls::pki_types::{CertificateDer, PrivateKeyDer, UnixTime};
use rustls::server::danger::{ClientCertVerified, ClientCertVerifier};
use rustls::server::{ClientHello, ResolvesServerCert, WebPkiClientVerifier};
use rustls::sign::CertifiedKey;
use rustls::{
    DigitallySignedStruct, DistinguishedName, RootCertStore, ServerConfig, SignatureScheme,
};

use tracing::{info, warn};

use super::config::{ClientAuth, Pem, TlsSettings, TlsVersion};

/// Why TLS cannot be set up; the message names the file or setting.
#[derive(Debug, thiserror::Error)]
pub enum TlsError {
    #[error("cannot load {what} from {source_name}: {problem}")]
    Load {
        what: &'static str,
        source_name: String,
        problem: String,
    },
    #[error("invalid TLS settings: {0}")]
    Config(String),
}

/// Builds the server configuration, loading every certificate and key now, so that a bad file
/// stops the start-up instead of failing every handshake.
pub fn server_config(settings: &TlsSettings) -> Result<Arc<ServerConfig>, TlsError> {
    let provider = Arc::new(ring::default_provider());
    let server_cert = ReloadingCert::new(settings, provider.clone())?;
    let versions: Vec<&'static rustls::SupportedProtocolVersion> = [
        (TlsVersion::Tls12, &rustls::version::TLS12),
        (TlsVersion::Tls13, &rustls::version::TLS13),
    ]
    .into_iter()
    .filter(|(v, _)| (settings.min_version..=settings.max_version).contains(v))
    .map(|(_, v)| v)
    .collect();
    let verifier = client_verifier(settings, &provider)?;
    let mut config = ServerConfig::builder_with_provider(provider)
        .with_protocol_versions(&versions)
        .map_err(|e| TlsError::Config(e.to_string()))?
        .with_client_cert_verifier(verifier)
        .with_cert_resolver(Arc::new(server_cert));
    config.alpn_protocols = vec![b"http/1.1".to_vec()];
    config.ignore_client_order = settings.prefer_server_order;
    Ok(Arc::new(config))
}

fn client_verifier(
    settings: &TlsSettings,
    provider: &Arc<CryptoProvider>,
) -> Result<Arc<dyn ClientCertVerifier>, TlsError> {
    let roots = || -> Result<Arc<RootCertStore>, TlsError> {
        let pem = settings.client_ca.as_ref().ok_or_else(|| {
            TlsError::Config("client certificates are verified but no client CA is set".into())
        })?;
        let mut store = RootCertStore::empty();
        for cert in load_certs(pem, "the client CA")? {
            store.add(cert).map_err(|e| TlsError::Load {
                what: "the client CA",
                source_name: source_name(pem),
                problem: e.to_string(),
            })?;
        }
        Ok(Arc::new(store))
    };
    let verified = |optional: bool| {
        let builder = WebPkiClientVerifier::builder_with_provider(roots()?, provider.clone());
        let builder = if optional {
            builder.allow_unauthenticated()
        } else {
            builder
        };
        builder
            .build()
            .map_err(|e| TlsError::Config(format!("client CA: {e}")))
    };
    let verifier: Arc<dyn ClientCertVerifier> = match settings.client_auth {
        ClientAuth::NoClientCert => return Ok(WebPkiClientVerifier::no_client_auth()),
        ClientAuth::RequestClientCert => Arc::new(UnverifiedClientCert {
            mandatory: false,
            provider: provider.clone(),
        }),
        ClientAuth::RequireAnyClientCert => Arc::new(UnverifiedClientCert {
            mandatory: true,
            provider: provider.clone(),
        }),
        ClientAuth::VerifyClientCertIfGiven => verified(true)?,
        ClientAuth::RequireAndVerifyClientCert => verified(false)?,
    };
    Ok(Arc::new(Reporting { inner: verifier }))
}

fn source_name(pem: &Pem) -> String {
    match pem {
        Pem::Inline(_) => "the inline PEM".into(),
        Pem::File(path) => path.display().to_string(),
    }
}

fn pem_bytes(pem: &Pem, what: &'static str) -> Result<Vec<u8>, TlsError> {
    match pem {
        Pem::Inline(text) => Ok(text.as_bytes().to_vec()),
        Pem::File(path) => std::fs::read(path).map_err(|e| TlsError::Load {
            what,
            source_name: source_name(pem),
            problem: e.to_string(),
        }),
    }
}

fn load_certs(pem: &Pem, what: &'static str) -> Result<Vec<CertificateDer<'static>>, TlsError> {
    let bytes = pem_bytes(pem, what)?;
    let fail = |problem: String| TlsError::Load {
        what,
        source_name: source_name(pem),
        problem,
    };
    let certs = CertificateDer::pem_slice_iter(&bytes)
        .collect::<Result<Vec<_>, _>>()
        .map_err(|e| fail(e.to_string()))?;
    if certs.is_empty() {
        return Err(fail("no PEM certificate found".into()));
    }
    Ok(certs)
}

fn load_key(pem: &Pem) -> Result<PrivateKeyDer<'static>, TlsError> {
    let bytes = pem_bytes(pem, "the private key")?;
    PrivateKeyDer::from_pem_slice(&bytes).map_err(|e| TlsError::Load {
        what: "the private key",
        source_name: source_name(pem),
        problem: e.to_string(),
    })
}

/// The server's certificate and key, loaded and checked against each other.
fn certified_key(
    cert: &Pem,
    key: &Pem,
    provider: &CryptoProvider,
) -> Result<Arc<CertifiedKey>, TlsError> {
    let certs = load_certs(cert, "the certificate")?;
    let key = load_key(key)?;
    CertifiedKey::from_der(certs, key, provider)
        .map(Arc::new)
        .map_err(|e| TlsError::Config(format!("the certificate and key do not match: {e}")))
}

/// The server certificate, loaded again when its files change (checked at most once a second,
/// at a handshake), so a renewed certificate — cert-manager, a rotated Kubernetes Secret — is
/// served without a restart, as exporter-toolkit does. A pair that fails to load (half written,
/// or not matching) is logged and the previous one stays in use.
#[derive(Debug)]
struct ReloadingCert {
    cert: Pem,
    key: Pem,
    provider: Arc<CryptoProvider>,
    loaded: Mutex<LoadedCert>,
}

#[derive(Debug)]
struct LoadedCert {
    key: Arc<CertifiedKey>,
    /// Modification times of the two files when last loaded (or tried).
    stamp: Vec<Option<SystemTime>>,
    checked: Instant,
}

/// How often at most the certificate files are checked for a change.
const CERT_CHECK_INTERVAL: Duration = Duration::from_secs(1);

impl ReloadingCert {
    fn new(
        settings: &TlsSettings,
        provider: Arc<CryptoProvider>,
    ) -> Result<ReloadingCert, TlsError> {
        let (cert, key) = (settings.cert.clone(), settings.key.clone());
        let stamp = stamp(&[&cert, &key]);
        let loaded = certified_key(&cert, &key, &provider)?;
        Ok(ReloadingCert {
            cert,
            key,
            provider,
            loaded: Mutex::new(LoadedCert {
                key: loaded,
                stamp,
                checked: Instant::now(),
            }),
        })
    }
}

impl ResolvesServerCert for ReloadingCert {
    fn resolve(&self, _hello: ClientHello<'_>) -> Option<Arc<CertifiedKey>> {
        let mut loaded = self.loaded.lock().expect("certificate lock");
        if loaded.checked.elapsed() >= CERT_CHECK_INTERVAL {
            loaded.checked = Instant::now();
            let stamp = stamp(&[&self.cert, &self.key]);
            if stamp != loaded.stamp {
                loaded.stamp = stamp;
                match certified_key(&self.cert, &self.key, &self.provider) {
                    Ok(key) => {
                        loaded.key = key;
                        info!("TLS certificate reloaded");
                    }
                    Err(error) => {
                        warn!(%error, "cannot reload the TLS certificate; keeping the previous one")
                    }
                }
            }
        }
        Some(loaded.key.clone())
    }
}

/// Why a TLS handshake failed: a closed set, the `reason` label of
/// `denials_exporter_tls_handshake_errors_total`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum HandshakeFailure {
    /// A client certificate that is not X.509 v3 (`openssl x509 -req` without extensions makes
    /// a v1 one, which Go accepts and rustls refuses).
    CertificateNotV3,
    CertificateUnknownIssuer,
    /// Expired or not valid yet.
    CertificateExpired,
    CertificateRevoked,
    /// Any other refusal of a client certificate (encoding, signature, purpose…).
    CertificateInvalid,
    /// Failed before or after the client certificate was checked (protocol version, ciphers, no
    /// certificate sent, timeout, connection closed); the error is logged at debug.
    Other,
}

impl HandshakeFailure {
    pub const ALL: [HandshakeFailure; 6] = [
        HandshakeFailure::CertificateNotV3,
        HandshakeFailure::CertificateUnknownIssuer,
        HandshakeFailure::CertificateExpired,
        HandshakeFailure::CertificateRevoked,
        HandshakeFailure::CertificateInvalid,
        HandshakeFailure::Other,
    ];

    pub fn label(self) -> &'static str {
        match self {
            HandshakeFailure::CertificateNotV3 => "certificate_not_v3",
            HandshakeFailure::CertificateUnknownIssuer => "certificate_unknown_issuer",
            HandshakeFailure::CertificateExpired => "certificate_expired",
            HandshakeFailure::CertificateRevoked => "certificate_revoked",
            HandshakeFailure::CertificateInvalid => "certificate_invalid",
            HandshakeFailure::Other => "other",
        }
    }

    /// The reason of a client certificate's refusal by the verifier.
    fn of_certificate(error: &rustls::Error) -> HandshakeFailure {
        use rustls::CertificateError as E;
        match error {
            rustls::Error::InvalidCertificate(e) => match e {
                E::UnknownIssuer => HandshakeFailure::CertificateUnknownIssuer,
                E::Expired
                | E::ExpiredContext { .. }
                | E::NotValidYet
                | E::NotValidYetContext { .. } => HandshakeFailure::CertificateExpired,
                E::Revoked => HandshakeFailure::CertificateRevoked,
                // webpki's `UnsupportedCertVersion` has no variant of its own in rustls.
                E::Other(other) if other.to_string().contains("UnsupportedCertVersion") => {
                    HandshakeFailure::CertificateNotV3
                }
                _ => HandshakeFailure::CertificateInvalid,
            },
            _ => HandshakeFailure::CertificateInvalid,
        }
    }
}

/// Failed handshakes by reason, for the whole process (one process serves one TLS
/// configuration). The verifier counts a refused certificate when it refuses it; the accept loop
/// reports every failed handshake ([`HandshakeErrors::failed`]), which is counted as `other`
/// unless the verifier already counted it.
#[derive(Debug)]
pub struct HandshakeErrors {
    by_reason: [AtomicU64; 6],
    /// Certificate refusals counted whose handshake failure was not yet reported.
    unreported: AtomicU64,
    log: RateLimited,
}

/// The failed TLS handshakes of this process.
pub static HANDSHAKE_ERRORS: HandshakeErrors = HandshakeErrors {
    by_reason: [const { AtomicU64::new(0) }; 6],
    unreported: AtomicU64::new(0),
    log: RateLimited::new(),
};

impl HandshakeErrors {
    /// (reason, count) for every reason, in [`HandshakeFailure::ALL`] order.
    pub fn counts(&self) -> impl Iterator<Item = (&'static str, u64)> + '_ {
        HandshakeFailure::ALL
            .iter()
            .zip(&self.by_reason)
            .map(|(reason, n)| (reason.label(), n.load(Ordering::Relaxed)))
    }

    fn count(&self, reason: HandshakeFailure) {
        let index = HandshakeFailure::ALL
            .iter()
            .position(|r| *r == reason)
            .expect("every reason is in ALL");
        self.by_reason[index].fetch_add(1, Ordering::Relaxed);
    }

    /// A client certificate was refused: counted and logged (at most once per
    /// [`RateLimited::INTERVAL`], with how many were not logged).
    fn refused_certificate(&self, error: &rustls::Error) {
        let reason = HandshakeFailure::of_certificate(error);
        self.count(reason);
        self.unreported.fetch_add(1, Ordering::Relaxed);
        if let Some(suppressed) = self.log.allow() {
            warn!(
                reason = reason.label(),
                %error,
                not_logged_since_last = suppressed,
                "TLS handshake failed: client certificate refused (client certificates must be X.509 v3)"
            );
        }
    }

    /// A handshake failed or timed out (called by the accept loop for every failure).
    pub fn failed(&self) {
        let already_counted = self
            .unreported
            .fetch_update(Ordering::Relaxed, Ordering::Relaxed, |n| n.checked_sub(1))
            .is_ok();
        if already_counted {
            return;
        }
        self.count(HandshakeFailure::Other);
        if let Some(suppressed) = self.log.allow() {
            warn!(
                reason = HandshakeFailure::Other.label(),
                not_logged_since_last = suppressed,
                "TLS handshake failed or timed out (protocol version, ciphers, no client \
                 certificate, or the client gave up; the error is logged at debug)"
            );
        }
    }
}

/// Lets one log line through per [`RateLimited::INTERVAL`] and counts the others.
#[derive(Debug)]
struct RateLimited {
    last: Mutex<Option<Instant>>,
    suppressed: AtomicU64,
}

impl RateLimited {
    const INTERVAL: Duration = Duration::from_secs(10);

    const fn new() -> RateLimited {
        RateLimited {
            last: Mutex::new(None),
            suppressed: AtomicU64::new(0),
        }
    }

    /// `Some(lines not logged since the last one)` when a line may be logged now.
    fn allow(&self) -> Option<u64> {
        let mut last = self.last.lock().expect("rate limit lock");
        if last.is_some_and(|at| at.elapsed() < Self::INTERVAL) {
            self.suppressed.fetch_add(1, Ordering::Relaxed);
            return None;
        }
        *last = Some(Instant::now());
        Some(self.suppressed.swap(0, Ordering::Relaxed))
    }
}

/// Every client certificate verifier, wrapped: a refusal is counted and logged with its reason
/// (rustls itself only tells the client).
#[derive(Debug)]
struct Reporting {
    inner: Arc<dyn ClientCertVerifier>,
}

impl ClientCertVerifier for Reporting {
    fn offer_client_auth(&self) -> bool {
        self.inner.offer_client_auth()
    }

    fn client_auth_mandatory(&self) -> bool {
        self.inner.client_auth_mandatory()
    }

    fn root_hint_subjects(&self) -> &[DistinguishedName] {
        self.inner.root_hint_subjects()
    }

    fn verify_client_cert(
        &self,
        end_entity: &CertificateDer<'_>,
        intermediates: &[CertificateDer<'_>],
        now: UnixTime,
    ) -> Result<ClientCertVerified, rustls::Error> {
        self.inner
            .verify_client_cert(end_entity, intermediates, now)
            .inspect_err(|error| HANDSHAKE_ERRORS.refused_certificate(error))
    }

    fn verify_tls12_signature(
        &self,
        message: &[u8],
        cert: &CertificateDer<'_>,
        dss: &DigitallySignedStruct,
    ) -> Result<HandshakeSignatureValid, rustls::Error> {
        self.inner.verify_tls12_signature(message, cert, dss)
    }

    fn verify_tls13_signature(
        &self,
        message: &[u8],
        cert: &CertificateDer<'_>,
        dss: &DigitallySignedStruct,
    ) -> Result<HandshakeSignatureValid, rustls::Error> {
        self.inner.verify_tls13_signature(message, cert, dss)
    }

    fn supported_verify_schemes(&self) -> Vec<SignatureScheme> {
        self.inner.supported_verify_schemes()
    }

    fn requires_raw_public_keys(&self) -> bool {
        self.inner.requires_raw_public_keys()
    }
}

/// Modification times of the PEM files (`None` for inline PEM or an unreadable file).
fn stamp(pems: &[&Pem]) -> Vec<Option<SystemTime>> {
    pems.iter()
        .map(|pem| match pem {
            Pem::Inline(_) => None,
            Pem::File(path) => std::fs::metadata(path).and_then(|m| m.modified()).ok(),
        })
        .collect()
}

/// `RequestClientCert` / `RequireAnyClientCert`: any certificate is accepted, as long as the
/// client proves it holds its key. Not an authentication: exporter-toolkit's docs call these
/// insecure, and so do we.
#[derive(Debug)]
struct UnverifiedClientCert {
    mandatory: bool,
    provider: Arc<CryptoProvider>,
}

impl ClientCertVerifier for UnverifiedClientCert {
    fn client_auth_mandatory(&self) -> bool {
        self.mandatory
    }

    fn root_hint_subjects(&self) -> &[DistinguishedName] {
        &[]
    }

    fn verify_client_cert(
        &self,
        _end_entity: &CertificateDer<'_>,
        _intermediates: &[CertificateDer<'_>],
        _now: UnixTime,
    ) -> Result<ClientCertVerified, rustls::Error> {
        Ok(ClientCertVerified::assertion())
    }

    fn verify_tls12_signature(
        &self,
        message: &[u8],
        cert: &CertificateDer<'_>,
        dss: &DigitallySignedStruct,
    ) -> Result<HandshakeSignatureValid, rustls::Error> {
        verify_tls12_signature(
            message,
            cert,
            dss,
            &self.provider.signature_verification_algorithms,
        )
    }

    fn verify_tls13_signature(
        &self,
        message: &[u8],
        cert: &CertificateDer<'_>,
        dss: &DigitallySignedStruct,
    ) -> Result<HandshakeSignatureValid, rustls::Error> {
        verify_tls13_signature(
            message,
            cert,
            dss,
            &self.provider.signature_verification_algorithms,
        )
    }

    fn supported_verify_schemes(&self) -> Vec<SignatureScheme> {
        self.provider
            .signature_verification_algorithms
            .supported_schemes()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn certificate_refusals_map_to_a_closed_set_of_reasons() {
        use rustls::CertificateError as E;
        let of = |e: E| HandshakeFailure::of_certificate(&rustls::Error::InvalidCertificate(e));
        assert_eq!(
            of(E::UnknownIssuer),
            HandshakeFailure::CertificateUnknownIssuer
        );
        assert_eq!(of(E::Expired), HandshakeFailure::CertificateExpired);
        assert_eq!(of(E::Revoked), HandshakeFailure::CertificateRevoked);
        assert_eq!(of(E::BadEncoding), HandshakeFailure::CertificateInvalid);
        let v1 = rustls::OtherError(Arc::new(webpki_error_text("UnsupportedCertVersion")));
        assert_eq!(of(E::Other(v1)), HandshakeFailure::CertificateNotV3);
    }

    /// An error displayed as webpki's is (its `Debug` name).
    fn webpki_error_text(name: &'static str) -> impl std::error::Error + Send + Sync {
        #[derive(Debug)]
        struct Named(&'static str);
        impl std::fmt::Display for Named {
            fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
                f.write_str(self.0)
            }
        }
        impl std::error::Error for Named {}
        Named(name)
    }

    #[test]
    fn a_rate_limited_log_lets_one_line_through_and_counts_the_rest() {
        let log = RateLimited::new();
        assert_eq!(log.allow(), Some(0));
        assert_eq!(log.allow(), None);
        assert_eq!(log.allow(), None);
        *log.last.lock().unwrap() = Some(Instant::now() - RateLimited::INTERVAL);
        assert_eq!(log.allow(), Some(2));
    }
}
