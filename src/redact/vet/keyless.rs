//! Values with no key name, judged by their characters alone: a quoted string that is random
//! by its charset, length and entropy (`"2b00042f…"`, `'I6FwzQZFL9l-44nv…'`), a token of
//! a short prefix and a random body that no rule names (`abc_` and 24 or more random letters
//! and digits, `CCDB1_…`), a strongly random value after a bare label and a
//! space (`mixpanel M0UX…`, `jira 'Z7Vo…'`), and a UUID given to a service by its bare name
//! (`railway = '<uuid>'`; not to an id's name), or any such random value given to it as an env
//! file does (`pepipost=x1…`): the generic shape of a secret pasted after the
//! name of what it is for, whatever the vendor. The first bounds are detect-secrets' (4.5 bits
//! a character for base64, 3.0 for hex, 20 characters); the label's are calibrated on the
//! scanners' tests (docs/redaction.md has the counts). Other unquoted words are never judged
//! so, since commands, ids and blobs are full of them.
//!
//! Not here: values named by a key (`names`), decoding (`decode`).

use super::super::decode::base64_text;
use super::shapes::{entropy, is_uuid};
use super::stand_ins::{is_broken_at, is_counting};

/// Fewest characters of a keyless secret.
const MIN_CHARS: usize = 20;
/// Least entropy, in bits a character, of a keyless base64 (or URL-safe) secret.
const MIN_BASE64_ENTROPY: f64 = 4.5;
/// Least entropy of a keyless hex secret, and its fewest digits (a 32-digit key; 40 and 64
/// digits are commit SHAs and SHA-256 digests, which stay).
const MIN_HEX_ENTROPY: f64 = 3.0;
const MIN_HEX_DIGITS: usize = 32;

/// Ids that look random and are not secrets: tool-use, message, request, payment and file ids,
/// subresource-integrity digests, Stripe's publishable keys (made to be shown in a web page).
#[rustfmt::skip]
const ID_PREFIXES: &[&str] = &[
    "toolu_", "srvtoolu_", "exec_", "msg_", "req_", "call_", "run_", "chatcmpl-", "job_", "pi_",
    "ch_", "cus_", "price_", "prod_", "sub_", "in_", "txn_", "evt_", "acct_", "seti_", "org-",
    "file-", "file_", "asst_", "thread_", "batch_", "sha1-", "sha256-", "sha384-", "sha512-",
    "pk_live_", "pk_test_",
];

/// The kind of a quoted random string found with no key.
pub(in crate::redact) const KEYLESS_KIND: &str = "high_entropy_string";

/// Least entropy of a value after a bare label, as a share of the most a string of its length
/// (up to 64) can have: the random values after a vendor's name in trufflehog's tests measure
/// 0.83 to 1.0. Words joined by digits can reach it too (`release2024hotfix11`: 0.89), which
/// the vowel bound of [`is_labelled_random`] stops.
const MIN_LABELLED_RANDOMNESS: f64 = 0.8;

/// Least entropy of an unnamed prefixed token's body in both cases and digits.
const MIN_PREFIXED_ENTROPY: f64 = 4.0;

/// The kind of the secret the run `text[start..end]` (base64 characters, from
/// `decode::base64_runs`) is with no key: `prefixed_token` for a short prefix and a random body,
/// `high_entropy_string` for a random string quoted alone (the same quote on both sides).
pub(in crate::redact) fn looks_random(
    text: &str,
    start: usize,
    end: usize,
) -> Option<&'static str> {
    let (run, bytes, before) = (&text[start..end], text.as_bytes(), &text[..start]);
    if ID_PREFIXES.iter().any(|p| run.starts_with(p)) || is_broken_at(bytes, end) {
        return None;
    }
    if is_unnamed_prefixed_token(run) {
        return Some("prefixed_token");
    }
    // A random value given by `=` alone, as an env file gives it (`pepipost=x1…`); after ` = `
    // or quoted, the scanners' tests hold it as often for a value that is not the vendor's key
    // (trufflehog's `iconfinder = '…'`), so there only a UUID is taken.
    let env_file = before.ends_with('=');
    if (is_uuid(run) || env_file && is_labelled_random(run)) && is_given_to_a_service(before) {
        return Some(KEYLESS_KIND);
    }
    let quote = start.checked_sub(1).map(|i| bytes[i]);
    let quoted = matches!(quote, Some(b'"' | b'\'' | b'`')) && bytes.get(end) == quote.as_ref();
    if quoted && !is_named(&text[..start - 1]) && is_random(run) {
        return Some(KEYLESS_KIND);
    }
    let host = matches!(bytes.get(end), Some(b'.' | b'@' | b':'))
        && bytes.get(end + 1).is_some_and(u8::is_ascii_alphanumeric);
    (!host && follows_a_label(before) && is_labelled_random(run)).then_some(KEYLESS_KIND)
}

/// Whether the text before a value ends with a label and a space (`mixpanel M0UX…`,
/// `jira 'Z7Vo…'`, `Using 6p77…`, a flag: `-storagekey hGeB…`): one word, at the start of a
/// line or after a space, quote or bracket, then spaces and an optional quote. No `=` or `:`: an assigned value is judged by
/// its key's name.
fn follows_a_label(before: &str) -> bool {
    let before = before.strip_suffix(['"', '\'', '`']).unwrap_or(before);
    let label = before.trim_end_matches([' ', '\t']);
    let rest = label.trim_end_matches(|c: char| c.is_ascii_alphanumeric() || "_.-".contains(c));
    label.len() < before.len()
        && label[rest.len()..]
            .trim_start_matches('-')
            .starts_with(|c: char| c.is_ascii_alphabetic())
        && (rest.is_empty() || rest.ends_with(|c: char| c.is_whitespace() || "\"'([{,".contains(c)))
}

/// A value after a label that is random by its characters: 16 or more, letters and digits,
/// no part of three lowercase letters or more between `/`, `-` or `_` (a path, a pod or a
/// branch name: `web-7d4b9c8f6-x2x9z`), with [`MIN_LABELLED_RANDOMNESS`] of the entropy a
/// string of its length can have, and fewer than two vowels in five letters (the letters of
/// words are about two-fifths vowels, a random string's one in five: `release2024hotfix11`
/// is a name); hex as [`is_random`] judges it; not base64 of text (`echo aGVsbG8gd29ybGQ=`
/// is data, whose text is scanned in its own right).
fn is_labelled_random(run: &str) -> bool {
    let body = run.trim_end_matches('=');
    let has = |class: fn(&u8) -> bool| body.bytes().any(|b| class(&b));
    if body.len() < 16 || is_uuid(body) || body.split(['/', '-', '_']).any(is_lower_word) {
        return false;
    }
    if body.bytes().all(|b| b.is_ascii_hexdigit()) {
        return is_random(run);
    }
    let letters = body.bytes().filter(u8::is_ascii_alphabetic);
    let vowels = letters.clone().filter(|b| b"aeiouAEIOU".contains(b));
    has(u8::is_ascii_digit)
        && has(u8::is_ascii_alphabetic)
        && vowels.count() * 5 < letters.count() * 2
        && entropy(body) >= MIN_LABELLED_RANDOMNESS * libm::log2(body.len().min(64) as f64)
        && base64_text(run).is_none()
}

/// Whether the text before a UUID gives it to a service by its bare name, not to an id:
/// `onesignal: e8b1…`, `railway = 'a52a…'`, `mux '87c6…'`, `new HubSpotAPI("76a8…")`. The name
/// is one unquoted word of letters and digits (a quoted key, `"parent": "…"`, is data; a
/// compound name, `request_id`, says what it holds), and no word of it is an id's or a
/// thing's that is not a credential (`node`, `domain`, `user`…).
fn is_given_to_a_service(before: &str) -> bool {
    #[rustfmt::skip]
    const NOT_A_SERVICE: &[&str] = &[
        "id", "ids", "uuid", "guid", "uid", "ref", "key", "trace", "span", "request", "run",
        "job", "build", "version", "instance", "device", "node", "pod", "object", "item",
        "record", "row", "entity", "resource", "message", "event", "order", "tenant", "org",
        "project", "workspace", "team", "user", "owner", "account", "subscription", "client",
        "app", "session", "execution", "tool", "file", "name", "domain", "host", "email", "url",
        "parent", "thread", "conversation", "task", "step", "batch", "payment", "customer",
        "product", "model", "agent", "workflow", "group", "role", "policy", "correlation",
        "nonce", "state", "etag", "hash", "seed", "salt", "source", "target", "uuid4", "is",
    ];
    // Given by `=`, `:` or a call's `(`, or quoted after a space: a bare word and a space
    // before an unquoted UUID is a command's argument (`git log -n prod 9560…`).
    let quoted = before.ends_with(['"', '\'', '`']);
    let before = before.trim_end_matches(['"', '\'', '`']);
    let called = before.ends_with('(');
    let before = before.trim_end_matches(['(', ' ', '\t']);
    let assigned = before.ends_with(['=', ':']);
    if !(quoted || called || assigned) {
        return false;
    }
    let before = before.strip_suffix(['=', ':']).unwrap_or(before);
    let before = before.trim_end_matches([' ', '\t']);
    let rest = before.trim_end_matches(|c: char| c.is_ascii_alphanumeric());
    let (name, edge) = (&before[rest.len()..], rest.chars().next_back());
    name.len() >= 3
        && name.starts_with(|c: char| c.is_ascii_alphabetic())
        && edge.is_none_or(|c| c.is_whitespace() || "({[,;\"'".contains(c))
        && !super::names::words(name)
            .iter()
            .any(|w| NOT_A_SERVICE.contains(&w.as_str()))
}

/// Whether the text before a quoted value gives it a name (`role_id = '…'`, `"sha": "…"`,
/// `value="…"`, `id - '…'`, `= '…'` whose name is on the line before): a named value is judged by its name
/// (the rules that read names), not by its characters. A numbered label (`String #2: "…"`)
/// names nothing.
fn is_named(before: &str) -> bool {
    let before = before.trim_end_matches([' ', '\t']);
    let Some(before) = before.strip_suffix(['=', ':', '>', '-', '|']) else {
        return false;
    };
    let before = before.trim_end_matches(['=', ':', '!', ' ', '\t', '"', '\'', '\\', ']', '[']);
    let rest = before.trim_end_matches(|c: char| c.is_ascii_alphanumeric() || "_.-".contains(c));
    let name = &before[rest.len()..];
    // Not numbered.
    !(!name.is_empty() && name.bytes().all(|b| b.is_ascii_digit()) && rest.ends_with('#'))
}

/// `abc_` or `CCDB1_`, up to two short words (`sk_live_`, `tskey-auth-`, `dop_v1_`) and 24 or
/// more random letters and digits, `-` and `_` among them: of both cases by entropy and not
/// [`is_camel_case`], of one case and digits (`napi_…`, `ABC_` and capitals) as a labelled value
/// is, hex only after a capital prefix (`FS_…`) as a keyless hex secret is, or after two words
/// joined by `_` (`dop_v1_…`) at a digest's length too (`main-7a38…`, a lowercase word and hex,
/// is a digest).
fn is_unnamed_prefixed_token(run: &str) -> bool {
    let Some(at) = run.find(['_', '-']) else {
        return false;
    };
    let (prefix, mut body, mut words) = (&run[..at], &run[at + 1..], 0);
    let next_word = |b: &str| b.find(['_', '-']).filter(|&i| i <= 6 && b.len() - i > 24);
    while let Some(i) = next_word(body).filter(|_| words < 2) {
        (body, words) = (&body[i + 1..], words + 1);
    }
    let letters = prefix.trim_end_matches(|c: char| c.is_ascii_digit());
    let upper = letters.bytes().all(|b| b.is_ascii_uppercase());
    let has = |class: fn(&u8) -> bool| body.bytes().any(|b| class(&b));
    (2..=8).contains(&letters.len())
        && prefix.len() - letters.len() <= 1
        && (upper || letters.bytes().all(|b| b.is_ascii_lowercase()))
        && body.len() >= 24
        && !body.split(['-', '_']).any(is_lower_word)
        && has(u8::is_ascii_digit)
        && if !has(|b| !(b.is_ascii_hexdigit() || b"-_".contains(b))) {
            let hex = body.bytes().all(|b| b.is_ascii_hexdigit());
            let hex_key = hex && body.len() >= MIN_HEX_DIGITS && entropy(body) >= MIN_HEX_ENTROPY;
            !run.contains('-') && (words > 0 && hex_key || upper && is_random(body))
        } else if has(u8::is_ascii_uppercase) && has(u8::is_ascii_lowercase) {
            entropy(body) >= MIN_PREFIXED_ENTROPY
                && !is_camel_case(body)
                && base64_text(body).is_none()
        } else {
            // Not counting for eight characters (`abcdefgh…`, a stand-in).
            let plain: String = body.chars().filter(char::is_ascii_alphanumeric).collect();
            is_labelled_random(&plain)
                && !(8..=plain.len()).any(|end| is_counting(&plain[end - 8..end]))
        }
}

/// A word of three lowercase letters or more: a part of a path, a name or a branch, which a
/// random string seldom holds.
fn is_lower_word(part: &str) -> bool {
    part.len() >= 3 && part.bytes().all(|b| b.is_ascii_lowercase())
}

/// Whether seven letters in ten are in capitalised words (`HandlesUnicodeInput2024`,
/// `getUserById`): an identifier; a random string's letters are so about once in a thousand.
fn is_camel_case(body: &str) -> bool {
    let in_words: usize = (body.split(|c: char| c.is_ascii_uppercase()).skip(1))
        .map(|tail| &tail[..tail.bytes().take_while(u8::is_ascii_lowercase).count()])
        .filter(|tail| tail.len() >= 2 && tail.contains(['a', 'e', 'i', 'o', 'u']))
        .map(|tail| tail.len() + 1)
        .sum();
    in_words * 10 >= body.bytes().filter(u8::is_ascii_alphabetic).count() * 7
}

/// A random string by charset, length and entropy.
fn is_random(run: &str) -> bool {
    let body = run.trim_end_matches('=');
    if body.len() < MIN_CHARS || is_uuid(body) {
        return false;
    }
    if body.bytes().all(|b| b.is_ascii_hexdigit()) {
        let digest = [40, 64].contains(&body.len());
        return body.len() >= MIN_HEX_DIGITS && !digest && entropy(body) >= MIN_HEX_ENTROPY;
    }
    // A path of words (`/usr/lib/x86_64-linux-gnu`) is no secret; a random string has letters
    // and digits.
    let path = body.contains('/') && body.split('/').any(is_lower_word);
    !path
        && body.bytes().any(|b| b.is_ascii_digit())
        && body.bytes().any(|b| b.is_ascii_alphabetic())
        && entropy(body) >= MIN_BASE64_ENTROPY
}
