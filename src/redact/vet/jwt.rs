//! Whether a match of the JWT format is a JWT: its header or its claims carry JSON.
//!
//! A JWT signed with a secret jwt.io publishes is still redacted: a server left on that default
//! secret accepts it, and its claims may name people.
//!
//! Not here: finding JWTs (`rules`), the other stand-ins (`stand_ins`).
//!
//! Cost: cold, once per JWT match: base64 decodes and small JSON parses.

use base64::engine::general_purpose::URL_SAFE_NO_PAD;
use base64::Engine;

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
}
