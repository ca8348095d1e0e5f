//! Vets the matches of the rules: placeholders, code, prose, paths and ids are not secrets.
//!
//! Owns [`Check`] and the heuristics behind it: placeholders (`$TOKEN`, `<password>`, `***`),
//! code (`token: Token,`), prose, paths, UUIDs, commit SHAs, tool-use ids, and the entropy
//! gates of generic assignments. A check only reads the text; it never changes what a rule
//! matched beyond trimming a value's trailing `,`/`}`.
//!
//! What a value looks like on its own (entropy, path, code, UUID) is `shapes`; what stands
//! for a secret without being one (placeholders, fillers, stand-in passwords) is `stand_ins`.
//!
//! Not here: patterns (`rules`), running them or replacing text (`engine`, `spans`).
//!
//! Cost: cold, once per regex match.

use std::sync::OnceLock;

use super::MARKER_OPEN;

mod jwt;
mod keyless;
mod names;
mod shapes;
mod stand_ins;

pub(super) use keyless::looks_random;
#[cfg(test)]
pub(super) use keyless::KEYLESS_KIND;
pub(super) use names::VOCAB;

use shapes::{
    entropy, is_cut_prefixed_token, is_slack_ids_only, is_uuid, looks_like_code, looks_like_path,
};
pub(super) use stand_ins::stands_as_token;
use stand_ins::{is_made_up, is_mangled_token, is_placeholder, STAND_IN_PASSWORDS};

/// How a rule's match is vetted before it is replaced.
#[derive(Clone, Copy, Debug, Default)]
pub(super) enum Check {
    /// Every match is a secret.
    #[default]
    None,
    /// The secret must have at least this Shannon entropy, in bits per byte.
    Entropy(f64),
    /// The secret must not be a placeholder such as `$TOKEN`, `<password>` or `***`.
    Value,
    /// A value named by its key: not a placeholder, path, type name, code reference, or the
    /// value of a benign key (`public_key`, `page_token`, `PWD`, …).
    Named,
    /// gitleaks' generic-api-key: high entropy, and not an id, digest, UUID, path or host.
    Generic,
    /// An `Authorization:` header value.
    Header,
    /// A `Cookie:` header value: `name=value` pairs.
    Cookie,
    /// A keyword-context value: it has a digit or at least this entropy, so `sumo … 'sumsandsquares'`
    /// (a word) is not taken for a key.
    Random(f64),
    /// A base64 data value in a Kubernetes Secret.
    KubeData,
    /// A value given to a key whose name names a credential (`names::names_a_credential`),
    /// whatever its entropy: not a reference, empty, a boolean, a number, code or a path.
    Assigned,
    /// A value after a credential-named label and a space (prose, logs): random-looking only.
    Labelled,
}

/// Where a value sits, as far as the checks care.
#[derive(Clone, Copy, Debug)]
struct Context {
    /// The quote right before the value, if any.
    quote: Option<char>,
    /// The value ends a list, call or type parameter list (`Token,`, `Value)`, `Cell<…>`).
    in_code: bool,
    /// Preceded by ` = `: an assignment in code rather than an env file.
    spaced_assign: bool,
    /// Preceded by ` = ` and one name at its line's start: a config file's line (INI,
    /// `.properties`) or a variable's, not a tuple's (`user, password = split`) nor an argument.
    line_assign: bool,
    /// Preceded by `:` (YAML, docstrings, prose).
    colon: bool,
    /// Given to an environment variable (`export DB_PASSWORD=`, `API_KEY=` at a line's start
    /// or after a space): a shell value, never a member path.
    env_assign: bool,
    /// Followed by a space and a letter: more words follow.
    prose_follows: bool,
    /// The value's quote opens with `=` (`key = '=2rgf…'`): no token starts so.
    opened_by_equals: bool,
}

impl Context {
    /// One lowercase word of four letters or more alone after a name at a line's start: a
    /// config file's literal (`password = letmein`), though `password = pwd` is a variable.
    fn config_word(&self, word: &str) -> bool {
        self.line_assign && word.len() > 3 && word.bytes().all(|b| b.is_ascii_lowercase())
    }

    fn new(text: &str, start: usize, end: usize) -> Context {
        let before = &text[..start];
        let value = &text[start..end];
        let after = &text[end..];
        let quote = before.chars().last().filter(|c| matches!(c, '"' | '\''));
        let mut rest = after.chars();
        let next = rest.next();
        // `x === 'y'`, `a != b`, `c ? d : e`, `f + g`: an expression (shell's `&&`/`||` are not).
        let operator_follows = ["==", "!=", "? ", "+ "]
            .iter()
            .any(|op| after.trim_start_matches(' ').starts_with(op));
        Context {
            quote,
            // An element's text (`<password>x</password>`) is no code, though `<` follows it.
            in_code: quote.is_none()
                && !before
                    .trim_end_matches([' ', '\t', '\r', '\n', '\\'])
                    .trim_end_matches(['n', 't'])
                    .trim_end_matches([' ', '\t', '\r', '\n', '\\'])
                    .ends_with('>')
                && (value.ends_with([',', ')', '}', ']'])
                    || matches!(next, Some('<' | '>' | '(' | ';' | '{' | ','))
                    || operator_follows),
            spaced_assign: before.ends_with(" = ") || before.ends_with(" := "),
            line_assign: before.strip_suffix(" = ").is_some_and(|b| {
                // A line of the text or of a JSON string (`\n` escaped), or a string's start.
                let line = b.rsplit(['\n', '"']).flat_map(|l| l.rsplit("\\n")).next();
                let mut name = line.unwrap_or(b).trim_start().bytes();
                name.len() > 0 && name.all(|c| c.is_ascii_alphanumeric() || b"_.-".contains(&c))
            }),
            opened_by_equals: before.ends_with("'=") || before.ends_with("\"="),
            colon: before.trim_end_matches([' ', '\t']).ends_with(':'),
            env_assign: before.strip_suffix('=').is_some_and(|name| {
                let left = name.trim_end_matches(|c: char| {
                    c.is_ascii_uppercase() || c.is_ascii_digit() || c == '_'
                });
                left.len() < name.len() && (left.is_empty() || left.ends_with([' ', '\n']))
            }) && !names::is_env_reference(value),
            // A marker counts as the word it replaced, so a second pass decides the same way.
            prose_follows: next == Some(' ')
                && (rest.next().is_some_and(|c| c.is_ascii_alphabetic())
                    || after[1..].starts_with(MARKER_OPEN)),
        }
    }
}

/// Where a query string's next pair (`&page=2`) starts in a named value, or its length: a name
/// and `=` after `&`, not a password's `&` (`Tr0ub&dor`) nor base64's padding (`&abc==`). A
/// format's own pairs (Google Chat's `key=…&token=…`) stay whole.
fn before_next_pair(value: &str) -> usize {
    let pair = |(at, _): &(usize, &str)| {
        let rest = value[at + 1..].trim_start_matches(|c: char| c.is_alphanumeric() || c == '_');
        rest.len() + at + 1 < value.len() && matches!(rest.as_bytes(), [b'=', c, ..] if *c != b'=')
    };
    value
        .match_indices('&')
        .find(pair)
        .map_or(value.len(), |(at, _)| at)
}

/// Vets one match; returns the (possibly trimmed) span to replace, or `None` to keep it.
pub(super) fn accept(
    check: Check,
    kind: &str,
    name: Option<&str>,
    text: &str,
    start: usize,
    end: usize,
) -> Option<(usize, usize)> {
    let value = &text[start..end];
    if value.is_empty() {
        return None;
    }
    // `7z a -pSECRET archive.7z`: a short flag with its value glued on, not a flag or label
    // named `…Pass` followed by its value.
    let glued_short_flag = |n: &str| {
        let n = n.trim_start_matches('-');
        let (b, before) = (n.as_bytes(), &text[..text[..start].rfind(n).unwrap_or(0)]);
        let camel = b.len() > 2 && b[0].is_ascii_lowercase() && b[1].is_ascii_uppercase();
        camel && before.ends_with('-') && !before.ends_with("--")
    };
    if name.is_some_and(glued_short_flag) {
        return None;
    }
    let ctx = Context::new(text, start, end);
    // `password=[your password here]`: a phrase in brackets stands for the value.
    if ctx.quote.is_none() && ctx.prose_follows && text[..start].ends_with('[') {
        return None;
    }
    // An unquoted value may end a list item, an object or a statement: `{password: x}` keeps `}`;
    // a query string's next pair (`token=x&page=2`) is not a named value's.
    let trimmed = value[..before_next_pair(value)]
        .trim_end_matches(|c| ctx.quote.is_none() && ",}];".contains(c));
    let ok = match check {
        Check::None => true,
        Check::Entropy(min) => entropy(value) >= min,
        Check::Value => {
            // `curl -u user:pass`, `-u 'test:test'`: documentation, not a password; nor is a
            // URL's password that repeats its user (`postgres://postgres:postgres@…`, a default).
            let stand_in = kind == "basic_auth"
                && STAND_IN_PASSWORDS
                    .contains(&value.trim_end_matches('>').to_ascii_lowercase().as_str());
            let user = text[..start].strip_suffix(':').unwrap_or("");
            let as_user = kind == "url_credentials" && user.ends_with(&format!("/{value}"));
            !(is_placeholder(value, ctx.quote) || stand_in || as_user)
        }
        Check::Header => header_ok(name, value, ctx),
        Check::Cookie => value.contains('=') && !is_placeholder(value, ctx.quote),
        Check::Random(min) => {
            // One character over and over (`discord=000000000000000000`), or blocks of one
            // character each (`aaaaaaaaaa1111111111bbbbbbbbbb…`), is a stand-in, as for a named
            // value; a digit otherwise lets a low-entropy value through.
            (value.bytes().any(|b| b.is_ascii_digit()) || entropy(value) >= min)
                && entropy(value) > 0.0
                && !stand_ins::is_blocks_of_one(value)
                && !is_mangled_token(value)
                && !name.is_some_and(|keyword| stand_ins::is_inside_a_word(text, keyword))
        }
        Check::KubeData => kube_data_ok(value),
        Check::Labelled => {
            let trimmed = value.trim_end_matches([',', ';', '.', ')']);
            let name = name.unwrap_or("");
            let naming = names::labels_a_credential(name);
            // `the password is hunter2`, not `the token is base64 encoded`.
            let said = names::says_what_it_is(text, name, start) && !ctx.prose_follows;
            let chosen = naming == names::Naming::Strong && said;
            let ok = naming != names::Naming::No
                && !names::prose_word_before_says_otherwise(text, name)
                && names::labelled_value_ok(trimmed, ctx.quote, chosen);
            return ok.then_some((start, start + trimmed.len()));
        }
        Check::Assigned => {
            let name = name.unwrap_or("");
            // An unquoted word ending in `:` opens a YAML mapping (`credentials file:`).
            let key = ctx.quote.is_none() && trimmed.ends_with(':');
            let ok = !trimmed.is_empty()
                && !key
                && match names::names_a_credential(name) {
                    names::Naming::Strong => true,
                    names::Naming::Weak => names::labelled_value_ok(trimmed, ctx.quote, false),
                    names::Naming::No => is_vault_secret_id(name, trimmed),
                }
                && !names::is_second_of_many(text, name, start, end)
                && !names::is_number_or_boolean(trimmed)
                && !names::is_env_reference(trimmed)
                && !names::is_stand_in(text, start, trimmed)
                && !is_cut_prefixed_token(trimmed)
                && !is_slack_ids_only(trimmed)
                && (names_password(name) || !is_made_up(trimmed, ctx.opened_by_equals))
                && named_ok("password", name, trimmed, ctx);
            return ok.then_some((start, start + trimmed.len()));
        }
        Check::Generic => generic_ok(name.unwrap_or(""), value, text, start, ctx),
        Check::Named => {
            let name = name.unwrap_or("");
            // An empty value is not `named_ok`.
            let ok = named_ok(kind, name, trimmed, ctx)
                && !names::is_second_of_many(text, name, start, end);
            return ok.then_some((start, start + trimmed.len()));
        }
    };
    ok.then_some((start, end))
}

/// `exports.X = X`, `self.token = token`: the value names the same thing as the key.
fn names_itself(name: &str, value: &str) -> bool {
    let name = name.trim();
    name == value || name.strip_suffix(value).is_some_and(|r| r.ends_with('.'))
}

/// `self.api_key = api_key`, `token = access_token`, `login(password=password)`: the value is a
/// lowercase identifier ending in the same keyword as the key, so it names a variable.
fn is_same_named_identifier(norm_name: &str, value: &str, ctx: Context) -> bool {
    #[rustfmt::skip]
    const KEYWORDS: &[&str] = &[
        "token", "secret", "key", "password", "passwd", "pass", "pwd", "auth", "credentials",
        "credential", "creds",
    ];
    // A lowercase identifier (`access_token`, `self.password`), one word only in code
    // (`login(password=mypassword)`; `DB_PASSWORD=mypassword` and a config line's `password =
    // mysecretpassword` are literals); mixed case (`authKey: _authKey`) only where code is
    // evident: `API_KEY=MySecretKey` stays secret.
    let code =
        (ctx.spaced_assign && !ctx.config_word(value)) || ctx.in_code || value.starts_with('_');
    let identifier = value.starts_with(|c: char| c.is_ascii_alphabetic() || c == '_')
        && (code || value.contains(['_', '.']))
        && value.bytes().all(|b| {
            (b.is_ascii_alphanumeric() && (code || !b.is_ascii_uppercase())) || b"_.".contains(&b)
        });
    if !identifier {
        return false;
    }
    let norm_value = normalise(value);
    KEYWORDS
        .iter()
        .any(|keyword| norm_name.ends_with(keyword) && norm_value.ends_with(keyword))
}

/// Normalised key name: lowercase ASCII alphanumerics only (`PRIMARY_KEY` → `primarykey`).
fn normalise(name: &str) -> String {
    name.bytes()
        .filter(u8::is_ascii_alphanumeric)
        .map(|b| char::from(b.to_ascii_lowercase()))
        .collect()
}

/// Key names whose values are not secrets although the name ends like one.
#[rustfmt::skip]
const BENIGN_NAME_SUFFIXES: &[&str] = &[
    "publickey", "pubkey", "primarykey", "foreignkey", "sortkey", "partitionkey", "rangekey",
    "hashkey", "rowkey", "cachekey", "idempotencykey", "lookupkey", "routingkey", "objectkey",
    "mapkey", "groupkey", "dedupkey", "hotkey", "shortcutkey", "translationkey", "i18nkey",
    "messagekey", "labelkey", "tagkey", "metrickey", "fieldkey", "pagetoken", "nexttoken",
    "nextpagetoken", "paginationtoken", "continuationtoken", "cancellationtoken", "canceltoken",
    "synctoken", "resumetoken", "eostoken", "bostoken", "padtoken", "unktoken", "septoken",
    "clstoken", "masktoken", "maxtoken", "mintoken", "numtoken", "withcredentials",
    "existingsecret", "secretname", "secretref", "secretkeyref", "secretarn", "secretid",
    "schemakey", "authenticitytoken", "csrftoken", "xsrftoken", "parameterkey",
];

fn named_ok(kind: &str, name: &str, value: &str, ctx: Context) -> bool {
    let bare_name = name.trim_start_matches('-');
    let norm = normalise(bare_name);
    // A suffix that begins inside a word of the name (`statuspage_token`) is not the name's.
    // Its words only when a suffix matches: most names end in none.
    let at_word = |s: &str| {
        let words = names::words(bare_name);
        words.len() == 1 || (0..words.len()).any(|i| words[i..].concat() == s)
    };
    let benign_suffix = |s: &&str| norm.ends_with(s) && at_word(s);
    let benign = BENIGN_NAME_SUFFIXES.iter().any(benign_suffix);
    if matches!(bare_name, "PWD" | "OLDPWD") || benign && !is_vault_secret_id(bare_name, value) {
        return false;
    }
    let literal = ["true", "false", "null", "none", "nil", "undefined"];
    if is_placeholder(value, ctx.quote)
        || looks_like_path(value)
        || !value.bytes().any(|b| b.is_ascii_alphanumeric())
        || literal.contains(&value.to_ascii_lowercase().as_str())
    {
        return false;
    }
    // CSS colours (`Token: '#cccccc'` in a syntax theme); two words or more of the key's own
    // name, a header's (`contentTypeToken = "Content-Type"`, `API_KEY_HEADER = "X-API-Key"`).
    let hex = value.strip_prefix('#').unwrap_or("");
    let mut words = names::words(value);
    words.retain(|w| w != "x");
    if (3..=8).contains(&hex.len()) && hex.bytes().all(|b| b.is_ascii_hexdigit())
        || words.len() >= 2
            && names::words(bare_name)
                .windows(words.len())
                .any(|w| w == words)
    {
        return false;
    }
    if ctx.quote.is_none() {
        let word = value.trim_end_matches([')', ':', ';']);
        if names_itself(bare_name, word)
            || looks_like_code(value, ctx)
            || is_same_named_identifier(&norm, word, ctx)
        {
            return false;
        }
        // Prose: `:param token: The token string.`, `# First pass: determine …`.
        if ctx.colon && ctx.prose_follows && value.bytes().all(|b| b.is_ascii_alphabetic()) {
            return false;
        }
    }
    // `--secret id=npmrc,src=…` (BuildKit) names a secret; ssh public keys are public.
    #[rustfmt::skip]
    let not_secrets = ["id=", "type=", "src=", "ssh-rsa", "ssh-ed25519", "ecdsa-sha2-", "sk-ssh-"];
    // `credentials: 'include'` is fetch's mode.
    let fetch_mode =
        norm.ends_with("credentials") && matches!(value, "include" | "omit" | "same-origin");
    if fetch_mode || not_secrets.iter().any(|p| value.starts_with(p)) {
        return false;
    }
    let all_digits = value.bytes().all(|b| b.is_ascii_digit());
    // A number is a count, an id or a port, not a credential (a PIN is a password).
    if kind != "password"
        && (names::is_number_or_boolean(value)
            || is_mangled_token(value)
            || is_made_up(value, ctx.opened_by_equals)
            || is_slack_ids_only(value))
    {
        return false;
    }
    if kind == "password" {
        // `"pass": 3` counts test passes, `HAVE_PASSWD: 1` is a flag; `PASSWORD=1234` is a PIN.
        return !(all_digits && (value.len() <= 2 || matches!(norm.as_str(), "pass" | "pw")));
    }
    // A prefixed token cut short (`braintrust_key=sk-1234`, `token=spu-1234`, `'tfp_1'`): an
    // issued token runs on long after its prefix (an unprefixed key may be short: Mockaroo's).
    if is_cut_prefixed_token(value) {
        return false;
    }
    // Short numbers (`max_token: 512`, `DHKey = -9850`) are not secrets.
    let number = value.strip_prefix('-').unwrap_or(value);
    if value.len() < 8
        && !number.is_empty()
        && number.bytes().all(|b| b.is_ascii_digit() || b == b'.')
    {
        return false;
    }
    // Prose and flags' own words (`missing token: please log in`, `--token flag`): real
    // tokens are not a bare lowercase word. Quoted values (`"token": "x"`) are still redacted;
    // an `auth` names a method (`auth: basic-auth`).
    let lower_word = |extra: &[u8]| {
        value
            .bytes()
            .all(|b| b.is_ascii_lowercase() || extra.contains(&b))
    };
    if (ctx.quote.is_none() && lower_word(b"")) || (norm.ends_with("auth") && lower_word(b"-_")) {
        return false;
    }
    // The entropy gate of generic assignments: a value named only by `…_KEY` must look random,
    // not like one word (`SIGNING_KEY=Production`, `SORT_KEY=Name`); and no named secret is
    // one repeated character class run (`TOKEN=aaaaaaaaaaaa`, `SECRET=000000000000`).
    let one_word = value.len() <= 16
        && value.bytes().skip(1).all(|b| b.is_ascii_lowercase())
        && value.bytes().all(|b| b.is_ascii_alphabetic());
    if norm.ends_with("key") && one_word {
        return false;
    }
    value.len() < 8 || entropy(value) >= 1.5
}

fn header_ok(scheme: Option<&str>, value: &str, ctx: Context) -> bool {
    // A credential starts like one: not `)` after a string literal, not `:{` of a Rust path.
    let starts_like_token = value.bytes().next().is_some_and(|b| {
        b.is_ascii_alphanumeric() || matches!(b, b'-' | b'.' | b'_' | b'~' | b'+' | b'/')
    });
    if !starts_like_token || is_placeholder(value, None) {
        return false;
    }
    let lower = value.to_ascii_lowercase();
    if matches!(lower.as_str(), "bearer" | "basic" | "token" | "digest") {
        return false;
    }
    // Without a scheme, prose (`Authorization: required`) and code
    // (`authorization = header.split()`) are not credentials.
    scheme.is_some()
        || (value.len() >= 8
            && !value.bytes().all(|b| b.is_ascii_lowercase() || b == b'-')
            && !looks_like_code(value, ctx))
}

fn kube_data_ok(value: &str) -> bool {
    value.len() >= 8
        && value.bytes().any(|b| {
            b.is_ascii_digit() || b.is_ascii_uppercase() || matches!(b, b'+' | b'/' | b'=')
        })
        && entropy(value) >= 2.5
}

/// Name fragments that gitleaks' generic rule allows (key ids, versions, public keys, …).
fn generic_name_allowed(name: &str) -> bool {
    static ALLOW: OnceLock<regex_automata::meta::Regex> = OnceLock::new();
    ALLOW
        .get_or_init(|| {
            crate::matcher::compile(concat!(
                r"(?i)access(?:ibility|or)|access[_.-]?id|random[_.-]?access|api[_.-]?(?:id|name|version)|rapid|capital",
                r"|author|credentials?[_.-]?id|withcredentials|(?:bucket|foreign|hot|idx|natural|primary|pub(?:lic)?",
                r"|schema|sequence|sort|partition|cache)[_.-]?key|turkey|key[_.-]?(?:alias|board|code|frame|id|length",
                r"|mesh|name|pair|press(?:ed)?|ring|selector|signature|size|stone|storetype|word|up|down|left|right)",
                r"|key[_.-]?vault[_.-]?(?:id|name)|key(?:store|tab)[_.-]?(?:file|path)|issuerkeyhash|monkey|keying",
                r"|secret[_.-]?(?:length|name|size|ref)|usersecretsid|(?:api|credentials|token)[_.-]?(?:endpoint|ur[il])",
                r"|public[_.-]?token|(?:key|token)[_.-]?(?:file|path|type|count|limit)|(?:max|min|num|input|output)[_.-]?tokens?",
            ))
        })
        .is_match(name.as_bytes())
}

/// The words of gitleaks' generic rule's names other than `api`.
#[rustfmt::skip]
const GENERIC_CREDENTIAL_WORDS: &[&str] = &["access", "auth", "credential", "creds", "key", "passw", "secret", "token"];

/// Words that name an identifier or a place, not a credential.
const ID_WORDS: &[&str] = &[
    "id", "ids", "name", "url", "uri", "host", "domain", "email", "user", "username", "region",
];

/// `key and id = …`, `secret key id: …`: a name of several words names what its last word
/// does, as `key_id` does, and an id, a host or a user is no credential. Not after a
/// preposition (`token for user = …` is a token), and a last word that names a credential
/// (`API Key: …`, `secret key = …`) or anything else keeps the value named.
fn last_word_names_an_id(name: &str) -> bool {
    const PREPOSITIONS: &[&str] = &["for", "of", "to", "from", "in", "on", "with", "by", "at"];
    if !name.trim().contains([' ', '\t']) {
        return false;
    }
    let mut words = name
        .split(|c: char| !c.is_ascii_alphanumeric())
        .filter(|w| !w.is_empty())
        .map(str::to_ascii_lowercase);
    let (Some(last), Some(before)) = (words.next_back(), words.next_back()) else {
        return false;
    };
    ID_WORDS.contains(&last.as_str()) && !PREPOSITIONS.contains(&before.as_str())
}

fn generic_ok(name: &str, value: &str, text: &str, start: usize, ctx: Context) -> bool {
    // `apiMetrics`, `ipapi`: `api` alone names an interface, not its key.
    let norm = normalise(name);
    let only_api = !GENERIC_CREDENTIAL_WORDS.iter().any(|w| norm.contains(w));
    if only_api
        || generic_name_allowed(name)
        || last_word_names_an_id(name)
        || is_placeholder(value, ctx.quote)
        || looks_like_path(value)
        || is_mangled_token(value)
        || is_slack_ids_only(value)
        || (!names_password(name) && is_made_up(value, ctx.opened_by_equals))
    {
        return false;
    }
    if ctx.quote.is_none() {
        // After `,` or `>` only a quoted value counts (`set("api_key", "…")`); unquoted it
        // is the next argument in code (`isinstance(key, Ed25519PrivateKey)`).
        let operator = text[..start]
            .trim_end_matches(['`', '\'', '"', '\\', ' ', '\t', '\r', '\n'])
            .chars()
            .next_back();
        if matches!(operator, Some(',' | '>'))
            || looks_like_code(value, ctx)
            || names_itself(name, value)
        {
            return false;
        }
    }
    // A quoted value with spaces is prose unless it mixes three kinds of characters.
    if value.contains(char::is_whitespace) {
        let classes = [
            value.bytes().any(|b| b.is_ascii_lowercase()),
            value.bytes().any(|b| b.is_ascii_uppercase()),
            value.bytes().any(|b| b.is_ascii_digit()),
            value.bytes().any(|b| b.is_ascii_punctuation()),
        ];
        if classes.iter().filter(|&&c| c).count() < 3 {
            return false;
        }
    }
    // Letters-only values are words or identifiers; gitleaks requires entropy >= 3.5.
    if value
        .bytes()
        .all(|b| b.is_ascii_alphabetic() || matches!(b, b'_' | b'.' | b'-'))
        || entropy(value) < 3.5
    {
        return false;
    }
    let is_hex = |s: &str| s.bytes().all(|b| matches!(b, b'0'..=b'9' | b'a'..=b'f'));
    // Commit SHAs and sha256 digests stay readable, unless the name says key, token or secret.
    let says_secret = ["key", "token", "secret", "password"].map(|w| norm.ends_with(w));
    if (value.len() == 40 || value.len() == 64) && is_hex(value) && !says_secret.contains(&true) {
        return false;
    }
    if is_uuid(value) {
        return false;
    }
    #[rustfmt::skip]
    const ID_PREFIXES: &[&str] = &[
        "toolu_", "srvtoolu_", "exec_", "msg_", "req_", "call_", "run_", "chatcmpl-",
    ];
    if ID_PREFIXES.iter().any(|prefix| value.starts_with(prefix)) {
        return false;
    }
    // Lowercase dotted host names (`auth2.example.com`).
    !names::is_host(value)
}

/// A secret's id names it (AWS `--secret-id db`), but Vault AppRole's `secret_id` (or a
/// numbered `secret_id2`) is a UUID that logs in.
fn is_vault_secret_id(name: &str, value: &str) -> bool {
    (normalise(name).trim_end_matches(|c: char| c.is_ascii_digit())).ends_with("secretid")
        && is_uuid(value)
}

/// A password may start with `=` or `@` and hold any word.
fn names_password(name: &str) -> bool {
    let norm = normalise(name);
    ["pass", "pwd"].iter().any(|w| norm.contains(w))
}

#[cfg(test)]
mod tests {
    use super::generic_name_allowed;

    #[test]
    fn allowed_names_fold_case_and_nothing_else_is_allowed() {
        for name in [
            "public_key",
            "PUBLIC_KEY",
            "Public-Key",
            "keyId",
            "MAX_TOKENS",
            "monkey",
        ] {
            assert!(generic_name_allowed(name), "{name}");
        }
        for name in [
            "api_secret",
            "AWS_SECRET_ACCESS_KEY",
            "db_password",
            "Token",
        ] {
            assert!(!generic_name_allowed(name), "{name}");
        }
    }
}
