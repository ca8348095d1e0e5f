//! Secrets recognisable by their own format: a vendor prefix, a fixed length, a checksum shape.
//!
//! Owns one rule per vendor family (gitleaks' formats). Tokens with a distinctive prefix are
//! built with [`prefixed`] and need no word boundary (`send_ghp_…` is still a token); short or
//! base64-like prefixes (`EAAA`, `AKCp`, `cmVmd`) keep theirs, since they occur inside blobs.
//!
//! Not here: values recognised by a key name or keyword (`keywords`, `named`), vetting beyond
//! an entropy floor (`vet`).

use super::{prefixed, rule, Rule, UUID};
use crate::redact::vet::Check;

/// Secrets recognisable by their own format.
#[rustfmt::skip]
pub(super) fn token_formats() -> Vec<Rule> {
    vec![
        // Key material first: a PEM block is the largest span and contains anything.
        // The body is matched by class (base64, whitespace, `\n` escapes, `Proc-Type:` headers),
        // never by `.*?`, so a BEGIN without END costs a scan of its body, not of the text.
        rule("private_key", concat!(r"-----BEGIN[ A-Z0-9_-]{0,100}PRIVATE KEY(?: BLOCK)?-----", r"(?:\s|\\[nrt]|[A-Za-z0-9+/=]+|[A-Za-z-]+:[ \t][^\r\n\\]*)*", r"-----END[ A-Z0-9_-]{0,100}PRIVATE KEY(?: BLOCK)?-----", r"|-----BEGIN[ A-Z0-9_-]{0,100}PRIVATE KEY(?: BLOCK)?-----", r"(?:\s|\\[nrt]|[A-Za-z-]+:[ \t][^\r\n\\]*)*[A-Za-z0-9+/=]{16,}", r"(?:\s|\\[nrt]|[A-Za-z0-9+/=]{8,}|[A-Za-z-]+:[ \t][^\r\n\\]*)*", r"|Private-Lines:[ \t]*[0-9]+(?:\s|\\[nr]|[A-Za-z0-9+/=]{8,})*")),
        rule("age_secret_key", r"AGE-SECRET-KEY-1[QPZRY9X8GF2TVDW0S3JN54KHCE6MUA7L]{58}"),
        rule("onepassword_secret", concat!(r"\bA3-[A-Z0-9]{6}-(?:[A-Z0-9]{11}|[A-Z0-9]{6}-[A-Z0-9]{5})-[A-Z0-9]{5}-[A-Z0-9]{5}-[A-Z0-9]{5}\b", r"|\bops_eyJ[A-Za-z0-9+/]{250,}={0,3}")),
        // AI providers.
        prefixed("anthropic_api_key", r"\bsk-ant-(?:api|admin|oat|ort|sid)[0-9]{2}-[A-Za-z0-9_-]{20,}"),
        prefixed("openai_api_key", r"\bsk-(?:proj|svcacct|admin|None)-[A-Za-z0-9_-]{20,}|\bsk-[A-Za-z0-9_-]{16,}T3BlbkFJ[A-Za-z0-9_-]{16,}"),
        prefixed("huggingface_token", r"\bhf_[A-Za-z0-9]{34,}|\bapi_org_[A-Za-z0-9]{34}"),
        prefixed("perplexity_api_key", r"\bpplx-[A-Za-z0-9]{48}"),
        // Code hosting and CI.
        prefixed("github_token", r"\b(?:ghp|gho|ghu|ghs|ghr)_[A-Za-z0-9]{36,}|\bgithub_pat_[A-Za-z0-9_]{22,}"),
        // Each prefix's length (gitleaks' and detect-secrets' GitLab rules), a whole token.
        prefixed("gitlab_token", concat!(r"(glpat-[0-9A-Za-z_-]{20,}(?:\.[0-9a-z]{9})?|gl(?:dt|ffct|ft|rt|soat|cbt)-[0-9A-Za-z_-]{20,50}|glimt-[0-9A-Za-z_-]{25}", r"|glptt-[0-9A-Za-z_-]{40}|glagent-[0-9A-Za-z_-]{50,}|gloas-[0-9A-Za-z_-]{64}|GR1348941[0-9A-Za-z_-]{20,50})(?:[^0-9A-Za-z_-]|$)|_gitlab_session=([0-9a-z]{32})")),
        prefixed("sourcegraph_token", r"\bsgp_(?:[a-fA-F0-9]{16}|local)_[a-fA-F0-9]{40}\b|\bsgp_[a-fA-F0-9]{40}\b"),
        rule("jfrog_token", r"\bAKCp[A-Za-z0-9]{69}\b|\bcmVmd[A-Za-z0-9]{59}\b"),
        prefixed("npm_token", r"\bnpm_[A-Za-z0-9]{36}"),
        rule("pypi_token", r"pypi-AgEIcHlwaS5vcmc[A-Za-z0-9_-]{50,}|pypi-AgENdGVzdC5weXBpLm9yZw[A-Za-z0-9_-]{50,}"),
        prefixed("rubygems_api_key", r"\brubygems_[a-f0-9]{48}"),
        prefixed("clojars_api_token", r"(?i-u)\bCLOJARS_[a-z0-9]{60}"),
        prefixed("prefect_api_key", r"\bpnu_[A-Za-z0-9]{36}"),
        prefixed("sonar_token", r"\bsq[pau]_[A-Za-z0-9]{40}\b"),
        rule("octopus_deploy_api_key", r"\bAPI-[A-Z0-9]{26}\b").check(Check::Entropy(3.0)),
        rule("harness_token", r"\b(?:pat|sat)\.[A-Za-z0-9_-]{22}\.[A-Za-z0-9]{24}\.[A-Za-z0-9]{20}"),
        prefixed("pulumi_token", r"\bpul-[a-f0-9]{40}"),
        prefixed("infracost_token", r"\bico-[A-Za-z0-9]{32}\b"),
        rule("terraform_token", r"\b[A-Za-z0-9]{14}\.atlasv1\.[A-Za-z0-9_=-]{60,70}")
        .anchors("atlasv1"),
        prefixed("vault_token", r"\bhv[sbr]\.[A-Za-z0-9_-]{24,}"),
        prefixed("doppler_token", r"\bdp\.(?:pt|st|sa|ct|scim|audit)\.[A-Za-z0-9]{40,44}"),
        prefixed("postman_api_key", r"\bPMAK-[A-Fa-f0-9]{24}-[A-Fa-f0-9]{34}"),
        prefixed("readme_api_key", r"\brdme_[a-z0-9]{70}"),
        rule("authress_access_key", r"(?i-u)\b(?:sc|ext|scauth|authress)_[a-z0-9]{5,30}\.[a-z0-9]{4,6}\.(?-i:acc)[_-][a-z0-9-]{10,32}\.[a-z0-9+/_=-]{30,120}")
        .anchors("acc_|acc-"),
        // Chat.
        prefixed("slack_token", r"\bxoxe\.xox[bp]-[0-9]-[0-9A-Za-z]{100,}|\bxox[abeoprs]-[0-9]+-[0-9A-Za-z-]{8,}|\bxapp-[0-9]-[0-9A-Za-z]+-[0-9]+-[0-9A-Za-z]+"),
        // Cloud and infrastructure.
        prefixed("aws_access_key_id", r"\b(?:A3T[A-Z0-9]|AKIA|ASIA|ABIA|ACCA)[A-Z0-9]{16}\b"),
        prefixed("aws_session_token", r"\b(?:FwoGZXIvYXdz|IQoJb3JpZ2lu)[A-Za-z0-9/+=]{100,}"),
        rule("google_api_key", r"AIza[0-9A-Za-z_-]{35}"),
        rule("google_oauth_client_secret", r"GOCSPX-[0-9A-Za-z_-]{28}"),
        rule("google_oauth_token", r"\bya29\.[0-9A-Za-z_-]{20,}|\b1//0[0-9A-Za-z_-]{40,}"),
        rule("azure_ad_client_secret", r#"(?:^|[\\'"\x60\s>=:(,)])([A-Za-z0-9_~.]{3}[0-9]Q~[A-Za-z0-9_~.-]{31,34})(?:$|[\\'"\x60\s<),])"#)
        .anchors("q~"),
        prefixed("alibaba_access_key", r"\bLTAI[A-Za-z0-9]{20}"),
        prefixed("digitalocean_token", r"\bdo[opr]_v1_[a-f0-9]{64}"),
        rule("cloudflare_api_key", r"\bv1\.0-[a-f0-9]{24}-[a-f0-9]{146}"),
        prefixed("heroku_api_key", r"\bHRKU-AA[0-9A-Za-z_-]{58}"),
        prefixed("netlify_token", r"\bnfp_[A-Za-z0-9]{36,40}"),
        prefixed("flyio_token", r"\b(?:fo1_[A-Za-z0-9_-]{43}|fm1[ar]_[A-Za-z0-9+/]{100,}={0,3}|fm2_[A-Za-z0-9+/]{100,}={0,3})"),
        prefixed("scalingo_token", r"\btk-us-[A-Za-z0-9_-]{48}"),
        prefixed("planetscale_token", r"\bpscale_(?:tkn|oauth|pw)_[A-Za-z0-9_=.-]{32,64}"),
        prefixed("databricks_token", r"\bdapi[a-f0-9]{32}(?:-[0-9])?\b"),
        prefixed("dynatrace_token", r"\bdt0c01\.[A-Za-z0-9]{24}\.[A-Za-z0-9]{64}"),
        prefixed("new_relic_key", r"\bNRAK-[A-Z0-9]{27}\b|\bNRJS-[a-f0-9]{19}\b|\bNRII-[A-Za-z0-9_-]{32}|\bNRAA-[a-f0-9]{27}\b"),
        prefixed("sentry_token", r"\bsntrys_eyJpYXQiO[A-Za-z0-9+/=_]{50,}|\bsntryu_[a-f0-9]{64}"),
        prefixed("grafana_token", r"\beyJrIjoi[A-Za-z0-9]{70,}={0,3}|\bglc_[A-Za-z0-9+/]{32,}={0,3}|\bglsa_[A-Za-z0-9]{32}_[A-Fa-f0-9]{8}"),
        prefixed("openshift_token", r"\bsha256~[A-Za-z0-9_-]{43}"),
        rule("clickhouse_api_key", r"\b4b1d[A-Za-z0-9]{38}\b").check(Check::Entropy(3.0)),
        prefixed("defined_networking_token", r"\bdnkey-[A-Za-z0-9=_-]{26}-[A-Za-z0-9=_-]{52}"),
        prefixed("settlemint_token", r"\bsm_(?:aat|pat|sat)_[A-Za-z0-9]{16}\b"),
        // Payments and commerce.
        prefixed("stripe_api_key", r"\b(?:sk|rk)_(?:test|live|prod)_[0-9A-Za-z]{10,}|\bwhsec_[0-9A-Za-z+/=]{32,}"),
        rule("square_token", r"\b(?:EAAA|sq0atp-)[A-Za-z0-9_-]{22,60}|\bsq0csp-[A-Za-z0-9_^-]{43}"),
        prefixed("shopify_token", r"\bshp(?:at|ca|pa|ss)_[a-fA-F0-9]{32}"),
        prefixed("flutterwave_key", r"\bFLW(?:SECK|PUBK)(?:_TEST)?-[A-Za-z0-9]{12,32}(?:-X)?"),
        prefixed("duffel_token", r"\bduffel_(?:test|live)_[A-Za-z0-9_=-]{43}"),
        rule("easypost_token", r"\bEZ[AT]K[A-Za-z0-9]{54}\b"),
        prefixed("shippo_token", r"\bshippo_(?:live|test)_[a-fA-F0-9]{40}"),
        prefixed("intra42_secret", r"\bs-s4t2(?:ud|af)-[a-fA-F0-9]{64}"),
        // Messaging, marketing, productivity.
        prefixed("sendgrid_api_key", r"\bSG\.[A-Za-z0-9=_.-]{66}"),
        prefixed("sendinblue_api_key", r"\bx(?:keysib|smtpsib)-[a-f0-9]{64}-[A-Za-z0-9]{16}"),
        rule("mailchimp_api_key", r"\b[a-f0-9]{32}-us[0-9]{1,2}\b").anchors("-us"),
        rule("twilio_api_key", r"\bSK[0-9a-fA-F]{32}\b").check(Check::Entropy(3.0)),
        prefixed("atlassian_api_token", r"\bATATT3[A-Za-z0-9_=-]{150,}"),
        prefixed("linear_api_key", r"\blin_api_[A-Za-z0-9]{40}"),
        rule("notion_token", r"\bntn_[0-9]{11}[A-Za-z0-9]{35}\b|\bsecret_[A-Za-z0-9]{43}\b")
        .anchors("ntn_|secret_"),
        rule("airtable_api_key", r"\bpat[A-Za-z0-9]{14}\.[a-f0-9]{64}\b"),
        prefixed("typeform_token", r"\btfp_[A-Za-z0-9_.=-]{59}"),
        prefixed("hubspot_api_key", &format!(r"\bpat-(?:na|eu)[0-9]-{UUID}")),
        prefixed("frameio_token", r"\bfio-u-[A-Za-z0-9_=-]{64}"),
        rule("maxmind_license_key", r"\b[A-Za-z0-9]{6}_[A-Za-z0-9]{29}_mmk\b"),
        prefixed("adobe_secret", r"\bp8e-[A-Za-z0-9]{32}"),
        rule("mapbox_token", r"\b(?:pk|sk|tk)\.eyJ[A-Za-z0-9_-]{20,}\.[A-Za-z0-9_-]{20,}"),
        rule("facebook_token", r"\bEAA[MC][A-Za-z0-9]{100,}"),
        rule("facebook_token", r"\b[0-9]{15,16}(?:\||%7[Cc])[0-9A-Za-z_-]{27,40}")
        .anchors("facebook|fb")
        .requires("(?i)facebook|graph\\.fb|\\bfb"),
        rule("dropbox_token", r"\bsl\.(?:u\.)?[A-Za-z0-9_-]{130,}"),
        rule("freemius_secret_key", r#"\\?["']secret_key\\?["']\s*=>\s*\\?["'](sk_[^\s"'\\]{29})\\?["']"#),
        // Chat bots: Discord (user id in base64, timestamp, HMAC), Telegram (bot id, `:AA` and
        // 33 characters, or 32 of a token cut one short).
        rule("discord_token", r"\b[A-Za-z0-9_-]{0,3}[MNO][A-Za-z0-9_-]{23,27}\.[A-Za-z0-9_-]{6,7}\.[A-Za-z0-9_-]{27,40}\b")
        // The first part is a user id (17 to 19 digits) in base64: `MT…`, `Nz…`, `OD…`, which
        // may follow a few characters (`ATMy…`: detect-secrets finds the token from `M`).
        .anchors("mt|mj|mz|nd|nt|nj|nz|od|ot")
        .check(Check::Entropy(3.5)),
        rule("telegram_bot_token", r"\b[0-9]{8,10}:AA[A-Za-z0-9_-]{32,33}\b").anchors(":aa"),
        // Incident, feature-flag and payment services.
        prefixed("rootly_api_key", r"\brootly_[a-f0-9]{64}\b"),
        rule("launchdarkly_token", &format!(r"\b(?:api|sdk)-{}\b", UUID.replace("0-9a-f", "0-9a-z"))),
        prefixed("razorpay_key", r"\brzp_(?:live|test)_[A-Za-z0-9]{14}\b"),
        prefixed("pinecone_api_key", r"\bpcsk_[A-Za-z0-9]{5,6}_[A-Za-z0-9]{50,70}\b"),
        prefixed("langsmith_api_key", r"\blsv2_(?:pt|sk)_[a-f0-9]{32}_[a-f0-9]{10}\b"),
        prefixed("spectralops_token", r"\bsp[ukt]-[a-f0-9]{32}\b"),
        prefixed("atlassian_api_token", r"\b(?:ATBB[A-Za-z0-9_=.-]{28,}|BBDC-[A-Za-z0-9+/@_-]{40,50})"),
        // Generic token shapes last among formats: a JWT may carry any of the above's claims.
        prefixed(
            "jwt",
            concat!(
                // An unsigned token has two parts: header and payload.
                r"\bey[A-Za-z0-9_-]{10,}\.ey[A-Za-z0-9_-]{10,}(?:\.[A-Za-z0-9_-]*)?",
                // A JSON header (`{"alg"…`, `{"typ"…`) and two more segments (four: a JWE).
                r"|\beyJ[A-Za-z0-9_-]{10,}\.[A-Za-z0-9_-]{10,}\.[A-Za-z0-9_-]{10,}(?:\.[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+)?",
                r"|\bZXlK[A-Za-z0-9+/]{40,}={0,2}",
            ),
        ),
    ]
}
