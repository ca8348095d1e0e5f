//! What a value looks like whatever its key is named: its entropy, and whether it reads as a
//! file path, as code (a type, call, index or member path), as a UUID, or as a token format's
//! prefix cut short (`sk-1234`).
//!
//! Not here: the checks that weigh these with the key name and the place (`vet`), stand-ins
//! and placeholders (`stand_ins`).
//!
//! Cost: cold, once per regex match.

use super::Context;

/// Shannon entropy of the bytes of `s`, in bits per byte. The logarithm is the `libm` crate's
/// (musl's, as in the static image), not the system's: nothing else in the binary calls the
/// system `libm`, and loading it costs `run` resident memory (docs/performance.md).
pub(super) fn entropy(s: &str) -> f64 {
    let mut counts = [0u32; 256];
    for b in s.bytes() {
        counts[usize::from(b)] += 1;
    }
    let len = s.len() as f64;
    counts
        .iter()
        .filter(|&&n| n > 0)
        .map(|&n| {
            let p = f64::from(n) / len;
            -p * libm::log2(p)
        })
        .sum()
}

/// A file path rather than a secret: `~/…`, `./…`, `../…`, a lowercase absolute path, an
/// absolute path ending in a file extension, or a bare file name with a key-ish extension.
pub(super) fn looks_like_path(v: &str) -> bool {
    if !v.bytes().all(|b| {
        b.is_ascii_alphanumeric() || matches!(b, b'_' | b'.' | b'~' | b'/' | b'-' | b'@' | b'+')
    }) {
        return false;
    }
    if v.starts_with("~/") || v.starts_with("./") || v.starts_with("../") {
        return true;
    }
    let has_extension = |s: &str| {
        s.rsplit_once('.').is_some_and(|(stem, ext)| {
            !stem.is_empty()
                && (1..=5).contains(&ext.len())
                && ext.bytes().all(|b| b.is_ascii_alphanumeric())
        })
    };
    if let Some(rest) = v.strip_prefix('/') {
        let last = rest.rsplit('/').next().unwrap_or("");
        return rest.contains('/')
            && (has_extension(last) || !v.bytes().any(|b| b.is_ascii_uppercase()));
    }
    const FILE_EXTENSIONS: &[&str] = &[
        "pem", "key", "json", "txt", "p12", "pfx", "crt", "cer", "pub", "yaml", "yml", "env",
        "cfg", "conf", "ini", "toml", "gpg", "asc", "jks", "keystore", "ppk",
    ];
    v.rsplit_once('.').is_some_and(|(stem, ext)| {
        !stem.is_empty() && FILE_EXTENSIONS.contains(&ext.to_ascii_lowercase().as_str())
    })
}

/// A Slack token cut before its secret: `xoxp-` and only the workspace, user and app ids, which
/// are numbers (`xoxp-572370529330-573807301142-572331691188-`); the secret is the last,
/// alphanumeric part, and without it nothing secret is shown.
pub(super) fn is_slack_ids_only(value: &str) -> bool {
    let Some(rest) = value
        .strip_prefix("xox")
        .and_then(|rest| rest.get(1..))
        .and_then(|rest| rest.strip_prefix('-'))
    else {
        return false;
    };
    value.as_bytes()[3].is_ascii_lowercase()
        && rest.bytes().any(|b| b.is_ascii_digit())
        && rest.bytes().all(|b| b.is_ascii_digit() || b == b'-')
}

/// Unquoted values that are type names, keywords or literals in code, not secrets.
#[rustfmt::skip]
const CODE_WORDS: &[&str] = &[
    "string", "String", "str", "&str", "bool", "boolean", "number", "int", "i32", "i64", "u32",
    "u64", "usize", "bytes", "Bytes", "None", "none", "null", "nil", "undefined", "true", "false",
    "True", "False", "any", "unknown", "object", "Secret", "SecretString", "Option", "Vec", "Box",
    "Arc", "Cow", "required", "optional",
];

/// `sk-1234`, `API-1234`, `tfp_1`: two to four letters, `-` or `_`, at most five more letters
/// and digits.
pub(super) fn is_cut_prefixed_token(value: &str) -> bool {
    let Some(at) = value.find(['-', '_']) else {
        return false;
    };
    let (prefix, rest) = (&value[..at], &value[at + 1..]);
    (2..=4).contains(&prefix.len())
        && prefix.bytes().all(|b| b.is_ascii_alphabetic())
        && rest.len() <= 5
        && rest.bytes().all(|b| b.is_ascii_alphanumeric())
}

/// An unquoted value that reads as code: a type, call, index, member path or literal.
pub(super) fn looks_like_code(value: &str, ctx: Context) -> bool {
    let word = value.trim_end_matches([')', ',', ';', '}', ']', ':']);
    // A call: a name, member path or conversion right before the `(` (`getenv("X")`,
    // `self.key()`, `[]byte(os.Getenv("X"))`); a password may hold `(` elsewhere (`m{{h}o)p(…`).
    let call = value.find('(').is_some_and(|at| {
        value[..at]
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || b"_.:$!&*[]".contains(&b))
    });
    // A PowerShell cmdlet (`$password = Read-Host -AsSecureString`): a verb, `-`, a noun.
    let cmdlet = word.split_once('-').is_some_and(|(verb, noun)| {
        let verbs = "Get Read New ConvertTo ConvertFrom Import Invoke";
        verbs.split(' ').any(|v| v == verb) && noun.bytes().all(|b| b.is_ascii_alphabetic())
    });
    if CODE_WORDS.contains(&word) || call || cmdlet {
        return true;
    }
    // `!er.headers`, `!!key.emitKey`: a negated expression.
    if ctx.spaced_assign && value.starts_with('!') {
        return true;
    }
    let is_identifier = |part: &str| {
        part.starts_with(|c: char| c.is_ascii_alphabetic() || matches!(c, '_' | '$' | '#'))
            && part
                .bytes()
                .skip(1)
                .all(|b| b.is_ascii_alphanumeric() || b == b'_' || b == b'$')
    };
    // `Optional[bytes]`, `data['password']`, `line[start:pos]`: an index or a generic type.
    if let Some(open) = value.find('[') {
        if open > 0
            && value[..open]
                .split(['.', ':'])
                .filter(|p| !p.is_empty())
                .all(is_identifier)
        {
            return true;
        }
    }
    // `mio::Token`, `Name.Builtin.Pseudo`, `self.token`, `process.env.API_KEY`.
    let parts: Vec<&str> = word.split("::").flat_map(|p| p.split('.')).collect();
    let has_digit = word.bytes().any(|b| b.is_ascii_digit());
    // A part of 20 characters or more as random as a token's (`rh83qVzJ….LdWO…`) is no name.
    let random = |p: &&str| p.len() >= 20 && entropy(p) >= 4.4;
    if parts.iter().all(|p| is_identifier(p)) && !parts.iter().any(random) {
        let code_like = ctx.in_code || ctx.spaced_assign;
        if word.contains("::")
            || (parts.len() >= 2
                && !ctx.env_assign
                && (parts.len() >= 3 || !has_digit || code_like))
        {
            return true;
        }
        // A bare identifier in `x = other_name` or `field: Type,`; not a config line's word.
        if parts.len() == 1 && code_like && !has_digit && (ctx.in_code || !ctx.config_word(word)) {
            return true;
        }
    }
    if let Some(hex) = word.strip_prefix("0x") {
        if (1..=16).contains(&hex.len()) && hex.bytes().all(|b| b.is_ascii_hexdigit()) {
            return true;
        }
    }
    // jq paths and member accesses: `.spec.tokenRef`; not one long random segment
    // (`.v2QPKHl7LcdVYsjaR4…`, a secret that starts with a dot).
    let path = value.strip_prefix('.').unwrap_or("");
    let one_random_segment = !path.contains('.') && path.len() > 20 && has_digit;
    path.starts_with(|c: char| c.is_ascii_alphabetic()) && !one_random_segment
}

/// A UUID: five groups of 8, 4, 4, 4 and 12 hex digits.
pub(super) fn is_uuid(value: &str) -> bool {
    let parts: Vec<&str> = value.split('-').collect();
    parts.len() == 5
        && parts.iter().map(|p| p.len()).eq([8, 4, 4, 4, 12])
        && parts
            .iter()
            .all(|p| p.bytes().all(|b| b.is_ascii_hexdigit()))
}
