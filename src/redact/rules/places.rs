//! Secrets found by where they sit: credentials in URLs and query strings, webhook URLs,
//! `Authorization`/`X-…-Token` headers, cookies, `curl -u user:PASS`.
//!
//! Not here: vetting (`vet`), values named by a key (`named`).

use super::{rule, Rule};
use crate::redact::vet::Check;

/// Secrets found by where they sit: URLs, HTTP headers, command lines.
#[rustfmt::skip]
pub(super) fn places() -> Vec<Rule> {
    vec![
        rule("slack_webhook_url", r"hooks\.slack\.com/(?:services|workflows|triggers)/([A-Za-z0-9+/_-]{20,})"),
        rule("microsoft_teams_webhook", r"(?i-u)https://[a-z0-9-]+\.webhook\.office\.com/webhookb2/([a-z0-9-]{36}@[a-z0-9-]{36}/IncomingWebhook/[a-z0-9]{32}/[a-z0-9-]{36}(?:/[a-z0-9_-]+)?)"),
        rule("discord_token", r"(?i-u)discord(?:app)?\.com/api/webhooks/[0-9]+/([a-z0-9_-]{60,})"),
        // Any other webhook: a random path segment under `/hooks/` or `/webhook/` (Webex's
        // `/v1/webhooks/incoming/X`, a self-hosted chat's).
        rule("webhook_url", r"(?i-u)://[^\s/]+(?:/[^\s/?#]+)*?/(?:web)?hooks?/(?:[^\s/?#]+/)*?([A-Za-z0-9_-]{20,})").anchors("hook").check(Check::Entropy(4.0)),
        rule("telegram_bot_token", r"api\.telegram\.org/(?:file/)?bot([0-9]{5,16}:[A-Za-z0-9_-]{34,})"),
        rule("sidekiq_secret", r"(?i-u)\bhttps?://([a-f0-9]{8}:[a-f0-9]{8})@(?:gems|enterprise)\.contribsys\.com"),
        // `scheme://user:password@host`: the password; the user and host stay readable.
        // A `#` or `@` typed into a password unescaped (`root:Pa#ss@db`, `app:h1@w@db`) stays
        // part of it.
        rule("url_credentials", r#"\b[A-Za-z][A-Za-z0-9+.-]{1,20}://[^\s/?#@:"'\\<>]*:([^\s/?#"'\\<>@]+(?:[#@][^\s/?#"'\\<>@]+)*)@[^\s/?#@"'\\<>]"#)
        .anchors("://")
        .check(Check::Value),
        // Go's MySQL DSN, `user:password@tcp(host:3306)/db` (go-sql-driver/mysql docs).
        rule("url_credentials", r#"\b[A-Za-z0-9_.-]+:([^\s@:"'\\/]+)@(?:tcp|udp|unix)\("#).anchors("@tcp(|@udp(|@unix(").check(Check::Value),
        // A user and password given to a call that logs in: Python's `auth=("user", "PASS")`,
        // `HTTPBasicAuth("user", "PASS")`, Go's `SetBasicAuth`, REST Assured's `.basic("user",
        // "PASS")`, `credentials("user", "PASS")`, `smtp.login("user", "PASS")`, .NET's
        // `NetworkCredential("user", "PASS")`, JDBC's `getConnection(url, "user", "PASS")`, LDAP's
        // `DirectoryEntry(path, "user", "PASS")`.
        rule("password", r#"(?:\bauth[ \t]*=[ \t]*\(|\b(?:HTTP(?:Basic|Digest|Proxy)Auth|(?i-u:(?:set|with)?basic_?auth|basic|credentials?)|NetworkCredential|PasswordAuthentication|UsernamePasswordCredentials|login|getConnection|DirectoryEntry|PDO|mysqli(?:_connect)?|mysql_connect)[ \t]*\((?:[^,()\n]*,)?)[ \t]*(?:"[^"\n]*"|'[^'\n]*')[ \t]*,[ \t]*(?:"([^"\n]+)"|'([^'\n]+)')"#).anchors("auth=|auth =|auth(|auth (|basic(|credential|NetworkCredential|PasswordAuthentication|UsernamePasswordCredentials|login(|login (|getConnection|DirectoryEntry|PDO|mysqli|mysql_connect").check(Check::Value),
        // A secret written beside the account it belongs to: `cloudflare: KEY / bot@x.com`;
        // a user and password after a label that says so: `login: admin / PASS`.
        rule("named_secret", r#"(?:^|[\s"'(]|\\[nt])[A-Za-z][A-Za-z0-9_.-]*:[ \t]*([^\s"']{8,})[ \t]*/[ \t]+(?:[A-Za-z0-9_]+[ \t]*=[ \t]*)?[A-Za-z0-9._%+-]+@[A-Za-z0-9-]+\.[A-Za-z0-9.-]+"#)
        .anchors(" / ")
        .check(Check::Random(3.0)),
        rule("password", r#"(?i-u:\b(?:logins?|credentials?|creds|user(?:name)?[ \t]*/[ \t]*pass(?:word)?))[ \t]*[:=][ \t]*[^\s/"']+[ \t]+/[ \t]+([^\s"']+)"#)
        .anchors(" / ")
        .check(Check::Value),
        // An expect script's answer to a password prompt: `expect "password:"; send "X\r"`.
        rule("password", r#"(?i-u:assword|passphrase)[^\n]*?(?:\n[^\n]*?)?\bsend[ \t]+(?:--[ \t]+)?"([^"\\\n$][^"\\\n]*)(?:\\r|\\n)?""#).anchors(r"\bsend ").check(Check::Value),
        // The secret a JWT is signed or checked with: `jwt.sign(payload, "SECRET")`.
        rule("named_secret", r#"\bjwt\.(?:sign|verify|encode|decode)[ \t]*\([^,()\n]*,[ \t]*(?:"([^"\n]+)"|'([^'\n]+)'|\x60([^\x60\n]+)\x60)"#).anchors("jwt.").check(Check::Value),
        // `scheme://TOKEN@host` or `scheme://TOKEN:x-oauth-basic@host`: a token as the user.
        rule("url_credentials", r#"\b[A-Za-z][A-Za-z0-9+.-]{1,20}://([A-Za-z0-9_.~%-]{20,})(?::[^\s/?#@"'\\<>]*)?@"#)
        .anchors("://")
        .check(Check::Entropy(3.0)),
        rule("url_query_secret", concat!(r#"(?i-u:[?&](?:access_token|accesstoken|api_key|apikey|api-key|key|token|auth|auth_token|password|passwd|pwd"#, r#"|secret|client_secret|sig|signature|x-amz-signature|x-amz-credential|x-amz-security-token"#, r#"|x-goog-signature|x-goog-credential|private_token|session_token|id_token|refresh_token|code_verifier|jwt)"#, r#"=)([^&#\s"'\\<>]+)"#))
        .anchors("token|key|auth|pass|pwd|secret|sig|credential|jwt|code_verifier")
        .check(Check::Value),
        // An OAuth authorization code or an Azure Functions key (`?code=`): long and random, not
        // `?code=US` or `?code=404`.
        rule("url_query_secret", r"(?i-u:[?&]code=)([A-Za-z0-9/_.~%+=-]{20,})").anchors("code=").check(Check::Random(3.5)),
        rule(
            "authorization_header",
            concat!(
                r#"(?i-u:\b(?:proxy-)?authorization\\?["']?[ \t]*[:=][ \t]*\\?["']?[ \t]*"#,
                // Any scheme word (`Api-Token`, `Bearer`, `SSWS`): the credential follows it.
                r"(?P<k>[A-Za-z][A-Za-z0-9_.-]{0,30}[ \t]+)?)",
                r#"([^\s"'\\,;]+)"#,
            ),
        )
        .anchors("authorization")
        .check(Check::Header),
        // A header set by a config directive, its name and value apart: nginx's
        // `proxy_set_header Authorization "Basic X"`, Apache's `RequestHeader set Authorization`.
        rule("authorization_header", r#"(?i-u:\bauthorization\\?["']?[ \t]+\\?["']?(?:basic|bearer|token|digest)[ \t]+)([^\s"'\\,;]{8,})"#)
        .anchors("authorization")
        .check(Check::Random(4.0)),
        rule("auth_header", concat!(r#"(?i-u:(?:^|[\s'"]|\\[nrt])(?:x-[a-z0-9-]*(?:api-?key|token|auth|secret|password|signature|session)[a-z0-9-]*"#, r#"|private-token|job-token|circle-token|ocp-apim-subscription-key)[ \t]*:[ \t]*)([^\s"'\\,;]+)"#))
        .anchors("key|token|auth|secret|password|signature|session")
        .check(Check::Value),
        // A `Cookie:` header, or the cookies a client is given (`curl -b "sessionid=x"`).
        rule("auth_header", r#"(?i-u:\b(?:set-)?cookie[ \t]*:[ \t]*)([^\r\n"'\\]+)|[ \t](?:--cookie|-b)[ \t]+["']([^\r\n"'\\]+)|[ \t]--cookie[ \t]+([^\s"'\\]+)"#)
        .anchors("cookie|-b \"|-b '")
        .check(Check::Cookie),
        rule("bearer_token", r"(?i-u)\bbearer[ \t]+([A-Za-z0-9._~+/=-]{20,})"),
        // `curl -u user:password` in every quoting (`"u:p"`, `'u:p'`, `u:'p'`, `"u":"p"`, bare),
        // the command continued over lines (`\` newline): the password. `-u "TOKEN:"` (a token
        // as the user, an empty password): the token.
        rule("basic_auth", concat!(r#"\bcurl\b(?:[^\n\\]|\\[^n\n]|\\\r?\n|\\n)*?[ \t](?:-u|--user|--proxy-user|-U)(?:=|[ \t]+)"#, r#"(?:"[^"\s:]*:([^"\\]+)"|'[^'\s:]*:([^']+)'|"[^"\s]*":"([^"\\]+)"|[^\s:"']*:'([^'\n]+)'"#, r#"|[^\s:"']*:"([^"\\\n]+)"|"([^"\s:]{8,}):"|'([^'\s:]{8,}):'|([^\s:"']{8,}):(?:[ \t]|$)"#, r#"|[^\s:"']*:([^\s"'\\]+))"#))
        .check(Check::Value),
        // BUNDLE_ENTERPRISE__CONTRIBSYS__COM=user:password (Sidekiq Enterprise gems).
        rule("sidekiq_secret", r#"(?i-u)\bBUNDLE_(?:ENTERPRISE|GEMS)__CONTRIBSYS__COM\\?["']?[ \t]*(?:=|:)[ \t]*\\?["']?([a-f0-9]{8}:[a-f0-9]{8})\b"#)
        .anchors("contribsys"),
        // `.dockercfg` / `.dockerconfigjson` of a registry Secret: base64 of registry auths.
        rule("kubernetes_secret", r#"\.docker(?:cfg|configjson)\\?["']?[ \t]*:[ \t]*\\?["']?([A-Za-z0-9+/]{16,}={0,3})"#)
        .anchors("dockercfg|dockerconfigjson"),
        // `printf 'API_KEY=%s\n' 'VALUE' >> .env`: a value formatted into a key-named variable.
        rule("named_secret", concat!(r#"\b(?:printf|echo)[ \t]+['"]?(?P<k>[A-Za-z0-9_]*(?i-u:key|token|secret|password|passwd))=%s[^\s'"]*['"]?"#, r#"[ \t]+['"]?([A-Za-z0-9+/=_.~-]{16,})"#))
        .anchors("printf|echo")
        .check(Check::Random(3.5)),
        rule("aws_secret_access_key", concat!(r#"(?i-u)(?:aws[_.-]?secret(?:[_.-]?access)?[_.-]?key|secret[_.-]?access[_.-]?key)\\?["']?[ \t]*(?:=>|:=|=|:|[ \t])"#, r#"[ \t]*\\?["']?([A-Za-z0-9/+=]{40})(?:(?u:[^A-Za-z0-9/+=])|$)"#)),
    ]
}
