//! The checked `tls_server_config` turned into a rustls server configuration (ring provider).
//!
//! Owns loading the PEM certificate chain, private key and client CAs, and the mapping of
//! exporter-toolkit's client-auth policies onto rustls verifiers. `RequireAndVerifyClientCert`
//! and `VerifyClientCertIfGiven` verify the chain against the client CA; `RequestClientCert`
//! and `RequireAnyClientCert` only check that the client holds the key of whatever certificate
//! it sends (as Go's do): they authenticate nobody.
//!
//! **Not here:** parsing the config file ([`super::config`]), the handshake timeout and the
//! accept loop ([`super::server`]).
//!
//! Cost: cold: everything is loaded at start-up; after that, at most once a second a handshake
//! checks the certificate files' modification times and reloads them if they changed (the client
//! CA is not reloaded: restart for that). TLS 1.2 and 1.3 only (rustls); a `min_version` of TLS10 or TLS11
//! therefore means TLS12. The server speaks HTTP/1.1 only (ALPN `http/1.1`).

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
    match settings.client_auth {
        ClientAuth::NoClientCert => Ok(WebPkiClientVerifier::no_client_auth()),
        ClientAuth::RequestClientCert => Ok(Arc::new(UnverifiedClientCert {
            mandatory: false,
            provider: provider.clone(),
        })),
        ClientAuth::RequireAnyClientCert => Ok(Arc::new(UnverifiedClientCert {
            mandatory: true,
            provider: provider.clone(),
        })),
        ClientAuth::VerifyClientCertIfGiven => verified(true),
        ClientAuth::RequireAndVerifyClientCert => verified(false),
    }
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
