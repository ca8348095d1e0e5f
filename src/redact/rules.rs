//! The default rules of [`super::Redactor`] and the checks that vet their matches.
//!
//! Rules are in priority order: when two rules' secrets overlap, the earlier rule's kind wins.
//! Precise token formats come first, then keyword-context families, then secrets found by their
//! place (URLs, headers, command lines), then values named as passwords or secrets, and
//! gitleaks' generic rule last. Families follow gitleaks' default `config/gitleaks.toml` (one
//! kind per family, not per gitleaks rule id).
//!
//! Patterns use ASCII classes and `[0-9]` rather than `\w`/`\d`, case-insensitive parts are
//! `(?i-u:…)`, and every `\b` becomes an ASCII boundary that also holds after a JSON `\n`
//! escape: the sets stay small and DFA-friendly, and JSON-escaped text is read like plain text.
//!
//! The checks keep what is not a secret readable: placeholders (`$TOKEN`, `<password>`),
//! code (`token: Token,`, `password = auth[2]`), prose (`:param token: The token.`), paths,
//! ids, UUIDs, commit SHAs and digests.

use std::sync::OnceLock;

use regex::Regex;

use super::{build_regex, MARKER_OPEN};

/// One rule: the kind it emits, what it matches, how a match is vetted.
pub(super) struct Rule {
    /// Stable snake_case label, emitted as `[REDACTED:<kind>]` and as a metric label value.
    pub kind: &'static str,
    /// The secret is the first participating capture group not named `k` (`k` holds a key
    /// name for the check), or the whole match when no such group participates.
    pub pattern: String,
    pub check: Check,
    /// A regex that must also match somewhere in the text for the rule to apply.
    pub requires: Option<&'static str>,
    /// A looser pattern used in the shared set instead of `pattern`: it must match wherever
    /// `pattern` does. Context rules start with loops and counters that are cheap alone but
    /// multiply the states of the set's DFA; their triggers are a keyword and an operator.
    pub trigger: Option<String>,
}

impl Rule {
    fn check(mut self, check: Check) -> Rule {
        self.check = check;
        self
    }

    fn requires(mut self, requires: &'static str) -> Rule {
        self.requires = Some(requires);
        self
    }

    fn trigger(mut self, trigger: &str) -> Rule {
        self.trigger = Some(word_boundaries(trigger));
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
        accept(self.check, self.kind, name, text, start, end)
    }

    /// The pattern this rule contributes to the shared set.
    pub(super) fn set_pattern(&self) -> &str {
        self.trigger.as_deref().unwrap_or(&self.pattern)
    }
}

fn rule(kind: &'static str, pattern: &str) -> Rule {
    Rule {
        kind,
        pattern: word_boundaries(pattern),
        check: Check::None,
        requires: None,
        trigger: None,
    }
}

/// gitleaks' keyword-context shape: a keyword, up to 20 more name characters, an assignment
/// operator (also JSON-escaped: `\":\"`), then the value. Case-insensitive throughout.
fn kw(kind: &'static str, keywords: &str, value: &str) -> Rule {
    rule(kind, &format!("(?i-u)(?:{keywords}){KW_SEP}({value}){END}")).check(Check::Random(3.5))
}

/// Rewrites each `\b` (not an escaped backslash followed by `b`) to an ASCII word boundary
/// that also holds right after a JSON escape: in `"a\nghp_…"` the token starts a line, but
/// `n` and `g` are both word characters. The escape becomes part of the match and is trimmed
/// off whole-match secrets. A Unicode `\b` would make the lazy DFA give up on non-ASCII text.
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

const KW_SEP: &str =
    r#"[0-9a-z_.\t -]{0,20}[\s'"\\]{0,3}(?:=|>|:{1,3}=|\|\||:|=>|\?=|,)[\x60'"\s=\\]{0,5}"#;
/// What may follow a keyword-context value, so a longer string is not taken for a shorter one.
const END: &str = r#"(?:[\x60'"\s;,.)}\]&|<>\\]|$)"#;
const UUID: &str = "[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}";

/// Left edge of a key name: start of text, an escaped `\n`/`\t`, or a character that cannot be
/// part of a name or a path (so `/etc/passwd:` is not a `passwd:` key).
const LEFT: &str = r#"(?:^|\\[nrt]|[^A-Za-z0-9_./\\-])"#;
/// Closing quote(s) of a quoted key, plus `]` for `environ["KEY"] = …`.
const CLOSE: &str = r#"(?:\\{0,3}["'])?\]?"#;
/// A typed declaration `name: Type = "value"` (Rust, TypeScript, Python); quoted values only.
/// Bounded: as the preferred alternative, an unbounded type would keep every search running
/// to the end of the text (quadratic on text full of `token: x`).
const TYPED: &str = r#"[ \t]*:[ \t]*&?[A-Za-z_][A-Za-z0-9_.:<>\[\], ]{0,48}?[ \t]*=[ \t]*"#;
const SEP: &str = r#"[ \t]*(?:=>|:=|=|:)[ \t]*"#;
/// Quoted values: JSON-escaped `\"…\"`, `"…"`, `'…'`.
const QUOTED: &str = r#"\\+"([^"\\\n]+)\\+"|"((?:[^"\\\n]|\\[^\n])+)"|'([^'\n]+)'"#;
/// An unquoted value: up to whitespace, a quote, a shell operator or a JSON escape.
const BARE: &str = r#"([^\s"'\x60;&|<>\\{\[(,:=](?:[^\s"'\x60;&|<>\\]|\\[^nrtu"'\\\s])*)"#;
/// The same for a value after a space-separated flag: it may not start with `-`.
const BARE_FLAG: &str = r#"([^\s"'\x60;&|<>\\{\[(,:=-](?:[^\s"'\x60;&|<>\\]|\\[^nrtu"'\\\s])*)"#;

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

fn named_assignment(kind: &'static str, name: &str, words: &str) -> Rule {
    rule(
        kind,
        &format!("{LEFT}{name}{CLOSE}(?:{TYPED}(?:{QUOTED})|{SEP}(?:{QUOTED}|{BARE}))"),
    )
    .check(Check::Named)
    .trigger(&format!("(?i-u:{words}){CLOSE}[ \t]*[:=]"))
}

/// `<password>…</password>` (Maven settings.xml, NuGet, app configs).
fn xml_element(kind: &'static str, words: &str) -> Rule {
    rule(
        kind,
        &format!(r"<(?P<k>[A-Za-z0-9_.:-]*(?i-u:{words}))>([^<\s][^<]*)</"),
    )
    .check(Check::Named)
}

/// A name/value pair whose name is a secret's: k8s and Compose `env` lists, ECS task
/// definitions: `- name: DB_PASSWORD\n  value: x`, `{"name": "API_TOKEN", "value": "x"}`.
fn name_value_pair(kind: &'static str, words: &str) -> Rule {
    rule(
        kind,
        &format!(
            concat!(
                r#"(?i-u:\bname)\\?["']?[ \t]*[:=][ \t]*\\?["']?(?P<k>[A-Za-z0-9_.-]*(?i-u:{words}))\\?["']?"#,
                r#"[ \t]*(?:,|\r?\n|\\n)(?:\s|\\n)*(?:-[ \t]*)?\\?["']?(?i-u:value)\\?["']?{sep}(?:{q}|{b})"#,
            ),
            words = words,
            sep = SEP,
            q = QUOTED,
            b = BARE,
        ),
    )
    .check(Check::Named)
}

fn named_flag(kind: &'static str, name: &str, words: &str) -> Rule {
    rule(
        kind,
        &format!(r"(?:^|[ \t]|\\[nt])--?{name}[ \t]+(?:{QUOTED}|{BARE_FLAG})"),
    )
    .check(Check::Named)
    .trigger(&format!(r"-[A-Za-z0-9_.-]*(?i-u:{words})[ \t]+(?u:[^\s-])"))
}

/// The default rules in shards, highest priority first. Each shard becomes one `RegexSet`:
/// in a single set of all rules the lazy DFA's states multiply across patterns until its cache
/// thrashes on ordinary source code (and the regex engine falls back to its slow search for
/// good); four sets of similar rules stay small.
pub(super) fn default_shards() -> Vec<Vec<Rule>> {
    vec![
        token_formats(),
        keyword_families(),
        places(),
        named_values(),
    ]
}

/// Secrets recognisable by their own format.
fn token_formats() -> Vec<Rule> {
    vec![
        // Key material first: a PEM block is the largest span and contains anything.
        // The body is matched by class (base64, whitespace, `\n` escapes, `Proc-Type:` headers),
        // never by `.*?`, so a BEGIN without END costs a scan of its body, not of the text.
        rule(
            "private_key",
            concat!(
                r"-----BEGIN[ A-Z0-9_-]{0,100}PRIVATE KEY(?: BLOCK)?-----",
                r"(?:\s|\\[nrt]|[A-Za-z0-9+/=]+|[A-Za-z-]+:[ \t][^\r\n\\]*)*",
                r"-----END[ A-Z0-9_-]{0,100}PRIVATE KEY(?: BLOCK)?-----",
                r"|-----BEGIN[ A-Z0-9_-]{0,100}PRIVATE KEY(?: BLOCK)?-----",
                r"(?:\s|\\[nrt]|[A-Za-z-]+:[ \t][^\r\n\\]*)*[A-Za-z0-9+/=]{16,}",
                r"(?:\s|\\[nrt]|[A-Za-z0-9+/=]{8,}|[A-Za-z-]+:[ \t][^\r\n\\]*)*",
                r"|Private-Lines:[ \t]*[0-9]+(?:\s|\\[nr]|[A-Za-z0-9+/=]{8,})*",
            ),
        ),
        rule(
            "age_secret_key",
            r"AGE-SECRET-KEY-1[QPZRY9X8GF2TVDW0S3JN54KHCE6MUA7L]{58}",
        ),
        rule(
            "onepassword_secret",
            concat!(
                r"\bA3-[A-Z0-9]{6}-(?:[A-Z0-9]{11}|[A-Z0-9]{6}-[A-Z0-9]{5})-[A-Z0-9]{5}-[A-Z0-9]{5}-[A-Z0-9]{5}\b",
                r"|\bops_eyJ[A-Za-z0-9+/]{250,}={0,3}",
            ),
        ),
        // AI providers.
        rule(
            "anthropic_api_key",
            r"\bsk-ant-(?:api|admin|oat|ort|sid)[0-9]{2}-[A-Za-z0-9_-]{20,}",
        ),
        rule(
            "openai_api_key",
            r"\bsk-(?:proj|svcacct|admin|None)-[A-Za-z0-9_-]{20,}|\bsk-[A-Za-z0-9_-]{16,}T3BlbkFJ[A-Za-z0-9_-]{16,}",
        ),
        rule(
            "huggingface_token",
            r"\bhf_[A-Za-z0-9]{34,}|\bapi_org_[A-Za-z0-9]{34}",
        ),
        rule("perplexity_api_key", r"\bpplx-[A-Za-z0-9]{48}"),
        // Code hosting and CI.
        rule(
            "github_token",
            r"\b(?:ghp|gho|ghu|ghs|ghr)_[A-Za-z0-9]{36,}|\bgithub_pat_[A-Za-z0-9_]{22,}",
        ),
        rule(
            "gitlab_token",
            concat!(
                r"\bgl(?:pat|dt|ffct|ft|imt|agent|oas|ptt|rt|soat|cbt)-[0-9A-Za-z_-]{20,}(?:\.[0-9a-z]{9})?",
                r"|\bGR1348941[0-9A-Za-z_-]{20,}|_gitlab_session=([0-9a-z]{32})",
            ),
        ),
        rule(
            "sourcegraph_token",
            r"\bsgp_(?:[a-fA-F0-9]{16}|local)_[a-fA-F0-9]{40}\b|\bsgp_[a-fA-F0-9]{40}\b",
        ),
        rule(
            "jfrog_token",
            r"\bAKCp[A-Za-z0-9]{69}\b|\bcmVmd[A-Za-z0-9]{59}\b",
        ),
        rule("npm_token", r"\bnpm_[A-Za-z0-9]{36}"),
        rule(
            "pypi_token",
            r"pypi-AgEIcHlwaS5vcmc[A-Za-z0-9_-]{50,}|pypi-AgENdGVzdC5weXBpLm9yZw[A-Za-z0-9_-]{50,}",
        ),
        rule("rubygems_api_key", r"\brubygems_[a-f0-9]{48}"),
        rule("clojars_api_token", r"(?i-u)\bCLOJARS_[a-z0-9]{60}"),
        rule("prefect_api_key", r"\bpnu_[A-Za-z0-9]{36}"),
        rule("sonar_token", r"\bsq[pau]_[a-f0-9]{40}\b"),
        rule("octopus_deploy_api_key", r"\bAPI-[A-Z0-9]{26}\b").check(Check::Entropy(3.0)),
        rule(
            "harness_token",
            r"\b(?:pat|sat)\.[A-Za-z0-9_-]{22}\.[A-Za-z0-9]{24}\.[A-Za-z0-9]{20}",
        ),
        rule("pulumi_token", r"\bpul-[a-f0-9]{40}"),
        rule("infracost_token", r"\bico-[A-Za-z0-9]{32}\b"),
        rule(
            "terraform_token",
            r"\b[A-Za-z0-9]{14}\.atlasv1\.[A-Za-z0-9_=-]{60,70}",
        ),
        rule("vault_token", r"\bhv[sbr]\.[A-Za-z0-9_-]{24,}"),
        rule(
            "doppler_token",
            r"\bdp\.(?:pt|st|sa|ct|scim|audit)\.[A-Za-z0-9]{40,44}",
        ),
        rule("postman_api_key", r"\bPMAK-[A-Fa-f0-9]{24}-[A-Fa-f0-9]{34}"),
        rule("readme_api_key", r"\brdme_[a-z0-9]{70}"),
        rule(
            "authress_access_key",
            r"(?i-u)\b(?:sc|ext|scauth|authress)_[a-z0-9]{5,30}\.[a-z0-9]{4,6}\.(?-i:acc)[_-][a-z0-9-]{10,32}\.[a-z0-9+/_=-]{30,120}",
        ),
        // Chat.
        rule(
            "slack_token",
            r"\bxoxe\.xox[bp]-[0-9]-[0-9A-Za-z]{100,}|\bxox[abeoprs]-[0-9A-Za-z-]{10,}|\bxapp-[0-9]-[0-9A-Za-z]+-[0-9]+-[0-9A-Za-z]+",
        ),
        // Cloud and infrastructure.
        rule(
            "aws_access_key_id",
            r"\b(?:A3T[A-Z0-9]|AKIA|ASIA|ABIA|ACCA)[A-Z2-7]{16}\b",
        ),
        rule(
            "aws_session_token",
            r"\b(?:FwoGZXIvYXdz|IQoJb3JpZ2lu)[A-Za-z0-9/+=]{100,}",
        ),
        rule("google_api_key", r"AIza[0-9A-Za-z_-]{35}"),
        rule("google_oauth_client_secret", r"GOCSPX-[0-9A-Za-z_-]{28}"),
        rule(
            "google_oauth_token",
            r"\bya29\.[0-9A-Za-z_-]{20,}|\b1//0[0-9A-Za-z_-]{40,}",
        ),
        rule(
            "azure_ad_client_secret",
            r#"(?:^|[\\'"\x60\s>=:(,)])([A-Za-z0-9_~.]{3}[0-9]Q~[A-Za-z0-9_~.-]{31,34})(?:$|[\\'"\x60\s<),])"#,
        ),
        rule("alibaba_access_key", r"\bLTAI[A-Za-z0-9]{20}"),
        rule("digitalocean_token", r"\bdo[opr]_v1_[a-f0-9]{64}"),
        rule("cloudflare_api_key", r"\bv1\.0-[a-f0-9]{24}-[a-f0-9]{146}"),
        rule("heroku_api_key", r"\bHRKU-AA[0-9A-Za-z_-]{58}"),
        rule("netlify_token", r"\bnfp_[A-Za-z0-9]{36,40}"),
        rule(
            "flyio_token",
            r"\b(?:fo1_[A-Za-z0-9_-]{43}|fm1[ar]_[A-Za-z0-9+/]{100,}={0,3}|fm2_[A-Za-z0-9+/]{100,}={0,3})",
        ),
        rule("scalingo_token", r"\btk-us-[A-Za-z0-9_-]{48}"),
        rule(
            "planetscale_token",
            r"\bpscale_(?:tkn|oauth|pw)_[A-Za-z0-9_=.-]{32,64}",
        ),
        rule("databricks_token", r"\bdapi[a-f0-9]{32}(?:-[0-9])?\b"),
        rule(
            "dynatrace_token",
            r"\bdt0c01\.[A-Za-z0-9]{24}\.[A-Za-z0-9]{64}",
        ),
        rule(
            "new_relic_key",
            r"\bNRAK-[A-Z0-9]{27}\b|\bNRJS-[a-f0-9]{19}\b|\bNRII-[A-Za-z0-9_-]{32}|\bNRAA-[a-f0-9]{27}\b",
        ),
        rule(
            "sentry_token",
            r"\bsntrys_eyJpYXQiO[A-Za-z0-9+/=_]{50,}|\bsntryu_[a-f0-9]{64}",
        ),
        rule(
            "grafana_token",
            r"\beyJrIjoi[A-Za-z0-9]{70,}={0,3}|\bglc_[A-Za-z0-9+/]{32,}={0,3}|\bglsa_[A-Za-z0-9]{32}_[A-Fa-f0-9]{8}",
        ),
        rule("openshift_token", r"\bsha256~[A-Za-z0-9_-]{43}"),
        rule("clickhouse_api_key", r"\b4b1d[A-Za-z0-9]{38}\b").check(Check::Entropy(3.0)),
        rule(
            "defined_networking_token",
            r"\bdnkey-[A-Za-z0-9=_-]{26}-[A-Za-z0-9=_-]{52}",
        ),
        rule(
            "settlemint_token",
            r"\bsm_(?:aat|pat|sat)_[A-Za-z0-9]{16}\b",
        ),
        // Payments and commerce.
        rule(
            "stripe_api_key",
            r"\b(?:sk|rk)_(?:test|live|prod)_[0-9A-Za-z]{10,}|\bwhsec_[0-9A-Za-z+/=]{32,}",
        ),
        rule(
            "square_token",
            r"\b(?:EAAA|sq0atp-)[A-Za-z0-9_-]{22,60}|\bsq0csp-[A-Za-z0-9_-]{43}",
        ),
        rule("shopify_token", r"\bshp(?:at|ca|pa|ss)_[a-fA-F0-9]{32}"),
        rule(
            "flutterwave_key",
            r"\bFLW(?:SECK|PUBK)(?:_TEST)?-[A-Za-z0-9]{12,32}(?:-X)?",
        ),
        rule("duffel_token", r"\bduffel_(?:test|live)_[A-Za-z0-9_=-]{43}"),
        rule("easypost_token", r"\bEZ[AT]K[A-Za-z0-9]{54}\b"),
        rule("shippo_token", r"\bshippo_(?:live|test)_[a-fA-F0-9]{40}"),
        rule("intra42_secret", r"\bs-s4t2(?:ud|af)-[a-fA-F0-9]{64}"),
        // Messaging, marketing, productivity.
        rule("sendgrid_api_key", r"\bSG\.[A-Za-z0-9=_.-]{66}"),
        rule(
            "sendinblue_api_key",
            r"\bx(?:keysib|smtpsib)-[a-f0-9]{64}-[A-Za-z0-9]{16}",
        ),
        rule("mailchimp_api_key", r"\b[a-f0-9]{32}-us[0-9]{1,2}\b"),
        rule("twilio_api_key", r"\bSK[0-9a-fA-F]{32}\b").check(Check::Entropy(3.0)),
        rule("atlassian_api_token", r"\bATATT3[A-Za-z0-9_=-]{150,}"),
        rule("linear_api_key", r"\blin_api_[A-Za-z0-9]{40}"),
        rule(
            "notion_token",
            r"\bntn_[0-9]{11}[A-Za-z0-9]{35}\b|\bsecret_[A-Za-z0-9]{43}\b",
        ),
        rule("airtable_api_key", r"\bpat[A-Za-z0-9]{14}\.[a-f0-9]{64}\b"),
        rule("typeform_token", r"\btfp_[A-Za-z0-9_.=-]{59}"),
        rule("hubspot_api_key", &format!(r"\bpat-(?:na|eu)[0-9]-{UUID}")),
        rule("frameio_token", r"\bfio-u-[A-Za-z0-9_=-]{64}"),
        rule(
            "maxmind_license_key",
            r"\b[A-Za-z0-9]{6}_[A-Za-z0-9]{29}_mmk\b",
        ),
        rule("adobe_secret", r"\bp8e-[A-Za-z0-9]{32}"),
        rule(
            "mapbox_token",
            r"\b(?:pk|sk|tk)\.eyJ[A-Za-z0-9_-]{20,}\.[A-Za-z0-9_-]{20,}",
        ),
        rule("facebook_token", r"\bEAA[MC][A-Za-z0-9]{100,}"),
        rule(
            "facebook_token",
            r"\b[0-9]{15,16}(?:\||%7[Cc])[0-9A-Za-z_-]{27,40}",
        )
        .requires("(?i)facebook|graph\\.fb|\\bfb"),
        rule("dropbox_token", r"\bsl\.(?:u\.)?[A-Za-z0-9_-]{130,}"),
        rule(
            "freemius_secret_key",
            r#"\\?["']secret_key\\?["']\s*=>\s*\\?["'](sk_[^\s"'\\]{29})\\?["']"#,
        ),
        // Generic token shapes last among formats: a JWT may carry any of the above's claims.
        rule(
            "jwt",
            r"\bey[A-Za-z0-9_-]{10,}\.ey[A-Za-z0-9_-]{10,}\.[A-Za-z0-9_-]*|\bZXlK[A-Za-z0-9+/]{40,}={0,2}",
        ),
    ]
}

/// Secrets found by where they sit: URLs, HTTP headers, command lines.
fn places() -> Vec<Rule> {
    vec![
        rule(
            "slack_webhook_url",
            r"hooks\.slack\.com/(?:services|workflows|triggers)/([A-Za-z0-9+/_-]{20,})",
        ),
        rule(
            "microsoft_teams_webhook",
            r"(?i-u)https://[a-z0-9-]+\.webhook\.office\.com/webhookb2/([a-z0-9-]{36}@[a-z0-9-]{36}/IncomingWebhook/[a-z0-9]{32}/[a-z0-9-]{36}(?:/[a-z0-9_-]+)?)",
        ),
        rule(
            "discord_token",
            r"(?i-u)discord(?:app)?\.com/api/webhooks/[0-9]+/([a-z0-9_-]{60,})",
        ),
        rule(
            "telegram_bot_token",
            r"api\.telegram\.org/(?:file/)?bot([0-9]{5,16}:[A-Za-z0-9_-]{34,})",
        ),
        rule(
            "sidekiq_secret",
            r"(?i-u)\bhttps?://([a-f0-9]{8}:[a-f0-9]{8})@(?:gems|enterprise)\.contribsys\.com",
        ),
        // `scheme://user:password@host`: the password; the user and host stay readable.
        rule(
            "url_credentials",
            r#"\b[A-Za-z][A-Za-z0-9+.-]{1,20}://[^\s/?#@:"'\\<>]*:([^\s/?#"'\\<>]+)@[^\s/?#@"'\\<>]"#,
        )
        .check(Check::Value),
        // `scheme://TOKEN@host` or `scheme://TOKEN:x-oauth-basic@host`: a token as the user.
        rule(
            "url_credentials",
            r#"\b[A-Za-z][A-Za-z0-9+.-]{1,20}://([A-Za-z0-9_.~%-]{20,})(?::[^\s/?#@"'\\<>]*)?@"#,
        )
        .check(Check::Entropy(3.0)),
        rule(
            "url_query_secret",
            concat!(
                r#"(?i-u:[?&](?:access_token|accesstoken|api_key|apikey|api-key|key|token|auth|auth_token|password|passwd|pwd"#,
                r#"|secret|client_secret|sig|signature|x-amz-signature|x-amz-credential|x-amz-security-token"#,
                r#"|x-goog-signature|x-goog-credential|private_token|session_token|id_token|refresh_token|code_verifier|jwt)"#,
                r#"=)([^&#\s"'\\<>]+)"#,
            ),
        )
        .check(Check::Value),
        rule(
            "authorization_header",
            concat!(
                r#"(?i-u:\b(?:proxy-)?authorization\\?["']?[ \t]*[:=][ \t]*\\?["']?[ \t]*"#,
                r"(?P<k>(?:bearer|basic|token|bot|digest|apikey|api-key|key|sso-key|otp|jwt|dpop|negotiate|ntlm",
                r"|gitlab-token|splunk|ssws|hmac|aws4-hmac-sha256)[ \t]+)?)",
                r#"([^\s"'\\,;]+)"#,
            ),
        )
        .check(Check::Header),
        rule(
            "auth_header",
            concat!(
                r#"(?i-u:(?:^|[\s'"]|\\[nrt])(?:x-[a-z0-9-]*(?:api-?key|token|auth|secret|password|signature|session)[a-z0-9-]*"#,
                r#"|private-token|job-token|circle-token|ocp-apim-subscription-key)[ \t]*:[ \t]*)([^\s"'\\,;]+)"#,
            ),
        )
        .check(Check::Value),
        rule(
            "auth_header",
            r#"(?i-u:\b(?:set-)?cookie[ \t]*:[ \t]*)([^\r\n"'\\]+)"#,
        )
        .check(Check::Cookie),
        rule(
            "bearer_token",
            r"(?i-u)\bbearer[ \t]+([A-Za-z0-9._~+/=-]{20,})",
        ),
        // `curl -u user:password`: the password.
        rule(
            "basic_auth",
            concat!(
                r#"\bcurl\b[^\n]*?[ \t](?:-u|--user|--proxy-user|-U)(?:=|[ \t]+)"#,
                r#"(?:"[^"\s:]*:([^"\\]+)"|'[^'\s:]*:([^']+)'|[^\s:"']*:([^\s"'\\]+))"#,
            ),
        )
        .check(Check::Value),
        rule(
            "aws_secret_access_key",
            concat!(
                r#"(?i-u)(?:aws[_.-]?secret(?:[_.-]?access)?[_.-]?key|secret[_.-]?access[_.-]?key)\\?["']?[ \t]*(?:=>|:=|=|:|[ \t])"#,
                r#"[ \t]*\\?["']?([A-Za-z0-9/+=]{40})(?:(?u:[^A-Za-z0-9/+=])|$)"#,
            ),
        ),
    ]
}

/// gitleaks families recognisable only by a keyword naming the service before the value.
fn keyword_families() -> Vec<Rule> {
    let uuid = UUID;
    vec![
        kw("adafruit_api_key", "adafruit", "[a-z0-9_-]{32}"),
        kw("adobe_secret", "adobe", "[a-f0-9]{32}"),
        kw("airtable_api_key", "airtable", "[a-z0-9]{17}"),
        kw("algolia_api_key", "algolia", "[a-z0-9]{32}"),
        kw("alibaba_access_key", "alibaba", "[a-z0-9]{30}"),
        kw("asana_secret", "asana", "[0-9]{16}|[a-z0-9]{32}"),
        kw(
            "atlassian_api_token",
            "atlassian|confluence|jira",
            "[a-z0-9]{20}[a-f0-9]{4}",
        ),
        kw("beamer_api_token", "beamer", "b_[a-z0-9=_-]{44}"),
        kw("bitbucket_secret", "bitbucket", "[a-z0-9]{32}|[a-z0-9=_-]{64}"),
        kw("bittrex_key", "bittrex", "[a-z0-9]{32}"),
        kw("cisco_meraki_api_key", "meraki", "[0-9a-f]{40}"),
        kw(
            "cloudflare_api_key",
            "cloudflare",
            "[a-z0-9_-]{40}|[a-f0-9]{37}",
        ),
        kw("codecov_token", "codecov", &format!("[a-z0-9]{{32}}|{uuid}")),
        kw("cohere_api_key", "cohere|co_api_key", "[a-z0-9]{40}"),
        kw("coinbase_token", "coinbase", "[a-z0-9_-]{64}"),
        kw("confluent_secret", "confluent", "[a-z0-9]{16}|[a-z0-9]{64}"),
        kw("contentful_token", "contentful", "[a-z0-9=_-]{43}"),
        kw(
            "datadog_api_key",
            "datadog|dd_api_key|dd_app_key|dd_application_key|dd-api-key|dd-application-key",
            "[a-z0-9]{40}|[a-f0-9]{32}",
        ),
        kw(
            "discord_token",
            "discord",
            "[a-f0-9]{64}|[0-9]{18}|[a-z0-9=_-]{32}",
        ),
        kw("droneci_token", "droneci|drone_token", "[a-z0-9]{32}"),
        kw(
            "dropbox_token",
            "dropbox",
            r"[a-z0-9]{15}|sl\.[a-z0-9=_-]{130,}|[a-z0-9]{11}AAAAAAAAAA[a-z0-9_=-]{43}",
        ),
        kw("etsy_token", "etsy", "[a-z0-9]{24}"),
        kw("facebook_token", "facebook", "[a-f0-9]{32}"),
        kw("fastly_token", "fastly", "[a-z0-9=_-]{32}"),
        kw("finicity_secret", "finicity", "[a-f0-9]{32}|[a-z0-9]{20}"),
        kw("finnhub_token", "finnhub", "[a-z0-9]{20}"),
        kw("flickr_token", "flickr", "[a-z0-9]{32}"),
        kw("freshbooks_token", "freshbooks", "[a-z0-9]{64}"),
        kw("gitter_token", "gitter", "[a-z0-9_-]{40}"),
        kw("gocardless_token", "gocardless", "(?:live|sandbox)_[a-z0-9_=-]{40}"),
        kw("heroku_api_key", "heroku", uuid),
        kw("hubspot_api_key", "hubspot", uuid),
        kw("intercom_token", "intercom", "[a-z0-9=_-]{60}"),
        kw(
            "jfrog_token",
            "jfrog|artifactory|bintray|xray",
            "[a-z0-9]{73}|[a-z0-9]{64}",
        ),
        kw("kraken_token", "kraken", "[a-z0-9/=_+-]{80,90}"),
        kw("kucoin_secret", "kucoin", &format!("[a-f0-9]{{24}}|{uuid}")),
        kw("launchdarkly_token", "launchdarkly", "[a-z0-9=_-]{40}"),
        kw("linear_api_key", "linear", "[a-f0-9]{32}"),
        kw("linkedin_secret", "linked[_-]?in", "[a-z0-9]{14}|[a-z0-9]{16}"),
        kw(
            "lob_api_key",
            "lob",
            "(?:live|test)_[a-f0-9]{35}|(?:test|live)_pub_[a-f0-9]{31}",
        ),
        kw(
            "mailgun_key",
            "mailgun",
            "key-[a-f0-9]{32}|pubkey-[a-f0-9]{32}|[a-h0-9]{32}-[a-h0-9]{8}-[a-h0-9]{8}",
        ),
        kw("mapbox_token", "mapbox", r"pk\.[a-z0-9]{60}\.[a-z0-9]{22}"),
        kw("mattermost_token", "mattermost", "[a-z0-9]{26}"),
        kw(
            "messagebird_token",
            "message[_-]?bird",
            &format!("[a-z0-9]{{25}}|{uuid}"),
        ),
        kw("netlify_token", "netlify", "[a-z0-9=_-]{40,46}"),
        kw(
            "new_relic_key",
            "new-relic|newrelic|new_relic",
            "[a-z0-9]{64}|NRAK-[a-z0-9]{27}|NRJS-[a-f0-9]{19}|NRII-[a-z0-9-]{32}",
        ),
        kw(
            "nytimes_token",
            "nytimes|new-york-times|newyorktimes",
            "[a-z0-9=_-]{32}",
        ),
        kw("okta_token", "okta", "00[a-z0-9_=-]{40}"),
        kw(
            "plaid_token",
            "plaid",
            &format!("access-(?:sandbox|development|production)-{uuid}|[a-z0-9]{{24}}|[a-z0-9]{{30}}"),
        ),
        kw("privateai_token", "private[_-]?ai", "[a-z0-9]{32}"),
        kw("rapidapi_key", "rapidapi", "[a-z0-9_-]{50}"),
        kw("sendbird_token", "sendbird", &format!("{uuid}|[a-f0-9]{{40}}")),
        kw("sentry_token", "sentry", "[a-f0-9]{64}"),
        kw(
            "sidekiq_secret",
            "bundle_enterprise__contribsys__com|bundle_gems__contribsys__com",
            "[a-f0-9]{8}:[a-f0-9]{8}",
        ),
        kw(
            "snyk_token",
            "snyk[_.-]?(?:(?:api|oauth)[_.-]?)?(?:key|token)",
            uuid,
        ),
        kw("sonar_token", "sonar[_.-]?(?:login|token)", "[a-z0-9=_-]{40}"),
        kw("sourcegraph_token", "sourcegraph", "[a-f0-9]{40}"),
        kw("squarespace_token", "squarespace", uuid),
        kw("sumologic_key", "sumo", "su[a-z0-9]{12}|[a-z0-9]{64}"),
        kw(
            "telegram_bot_token",
            "telegr",
            "[0-9]{5,16}:a[a-z0-9_-]{34}",
        ),
        kw("travisci_token", "travis", "[a-z0-9]{22}"),
        kw("twitch_token", "twitch", "[a-z0-9]{30}"),
        kw(
            "twitter_token",
            "twitter",
            "[a-z0-9]{45}|[0-9]{15,25}-[a-z0-9]{20,40}|[a-z0-9]{25}|[a-z0-9]{50}|a{22}[a-z0-9%]{80,100}",
        ),
        kw("vault_token", "vault", r"s\.[a-z0-9]{24}"),
        kw(
            "yandex_token",
            "yandex",
            r"t1\.[a-z0-9_-]+={0,2}\.[a-z0-9_-]{86}={0,2}|aqvn[a-z0-9_-]{35,38}|yc[a-z0-9_-]{38}",
        ),
        kw("zendesk_secret_key", "zendesk", "[a-z0-9]{40}"),
    ]
}

/// Values whose key, flag or surrounding command names them as passwords or secrets.
fn named_values() -> Vec<Rule> {
    vec![
        // Password flags of particular tools: `mysql -pX`, `sshpass -p X`, `docker login -p X`,
        // `openssl … -passin pass:X`, `ssh-keygen -N X`.
        rule(
            "password",
            concat!(
                r#"\b(?:mysql|mysqldump|mysqladmin|mysqlimport|mysqlshow|mysqlcheck|mysqlsh|mariadb|mariadb-dump)\b"#,
                r#"[^\n|;&]*?[ \t]-p([^\s"'\x60;&|<>\\]+)"#,
                r#"|\bsshpass[ \t]+-p[ \t]*([^\s"'\x60;&|<>\\]+)"#,
                r#"|\b(?:docker|podman|nerdctl|buildah|skopeo|helm|oras|crane)\b[^\n|;&]*?\blogin\b[^\n|;&]*?[ \t]-p[ \t]+([^\s"'\x60;&|<>\\-][^\s"'\x60;&|<>\\]*)"#,
                r#"|[ \t]-pass(?:in|out)?[ \t]+pass:([^\s"'\x60;&|<>\\]+)"#,
                r#"|\bssh-keygen\b[^\n|;&]*?[ \t]-[NP][ \t]+(?:"([^"\\]+)"|'([^']+)'|([^\s"'\x60;&|<>\\-][^\s"'\x60;&|<>\\]*))"#,
            ),
        )
        .check(Check::Value),
        // More tools' password arguments: `redis-cli -a X`, `mongosh -p X`, `sqlcmd -P X`,
        // `openssl enc -k X`, `zip -P X`, `7z -pX`, `htpasswd -b file user X`,
        // `ConvertTo-SecureString "X"`.
        rule(
            "password",
            concat!(
                r#"\bredis-cli\b[^\n|;&]*?[ \t](?:-a|--pass)[ \t]+([^\s"'\x60;&|<>\\-][^\s"'\x60;&|<>\\]*)"#,
                r#"|\b(?:mongo|mongosh|mongodump|mongorestore|mongoexport|mongoimport)\b[^\n|;&]*?[ \t]-p[ \t]+([^\s"'\x60;&|<>\\-][^\s"'\x60;&|<>\\]*)"#,
                r#"|\b(?:sqlcmd|bcp)\b[^\n|;&]*?[ \t]-P[ \t]+([^\s"'\x60;&|<>\\-][^\s"'\x60;&|<>\\]*)"#,
                r#"|\bopenssl\b[^\n|;&]*?[ \t]-k[ \t]+([^\s"'\x60;&|<>\\-][^\s"'\x60;&|<>\\]*)"#,
                r#"|\b(?:zip|unzip)\b[^\n|;&]*?[ \t]-P[ \t]+([^\s"'\x60;&|<>\\-][^\s"'\x60;&|<>\\]*)"#,
                r#"|\b7z[a-z]?\b[^\n|;&]*?[ \t]-p([^\s"'\x60;&|<>\\]+)"#,
                r#"|\bhtpasswd[ \t]+-[A-Za-z]*b[A-Za-z]*[ \t]+[^\s]+[ \t]+[^\s]+[ \t]+([^\s"'\x60;&|<>\\]+)"#,
                r#"|(?i-u:\bConvertTo-SecureString[ \t]+(?:-String[ \t]+)?)(?:"([^"\n]+)"|'([^'\n]+)')"#,
            ),
        )
        .check(Check::Value),
        // ~/.pgpass: `host:port:database:user:password`.
        rule(
            "password",
            r#"\b[A-Za-z0-9_.*-]+:(?:[0-9]+|\*):[A-Za-z0-9_.*-]+:[A-Za-z0-9_.*-]+:([^\s:"'\\]+)"#,
        )
        .check(Check::Value)
        .requires(r"\.pgpass\b|PGPASSFILE"),
        // .netrc: `machine host login user password secret`.
        rule(
            "password",
            r#"\blogin(?:\s|\\[nt])+[^\s\\]+(?:\s|\\[nt])+password(?:\s|\\[nt])+([^\s"'\\]+)"#,
        )
        .check(Check::Value),
        // NuGet.Config `<add key="ClearTextPassword" value="…" />`.
        rule(
            "password",
            r#"(?i-u:<add\s+key=\\?"(?:ClearText)?Password\\?"\s+value=\\?")([^"\\]+)\\?""#,
        )
        .check(Check::Value),
        // `git config --global x.token VALUE`, `npm config set //host/:_authToken VALUE`,
        // `gh secret set NAME --body VALUE`: a secret given as a separate argument.
        rule(
            "named_secret",
            &format!(
                concat!(
                    r"(?i-u:\b(?:config(?::set)?|configure[ \t]+set)\b)[^\n|;&]*?[ \t]",
                    r"(?P<k>[A-Za-z0-9_./:@-]*(?i-u:password|passwd|token|secret|api[_.-]?key|authtoken|_auth))[ \t]+",
                    r"(?:{q}|{b})",
                    r"|\bgh[ \t]+secret[ \t]+set\b[^\n|;&]*?[ \t](?:-b|--body)(?:=|[ \t]+)(?:{q}|{b})",
                ),
                q = QUOTED,
                b = BARE_FLAG,
            ),
        )
        .check(Check::Named),
        // SQL: `CREATE ROLE app WITH LOGIN PASSWORD 'x'`, `IDENTIFIED BY 'x'`.
        rule(
            "password",
            r"(?i-u:\b(?:identified[ \t]+by|password))[ \t]+'([^'\n]+)'",
        )
        .check(Check::Value),
        xml_element("password", WORDS_PASSWORD),
        xml_element("named_secret", WORDS_SECRET),
        name_value_pair("password", WORDS_PASSWORD),
        name_value_pair("named_secret", WORDS_SECRET),
        named_flag("password", NAME_PASSWORD, WORDS_PASSWORD),
        named_assignment("password", NAME_PASSWORD, WORDS_PASSWORD),
        named_flag("named_secret", NAME_SECRET, WORDS_SECRET),
        named_assignment("named_secret", NAME_SECRET, WORDS_SECRET),
        // Data values of a Kubernetes Secret manifest (base64), one per line.
        rule(
            "kubernetes_secret",
            r#"(?:(?m:^)|\\n)[ \t]+[A-Za-z0-9_.-]+:[ \t]*["']?([A-Za-z0-9+/]{6,}={0,3})["']?[ \t]*(?:(?m:$)|\\[nr])"#,
        )
        .check(Check::KubeData)
        .requires(r#"kind:[ \t]*["']?Secret\b"#),
        // gitleaks generic-api-key: a key-ish name assigned a long, high-entropy value.
        rule(
            "generic_api_key",
            concat!(
                r#"(?i-u)(?P<k>[A-Za-z0-9_.-]*(?:access|auth|(?-i:[Aa]pi|API)|credential|creds|key|passw(?:or)?d|secret|token)[A-Za-z0-9_.\t -]{0,20})"#,
                r#"[\s'"\\]{0,3}(?:=|>|:{1,3}=|\|\||:|=>|\?=|,)[\x60'"\s=\\]{0,5}"#,
                r#"([A-Za-z0-9_.=-]{10,}|[a-z0-9][a-z0-9+/]{11,}={0,3})(?:[\x60'"\s;,)}\]&|<>\\]|$)"#,
            ),
        )
        .check(Check::Generic)
        .trigger(concat!(
            r#"(?i-u:access|auth|api|credential|creds|key|passwd|password|secret|token)"#,
            r#"[A-Za-z0-9_.\t -]*[\s'"\\]*[=>:,|?]"#,
        )),
    ]
}

// ---- Vetting matches: placeholders, code, prose, paths and ids are not secrets. ----

/// How a rule's match is vetted before it is replaced.
#[derive(Clone, Copy, Debug)]
pub(super) enum Check {
    /// Every match is a secret.
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
    /// Preceded by `:` (YAML, docstrings, prose).
    colon: bool,
    /// Followed by a space and a letter: more words follow.
    prose_follows: bool,
}

impl Context {
    fn new(text: &str, start: usize, end: usize) -> Context {
        let before = &text[..start];
        let value = &text[start..end];
        let after = &text[end..];
        let quote = before
            .chars()
            .next_back()
            .filter(|c| *c == '"' || *c == '\'');
        let mut rest = after.chars();
        let next = rest.next();
        // `x === 'y'`, `a != b`, `c ? d : e`, `f + g`: an expression (shell's `&&`/`||` are not).
        let operator_follows = ["==", "!=", "? ", "+ "]
            .iter()
            .any(|op| after.trim_start_matches(' ').starts_with(op));
        Context {
            quote,
            in_code: quote.is_none()
                && (value.ends_with([',', ')', '}', ']'])
                    || matches!(next, Some('<' | '>' | '(' | ';' | '{' | ','))
                    || operator_follows),
            spaced_assign: before.ends_with(" = ") || before.ends_with(" := "),
            colon: before.trim_end_matches([' ', '\t']).ends_with(':'),
            // A marker counts as the word it replaced, so a second pass decides the same way.
            prose_follows: next == Some(' ')
                && (rest.next().is_some_and(|c| c.is_ascii_alphabetic())
                    || after[1..].starts_with(MARKER_OPEN)),
        }
    }
}

/// Vets one match; returns the (possibly trimmed) span to replace, or `None` to keep it.
fn accept(
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
    let ctx = Context::new(text, start, end);
    let ok = match check {
        Check::None => true,
        Check::Entropy(min) => entropy(value) >= min,
        Check::Value => !is_placeholder(value, ctx.quote),
        Check::Header => header_ok(name, value, ctx),
        Check::Cookie => value.contains('=') && !is_placeholder(value, ctx.quote),
        Check::Random(min) => value.bytes().any(|b| b.is_ascii_digit()) || entropy(value) >= min,
        Check::KubeData => kube_data_ok(value),
        Check::Generic => generic_ok(name.unwrap_or(""), value, text, start, ctx),
        Check::Named => {
            // An unquoted value may end a list item or object: `{password: x}` keeps `}`.
            let trimmed = if ctx.quote.is_none() {
                value.trim_end_matches([',', '}', ']'])
            } else {
                value
            };
            if trimmed.is_empty() || !named_ok(kind, name.unwrap_or(""), trimmed, ctx) {
                return None;
            }
            return Some((start, start + trimmed.len()));
        }
    };
    ok.then_some((start, end))
}

/// Shannon entropy of the bytes of `s`, in bits per byte.
fn entropy(s: &str) -> f64 {
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
            -p * p.log2()
        })
        .sum()
}

/// A reference or stand-in rather than a literal secret: `$VAR`, `${VAR}`, `$(cmd)`,
/// `{{ var }}`, `<password>`, `%VAR%`, `***`, `xxx`, `REDACTED`, ….
/// Inside single quotes a shell does not expand `$`, so `'$ecret'` is literal.
fn is_placeholder(value: &str, quote: Option<char>) -> bool {
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
        || ["%s", "%d", "%r", "{}", "{0}", "${"]
            .iter()
            .any(|f| v.contains(f))
        || value.starts_with(char::is_whitespace)
        || value.ends_with(char::is_whitespace)
    {
        return true;
    }
    let lower = v.to_ascii_lowercase();
    // Documentation stand-ins: `your-api-key-here`, `example-token`, `<placeholder>`.
    if lower.starts_with("your-")
        || lower.starts_with("your_")
        || lower.ends_with("-here")
        || lower.ends_with("_here")
        || lower.contains("example")
        || lower.contains("placeholder")
    {
        return true;
    }
    matches!(
        lower.as_str(),
        "redacted"
            | "[redacted]"
            | "(redacted)"
            | "hidden"
            | "masked"
            | "[hidden]"
            | "[filtered]"
            | "filtered"
    )
}

/// `$VAR`, `${VAR…}`, `$(…)`, `$1`: the whole value is a shell or template reference.
fn is_shell_reference(v: &str) -> bool {
    let Some(rest) = v.strip_prefix('$') else {
        return false;
    };
    if rest.starts_with('{') || rest.starts_with('(') {
        return true;
    }
    !rest.is_empty() && rest.bytes().all(|b| b.is_ascii_alphanumeric() || b == b'_')
}

/// A file path rather than a secret: `~/…`, `./…`, `../…`, a lowercase absolute path, an
/// absolute path ending in a file extension, or a bare file name with a key-ish extension.
fn looks_like_path(v: &str) -> bool {
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

/// `exports.X = X`, `self.token = token`: the value names the same thing as the key.
fn names_itself(name: &str, value: &str) -> bool {
    let name = name.trim();
    name == value
        || name
            .strip_suffix(value)
            .is_some_and(|rest| rest.ends_with('.'))
}

/// `self.api_key = api_key`, `token = access_token`, `login(password=password)`: the value is a
/// lowercase identifier ending in the same keyword as the key, so it names a variable.
fn is_same_named_identifier(norm_name: &str, value: &str, ctx: Context) -> bool {
    #[rustfmt::skip]
    const KEYWORDS: &[&str] = &[
        "token", "secret", "key", "password", "passwd", "pass", "pwd", "auth", "credentials",
        "credential", "creds",
    ];
    let lowercase = value.starts_with(|c: char| c.is_ascii_lowercase() || c == '_')
        && value
            .bytes()
            .all(|b| b.is_ascii_lowercase() || b.is_ascii_digit() || b == b'_' || b == b'.');
    // Mixed case (`authKey: _authKey`) only where code is evident: `API_KEY=MySecretKey` stays secret.
    let code_identifier = (ctx.spaced_assign || ctx.in_code || value.starts_with('_'))
        && value.starts_with(|c: char| c.is_ascii_alphabetic() || c == '_')
        && value
            .bytes()
            .all(|b| b.is_ascii_alphabetic() || b == b'_' || b == b'.');
    if !lowercase && !code_identifier {
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
];

/// Unquoted values that are type names, keywords or literals in code, not secrets.
#[rustfmt::skip]
const CODE_WORDS: &[&str] = &[
    "string", "String", "str", "&str", "bool", "boolean", "number", "int", "i32", "i64", "u32",
    "u64", "usize", "bytes", "Bytes", "None", "none", "null", "nil", "undefined", "true", "false",
    "True", "False", "any", "unknown", "object", "Secret", "SecretString", "Option", "Vec", "Box",
    "Arc", "Cow", "required", "optional",
];

fn named_ok(kind: &str, name: &str, value: &str, ctx: Context) -> bool {
    let bare_name = name.trim_start_matches('-');
    if matches!(bare_name, "PWD" | "OLDPWD") {
        return false;
    }
    let norm = normalise(bare_name);
    if BENIGN_NAME_SUFFIXES
        .iter()
        .any(|suffix| norm.ends_with(suffix))
    {
        return false;
    }
    if is_placeholder(value, ctx.quote)
        || looks_like_path(value)
        || !value.bytes().any(|b| b.is_ascii_alphanumeric())
    {
        return false;
    }
    let lower = value.to_ascii_lowercase();
    if matches!(
        lower.as_str(),
        "true" | "false" | "null" | "none" | "nil" | "undefined"
    ) {
        return false;
    }
    // CSS colours (`Token: '#cccccc'` in a syntax theme).
    if let Some(hex) = value.strip_prefix('#') {
        if (3..=8).contains(&hex.len()) && hex.bytes().all(|b| b.is_ascii_hexdigit()) {
            return false;
        }
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
    if value.starts_with("id=") || value.starts_with("type=") || value.starts_with("src=") {
        return false;
    }
    if ["ssh-rsa", "ssh-ed25519", "ecdsa-sha2-", "sk-ssh-"]
        .iter()
        .any(|p| value.starts_with(p))
    {
        return false;
    }
    let all_digits = value.bytes().all(|b| b.is_ascii_digit());
    if kind == "password" {
        // `"pass": 3` counts test passes, `HAVE_PASSWD: 1` is a flag; `PASSWORD=1234` is a PIN.
        return !(all_digits && (value.len() <= 2 || matches!(norm.as_str(), "pass" | "pw")));
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
    // tokens are not a bare lowercase word. Quoted values (`"token": "x"`) are still redacted.
    if ctx.quote.is_none() && value.bytes().all(|b| b.is_ascii_lowercase()) {
        return false;
    }
    if norm.ends_with("auth")
        && value
            .bytes()
            .all(|b| b.is_ascii_lowercase() || b == b'-' || b == b'_')
    {
        return false;
    }
    if norm.ends_with("credentials") && matches!(value, "include" | "omit" | "same-origin") {
        return false;
    }
    true
}

/// An unquoted value that reads as code: a type, call, index, member path or literal.
fn looks_like_code(value: &str, ctx: Context) -> bool {
    let word = value.trim_end_matches([')', ',', ';', '}', ']', ':']);
    if CODE_WORDS.contains(&word) || value.contains('(') {
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
    if parts.iter().all(|p| is_identifier(p)) {
        let code_like = ctx.in_code || ctx.spaced_assign;
        if word.contains("::")
            || (parts.len() >= 2 && (parts.len() >= 3 || !has_digit || code_like))
        {
            return true;
        }
        // A bare identifier in `x = other_name` or `field: Type,`.
        if parts.len() == 1 && code_like && !has_digit {
            return true;
        }
    }
    if let Some(hex) = word.strip_prefix("0x") {
        if (1..=16).contains(&hex.len()) && hex.bytes().all(|b| b.is_ascii_hexdigit()) {
            return true;
        }
    }
    // jq paths and member accesses: `.spec.tokenRef`.
    value.starts_with('.') && value[1..].starts_with(|c: char| c.is_ascii_alphabetic())
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
    static ALLOW: OnceLock<Regex> = OnceLock::new();
    ALLOW
        .get_or_init(|| {
            build_regex(concat!(
                r"(?i)access(?:ibility|or)|access[_.-]?id|random[_.-]?access|api[_.-]?(?:id|name|version)|rapid|capital",
                r"|author|credentials?[_.-]?id|withcredentials|(?:bucket|foreign|hot|idx|natural|primary|pub(?:lic)?",
                r"|schema|sequence|sort|partition|cache)[_.-]?key|turkey|key[_.-]?(?:alias|board|code|frame|id|length",
                r"|mesh|name|pair|press(?:ed)?|ring|selector|signature|size|stone|storetype|word|up|down|left|right)",
                r"|key[_.-]?vault[_.-]?(?:id|name)|key(?:store|tab)[_.-]?(?:file|path)|issuerkeyhash|monkey|keying",
                r"|secret[_.-]?(?:length|name|size|ref)|usersecretsid|(?:api|credentials|token)[_.-]?(?:endpoint|ur[il])",
                r"|public[_.-]?token|(?:key|token)[_.-]?(?:file|path|type|count|limit)|(?:max|min|num|input|output)[_.-]?tokens?",
            ))
        })
        .is_match(name)
}

fn generic_ok(name: &str, value: &str, text: &str, start: usize, ctx: Context) -> bool {
    if generic_name_allowed(name) || is_placeholder(value, ctx.quote) || looks_like_path(value) {
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
    // Letters-only values are words or identifiers; gitleaks requires entropy >= 3.5.
    if value
        .bytes()
        .all(|b| b.is_ascii_alphabetic() || matches!(b, b'_' | b'.' | b'-'))
        || entropy(value) < 3.5
    {
        return false;
    }
    let is_hex = |s: &str| {
        s.bytes()
            .all(|b| b.is_ascii_digit() || (b'a'..=b'f').contains(&b))
    };
    // Commit SHAs and sha256 digests stay readable.
    if (value.len() == 40 || value.len() == 64) && is_hex(value) {
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
    let is_host = value.contains('.')
        && value
            .bytes()
            .all(|b| b.is_ascii_lowercase() || b.is_ascii_digit() || b == b'.' || b == b'-')
        && value
            .split('.')
            .all(|label| !label.is_empty() && label.len() <= 24)
        && value
            .rsplit('.')
            .next()
            .is_some_and(|tld| tld.bytes().all(|b| b.is_ascii_lowercase()));
    !is_host
}

fn is_uuid(value: &str) -> bool {
    let parts: Vec<&str> = value.split('-').collect();
    parts.len() == 5
        && parts.iter().map(|p| p.len()).eq([8, 4, 4, 4, 12])
        && parts
            .iter()
            .all(|p| p.bytes().all(|b| b.is_ascii_hexdigit()))
}
