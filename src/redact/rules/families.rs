//! Secret formats as data with their provenance: password hashes, webhook URLs, connection
//! strings, and tokens made of a vendor's prefix and a random body. Each row is (kind, pattern,
//! where the format is described: a vendor's documentation or a public rule set, cited by
//! name; the patterns are written here from those descriptions). The table in
//! docs/redaction.md lists the same rows.
//!
//! The known-prefix family is one rule over many prefixes with one body shape; a prefix no row
//! names (`abc_` and 24 or more random letters and digits) is judged with the
//! keyless values (`vet::keyless`), so a new vendor's token is caught before it has a row.
//!
//! Not here: tokens recognisable by a format of their own (`formats`), values named by a key
//! (`assigned`, `named`).

use super::{prefixed, rule, Rule};
use crate::redact::vet::Check;

/// (kind, pattern, anchors, provenance).
#[rustfmt::skip]
const FAMILIES: &[(&str, &str, &str, &str)] = &[
    // Password hashes: modular crypt format and the PHC string format.
    ("password_hash", r"\$2[abxy]?\$[0-9]{2}\$[./A-Za-z0-9]{53}", "$2", "bcrypt: OpenBSD crypt(3), passlib docs"),
    ("password_hash", r"\$(?:1|apr1)\$[./A-Za-z0-9]{1,8}\$[./A-Za-z0-9]{22}", "$1$|$apr1$", "MD5-crypt: glibc crypt(3), Apache htpasswd docs"),
    ("password_hash", r"\$[56]\$(?:rounds=[0-9]+\$)?[./A-Za-z0-9]{1,16}\$[./A-Za-z0-9]{43,86}", "$5$|$6$", "SHA-256/512-crypt: glibc crypt(3)"),
    ("password_hash", r"\$(?:(?:y|gy)\$[./A-Za-z0-9]+\$|7\$[./A-Za-z0-9]{11})[./A-Za-z0-9]{1,86}\$[./A-Za-z0-9]{43}", "$y$|$gy$|$7$", "yescrypt, scrypt: libxcrypt crypt(5)"),
    ("password_hash", r"\$[89]\$[./A-Za-z0-9]{14}\$[./A-Za-z0-9]{43}", "$8$|$9$", "Cisco IOS type 8 (PBKDF2) and type 9 (scrypt) password hashes: Cisco docs, hashcat example hashes (modes 9200, 9300)"),
    ("password_hash", r"\$sha1\$[0-9]+\$[./A-Za-z0-9]{1,64}\$[./A-Za-z0-9]{28}", "$sha1$", "NetBSD SHA1-crypt: passlib sha1_crypt docs"),
    ("password_hash", r"\b(?:pbkdf2:sha(?:1|256|512)(?::[0-9]+)?|scrypt:[0-9]+:[0-9]+:[0-9]+)\$[A-Za-z0-9]{1,64}\$[0-9a-f]{40,}", "pbkdf2:sha|scrypt:", "Werkzeug (Flask) password hashes: Werkzeug docs, generate_password_hash"),
    ("password_hash", r"\$krb5(?:tgs|asrep)\$[0-9]+\$(?:[^\s]*?[$:])?([0-9a-f]{32}\$[0-9a-f]{64,})", "$krb5", "Kerberos TGS-REP and AS-REP hashes: hashcat example hashes (modes 13100, 18200)"),
    ("password_hash", r"\b[^\s:]+::[^\s:]*:[0-9a-fA-F]{16}:([0-9a-fA-F]{32}:[0-9a-fA-F]{32,})", "::", "NetNTLMv2 challenge-response hashes: hashcat example hashes (mode 5600)"),
    ("password_hash", r"\b[^\s:]+:[0-9]+:([0-9a-fA-F]{32}:[0-9a-fA-F]{32}):::", ":::", "pwdump and secretsdump SAM lines (user:RID:LM:NT:::): hashcat example hashes (mode 1000), Impacket secretsdump"),
    ("password_hash", r"\$(?:argon2(?:id|i|d)|scrypt|pbkdf2(?:-sha(?:1|256|512))?|bcrypt-sha256|balloon)\$(?:[a-z0-9=,]+\$){0,2}[A-Za-z0-9+/.]{8,}\$[A-Za-z0-9+/.]{16,}", "$argon2|$scrypt$|$pbkdf2|$bcrypt-sha256$|$balloon$", "PHC string format (P-H-C/phc-string-format), passlib's scrypt and pbkdf2 hashes"),
    ("password_hash", r"\b(?:pbkdf2_sha(?:1|256|512)\$[0-9]+\$|sha(?:1|256|512)\$|md5\$|SCRAM-SHA-256\$[0-9]+:)[A-Za-z0-9./+=]+\$[A-Za-z0-9+/]{32,}={0,2}(?::[A-Za-z0-9+/]{20,}={0,2})?", "pbkdf2_sha|sha1$|sha256$|sha512$|md5$|scram-sha-256$", "Django password storage docs, Werkzeug's salted `sha256$` (before 2.3); PostgreSQL's SCRAM-SHA-256 verifiers (pg_authid, RFC 5803)"),
    ("password_hash", r"\$[PHS]\$[./A-Za-z0-9]{31}(?:[./A-Za-z0-9]{21})?", "$P$|$H$|$S$", "phpass (WordPress, phpBB) and Drupal 7 password hashes: Openwall phpass, Drupal docs"),
    ("password_hash", r"\*[0-9A-F]{40}\b", "*0|*1|*2|*3|*4|*5|*6|*7|*8|*9|*a|*b|*c|*d|*e|*f", "MySQL mysql_native_password hashes: MySQL reference manual"),
    ("password_hash", r"\bmd5[0-9a-f]{32}\b", r"\bmd5", "PostgreSQL md5 role passwords: PostgreSQL docs, pg_authid"),
    ("password_hash", r"\{(?:SHA|SSHA|SSHA256|SSHA512|SMD5|CRYPT)\}[A-Za-z0-9+/$.]{20,}={0,2}", "sha}|ssha256}|ssha512}|smd5}|crypt}", "OpenLDAP userPassword schemes (slappasswd), Apache htpasswd's {SHA}"),
    // Webhook URLs: the path is the credential.
    ("microsoft_teams_webhook", r"(?i-u)\.webhook\.office\.com/webhookb?2?/([A-Za-z0-9@/_-]{40,})", "webhook.office.com", "Microsoft Teams incoming webhooks: Microsoft Learn"),
    ("microsoft_teams_webhook", r"(?i-u)outlook\.office(?:365)?\.com/webhook/([A-Za-z0-9@/_-]{40,})", "outlook.office", "Microsoft Teams (legacy) incoming webhooks: Microsoft Learn"),
    ("webhook_url", r"(?i-u)\.logic\.azure\.com(?::443)?/workflows/[A-Za-z0-9]+/triggers/[^\s?]*\?[^\s]*?\bsig=([A-Za-z0-9_%-]{20,})", "logic.azure.com", "Power Automate / Logic Apps workflow URLs: Microsoft Learn"),
    ("webhook_url", r"(?i-u)\.api\.powerplatform\.com(?::443)?/powerautomate/automations/direct/workflows/([a-f0-9]{32})", "powerplatform.com", "Power Automate workflow webhooks (Teams workflows): Microsoft Learn; trufflehog microsoftteamswebhook"),
    ("webhook_url", r"chat\.googleapis\.com/v1/spaces/[A-Za-z0-9_-]+/messages\?key=([A-Za-z0-9_-]{20,}&token=[A-Za-z0-9_%=-]{20,})", "googleapis", "Google Chat incoming webhooks: Google Workspace docs"),
    ("webhook_url", r"hooks\.zapier\.com/hooks/catch/[0-9]+/([A-Za-z0-9]{6,})", "zapier", "Zapier catch hooks: Zapier docs; gitleaks zapier-webhook-url"),
    ("webhook_url", r"maker\.ifttt\.com/trigger/[^/\s]+/with/key/([A-Za-z0-9_-]{20,})", "ifttt", "IFTTT webhooks: IFTTT docs"),
    ("webhook_url", r"/hooks/([a-z0-9]{26})\b", "/hooks/", "Mattermost incoming webhooks: Mattermost docs"),
    ("webhook_url", r"/hooks/[A-Za-z0-9]{17,24}/([A-Za-z0-9]{40,})", "/hooks/", "Rocket.Chat incoming webhooks: Rocket.Chat docs"),
    ("webhook_url", r"(?i-u)open\.(?:feishu\.cn|larksuite\.com)/open-apis/bot/v2/hook/([A-Za-z0-9-]{20,})", "open-apis/bot", "Feishu / Lark custom bot webhooks: Feishu open platform docs"),
    ("webhook_url", r"events\.pagerduty\.com/integration/([a-f0-9]{32})/enqueue", "pagerduty", "PagerDuty Events API v1 integration URLs: PagerDuty developer docs"),
    // Connection strings: the key part of Azure's and of vendors' DSNs.
    ("connection_string", r"(?i-u)\b(?:AccountKey|SharedAccessKey|SharedAccessSignature)=([A-Za-z0-9+/%]{30,}={0,2})", "accountkey=|sharedaccesskey=|sharedaccesssignature=", "Azure Storage / Service Bus connection strings: Microsoft Learn"),
    ("password", r#"(?i-u)(?:(?:(?:^|["'\s{])(?:Pwd|Password)[ \t]*=|;[ \t]*(?:Pwd|Password)[ \t]*=[ \t]*)(?:\{([^}\n]*[^A-Za-z0-9_.}\n-][^}\n]*)\}|([^;"'\n\\$<\s][^;"'\n\\]*);)|;[ \t]*(?:Pwd|Password)[ \t]*=[ \t]*(?:\{([^}\n]*[^A-Za-z0-9_.}\n-][^}\n]*)\}|([^;"'\n\\$<][^;"'\n\\]*)(?:["']|(?m:$))))"#, "pwd|password", "ODBC and ADO.NET connection strings, the password to its `;` or the string's end, or in braces that may hold `;` (`PWD={a;b}`): Microsoft Learn, connection string syntax"),
    ("password", r#"(?i-u)\bjdbc:oracle:(?:thin|oci):[A-Za-z0-9_$#]+/([^@\s"'$<][^@\s"']*)@"#, "jdbc:oracle", "Oracle JDBC URLs with a user and password: Oracle JDBC developer's guide"),
    ("connection_string", r"api\.softlayer\.com/(?:soap|rest)/v3(?:\.1)?/([a-z0-9]{64})\b", "softlayer", "IBM SoftLayer API URLs: detect-secrets softlayer plugin"),
    // A secret made of a key's id (16 bytes in base64) and its random part.
    ("tableau_token", r"[A-Za-z0-9+/]{22}==:[A-Za-z0-9]{32}\b", "==:", "Tableau personal access token secrets: Tableau REST API docs; trufflehog tableau"),
    // Vendor tokens whose body holds `-` and `_` anywhere.
    ("supabase_secret_key", r"\bsb_secret_[A-Za-z0-9_-]{20,}", "sb_secret_", "Supabase secret API keys: Supabase docs, API keys"),
    ("contentful_token", r"\bCFPAT-[A-Za-z0-9_-]{43}", "cfpat-", "Contentful personal access tokens: Contentful docs"),
    // Artifactory API keys and reference tokens (`AKC…`, `AP[0-9A-F]…`) where a value
    // starts; Twilio account SIDs and API keys: detect-secrets takes any body, fillers too.
    ("jfrog_token", r#"(?:^|[\s=:"'])(AKC[A-Za-z0-9]{10,}|AP[0-9A-F][A-Za-z0-9]{8,})(?:[\s"']|$)"#, "akc|ap0|ap1|ap2|ap3|ap4|ap5|ap6|ap7|ap8|ap9|apa|apb|apc|apd|ape|apf", "JFrog Artifactory API keys: JFrog docs; detect-secrets artifactory plugin"),
    ("twilio_api_key", r"\b(?:AC|SK)[a-z0-9]{32}\b", "ac|sk", "Twilio account SIDs and API keys: Twilio docs; detect-secrets twilio plugin"),
    ("prefixed_token", r"\bsk_[a-f0-9]{48}\b", "sk_", "ElevenLabs API keys (`sk_` and 48 hex digits, the shape many services give their secret keys): ElevenLabs docs"),
    ("prefixed_token", r"\bsk-[a-f0-9]{32}\b", "sk-", "DeepSeek API keys (`sk-` and 32 hex digits): DeepSeek API docs"),
    ("azure_identifiable_key", r"\b[A-Za-z0-9]{52}JQQJ[A-Za-z0-9]{28}\b", "jqqj", "Microsoft's identifiable keys (Azure DevOps personal access tokens, 84 characters with `JQQJ` from the 53rd): Microsoft Learn, Azure DevOps PAT format"),
    ("asana_token", r"\b[12]/[0-9]{10,20}(?:/[0-9]{10,20})?:[a-f0-9]{32}\b", "1/|2/", "Asana personal access tokens (`1/` or `2/`, the user's and the app's ids, `:`, 32 hex digits): Asana developer docs"),
    // Tokens whose shape holds `$` or `.` between its parts.
    ("braintree_access_token", r"\baccess_token\$(?:production|sandbox)\$[0-9a-z]{16}\$[0-9a-f]{32}", "access_token$", "PayPal Braintree access tokens: Braintree developer docs"),
    ("salesforce_token", r"\b00D[0-9A-Za-z]{12}![0-9A-Za-z._]{40,}", "00d", "Salesforce access tokens and session ids (the org's id, `!`, the token): Salesforce docs"),
    ("zoho_token", r"\b1000\.[a-f0-9]{32}\.[a-f0-9]{32}\b", "1000.", "Zoho OAuth access and refresh tokens: Zoho API docs"),
    ("amazon_mws_token", r"\bamzn\.mws\.[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}\b", "amzn.mws.", "Amazon MWS auth tokens: Amazon Marketplace Web Service developer docs"),
];

/// Vendor prefixes of tokens with a random body (the body is [`PREFIXED_BODY`]): (prefix, its
/// anchors, where it is described).
#[rustfmt::skip]
const PREFIXES: &[(&str, &str, &str)] = &[
    ("tskey-(?:api|auth|client|scim|webhook)-", "tskey-", "Tailscale API keys and auth keys: Tailscale docs"),
    ("tskey-[a-z0-9]+-", "tskey-", "Tailscale keys: trufflehog tailscale"),
    ("vc[pikar]_", "vcp_|vci_|vck_|vca_|vcr_", "Vercel access tokens: Vercel docs"),
    ("shp(?:ss|at|ca|pa)_", "shpss_|shpat_|shpca_|shppa_", "Shopify tokens: Shopify docs; gitleaks shopify"),
    ("cf(?:ut|at|k)_", "cfut_|cfat_|cfk_", "Cloudflare API tokens: Cloudflare docs; trufflehog cloudflareapitoken"),
    ("ph[xc]_", "phx_|phc_", "PostHog API keys: PostHog docs"),
    ("CCDB1_", "ccdb1_", "CockroachDB Cloud API keys: Cockroach Labs docs"),
    ("pgar_", "pgar_", "pganalyze read keys: trufflehog pganalyzereadkey"),
    ("spu-", "spu-", "SpectralOps keys: trufflehog spectralops"),
    ("dckr_(?:pat|oat)_", "dckr_", "Docker personal access tokens: Docker docs; gitleaks"),
    (r"dp\.(?:pt|ct|sa|scim|audit|st(?:\.[a-z0-9_-]{2,35})?)\.", "dp.", "Doppler tokens (personal, CLI, service, service account, SCIM, audit): Doppler docs"),
    ("lsv2_(?:pt|sk)_", "lsv2_", "LangSmith API keys: LangChain docs"),
    ("[sp]k-lf-", "k-lf-", "Langfuse keys: Langfuse docs"),
    ("CCIP(?:AT|RJ)_", "ccipat_|cciprj_", "CircleCI tokens: CircleCI docs"),
    ("bkua_", "bkua_", "Buildkite API tokens: Buildkite docs"),
    ("figd_", "figd_", "Figma personal access tokens: Figma docs"),
    ("sbp_", "sbp_", "Supabase access tokens: Supabase docs"),
    ("rnd_", "rnd_", "Render API keys: Render docs"),
    ("xai-", "xai-", "xAI API keys: xAI docs"),
    ("gsk_", "gsk_", "Groq API keys: Groq docs"),
    ("r8_", "r8_", "Replicate API tokens: Replicate docs"),
    ("nvapi-", "nvapi-", "NVIDIA API keys: NVIDIA docs"),
    ("sk-or-v1-", "sk-or-v1-", "OpenRouter API keys: OpenRouter docs"),
    ("csk-", "csk-", "Cerebras API keys: Cerebras Inference docs"),
    ("tvly-", "tvly-", "Tavily API keys: Tavily docs"),
    ("jina_", "jina_", "Jina AI API keys: Jina docs"),
    ("do[opr]_v1_", "_v1_", "DigitalOcean tokens: DigitalOcean docs; gitleaks"),
    ("ATBB", "atbb", "Bitbucket app passwords: Atlassian docs; trufflehog bitbucketapppassword"),
    ("glsa_", "glsa_", "Grafana service account tokens: Grafana docs; gitleaks"),
    ("oy2", "oy2", "NuGet API keys: trufflehog nugetapikey"),
    ("npm_", "npm_", "npm access tokens: npm docs; gitleaks npm-access-token"),
];

/// A prefixed token's body: letters and digits, a second part after `-` or `_` allowed
/// (`tskey-auth-…-…`, `lsv2_pt_…_…`); a short word after it (`_v2`, `-suffix`) is not the
/// token's.
const PREFIXED_BODY: &str = "[A-Za-z0-9]{10,}(?:[_-][A-Za-z0-9]{10,})?";

/// The format families, with their provenance.
pub(super) fn format_families() -> Vec<Rule> {
    let prefixes: Vec<&str> = PREFIXES.iter().map(|&(prefix, ..)| prefix).collect();
    let anchors: Vec<&str> = PREFIXES.iter().map(|&(_, anchors, _)| anchors).collect();
    let body = format!(r"\b(?:{}){PREFIXED_BODY}", prefixes.join("|"));
    let known_prefix = prefixed("prefixed_token", &body).check(Check::Value);
    FAMILIES
        .iter()
        .map(|&(kind, pattern, anchors, _)| rule(kind, pattern).anchors(anchors))
        .chain([known_prefix.anchors(&anchors.join("|")).word()])
        .collect()
}

#[cfg(test)]
mod tests {
    /// docs/redaction.md lists every row with its provenance.
    #[test]
    fn every_row_is_documented_with_where_it_comes_from() {
        let path = concat!(env!("CARGO_MANIFEST_DIR"), "/docs/redaction.md");
        let docs = std::fs::read_to_string(path).expect("docs/redaction.md");
        let rows = super::FAMILIES
            .iter()
            .map(|&(kind, .., source)| (kind, source))
            .chain(
                super::PREFIXES
                    .iter()
                    .map(|&(.., source)| ("prefixed_token", source)),
            );
        for (kind, source) in rows {
            assert!(!source.is_empty(), "a {kind} row has no provenance");
            assert!(
                docs.contains(&format!("| {source} |")),
                "docs/redaction.md lacks the {kind} row of {source}"
            );
        }
    }
}
