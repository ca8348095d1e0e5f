//! Whether a match of the JWT format is a JWT, and whether it is one of the examples published
//! with a secret for anyone to check it: its HMAC signature verifies under a secret that
//! jwt.io prints beside its debugger's tokens. Such a token can be forged by anyone, so it
//! authenticates no one and is no secret.
//!
//! Not here: finding JWTs (`rules`), the other stand-ins (`stand_ins`).
//!
//! Cost: cold, once per JWT match: base64 decodes, small JSON parses and at most two HMACs.

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

/// Whether `token` has a JWT's JSON: its header or its claims (the first or second segment) is
/// a JSON object in base64url (`eyJhbGciOi…` is `{"alg":…`). A token with one of the two
/// damaged is still a JWT; `ey` and random characters in both (`ey7nVWxLrVT….ey582H2G…`)
/// decode to no JSON, and such a string is no JWT.
pub(super) fn carries_json(token: &str) -> bool {
    let object = |segment: &str| {
        URL_SAFE_NO_PAD
            .decode(segment.trim_end_matches('='))
            .ok()
            .and_then(|bytes| serde_json::from_slice::<serde_json::Value>(&bytes).ok())
            .is_some_and(|value| value.is_object())
    };
    token.split('.').take(2).any(object)
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
    fn a_jwt_carries_json_in_its_header_or_its_claims() {
        let header = "eyJhbGciOiJIUzI1NiIsInR5cCI6IkpXVCJ9";
        let claims = "eyJzdWIiOiJzdmMtNDIiLCJzY29wZSI6ImRlcGxveSJ9";
        // Damaged in one segment, the other still says JWT.
        let damaged = "eyJhbGcizzJIUzI1NiIsInR5cCI6IkpXVCJ9";
        for token in [
            format!("{header}.{claims}.c2lnbmF0dXJlLWJ5dGVz"),
            format!("{damaged}.{claims}.c2lnbmF0dXJlLWJ5dGVz"),
            format!("{header}.c2lnbmF0dXJlLWJ5dGVzYWdhaW4.c2lnbmF0dXJl"),
            format!("{header}.{claims}"),
        ] {
            assert!(carries_json(&token), "{token}");
        }
        for text in [
            "ey9QmT2xVbR4LpZs7WcN.eyK3fJ8dHq1YtUo6AeRg",
            "eyK3fJ8dHq1YtUo6AeRg.c2lnbmF0dXJlLWJ5dGVz.c2ln",
            "",
        ] {
            assert!(!carries_json(text), "{text}");
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
