//! The default rules of [`super::Redactor`]: what each kind of secret looks like, in
//! priority order, and the builders shared by the rule tables.
//!
//! Rules are in priority order: when two rules' secrets overlap, the earlier rule's kind wins.
//! Precise token formats come first (`formats`), then the format families with their
//! provenance (password hashes, webhooks, connection strings, vendor prefixes: `families`),
//! then keyword-context families (`keywords`), then secrets found by their place (URLs,
//! headers: `places`), then passwords given to command-line tools (`flags`), then values named
//! as passwords or secrets and gitleaks' generic rule (`named`), and last values given to any
//! credential-named key in any syntax (`assigned`). Families follow gitleaks' default `config/gitleaks.toml` (one
//! kind per family, not per gitleaks rule id).
//!
//! Patterns use ASCII classes and `[0-9]` rather than `\w`/`\d`, case-insensitive parts are
//! `(?i-u:…)`, and every `\b` becomes an ASCII boundary that also holds after a JSON `\n`
//! escape. Tokens with a distinctive prefix (`ghp_`, `sk-ant-`, `AKIA`, …) need no boundary at
//! all ([`prefixed`]), so `send_ghp_…` glued into an identifier is still found.
//!
//! Not here: vetting matches (`vet`), running the rules (`engine`, over `crate::matcher`).

use super::vet::{accept, Check};

/// An `&` that stays inside a bare value (`Tr0ub4dor&3`, `Tr0ub&dor`); before a space or another
/// `&` it is the shell's (`cmd &`, `a && b`). A query string's next pair (`&page=2`) is cut off
/// by the vet.
#[rustfmt::skip]
macro_rules! amp_in_value { () => { r#"&[^\s"'\x60;&|<>\\]"# }; }
/// A YAML tag that may lead a value after its operator (`password: !!str x`).
#[rustfmt::skip]
macro_rules! yaml_tag { () => { r"(?:!!(?:str|binary)[ \t]+)?" }; }

mod assigned;
mod families;
mod flags;
mod formats;
mod keywords;
mod named;
mod places;

/// One rule: the kind it emits, what it matches, how a match is vetted.
#[derive(Default)]
pub(super) struct Rule {
    /// Stable snake_case label, emitted as `[REDACTED:<kind>]` and as a metric label value.
    pub kind: &'static str,
    /// The secret is the first participating capture group not named `k` (`k` holds a key
    /// name for the check), or the whole match when no such group participates.
    pub pattern: String,
    pub check: Check,
    /// A regex that must also match somewhere in the text for the rule to apply.
    pub requires: Option<&'static str>,
    /// Where the pattern may match: when set, `pattern` is searched (every match) only inside
    /// each match of this regex, e.g. a flag grammar inside the command that names its tool,
    /// so `snmpwalk -A X -X Y` yields both values.
    pub scope: Option<String>,
    /// Literals (lowercase; matched ASCII case-insensitively) of which the text must contain
    /// at least one for the rule to run. Empty: derived from the pattern by the matcher.
    pub anchors: Vec<String>,
    /// A token format that stands as a word: not right after or before a letter or digit
    /// (`TODAYINASIAAS…` holds no AWS key id), and not a stand-in (`ghp_xxxx…`, `…EXAMPLE`).
    pub word: bool,
    /// The format has a distinctive prefix ([`prefixed`], or a pattern with no `\b`): glued
    /// after a short word it is still a token (`keyghp_…`, `Bearerghp_…`).
    pub glued: bool,
}

impl Rule {
    fn check(mut self, check: Check) -> Rule {
        self.check = check;
        self
    }

    fn scope(mut self, scope: &str) -> Rule {
        self.scope = Some(word_boundaries(scope));
        self
    }

    fn word(mut self) -> Rule {
        self.word = true;
        self
    }

    fn requires(mut self, requires: &'static str) -> Rule {
        self.requires = Some(requires);
        self
    }

    /// Sets the anchors: each `|`-separated alternative of `words` up to its first regex
    /// metacharacter after its first character (`linked[_-]?in` gives `linked`; `*0` stays, and
    /// so does a leading or trailing `\b`, which the matcher reads as a word edge).
    fn anchors(mut self, words: &str) -> Rule {
        self.anchors = words
            .split('|')
            .map(|w| {
                let cut = |&(at, c): &(usize, char)| "[(?*+{\\.".contains(c) && &w[at..] != r"\b";
                let end = w.char_indices().skip(1).find(cut);
                w[..end.map_or(w.len(), |(at, _)| at)].to_ascii_lowercase()
            })
            .collect();
        crate::matcher::minimise(&mut self.anchors);
        self
    }

    /// Vets one match, whose secret is `text[start..end]` and whose key name (if the rule has
    /// one) is `name`: the span to replace (possibly trimmed), or `None` to keep the text.
    pub(super) fn vet(
        &self,
        name: Option<&str>,
        text: &str,
        start: usize,
        end: usize,
    ) -> Option<(usize, usize)> {
        let (start, end) = accept(self.check, self.kind, name, text, start, end)?;
        (!self.word || super::vet::stands_as_token(self.kind, self.glued, text, start, end))
            .then_some((start, end))
    }
}

fn rule(kind: &'static str, pattern: &str) -> Rule {
    let glued = !pattern.contains(r"\b");
    let pattern = word_boundaries(pattern);
    Rule {
        kind,
        pattern,
        glued,
        ..Rule::default()
    }
}

/// A token with a distinctive prefix, matched with no word boundary on either side: a token
/// glued into an identifier (`mcp__x__send_ghp_…`) or between words is still a token.
fn prefixed(kind: &'static str, pattern: &str) -> Rule {
    rule(kind, &pattern.replace(r"\b", ""))
}

/// gitleaks' keyword-context shape: a keyword, up to 20 more name characters, an assignment
/// operator (also JSON-escaped: `\":\"`), then the value. Case-insensitive throughout. The
/// keyword is the `k` group, so the check can tell a word from a piece of one (`sumObj`).
fn kw(kind: &'static str, keywords: &str, value: &str) -> Rule {
    rule(
        kind,
        &format!("(?i-u)(?P<k>{keywords}){KW_SEP}({value}){END}"),
    )
    .check(Check::Random(3.5))
    .anchors(keywords)
}

/// Rewrites each `\b` (not an escaped backslash followed by `b`) to an ASCII word boundary
/// that also holds right after a JSON escape: in `"a\nghp_…"` the token starts a line, but
/// `n` and `g` are both word characters. The escape becomes part of the match and is trimmed
/// off whole-match secrets.
pub(super) fn word_boundaries(pattern: &str) -> String {
    let mut out = String::with_capacity(pattern.len() + 16);
    let mut chars = pattern.chars();
    while let Some(c) = chars.next() {
        if c != '\\' {
            out.push(c);
            continue;
        }
        match chars.next() {
            Some('b') => out.push_str(r"(?:(?-u:\b)|\\[nrt])"),
            Some(next) => {
                out.push('\\');
                out.push(next);
            }
            None => out.push('\\'),
        }
    }
    out
}

const KW_SEP: &str = r#"[0-9a-z_.\t -]{0,20}[\t '"\\]{0,3}(?:=|>|:{1,3}=|\|\||:|=>|\?=|,|[ \t]-[ \t])[\x60'"\t =\\]{0,5}"#;
/// What may follow a keyword-context value, so a longer string is not taken for a shorter one.
const END: &str = r#"(?:[\x60'"\s;,.)}\]&|<>\\]|$)"#;
const UUID: &str = "[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}";

/// Left edge of a key name: start of text, an escaped `\n`/`\t`, or a character that cannot be
/// part of a name or a path (so `/etc/passwd:` is not a `passwd:` key).
const LEFT: &str = r#"(?:^|\\[nrt]|[^A-Za-z0-9_./\\-])"#;
/// Closing quote(s) of a quoted key, plus `]` for `environ["KEY"] = …`.
const CLOSE: &str = r#"(?:\\{0,3}["'])?\]?"#;
/// A typed declaration `name: Type = "value"` (Rust, TypeScript, Python; `&'static str`); quoted
/// values only.
/// Bounded: as the preferred alternative, an unbounded type would keep every search running
/// to the end of the text (quadratic on text full of `token: x`).
const TYPED: &str = r#"[ \t]*:[ \t]*&?'?[A-Za-z_][A-Za-z0-9_.:<>\[\], ]{0,48}?[ \t]*=[ \t]*"#;
/// An assignment's operator; a YAML tag may lead the value (`yaml_tag!`).
const SEP: &str = concat!(r"[ \t]*(?:=>|:=|=|:)[ \t]*", yaml_tag!());
/// Quoted values: JSON-escaped `\"…\"`, `"…"`, `'…'`.
const QUOTED: &str = r#"\\+"([^"\\\n]+)\\+"|"((?:[^"\\\n]|\\[^\n])+)"|'([^'\n]+)'"#;
/// An unquoted value: up to whitespace, a quote, a shell operator or a JSON escape, but for an
/// `amp_in_value!` `&`.
#[rustfmt::skip]
const BARE: &str = concat!(r#"([^\s"'\x60;&|<>\\{\[(,:=](?:[^\s"'\x60;&|<>\\]|"#, amp_in_value!(), r#"|\\[^nrtu"'\\\s])*)"#);
/// The same for a value after a space-separated flag: it may not start with `-`.
#[rustfmt::skip]
const BARE_FLAG: &str = concat!(r#"([^\s"'\x60;&|<>\\{\[(,:=-](?:[^\s"'\x60;&|<>\\]|"#, amp_in_value!(), r#"|\\[^nrtu"'\\\s])*)"#);

/// Key names that say "password", and the words they end in (for the trigger).
const NAME_PASSWORD: &str = concat!(
    r"(?P<k>[A-Za-z0-9_.-]*(?i-u:password|passwd|passphrase|pwd|storepass|keypass)",
    r"|(?:[A-Za-z0-9_.-]*[_.-])?(?i-u:pass|pw)",
    r"|[A-Za-z0-9_.-]*[A-Za-z0-9](?:Pass|Pw))",
);
const WORDS_PASSWORD: &str = "password|passwd|passphrase|pwd|storepass|keypass|pass|pw";
/// Key names that say "token", "secret", "credentials", "…_KEY", "auth".
const NAME_SECRET: &str = concat!(
    r"(?P<k>[A-Za-z0-9_.-]*(?i-u:token|secret|credentials?|creds|apikey|accesskey|secretkey|privatekey)",
    r"|(?:[A-Za-z0-9_.-]*[_.-])?(?i-u:auth)",
    r"|[A-Za-z0-9_.-]*[_.-](?i-u:key)",
    r"|[A-Za-z0-9_.-]*[A-Za-z0-9](?:Key|Auth))",
);
const WORDS_SECRET: &str = "token|secret|credentials|credential|creds|auth|key";
/// Both sets of words, for rules whose vetting reads the name.
const WORDS_ANY: &str =
    "password|passwd|passphrase|pwd|pass|token|secret|credentials|credential|creds|auth|key";
/// What every match of [`named_assignment`] holds: a word of the name, [`CLOSE`], then `=`,
/// `:` or `-` (the first character of [`SEP`], [`TYPED`] and ` - `).
const ASSIGNED_PASSWORD: &str = concat!(
    "(?i-u:password|passwd|passphrase|pwd|storepass|keypass|pass|pw)",
    r#"(?:\\{0,3}["'])?\]?[ \t]*[=:-]"#
);
const ASSIGNED_SECRET: &str = concat!(
    "(?i-u:token|secret|credentials|credential|creds|auth|key)",
    r#"(?:\\{0,3}["'])?\]?[ \t]*[=:-]"#
);

/// `name` assigned a value (`=`, `:`, `=>`, a typed declaration, ` - `); `requires` is
/// `words` (which end every name it takes) followed by [`CLOSE`] and an assignment's first
/// character: a text with a name's word but no such assignment (`protect-secrets denied:`,
/// `Authorization: Bearer`) is ruled out by that small regex instead of this rule's large one.
fn named_assignment(kind: &'static str, name: &str, words: &str, requires: &'static str) -> Rule {
    debug_assert!(requires.contains(words));
    // Every name ends in one of `words`, and an anchor of `words` starts it.
    let value = format!(
        "{CLOSE}(?:{TYPED}(?:{QUOTED})|{SEP}(?:{QUOTED}|{BARE})|[ \t]+-[ \t]+(?:{QUOTED}))"
    );
    rule(kind, &format!("{LEFT}{name}{value}"))
        .check(Check::Named)
        .anchors(words)
        .requires(requires)
}

/// `<password>…</password>` (Maven settings.xml, NuGet, app configs), and an element named by
/// its `key` or `name` attribute (any case): `<entry key="db.password">…</entry>` (Java XML
/// properties), `<Property Key="ApiKey">…</Property>`,
/// `<string name="api_key">…</string>` (Android resources), or one with other attributes
/// (FileZilla's `<Pass encoding="base64">…</Pass>`); a CDATA section's text.
fn xml_element(kind: &'static str, words: &str) -> Rule {
    rule(
        kind,
        &format!(
            r#"<(?:[A-Za-z0-9_.:-]+[ \t][^<>\n]*?\b(?i-u:key|name)=\\?["'])?(?P<k>[A-Za-z0-9_.:-]*(?i-u:{words}))(?:(?:\\?["']|[ \t])[^<>\n]*)?>(?:\s|\\[nrt])*(?:<!\[CDATA\[)?([^<\s\\][^<]*?)(?:\]\]>)?(?:\s|\\[nrt])*</"#
        ),
    )
    .check(Check::Named)
    .anchors(words)
}

/// A name/value pair whose name is a secret's: k8s and Compose `env` lists, ECS task
/// definitions, Postman environments, .NET `appSettings`: `- name: DB_PASSWORD\n  value: x`,
/// `{"name": "API_TOKEN", "value": "x"}`, `{"key": "apiKey", "value": "x"}`, an SSM
/// parameter's path (`{"Name": "/prod/db/password", "Value": "x"}`),
/// `<add key="ApiKey" value="x" />`; a form's field (`{"field": "password", "value": "x"}`,
/// `<input type="password" value="x">`, `name=password&value=x`).
fn name_value_pair(kind: &'static str, words: &str) -> Rule {
    rule(
        kind,
        &format!(
            concat!(
                r#"(?i-u:\b[a-z]*(?:name|key|field|variable|type))\\?["']?[ \t]*[:=][ \t]*\\?["']?(?P<k>[A-Za-z0-9_./-]*(?i-u:{words}))\\?["']?"#,
                r#"[ \t]*(?:,|&|\r?\n|\\n|[ \t])(?:\s|\\n)*(?:-[ \t]*)?\\?["']?(?i-u:[a-z]*val(?:ue)?)\\?["']?{sep}(?:{q}|{b})"#,
            ),
            words = words,
            sep = SEP,
            q = QUOTED,
            b = BARE,
        ),
    )
    .check(Check::Named)
    .anchors(words)
}

/// A flag named for a secret and its value: `--password X`, `-token X`, Windows' `/pass:X`
/// (`cmdkey`, `wmic /password:X`).
fn named_flag(kind: &'static str, name: &str, words: &str) -> Rule {
    rule(
        kind,
        &format!(r"(?:^|[ \t]|\\[nt])(?:--?|/){name}(?:[ \t]+|:)(?:{QUOTED}|{BARE_FLAG})"),
    )
    .check(Check::Named)
    .anchors(words)
}

/// The default rules, highest priority first.
pub(super) fn default_rules() -> Vec<Rule> {
    [
        formats::token_formats()
            .into_iter()
            .map(Rule::word)
            .collect(),
        families::format_families(),
        keywords::keyword_families(),
        places::places(),
        flags::password_flags(),
        named::named_values(),
        assigned::assigned_values(),
    ]
    .into_iter()
    .flatten()
    .collect()
}
