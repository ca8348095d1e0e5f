//! HTTP basic authentication against the bcrypt hashes of `basic_auth_users`.
//!
//! Owns the check of an `Authorization` header and a small cache of its outcomes. bcrypt is slow
//! on purpose (about 70 ms at cost 10), so: the outcome of a user + password + hash is cached
//! (keyed by a SHA-256 of the three, never the password itself), a scrape every 15 s pays bcrypt
//! once; bcrypt runs on a blocking thread, one at a time, so it can neither stall the async
//! runtime (health checks) nor take every core; an unknown user is checked against a dummy hash,
//! so a wrong user name takes as long as a wrong password.
//!
//! **Not here:** which paths are protected (all of them: [`super::front`]), the config file
//! ([`super::config`]).
//!
//! Cost: a hash and a map look-up per request once cached; the cache holds at most
//! [`CACHE_ENTRIES`] outcomes, evicting an arbitrary one when full.

use std::collections::{BTreeMap, HashMap};
use std::sync::{Arc, Mutex, OnceLock};

use base64::Engine as _;
use hyper::header::HeaderValue;

/// Outcomes kept; beyond it an arbitrary one is evicted.
pub const CACHE_ENTRIES: usize = 100;

/// The users allowed in, and what their passwords are known to check to.
#[derive(Debug)]
pub struct BasicAuth {
    /// User name → bcrypt hash; never empty.
    users: BTreeMap<String, String>,
    /// SHA-256(user, hash, password) → whether bcrypt accepted the password.
    cache: Mutex<HashMap<[u8; 32], bool>>,
    /// Held while bcrypt runs: one check at a time.
    bcrypt: Mutex<()>,
    /// A hash of a random password, checked for unknown users (made on first need).
    dummy: OnceLock<String>,
}

impl BasicAuth {
    /// `None` when there are no users (no authentication).
    pub fn new(users: BTreeMap<String, String>) -> Option<Arc<BasicAuth>> {
        (!users.is_empty()).then(|| {
            Arc::new(BasicAuth {
                users,
                cache: Mutex::new(HashMap::new()),
                bcrypt: Mutex::new(()),
                dummy: OnceLock::new(),
            })
        })
    }

    /// Whether `header` (the request's `Authorization`) names a user and their password.
    pub async fn is_authorized(self: &Arc<Self>, header: Option<&HeaderValue>) -> bool {
        let Some((user, password)) = header.and_then(credentials) else {
            return false;
        };
        let key = self.key(&user, &password);
        if let Some(ok) = self.cached(&key) {
            return ok;
        }
        let this = self.clone();
        tokio::task::spawn_blocking(move || this.check(&user, &password, key))
            .await
            .unwrap_or(false)
    }

    fn hash_of(&self, user: &str) -> Option<&str> {
        self.users.get(user).map(String::as_str)
    }

    fn key(&self, user: &str, password: &str) -> [u8; 32] {
        let hash = self.hash_of(user).unwrap_or("");
        let mut ctx = ring::digest::Context::new(&ring::digest::SHA256);
        for part in [user, hash, password] {
            ctx.update(&(part.len() as u64).to_le_bytes());
            ctx.update(part.as_bytes());
        }
        ctx.finish()
            .as_ref()
            .try_into()
            .expect("SHA-256 is 32 bytes")
    }

    fn cached(&self, key: &[u8; 32]) -> Option<bool> {
        self.cache
            .lock()
            .expect("auth cache lock")
            .get(key)
            .copied()
    }

    /// Runs bcrypt (blocking) and caches the outcome.
    fn check(&self, user: &str, password: &str, key: [u8; 32]) -> bool {
        let _one_at_a_time = self.bcrypt.lock().expect("bcrypt lock");
        if let Some(ok) = self.cached(&key) {
            return ok; // computed while this one waited
        }
        let ok = match self.hash_of(user) {
            Some(hash) => bcrypt::verify(password, hash).unwrap_or(false),
            None => {
                let _ = bcrypt::verify(password, self.dummy());
                false
            }
        };
        let mut cache = self.cache.lock().expect("auth cache lock");
        if cache.len() >= CACHE_ENTRIES {
            if let Some(evicted) = cache.keys().next().copied() {
                cache.remove(&evicted);
            }
        }
        cache.insert(key, ok);
        ok
    }

    fn dummy(&self) -> &str {
        self.dummy.get_or_init(|| {
            let mut random = [0u8; 16];
            let _ = ring::rand::SecureRandom::fill(&ring::rand::SystemRandom::new(), &mut random);
            bcrypt::hash(random, 10).expect("bcrypt of a random password")
        })
    }
}

/// The user and password of a `Basic` authorization, if well-formed.
fn credentials(header: &HeaderValue) -> Option<(String, String)> {
    let value = header.to_str().ok()?;
    let (scheme, encoded) = value.trim().split_once(' ')?;
    if !scheme.eq_ignore_ascii_case("basic") {
        return None;
    }
    let decoded = base64::engine::general_purpose::STANDARD
        .decode(encoded.trim())
        .ok()?;
    let decoded = String::from_utf8(decoded).ok()?;
    let (user, password) = decoded.split_once(':')?;
    Some((user.to_string(), password.to_string()))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn basic(user_password: &str) -> HeaderValue {
        let encoded = base64::engine::general_purpose::STANDARD.encode(user_password);
        HeaderValue::from_str(&format!("Basic {encoded}")).unwrap()
    }

    #[test]
    fn parses_basic_credentials() {
        assert_eq!(
            credentials(&basic("alice:pa:ss")),
            Some(("alice".into(), "pa:ss".into()))
        );
        assert_eq!(credentials(&basic("no-colon")), None);
        assert_eq!(credentials(&HeaderValue::from_static("Bearer abc")), None);
        assert_eq!(credentials(&HeaderValue::from_static("Basic %%%")), None);
    }

    #[tokio::test]
    async fn right_password_passes_and_outcomes_are_cached() {
        let hash = bcrypt::hash("secret", 4).unwrap();
        let auth = BasicAuth::new([("alice".to_string(), hash)].into()).unwrap();
        assert!(auth.is_authorized(Some(&basic("alice:secret"))).await);
        assert!(!auth.is_authorized(Some(&basic("alice:wrong"))).await);
        assert!(!auth.is_authorized(Some(&basic("mallory:secret"))).await);
        assert!(!auth.is_authorized(None).await);
        assert_eq!(auth.cache.lock().unwrap().len(), 3);
        // Served from the cache: the same answer without bcrypt.
        assert!(auth.is_authorized(Some(&basic("alice:secret"))).await);
        assert_eq!(auth.cache.lock().unwrap().len(), 3);
    }

    #[test]
    fn the_cache_is_bounded() {
        let hash = bcrypt::hash("secret", 4).unwrap();
        let auth = BasicAuth::new([("alice".to_string(), hash)].into()).unwrap();
        for i in 0..CACHE_ENTRIES + 5 {
            let password = format!("wrong{i}");
            let key = auth.key("alice", &password);
            assert!(!auth.check("alice", &password, key));
        }
        assert_eq!(auth.cache.lock().unwrap().len(), CACHE_ENTRIES);
    }

    #[test]
    fn no_users_means_no_auth() {
        assert!(BasicAuth::new(BTreeMap::new()).is_none());
    }
}
