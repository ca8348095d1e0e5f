//! Values whose key or flag names them as passwords or secrets: `PGPASSWORD=…`, `--password=…`,
//! `"api_key": "…"`, `<password>…</password>`, `- name: DB_PASSWORD / value: …`, Kubernetes
//! Secret data, and gitleaks' generic rule (a key-ish name with a high-entropy value) last.
//!
//! Not here: a particular tool's password flag (`flags`), vetting (`vet`: placeholders, code
//! and prose are told apart there).

use super::*;
use crate::redact::vet::Check;

/// Values whose key, flag or surrounding command names them as passwords or secrets.
#[rustfmt::skip]
pub(super) fn named_values() -> Vec<Rule> {
    vec![
        // ~/.pgpass: `host:port:database:user:password`, any field but the last may be `*`, the
        // database and user start with a letter (not a time's or a compiler's `a:1:2:3:4`), the
        // password ends the line or the quoted string.
        rule("password", r#"(?:^|[^A-Za-z0-9_.*:-])[A-Za-z0-9_.*-]+:(?:[0-9]+|\*)(?::[A-Za-z_*][A-Za-z0-9_.*-]*){2}:([^\s:"'\\]+)(?:(?m:$)|[\s"'\\])"#)
        .anchors(":")
        .check(Check::Value),
        // .netrc: `machine host login user password secret`; redis.conf: `requirepass X`,
        // `masterauth X` at a line's start.
        rule("password", r#"\blogin(?:\s|\\[nt])+[^\s\\]+(?:\s|\\[nt])+password(?:\s|\\[nt])+([^\s"'\\]+)|(?:^|\n|\\n)[ \t]*(?:requirepass|masterauth)[ \t]+(?:"([^"\n]+)"|'([^'\n]+)'|([^\s"'\\]+))"#)
        .anchors("password|requirepass|masterauth")
        .check(Check::Value),
        // NuGet.Config `<add key="ClearTextPassword" value="…" />`.
        rule("password", r#"(?i-u:<add\s+key=\\?"(?:ClearText)?Password\\?"\s+value=\\?")([^"\\]+)\\?""#)
        .anchors("password")
        .check(Check::Value),
        // `git config --global x.token VALUE`, `npm config set //host/:_authToken VALUE`, `aws
        // configure set aws_secret_access_key VALUE`, `etcdctl put /db/password VALUE`, `consul
        // kv put`, `gh secret set NAME --body VALUE`: a secret given as a separate argument.
        rule("named_secret", &format!(concat!(r"(?i-u:\b(?:config(?::set)?|configure[ \t]+set|(?:etcdctl|kv)[ \t]+put)\b)[^\n|;&]*?[ \t]", r"(?P<k>[A-Za-z0-9_./:@-]*(?i-u:password|passwd|[_.]pass|requirepass|masterauth|token|secret|apikey|[_.-]key|authtoken|_auth))[ \t]+", r"(?:{q}|{b})", r"|\bgh[ \t]+secret[ \t]+set\b[^\n|;&]*?[ \t](?:-b|--body)(?:=|[ \t]*)(?:{q}|{b})"), q = QUOTED, b = BARE_FLAG))
        .check(Check::Named)
        .anchors("config |config:|configure |etcdctl|kv |gh "),
        // A sed replacement that writes a credential: `sed -i 's/^PW=.*/PW=x/' .env`.
        rule("password", &format!(r#"\bs(?:/[^/\n]*/{n}([^/\s'"\\]+)/|\|[^|\n]*\|{n}([^|\s'"\\]+)\||#[^#\n]*#{n}([^#\s'"\\]+)#)"#, n = r#"[A-Za-z0-9_.-]*(?i-u:password|passwd|pwd|secret|token|key)[A-Za-z0-9_]*[ \t]*[=:][ \t]*["']?"#)).anchors("password|passwd|pwd|secret|token|key").check(Check::Value),
        // SQL: `CREATE ROLE app WITH LOGIN PASSWORD 'x'`, MySQL's `SET PASSWORD FOR 'app'@'%' =
        // 'x'` (or `= PASSWORD('x')`), `IDENTIFIED [WITH plugin] BY 'x'` (Oracle's: `"x"`, bare).
        rule("password", r#"(?:(?i-u:\bpassword)[ \t]+|(?i-u:\bset[ \t]+password)(?:(?i-u:[ \t]+for)[ \t][^=\n]*)?[ \t]*=[ \t]*(?i-u:password\()?)'([^'\n]+)'|(?i-u:\bidentified[ \t]+(?:with[ \t]+[a-z0-9_]+[ \t]+)?by[ \t]+(?:(?:values|password)[ \t]+)?)(?:'([^'\n]+)'|"([^"\n]+)"|([^\s'";]+))"#)
        .anchors("password|identified")
        .check(Check::Value),
        xml_element("password", WORDS_PASSWORD),
        xml_element("named_secret", WORDS_SECRET),
        // The same pair in XML elements (Hadoop, Hive, Tomcat): `<name>fs.s3a.secret.key</name>
        // <value>x</value>`, a property list's `<key>Password</key><string>x</string>`; and on a
        // command line: `aws ssm put-parameter --name
        // /prod/db/password --value x`.
        rule("named_secret", &format!(r#"<(?:name|key)>[ \t]*(?P<k>[A-Za-z0-9_.:-]*(?i-u:{WORDS_ANY}))[ \t]*</(?:name|key)>(?:\s|\\[nrt])*<(?:value|string)>(?:\s|\\[nrt])*([^<\s\\][^<]*?)(?:\s|\\[nrt])*</(?:value|string)>"#))
        .check(Check::Named)
        .anchors("<name>|<key>"),
        rule("named_secret", &format!(r#"[ \t]--name(?:=|[ \t]+)["']?(?P<k>[A-Za-z0-9_./:-]*(?i-u:{WORDS_ANY})[A-Za-z0-9_]*)["']?[ \t](?:[^\n|;&]*?[ \t])?--value(?:=|[ \t]+)(?:{QUOTED}|{BARE_FLAG})"#))
        .check(Check::Named)
        .anchors("--value"),
        name_value_pair("password", WORDS_PASSWORD),
        name_value_pair("named_secret", WORDS_SECRET),
        named_flag("password", NAME_PASSWORD, WORDS_PASSWORD),
        named_assignment("password", NAME_PASSWORD, WORDS_PASSWORD, ASSIGNED_PASSWORD),
        named_flag("named_secret", NAME_SECRET, WORDS_SECRET),
        named_assignment("named_secret", NAME_SECRET, WORDS_SECRET, ASSIGNED_SECRET),
        // Data values of a Kubernetes Secret manifest (base64), one per line.
        rule("kubernetes_secret", r#"(?:(?m:^)|\\n)[ \t]+[A-Za-z0-9_.-]+:[ \t]*["']?([A-Za-z0-9+/]{6,}={0,3})["']?[ \t]*(?:(?m:$)|\\[nr])"#)
        .anchors("secret|data")
        .check(Check::KubeData)
        .requires(r#"kind:[ \t]*["']?Secret\b|\b(?:data|stringData):[ \t]*(?:\r?\n|\\n)"#),
        // gitleaks generic-api-key: a key-ish name assigned a long, high-entropy value.
        rule("generic_api_key", &format!("(?i-u)(?P<k>[A-Za-z0-9_.-]*{GENERIC_WORD}{GENERIC_NAME_END}){GENERIC_VALUE}"))
        .check(Check::Generic)
        .anchors("access|auth|api|credential|creds|key|passwd|password|secret|token"),
    ]
}

/// The word every name of the generic rule holds (its anchors start it).
const GENERIC_WORD: &str =
    r"(?:access|auth|(?-i:[Aa]pi|API)|credential|creds|key|passw(?:or)?d|secret|token)";
/// Up to 20 more name characters after [`GENERIC_WORD`].
const GENERIC_NAME_END: &str = r"[A-Za-z0-9_.\t -]{0,20}";
/// The generic rule after the name: an assignment and a long value.
const GENERIC_VALUE: &str = concat!(
    r#"[\t '"\\]{0,3}(?:=|>|:{1,3}=|\|\||:|=>|\?=|,|[ \t]-[ \t])[\x60'"\t =\\]{0,5}"#,
    // A quoted value may hold punctuation and spaces (`'m{{h}o)p${e]…'`).
    r#"(?:'([^'\\\n]{8,100})'|"([^"\\\n]{8,100})""#,
    r#"|([A-Za-z0-9_.=-]{10,}|[a-z0-9][a-z0-9+/]{11,}={0,3}|[a-z0-9][a-z0-9+/=_-]{19,})"#,
    r#"(?:[\x60'"\s;,)}\]&|<>\\]|$))"#,
);
