//! Whether a key's name names a credential, read word by word (`db_pass_secure`,
//! `softlayerApiKey`, `SLAPIKEY`; not `bypass`, `tokenizer`, `password_file`, `max_tokens`),
//! and what a value given to such a name must be to stay readable: a reference, empty, a
//! boolean, a number, code, a path; after a space (a label in prose), a random-looking value
//! only (`the token expired` stays).
//!
//! Not here: the rules (`rules::assigned`), the checks shared with other rules (`vet`).

use super::shapes::{entropy, looks_like_path};
use super::stand_ins::{is_counting, is_made_up, is_mangled_token, is_placeholder};

/// The credential vocabulary (case-insensitive) as the substrings a name holds: the rules
/// (`rules::assigned`) take a name that holds one and use them as their anchors; every word
/// below holds one (`password` holds `pass`, `apikey` holds `key`; a unit test checks), and
/// the words decide. `pat` (a personal access token) counts only as a name's last word after
/// `_` (`GH_PAT`, `ado_pat`): as a bare anchor it would run the rules on every `path`.
pub(in crate::redact) const VOCAB: &str =
    r"pass|pw|secret|token|key|cred|auth|session|api|bearer|psk|mnemonic|_pat\b";
/// Words of a name that name a credential.
#[rustfmt::skip]
const WORDS: &[&str] = &[
    "password", "passwd", "passphrase", "pwd", "pass", "secret", "secrete", "token", "apikey",
    "privatekey", "accesskey", "secretkey", "authkey", "credentials", "credential", "creds", "cred",
    "psk", "requirepass", "masterauth", "rootpw", "bindpw", "mnemonic", "passwords",
];
/// Abbreviations that name a credential as a name's last word only (`DB_PW`, `olcRootPW`;
/// `PW_TEST_HTML_REPORT_OPEN` is Playwright's).
const LAST_WORDS: &[&str] = &["pw"];
/// Two words that name a credential together (`api_key`, `PrivateKey`).
#[rustfmt::skip]
const PAIRS: &[(&str, &str)] = &[("api", "key"), ("private", "key"), ("access", "key"), ("auth", "key")];
/// Credential words a longer word may end in (`dbpassword`, `SLAPIKEY`, `mytoken`).
#[rustfmt::skip]
const ENDINGS: &[&str] = &[
    "password", "passwd", "passphrase", "secret", "token", "apikey", "accesskey", "secretkey",
    "privatekey",
];
/// Words after the credential word that make the name name something else: its file, type,
/// length, expiry, policy, id (`password_file`, `token_type`, `secret_name`, `api_key_id`).
#[rustfmt::skip]
const NOT_THE_VALUE_AFTER: &[&str] = &[
    "id", "ids", "name", "names", "file", "files", "path", "dir", "type", "url", "uri", "endpoint",
    "length", "len", "size", "count", "field", "prefix", "suffix", "header", "expires", "expiry",
    "expiration", "ttl", "policy", "env", "var", "ref", "format", "enabled", "required", "mode",
    "version", "min", "max", "regex", "pattern", "label", "hint", "prompt", "reset", "changed",
    "hash", "strength", "error", "message", "timeout", "at", "time", "index", "limit", "command",
    "cmd", "source", "arn", "class", "kind", "algorithm", "usage", "scope", "scopes", "audience",
    "issuer", "lifetime", "duration", "method", "flag", "list", "manager", "provider", "generator",
    "validator", "rotation", "location", "host", "user", "username", "email", "region",
    "placeholder", "input", "confirmation", "confirm", "hidden", "visible", "visibility", "box",
    "button", "fields", "store", "helper", "sent", "uses", "counter", "cache", "budget", "valid",
    "expired", "bucket", "rate", "encryption", "encoder",
];
/// Words before it that do the same (`public_key`, `page_token`, `max_tokens`), and verbs that
/// take a credential's name, not its value (`get_secret("db")`, `revoke_token("x")`).
#[rustfmt::skip]
const NOT_THE_VALUE_BEFORE: &[&str] = &[
    "public", "page", "next", "max", "min", "num", "total", "input", "output", "prompt", "sort",
    "completion", "cancellation", "continuation", "sync", "resume", "pagination", "forgot", "reset",
    "new", "show", "hide", "toggle", "is", "has", "not", "check", "verify", "validate", "cache",
    "partition", "primary", "foreign", "idempotency", "routing", "object", "map", "group", "lookup",
    "dedup", "hot", "shortcut", "translation", "message", "label", "tag", "metric", "field",
    "schema", "row", "hash", "range", "ssh", "gpg", "pgp", "host", "authenticity", "csrf", "xsrf",
    "parameter", "get", "fetch", "load", "read", "find", "delete", "remove", "revoke", "create",
];

/// The lowercase words of a name: split at every character that is no letter or digit, where
/// a lowercase letter or digit meets an uppercase one (`dbPassword`), and where digits follow
/// letters (`token1`).
pub(super) fn words(name: &str) -> Vec<String> {
    let mut out: Vec<String> = Vec::new();
    let mut word = String::new();
    let mut prev_lower = false;
    for c in name.chars() {
        if !c.is_ascii_alphanumeric() {
            out.extend((!word.is_empty()).then(|| std::mem::take(&mut word)));
            prev_lower = false;
            continue;
        }
        let digit_after_letter =
            c.is_ascii_digit() && word.ends_with(|l: char| l.is_ascii_alphabetic());
        if (c.is_ascii_uppercase() && prev_lower) || digit_after_letter {
            out.push(std::mem::take(&mut word));
        }
        prev_lower = c.is_ascii_lowercase() || c.is_ascii_digit();
        word.push(c.to_ascii_lowercase());
    }
    out.extend((!word.is_empty()).then_some(word));
    out
}

/// Words that name a credential only with a random-looking value (`key`: a cache key, a sort
/// key, a map key are words; `auth`; `session`: a session's id or token, or its name; `api`:
/// `apiBilling := "<random>"` is a key, `api_base` a URL; `bearer`: `BEARER=<random>` is a
/// token, `bearer token` prose; `pat`: a personal access token, or a pattern's short name, whose
/// regex may read as random: `grep_pat = 'TODO|FIXME'` is replaced).
const WEAK_WORDS: &[&str] = &["key", "auth", "session", "api", "bearer", "pat"];
/// The weak words that may also label a value in prose: `api` there is a service's name
/// (`kubectl rollout restart api 7f9c…`), not a key's.
const WEAK_LABELS: &[&str] = &["key", "auth", "session", "bearer"];

/// How surely a name names a credential.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Naming {
    /// Not a credential's name.
    No,
    /// `key`, `auth`: its value must look random.
    Weak,
    /// `password`, `secret`, `token`, `api_key`…: its value is one whatever its entropy.
    Strong,
}

/// Whether `name` names a credential: one of its words (or two together) is a credential
/// word, no word after it says the name is of something else (its file, type, id…), and the
/// word before it does not either (`public_key`, `page_token`).
pub(super) fn names_a_credential(name: &str) -> Naming {
    naming(name, WEAK_WORDS)
}

/// As [`names_a_credential`], for a label in prose, which only [`WEAK_LABELS`] make weak.
pub(super) fn labels_a_credential(name: &str) -> Naming {
    naming(name, WEAK_LABELS)
}

fn naming(name: &str, weak_words: &[&str]) -> Naming {
    let words = words(name);
    let mut naming = Naming::No;
    for (i, word) in words.iter().enumerate() {
        let next = words.get(i + 1).map(String::as_str);
        let pair = PAIRS.iter().any(|&(a, b)| a == word && next == Some(b));
        let strong = pair
            || WORDS.contains(&word.as_str())
            || (next.is_none() && LAST_WORDS.contains(&word.as_str()))
            || ENDINGS
                .iter()
                .any(|e| word.len() > e.len() && word.ends_with(e));
        let hit = strong || weak_words.contains(&word.as_str());
        if !hit {
            continue;
        }
        let rest = &words[i + 1 + usize::from(pair)..];
        let before = i.checked_sub(1).map(|j| words[j].as_str());
        let names_it = !rest
            .iter()
            .any(|w| NOT_THE_VALUE_AFTER.contains(&w.as_str()))
            && !before.is_some_and(|w| NOT_THE_VALUE_BEFORE.contains(&w));
        if strong {
            return if names_it { Naming::Strong } else { Naming::No };
        }
        // A weak word that names something else (`keyStore`) may still precede a strong one
        // (`keyStorePassword`).
        if names_it {
            naming = Naming::Weak;
        }
    }
    naming
}

/// A number (`3`, `-1`, `0.5`; up to 15 digits: longer runs of digits are keys, Discord's and
/// Asana's) or a boolean: a count, an id or a switch, not a credential.
pub(super) fn is_number_or_boolean(value: &str) -> bool {
    let number = value.strip_prefix('-').unwrap_or(value);
    let words = ["true", "false", "yes", "no", "on", "off"];
    (number.len() <= 15
        && number.bytes().all(|b| b.is_ascii_digit() || b == b'.')
        && number.bytes().any(|b| b.is_ascii_digit()))
        || words.contains(&value.to_ascii_lowercase().as_str())
}

/// A reference to a value kept elsewhere, whole: `os.environ["X"]`, `process.env.X`,
/// `os.getenv("X")`, `ENV["X"]`, `System.getenv("X")`, `env(X)` (`$X`, `${X}`, `{{ x }}` and
/// `<x>` are [`is_placeholder`]'s).
pub(super) fn is_env_reference(value: &str) -> bool {
    #[rustfmt::skip]
    const REFERENCES: &[&str] = &[
        "os.environ", "process.env.", "os.getenv(", "getenv(", "env[", "env.", "env(",
        "system.getenv(", "environment.getenvironmentvariable(", "secrets.", "vault(",
    ];
    let lower = value.to_ascii_lowercase();
    REFERENCES.iter().any(|r| lower.starts_with(r))
}

/// A value that stands for one, though a credential-named key gives it: one character over
/// and over (`aaaaaaaa`; after a vendor's prefix, `shippo_live_aaaa…`, it has a secret's
/// shape and is replaced), counting (`ABCDEFG`, `123456`), or a command in backticks
/// (`` `etcdctl get /x` ``).
pub(super) fn is_stand_in(text: &str, start: usize, value: &str) -> bool {
    let opened_by = text[..start].chars().next_back();
    let one_character = value.len() >= 8 && value.bytes().all(|b| b == value.as_bytes()[0]);
    one_character || is_counting(value) || (opened_by == Some('`') && value.contains(' '))
}

/// The text before `name`, a slice of `text`, and where `name` starts.
fn before_name<'a>(text: &'a str, name: &str) -> Option<(&'a str, usize)> {
    let at = (name.as_ptr() as usize).wrapping_sub(text.as_ptr() as usize);
    text.get(..at).map(|before| (before, at))
}

/// Whether a label in prose says its value is the credential: `password is X`, `set to X`,
/// `password is "X"`.
pub(super) fn says_what_it_is(text: &str, name: &str, start: usize) -> bool {
    let gap = before_name(text, name).and_then(|(_, at)| text.get(at + name.len()..start));
    let gap = gap.map(|gap| gap.trim_end_matches(['"', '\'', '`']));
    gap.is_some_and(|gap| gap.ends_with(" is ") || gap.ends_with(" to "))
}

/// Whether the word before a label in prose (`build cache key x`) says it names something else.
pub(super) fn prose_word_before_says_otherwise(text: &str, name: &str) -> bool {
    let Some((before, _)) = before_name(text, name) else {
        return false;
    };
    let before = before.trim_end_matches([' ', '\t']);
    let rest = before.trim_end_matches(|c: char| c.is_ascii_alphanumeric());
    let word = &before[rest.len()..];
    NOT_THE_VALUE_BEFORE.contains(&word.to_ascii_lowercase().as_str())
}

/// Whether the key `name` (a slice of `text`) is the second name of a multi-assignment
/// (`user, password := "admin", "x"`): its value is then the one after the comma, which the
/// multi-assignment rules take, not `text[start..end]`.
pub(super) fn is_second_of_many(text: &str, name: &str, start: usize, end: usize) -> bool {
    let Some((before, at)) = before_name(text, name) else {
        return false;
    };
    let after = text[end..].trim_start_matches(['"', '\'', '`', '\\']);
    before.trim_end_matches([' ', '\t']).ends_with(',')
        && after
            .trim_start_matches([' ', '\t'])
            .strip_prefix(',')
            .is_some_and(|rest| rest.trim_start().starts_with(['"', '\'', '`', '\\']))
        && start > at
}

/// A value given after a space to a credential-named label (`Your API key is X`,
/// `password "X";`): it must look random, since prose puts any word there (`the token
/// expired`, `password reset link`): 8 characters or more, no spaces, letters with digits or
/// (quoted) with punctuation, or 16 digits or more (longer than a count, an id or a time in
/// milliseconds), and the entropy of a string typed at random. A value the text
/// says is a password (`chosen`: `the password is hunter2`) may be one a person chose: 6
/// characters or more, of any entropy, still letters with digits or signs.
pub(super) fn labelled_value_ok(value: &str, quote: Option<char>, chosen: bool) -> bool {
    let value = value.trim_end_matches([',', ';', '.', ')']);
    let has = |class: fn(&u8) -> bool| value.bytes().any(|b| class(&b));
    // Quoted or beside a capital, punctuation counts (`sVyf^BiRSG`); bare and lowercase, words
    // joined by `-` are names (`db-credentials`), and the entropy below keeps `Re-entered`.
    let signs = has(u8::is_ascii_punctuation) && (quote.is_some() || has(u8::is_ascii_uppercase));
    let other = has(u8::is_ascii_digit) || signs;
    value.len() >= if chosen { 6 } else { 8 }
        && !value.starts_with(['(', '[', '{'])
        && !value.contains(char::is_whitespace)
        && (has(u8::is_ascii_alphabetic) || (value.len() >= 16 && value.bytes().all(|b| b.is_ascii_digit())))
        && other
        && (chosen || entropy(value) >= (libm::log2(value.len() as f64) - 0.3).min(3.0))
        && !is_placeholder(value, quote)
        && !is_env_reference(value)
        && !looks_like_path(value)
        && !value.contains("://")
        && !value.contains('@')
        // `id=npmrc,src=…`: options, not a secret (a base64 value ends in `=`).
        && !value.trim_end_matches('=').contains('=')
        && !is_host(value)
        && !is_mangled_token(value)
        && !is_made_up(value, false)
}

/// A host name (`app.terraform.io`): lowercase labels of at most 24 characters and dots, and
/// a top-level label of letters.
pub(super) fn is_host(value: &str) -> bool {
    let labels_ok = |label: &str| !label.is_empty() && label.len() <= 24;
    value.contains('.')
        && value
            .bytes()
            .all(|b| b.is_ascii_lowercase() || b.is_ascii_digit() || matches!(b, b'.' | b'-'))
        && value.split('.').all(labels_ok)
        && value
            .rsplit('.')
            .next()
            .is_some_and(|tld| tld.bytes().all(|b| b.is_ascii_lowercase()))
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The rules take only names that hold a substring of [`VOCAB`]: a credential word without
    /// one would never reach the vetting.
    #[test]
    fn every_credential_word_holds_a_vocabulary_substring() {
        let pairs = PAIRS.iter().map(|(a, b)| format!("{a}{b}"));
        let words = WORDS
            .iter()
            .chain(ENDINGS)
            .chain(LAST_WORDS)
            .chain(WEAK_WORDS)
            .chain(WEAK_LABELS);
        for word in words.map(|w| w.to_string()).chain(pairs) {
            let holds = |v: &str| format!("_{word}").contains(v.trim_end_matches(r"\b"));
            assert!(VOCAB.split('|').any(holds), "{word}");
        }
    }

    #[test]
    fn credential_names_are_read_word_by_word() {
        for name in [
            "password",
            "DB_PASSWORD",
            "db_pass_secure",
            "my_password_super_secure",
            "apikey_myservice",
            "softlayerApiKey",
            "SLAPIKEY",
            "aws_secret_access_key",
            "secrete",
            "x-api-key",
            "client_secret",
            "webex_bot_token",
            "token1",
            "DB_PW",
            "olcRootPW",
        ] {
            assert_eq!(names_a_credential(name), Naming::Strong, "{name}");
        }
        for name in ["key", "signing_key", "auth", "license_key"] {
            assert_eq!(names_a_credential(name), Naming::Weak, "{name}");
        }
        for name in [
            "bypass",
            "compass",
            "tokenizer",
            "password_file",
            "token_type",
            "max_tokens",
            "public_key",
            "page_token",
            "secret_name",
            "api_key_id",
            "keyboard",
            "passenger",
            "PW_TEST_HTML_REPORT_OPEN",
            "pwsh",
        ] {
            assert_eq!(names_a_credential(name), Naming::No, "{name}");
        }
    }

    #[test]
    fn the_second_name_of_a_multi_assignment() {
        let text = r#"user, password := "admin", "hunter2""#;
        let name = &text[6..14];
        assert!(is_second_of_many(text, name, 19, 24));
        let text = r#"f(a, password="x", b=1)"#;
        assert!(!is_second_of_many(text, &text[5..13], 15, 16));
    }

    #[test]
    fn stand_ins() {
        assert!(is_stand_in("k = aaaaaaaaaaaa", 4, "aaaaaaaaaaaa"));
        assert!(!is_stand_in(
            "k = shippo_live_aaaaaaaa",
            4,
            "shippo_live_aaaaaaaa"
        ));
        assert!(is_stand_in("k = ABCDEFG", 4, "ABCDEFG"));
        assert!(!is_stand_in("k = hunter2", 4, "hunter2"));
    }

    #[test]
    fn numbers_booleans_and_references() {
        for value in ["3", "-1", "0.5", "true", "False", "off"] {
            assert!(is_number_or_boolean(value), "{value}");
        }
        assert!(!is_number_or_boolean("hunter2"));
        assert!(is_env_reference("os.environ['DB_PASSWORD']"));
        assert!(is_env_reference("process.env.API_TOKEN"));
        assert!(!is_env_reference("s3cr3t-env"));
    }

    #[test]
    fn a_label_in_prose_takes_only_random_looking_values() {
        assert!(labelled_value_ok(
            "2afddb813193eb9d3b5bd99bf5d834cd",
            None,
            false
        ));
        assert!(!labelled_value_ok("expired", None, false));
        assert!(!labelled_value_ok("https://example.com/x1", None, false));
        assert!(!labelled_value_ok("${TOKEN}", None, false));
        assert!(!labelled_value_ok("hunter2", None, false));
        assert!(labelled_value_ok("hunter2", None, true));
        assert!(!labelled_value_ok("required", None, true));
    }
}
