//! Whether a JWT is one of the examples published with a secret for anyone to check it: its
//! HMAC signature verifies under a secret that jwt.io prints beside its debugger's tokens.
//! Such a token can be forged by anyone, so it authenticates no one and is no secret.
//!
//! Not here: finding JWTs (`rules`), the other stand-ins (`stand_ins`).
//!
//! Cost: cold, once per JWT match: a base64 decode, a small JSON parse and at most two HMACs.

use base64::engine::general_purpose::URL_SAFE_NO_PAD;
use base64::Engine;
use ring::hmac;

/// The HMAC secrets jwt.io publishes for its example tokens (the debugger's default token and
/// its HS384/HS512 variants, past and present).
const PUBLISHED_SECRETS: &[&[u8]] = &[
    b"your-256-bit-secret",
    b"a-string-secret-at-least-256-bits-long",
];

/// Whether `token` (`header.payload.signature`, base64url) is signed with HS256, HS384 or HS512
/// under one of [`PUBLISHED_SECRETS`]. Anything else (another algorithm, a secret not
/// published, a signature that does not verify, a string that is no JWT) is `false`.
pub(super) fn signed_with_published_secret(token: &str) -> bool {
    let token = token.trim_end_matches('=');
    let Some((signed, signature)) = token.rsplit_once('.') else {
        return false;
    };
    let Some((header, _payload)) = signed.split_once('.') else {
        return false;
    };
    let (Ok(header), Ok(signature)) = (
        URL_SAFE_NO_PAD.decode(header.trim_end_matches('=')),
        URL_SAFE_NO_PAD.decode(signature),
    ) else {
        return false;
    };
    let Ok(header) = serde_json::from_slice::<serde_json::Value>(&header) else {
        return false;
    };
    let algorithm = match header.get("alg").and_then(serde_json::Value::as_str) {
        Some("HS256") => hmac::HMAC_SHA256,
        Some("HS384") => hmac::HMAC_SHA384,
        Some("HS512") => hmac::HMAC_SHA512,
        _ => return false,
    };
    PUBLISHED_SECRETS.iter().any(|secret| {
        hmac::verify(
            &hmac::Key::new(algorithm, secret),
            signed.as_bytes(),
            &signature,
        )
        .is_ok()
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    /// `header.payload` signed with `secret` under `algorithm`, as a JWT.
    fn sign(algorithm: hmac::Algorithm, alg: &str, claims: &str, secret: &[u8]) -> String {
        let header = URL_SAFE_NO_PAD.encode(format!(r#"{{"alg":"{alg}","typ":"JWT"}}"#));
        let payload = URL_SAFE_NO_PAD.encode(claims);
        let signed = format!("{header}.{payload}");
        let tag = hmac::sign(&hmac::Key::new(algorithm, secret), signed.as_bytes());
        format!("{signed}.{}", URL_SAFE_NO_PAD.encode(tag.as_ref()))
    }

    #[test]
    fn tokens_signed_with_a_published_secret_are_examples() {
        let claims = r#"{"sub":"42","name":"Ada","iat":1700000000}"#;
        for (algorithm, alg) in [
            (hmac::HMAC_SHA256, "HS256"),
            (hmac::HMAC_SHA384, "HS384"),
            (hmac::HMAC_SHA512, "HS512"),
        ] {
            for secret in PUBLISHED_SECRETS {
                let token = sign(algorithm, alg, claims, secret);
                assert!(signed_with_published_secret(&token), "{alg} {token}");
            }
        }
    }

    #[test]
    fn tokens_signed_otherwise_are_not() {
        let claims = r#"{"sub":"42","role":"admin"}"#;
        // A secret of the same kind that is nobody's published example.
        let private = sign(
            hmac::HMAC_SHA256,
            "HS256",
            claims,
            b"prod-signing-key-7f3a9c",
        );
        assert!(!signed_with_published_secret(&private));
        // Signed with a published secret, then its claims changed: the signature fails.
        let published = sign(hmac::HMAC_SHA256, "HS256", claims, b"your-256-bit-secret");
        let (_, rest) = published.split_once('.').unwrap();
        let (_, signature) = rest.split_once('.').unwrap();
        let forged_claims = URL_SAFE_NO_PAD.encode(r#"{"sub":"43","role":"admin"}"#);
        let header = published.split('.').next().unwrap();
        let altered = format!("{header}.{forged_claims}.{signature}");
        assert!(!signed_with_published_secret(&altered));
        // The header names the algorithm: a published secret's tag under another one is no
        // example, nor is a token of another algorithm or no JWT at all.
        let mislabelled = sign(hmac::HMAC_SHA384, "HS256", claims, b"your-256-bit-secret");
        assert!(!signed_with_published_secret(&mislabelled));
        for text in [
            "eyJhbGciOiJSUzI1NiJ9.eyJzdWIiOiI0MiJ9.c2lnbmF0dXJl",
            "a.b.c",
            "nodots",
            "",
        ] {
            assert!(!signed_with_published_secret(text), "{text}");
        }
    }
}
