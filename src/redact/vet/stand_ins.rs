//! What stands for a secret without being one, and whether a token format's match stands as
//! a token: placeholders and templates (`$TOKEN`, `{{ token }}`, `<password>`, `${HOME}`),
//! fillers (`ghp_xxxx…`, `…EXAMPLE`), mangled tokens (`abc?def`), stand-in passwords of examples
//! (`curl -u user:pass`), and tokens glued inside a longer word (`TODAYINASIAAS…`).
//!
//! Not here: the checks that use these (`vet`), patterns (`rules`).
//!
//! Cost: cold, once per regex match.

use std::sync::OnceLock;

use regex::Regex;

use crate::redact::spans::MARKER_OPEN;

/// Whether a token format's match `text[start..end]` stands as a token: the characters around it
/// are no letters or digits (a JSON `\n`/`\t`/`\r` escape before it counts as a separator; `_`
/// glues a token into an identifier, `send_ghp_…`, and is allowed; with `glued`, a word naming
/// a credential is too, or any word when the token mixes letters and digits), and it is no
/// stand-in: a run of one character
/// (`ghp_xxxx…`), an `EXAMPLE` key, a published example, or words (a run of 16 lowercase letters: `hf_servingcellpriorityparameters…`);
/// and a JWT carries JSON in its header or its claims (`ey7nVWxL….ey582H…` is no JWT).
/// A prefix of two or three lowercase letters glued after a lowercase word is that word's end
/// (`task_test_…`).
pub(in crate::redact) fn stands_as_token(
    kind: &str,
    glued: bool,
    text: &str,
    start: usize,
    end: usize,
) -> bool {
    let bytes = text.as_bytes();
    let before = start.checked_sub(1).map(|i| bytes[i]);
    let escaped =
        start >= 2 && bytes[start - 2] == b'\\' && matches!(before, Some(b'n' | b'r' | b't'));
    let value = &text[start..end];
    // The word it is glued to, if any: `key`, `Bearer` (a credential's name), `TODAYINASIA…`
    // (a longer word) or `TTTTghp_a1B2…` (a token pasted into a word: letters and digits).
    let glued_to = bytes[..start]
        .iter()
        .rev()
        .take_while(|b| b.is_ascii_alphanumeric())
        .count();
    let names_credential = || {
        let word = text[start - glued_to..start].to_ascii_lowercase();
        GLUE_WORDS.iter().any(|w| word.ends_with(w))
    };
    let random =
        value.bytes().any(|b| b.is_ascii_digit()) && value.bytes().any(|b| b.is_ascii_alphabetic());
    // Glued to a long run of mixed letters and digits (`…82tMAdvmrhOqNkRKiYMEAFbTJAIza…`), it
    // is a piece of a blob (base64, a hash), not a token pasted into a word (`TTTT…ghp_…`).
    let glued_word = &bytes[start - glued_to..start];
    let in_blob = glued_to > MAX_GLUED_WORD
        && glued_word.iter().any(u8::is_ascii_digit)
        && glued_word.iter().any(u8::is_ascii_alphabetic);
    // A prefix of two or three lowercase letters (`sk_`, `ico-`) glued after a lowercase word
    // ends that word (`task_test_…`, `pubblico-1bc8…`): many words end so, few tokens follow one.
    let short_prefix = value
        .bytes()
        .position(|b| !b.is_ascii_lowercase())
        .is_some_and(|at| at <= 3 && matches!(value.as_bytes()[at], b'_' | b'-'));
    let word_end = short_prefix && glued_word.iter().all(u8::is_ascii_lowercase);
    if in_blob
        || (glued_to > 0 && !escaped && !(glued && ((random && !word_end) || names_credential())))
    {
        return false;
    }
    // Every format ends where its characters do: followed by more letters or digits
    // (`sntryu_` and 65 hex digits, `AIza…` and 42 characters) it is a longer string's start.
    if bytes.get(end).is_some_and(|b| b.is_ascii_alphanumeric()) {
        return false;
    }
    // A prefixed token broken by `?` (`npm_hK0F…?Kp6b…`) was mangled on its way.
    if kind == "prefixed_token" && is_broken_at(bytes, end) {
        return false;
    }
    if value.ends_with("EXAMPLE")
        || is_x_filler(value)
        || super::shapes::is_slack_ids_only(value)
        || names_a_stand_in(value)
        || PUBLISHED_EXAMPLES.contains(&value)
        || (kind == "jwt" && value.starts_with("ey") && !super::jwt::carries_json(value))
    {
        return false;
    }
    if kind == "private_key" {
        return has_key_material(value);
    }
    // A hash in a file name (`video_box.ico-7a38…ab0c.png`, `vipul-f0eb…3628.png`): a
    // bundler's fingerprint of the file, not a token.
    if names_a_file(&text[end..]) {
        return false;
    }
    // Key material holds long runs (`AAAA` in DER), and so may a real token of digits; a run
    // of a filler character is a stand-in, and so are words: 16 lowercase letters in a row and
    // no digit (`hf_servingcellpriority…`; `…abcdefghijklmnopqrstuvwxyz0123…` is a token, and
    // so is one letter making half of it, `shippo_test_aaaa…`, a format filled by hand).
    let no_digit = !value.bytes().any(|b| b.is_ascii_digit());
    let one_letter =
        (b'a'..=b'z').any(|c| value.bytes().filter(|&b| b == c).count() * 2 > value.len());
    let words =
        no_digit && !one_letter && (longest_lowercase_run(value) >= 16 || is_camel_words(value));
    longest_filler_run(value) < 10 && !words && !ends_repeating(value)
}

/// Words in camel case fill four-fifths of the letters (`requiredCharacteristicTypesFor…`):
/// an identifier's name, where a random body of letters alone breaks into short pieces.
fn is_camel_words(value: &str) -> bool {
    static WORD: OnceLock<Regex> = OnceLock::new();
    let word = WORD.get_or_init(|| Regex::new("[A-Z]?[a-z]{3,}").expect("a valid pattern"));
    let letters = value.bytes().filter(u8::is_ascii_alphabetic).count();
    let in_words: usize = word.find_iter(value).map(|m| m.len()).sum();
    letters >= 24 && in_words * 5 >= letters * 4
}

/// Whether a value is runs of one character, each six or more long, but for fewer than eight
/// others (`aaaaaaaaaa1111111111bbbbbbbbbb2222222222`, `000…000TUVWXYZ`): a format filled by
/// hand.
pub(super) fn is_blocks_of_one(value: &str) -> bool {
    let bytes = value.as_bytes();
    let short_runs = bytes.chunk_by(|a, b| a == b).filter(|run| run.len() < 6);
    bytes.len() >= 16 && short_runs.map(<[u8]>::len).sum::<usize>() < 8
}

/// Whether the value ends in a short pattern of two characters or more over and over, 16
/// characters or more (`GR1348941` and `123123123…`): typed to fill a format.
fn ends_repeating(value: &str) -> bool {
    let bytes = value.as_bytes();
    (2..=4).any(|period| {
        let same = bytes
            .iter()
            .rev()
            .zip(bytes.iter().rev().skip(period))
            .take_while(|(a, b)| a == b)
            .count();
        let unit = &bytes[bytes.len().saturating_sub(period)..];
        same + period >= 16 && unit.iter().any(|b| *b != unit[0])
    })
}

/// The longest word of letters and digits a token may be glued to (`keyghp_…`, `a1b2ghp_…`).
const MAX_GLUED_WORD: usize = 24;

/// Values published as examples, so no one's secret: the test API keys of Google's Firebase SDK
/// repositories (`firebase-android-sdk` and its siblings), which secret scanners allow too.
#[rustfmt::skip]
const PUBLISHED_EXAMPLES: &[&str] = &[
    "AIzaSyabcdefghijklmnopqrstuvwxyz1234567", "AIzaSyAnLA7NfeLquW1tJFpx_eQCxoX-oo6YyIs",
    "AIzaSyCkEhVjf3pduRDt6d1yKOMitrUEke8agEM", "AIzaSyDMAScliyLx7F0NPDEJi1QmyCgHIAODrlU",
    "AIzaSyD3asb-2pEZVqMkmL6M9N6nHZRR_znhrh0", "AIzayDNSXIbFmlXbIE6mCzDLQAqITYefhixbX4A",
    "AIzaSyAdOS2zB6NCsk1pCdZ4-P6GBdi_UUPwX7c", "AIzaSyASWm6HmTMdYWpgMnjRBjxcQ9CKctWmLd4",
    "AIzaSyANUvH9H9BsUccjsu2pCmEkOPjjaXeDQgY", "AIzaSyA5_iVawFQ8ABuTZNUdcwERLJv_a_p4wtM",
    "AIzaSyA4UrcGxgwQFTfaI3no3t7Lt1sjmdnP5sQ", "AIzaSyDSb51JiIcB6OJpwwMicseKRhhrOq1cS7g",
    "AIzaSyBF2RrAIm4a0mO64EShQfqfd2AFnzAvvuU", "AIzaSyBcE-OOIbhjyR83gm4r2MFCu4MJmprNXsw",
    "AIzaSyB8qGxt4ec15vitgn44duC5ucxaOi4FmqE", "AIzaSyA8vmApnrHNFE0bApF4hoZ11srVL_n0nvY",
];

/// A token's characters that say they stand for one: `…AccessTokenHere`, `RANDOMSTRINGHERE`,
/// `…_PUT_YOUR_TOKEN_HERE_…`.
fn names_a_stand_in(value: &str) -> bool {
    let lower = value.to_ascii_lowercase();
    lower.ends_with("here") || lower.contains("_here_") || lower.contains("put_your")
}

/// A PEM block with no key in it (`-----BEGIN PRIVATE KEY-----\nanything\n-----END …`, or no
/// body at all): its body holds fewer than 16 base64 characters in a row.
fn has_key_material(value: &str) -> bool {
    let body = value
        .split("-----")
        .filter(|part| !part.contains("PRIVATE KEY") && !part.contains("Private-Lines"))
        .collect::<String>();
    body.split(|c: char| !(c.is_ascii_alphanumeric() || matches!(c, '+' | '/' | '=')))
        .any(|run| run.len() >= 16)
        || value.starts_with("Private-Lines")
        // Whatever a whole block holds between BEGIN and END is its key.
        || (value.contains("-----END")
            && body.chars().filter(|c| c.is_ascii_alphanumeric()).count() >= 16)
}

/// `after` (the text after a token's match) is the rest of a word and a web asset's file
/// extension: the match is a content hash in a file name.
fn names_a_file(after: &str) -> bool {
    const ASSET_EXTENSIONS: &[&str] = &[
        "png", "jpg", "jpeg", "gif", "svg", "ico", "webp", "css", "js", "mjs", "map", "woff",
        "woff2", "ttf", "html",
    ];
    // The hash may run on past the format's length up to the extension.
    let after = after.trim_start_matches(|c: char| c.is_ascii_alphanumeric());
    let Some(rest) = after.strip_prefix('.') else {
        return false;
    };
    let ext_len = rest.bytes().take_while(u8::is_ascii_alphanumeric).count();
    ASSET_EXTENSIONS.contains(&rest[..ext_len].to_ascii_lowercase().as_str())
        && !rest[ext_len..].starts_with(|c: char| c.is_ascii_alphanumeric() || c == '.')
}

/// Whether `keyword` (a slice of `text`: a vendor's name before a keyword-context value) is a
/// piece of a longer word rather than a word or camelCase parts: glued after a letter
/// (`CameraKit` holds `meraKi`, `rookTable` holds `okTa`, `SetSysctl` holds `etSy`), or ending
/// inside a camelCase part it began (`sumObj` holds `sumO`; `MessageBirdToken` holds
/// `MessageBird` whole). A Java system property's `-D` is no word (`-Dsonar.login=`).
pub(in crate::redact) fn is_inside_a_word(text: &str, keyword: &str) -> bool {
    let start = (keyword.as_ptr() as usize).wrapping_sub(text.as_ptr() as usize);
    let bytes = text.as_bytes();
    let kw = keyword.as_bytes();
    let camel_inside = kw
        .windows(2)
        .any(|pair| pair[0].is_ascii_lowercase() && pair[1].is_ascii_uppercase());
    let after = bytes.get(start + kw.len());
    if camel_inside && after.is_some_and(u8::is_ascii_lowercase) {
        return true;
    }
    let Some(&before) = start.checked_sub(1).and_then(|at| bytes.get(at)) else {
        return false;
    };
    let camel_start = before.is_ascii_lowercase() && kw.first().is_some_and(u8::is_ascii_uppercase);
    before.is_ascii_alphabetic() && !camel_start && !text[..start].ends_with("-D")
}

/// `ghp_xxxx…`, `glpat-XXXXXXXXXXX-XXXXXXXX`: a run of six or more `x` or `X` after which
/// fewer than 8 other letters and digits follow (`sk-ant-api03-xxxx…AbCdEf012345` is a secret).
pub(super) fn is_x_filler(value: &str) -> bool {
    let Some(at) = value.find("xxxxxx").or_else(|| value.find("XXXXXX")) else {
        return false;
    };
    value[at..]
        .bytes()
        .filter(|b| b.is_ascii_alphanumeric() && !matches!(b, b'x' | b'X'))
        .count()
        < 8
}

/// A token's characters with a `?` among them (`uifss?i7y40rf…`): no token alphabet (base64,
/// URL-safe, hex) has `?`; it stands for an unknown character or starts a query. Values named as
/// passwords are still redacted: a password may hold `?`.
pub(super) fn is_mangled_token(value: &str) -> bool {
    value.contains('?')
}

/// Passwords that stand for one in examples (`curl -u username:password`).
pub(super) const STAND_IN_PASSWORDS: &[&str] = &[
    "password", "passwd", "pass", "pwd", "token", "secret", "test", "yyy", "changeme",
];

/// Words a token may be glued to (`keyghp_…`, `Bearerghp_…`): they name what follows.
const GLUE_WORDS: &[&str] = &[
    "key", "token", "bearer", "secret", "auth", "pass", "pwd", "basic",
];

/// The length of the longest run of one filler byte (`*`, `#`, `0`) in `value` (`x` fillers are
/// [`is_x_filler`]'s).
fn longest_filler_run(value: &str) -> usize {
    value
        .as_bytes()
        .chunk_by(|a, b| a == b)
        .filter(|run| matches!(run[0], b'*' | b'#' | b'0'))
        .map(<[u8]>::len)
        .max()
        .unwrap_or(0)
}

/// The length of the longest run of lowercase ASCII letters in `value`.
fn longest_lowercase_run(value: &str) -> usize {
    value
        .split(|c: char| !c.is_ascii_lowercase())
        .map(str::len)
        .max()
        .unwrap_or(0)
}

/// A reference or stand-in rather than a literal secret: `$VAR`, `${VAR}`, `$(cmd)`,
/// `{{ var }}`, `<password>`, `%VAR%`, `***`, `xxx`, `REDACTED`, ….
/// Inside single quotes a shell does not expand `$`, so `'$ecret'` is literal.
pub(super) fn is_placeholder(value: &str, quote: Option<char>) -> bool {
    let v = value.trim();
    if quote != Some('\'') && is_shell_reference(v) {
        return true;
    }
    if v.starts_with("{{")
        || v.starts_with("${{")
        || v.starts_with('<')
        || v.starts_with(MARKER_OPEN)
    {
        return true;
    }
    // `%VAR%` (Windows), `%s`, `%r`, `%(name)s` (printf).
    if v.starts_with('%')
        && ((v.len() > 2 && v.ends_with('%')) || v.len() <= 3 || v.starts_with("%("))
    {
        return true;
    }
    if v.bytes()
        .all(|b| matches!(b, b'*' | b'.' | b'x' | b'X' | b'#' | b'-' | b'_'))
    {
        return true;
    }
    // Templates and format strings: `{password}`, `'{}:{}'`, `"Basic %s"`, `"Bearer "`.
    if (v.starts_with('{') && v.ends_with('}'))
        // A format spec ends a word (`%s@`, `%s`), unlike `%sz7` in a password.
        || ["%s", "%d", "%r", "{}", "{0}"].iter().any(|f| {
            (v.match_indices(f)).any(|(at, _)| !v[at + f.len()..].starts_with(char::is_alphanumeric))
        })
        || has_template_reference(v)
        || value.starts_with(char::is_whitespace)
        || value.ends_with(char::is_whitespace)
    {
        return true;
    }
    // A key's name standing for its value: `?access_token=ACCESS_TOKEN`, `YOUR_API_KEY`.
    if v.contains('_')
        && v.bytes().all(|b| b.is_ascii_uppercase() || b == b'_')
        && ["TOKEN", "KEY", "SECRET", "PASSWORD"]
            .iter()
            .any(|w| v.contains(w))
    {
        return true;
    }
    let lower = v.to_ascii_lowercase();
    // Documentation stand-ins: `your-api-key-here`, `example-token`, `<placeholder>`,
    // `[PASSWORD]`, `sha256~XXXX_PUT_YOUR_TOKEN_HERE`, a value cut short with `...` before it
    // shows 8 characters (`sk-...`; `MyPa$$w0rd...` shows a password).
    if (v.starts_with('[') && v.ends_with(']'))
        || (v.ends_with("...") && v.trim_end_matches('.').len() < 8)
        || is_x_filler(v)
        || lower.contains("your_token")
        || lower.contains("your-token")
        || lower.starts_with("your-")
        || lower.starts_with("your_")
        || lower.ends_with("-here")
        || lower.ends_with("_here")
        || lower.contains("example")
        || lower.contains("placeholder")
        || is_spelled_stand_in(&lower, false)
    {
        return true;
    }
    // A word that says the value was hidden, bracketed or not (`[redacted]`, `masked`).
    ["redacted", "hidden", "masked", "filtered"].contains(&lower.trim_matches(['[', ']', '(', ')']))
}

/// Whether `v` holds a `${name}` reference (`${HOME}/x`, `${env:TOKEN}`); `${e]` in a password
/// is no reference.
pub(super) fn has_template_reference(v: &str) -> bool {
    v.match_indices("${").any(|(at, _)| {
        let rest = &v[at + 2..];
        let name = rest
            .bytes()
            .take_while(|b| b.is_ascii_alphanumeric() || matches!(b, b'_' | b'.' | b':' | b'-'))
            .count();
        name > 0 && rest.as_bytes().get(name) == Some(&b'}')
    })
}

/// `$VAR`, `${VAR…}`, `$(…)`, `$1`, PowerShell's `$env:VAR`: the whole value is a shell or
/// template reference, or a path under one (`$BASE_URL/reset`, `$HOME/.pgpass`).
pub(super) fn is_shell_reference(v: &str) -> bool {
    let Some(rest) = v.strip_prefix('$') else {
        return false;
    };
    let name = match rest.get(..4) {
        Some("env:" | "Env:") => &rest[4..],
        _ => rest,
    };
    let name = name.split_once('/').map_or(name, |(name, _)| name);
    rest.starts_with(['{', '('])
        || (!name.is_empty() && name.bytes().all(|b| b.is_ascii_alphanumeric() || b == b'_'))
}

/// Words that a value spelled from nothing else stands for a secret by: the first
/// [`SAYS_STAND_IN`] say so, the others name what it stands for or fill the phrase.
#[rustfmt::skip]
const STAND_IN_WORDS: &[&str] = &[
    "fake", "dummy", "sample", "real", "some", "my", "your", "the", "a", "api", "key", "secret",
    "token", "password", "pass", "value",
];
const SAYS_STAND_IN: usize = 4;

/// Whether `rest` (lowercase) is spelled only from [`STAND_IN_WORDS`], `-`, `_` or spaces
/// between them, one of them saying it stands in (`somefakekey`, `a-fake-api-key`,
/// `real_secret`): a phrase, not a secret. The whole value must be so spelled: a random token
/// holding `fake` (`MVE7zmdxouvunFAKELzaudyX…`) is not, nor is `mysecretpassword`, which
/// someone may use.
fn is_spelled_stand_in(rest: &str, said: bool) -> bool {
    if rest.is_empty() {
        return said;
    }
    STAND_IN_WORDS.iter().enumerate().any(|(i, word)| {
        rest.strip_prefix(word).is_some_and(|after| {
            is_spelled_stand_in(
                after.trim_start_matches(['-', '_', ' ']),
                said || i < SAYS_STAND_IN,
            )
        })
    })
}

/// Words a made-up value names itself by (`sk-abc123invalid`, `redirect_url_mismatch`,
/// `hvb.shorttoken`, `…SHORT`).
const MADE_UP_WORDS: &[&str] = &["invalid", "dummy", "mismatch", "short"];

/// A value named as a secret that shows it was made up rather than issued: it calls itself
/// invalid, a dummy, a mismatch or short, starts with `=` or `@`, which no token alphabet
/// starts with (the `=` of `'=2rgf…'` sits just before the value's span: `opened_by_equals`),
/// or is nothing but counting ([`is_counting`]: `123456`, `ABCDEFG`).
/// Not `fake`, nor runs like `abcdef123456…` inside a longer value: the scanners' own
/// positives use both, so they say nothing of whether a value would work. Not for passwords,
/// which people choose: `123456` is a weak password, not a stand-in for one.
pub(in crate::redact) fn is_made_up(value: &str, opened_by_equals: bool) -> bool {
    if opened_by_equals || value.starts_with(['=', '@']) || is_counting(value) {
        return true;
    }
    let lower = value.to_ascii_lowercase();
    MADE_UP_WORDS.iter().any(|w| lower.contains(w))
}

/// Six to fifteen letters or digits that only count up, one run (`123456`, `abcdefgh`,
/// `1234567890`, where `0` follows `9`) or two runs interleaved (`1a2b3c4d`, `a1b2c3`): a
/// key typed by hand to stand for one. An issued key is drawn at random, and a random string
/// of six characters or more counts up from end to end with a chance of one in millions.
/// Counting as long as a key (`1a2b3c4d…` to 32) is not a stand-in: it is the shape docs and
/// samples give a key, so the very place a real one gets pasted.
pub(in crate::redact) fn is_counting(value: &str) -> bool {
    let bytes = value.as_bytes();
    let next = |a: u8, b: u8| {
        a.is_ascii_alphanumeric()
            && (b == a + 1 && b.is_ascii_alphanumeric() && a.is_ascii_digit() == b.is_ascii_digit()
                || (a, b) == (b'9', b'0'))
    };
    let counts_by = |step: usize| bytes.windows(step + 1).all(|w| next(w[0], w[step]));
    (6..16).contains(&bytes.len()) && (counts_by(1) || counts_by(2))
}

/// Whether `bytes[end..]` goes on with `?` and a letter or digit: a token cut there by a
/// character no token alphabet has.
pub(in crate::redact) fn is_broken_at(bytes: &[u8], end: usize) -> bool {
    bytes.get(end) == Some(&b'?') && bytes.get(end + 1).is_some_and(u8::is_ascii_alphanumeric)
}
