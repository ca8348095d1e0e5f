//! The unit tests' table: positive cases (a fake secret in a realistic text) and negatives.

use std::cell::Cell;

pub(super) const AN: &str = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789";
pub(super) const LET: &str = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz";
pub(super) const LOW: &str = "abcdefghijklmnopqrstuvwxyz0123456789";
pub(super) const UP: &str = "ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789";
pub(super) const HEX: &str = "0123456789abcdef";
pub(super) const DIG: &str = "0123456789";
pub(super) const B64: &str = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
pub(super) const URL: &str = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_";
pub(super) const B32: &str = "ABCDEFGHIJKLMNOPQRSTUVWXYZ234567";
pub(super) const BECH32: &str = "QPZRY9X8GF2TVDW0S3JN54KHCE6MUA7L";

thread_local! {
    static SEED: Cell<u64> = const { Cell::new(0x5eed_1234_abcd_ef01) };
}

/// A deterministic, high-entropy FAKE secret of `len` characters from `alphabet`.
pub(super) fn fake(alphabet: &str, len: usize) -> String {
    let alphabet = alphabet.as_bytes();
    (0..len)
        .map(|_| {
            let x = SEED.with(|seed| {
                // splitmix64
                let mut z = seed.get().wrapping_add(0x9e37_79b9_7f4a_7c15);
                seed.set(z);
                z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
                z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
                z ^ (z >> 31)
            });
            char::from(alphabet[(x % alphabet.len() as u64) as usize])
        })
        .collect()
}

pub(super) fn uuid() -> String {
    format!(
        "{}-{}-{}-{}-{}",
        fake(HEX, 8),
        fake(HEX, 4),
        fake(HEX, 4),
        fake(HEX, 4),
        fake(HEX, 12)
    )
}

pub(super) struct Case {
    pub input: String,
    pub secret: String,
    pub readable: &'static str,
    pub kind: &'static str,
}

#[derive(Default)]
struct Cases(Vec<Case>);

impl Cases {
    /// `template` with `{}` replaced by `secret`; `readable` must survive, `kind` must be emitted.
    fn add(&mut self, kind: &'static str, template: &str, secret: String, readable: &'static str) {
        assert!(
            template.contains("{}"),
            "template without placeholder: {template}"
        );
        assert!(
            template.contains(readable),
            "readable part not in template: {readable}"
        );
        self.0.push(Case {
            input: template.replace("{}", &secret),
            secret,
            readable,
            kind,
        });
    }
}

#[allow(clippy::too_many_lines)]
#[rustfmt::skip]
pub(super) fn positive_cases() -> Vec<Case> {
    let mut c = Cases::default();
    let pk = "private_key";
    // PEM blocks: real newlines, `\n` escapes inside JSON, every key type, truncated.
    c.add(pk, "cat > ~/.ssh/id_rsa <<'EOF'\n-----BEGIN RSA PRIVATE KEY-----\n{}\n-----END RSA PRIVATE KEY-----\nEOF\nchmod 600 ~/.ssh/id_rsa", fake(B64, 64), "chmod 600 ~/.ssh/id_rsa");
    c.add(pk, r#"{"type":"service_account","project_id":"acme-prod","private_key":"-----BEGIN PRIVATE KEY-----\n{}\n-----END PRIVATE KEY-----\n","client_email":"ci@acme-prod.iam.gserviceaccount.com"}"#, fake(B64, 64), "ci@acme-prod.iam.gserviceaccount.com");
    c.add(pk, "printf '-----BEGIN OPENSSH PRIVATE KEY-----\\n{}\\n-----END OPENSSH PRIVATE KEY-----\\n' > key", fake(B64, 70), "> key");
    c.add(pk, "echo '-----BEGIN EC PRIVATE KEY-----\n{}\n-----END EC PRIVATE KEY-----' | openssl ec -text", fake(B64, 64), "| openssl ec -text");
    c.add(pk, "gpg --import <<EOF\n-----BEGIN PGP PRIVATE KEY BLOCK-----\n\n{}\n=ab12\n-----END PGP PRIVATE KEY BLOCK-----\nEOF", fake(B64, 64), "gpg --import");
    c.add(pk, "write key.pem: -----BEGIN DSA PRIVATE KEY-----\r\n{}\r\n-----END DSA PRIVATE KEY-----", fake(B64, 64), "write key.pem:");
    c.add(pk, r#"{"file_path":"/tmp/k.pem","content":"-----BEGIN ENCRYPTED PRIVATE KEY-----\n{}"#, fake(B64, 64), r#""file_path":"/tmp/k.pem""#);
    c.add("age_secret_key", "echo {} > key.txt", format!("AGE-SECRET-KEY-1{}", fake(BECH32, 58)), "> key.txt");
    c.add("onepassword_secret", "op account add --secret-key {}", format!("A3-{}-{}-{}-{}-{}", fake(UP, 6), fake(UP, 11), fake(UP, 5), fake(UP, 5), fake(UP, 5)), "op account add");
    // AI providers.
    c.add("anthropic_api_key", "export ANTHROPIC_API_KEY={}", format!("sk-ant-api03-{}AA", fake(URL, 93)), "export ANTHROPIC_API_KEY=");
    c.add("anthropic_api_key", "curl -H \"x-api-key: {}\" https://api.anthropic.com/v1/organizations/users", format!("sk-ant-admin01-{}AA", fake(URL, 93)), "https://api.anthropic.com/v1/organizations/users");
    c.add("openai_api_key", r#"{"OPENAI_API_KEY": "{}"}"#, format!("sk-proj-{}T3BlbkFJ{}", fake(URL, 74), fake(URL, 74)), "OPENAI_API_KEY");
    c.add("openai_api_key", "openai.api_key = '{}'", format!("sk-{}T3BlbkFJ{}", fake(AN, 20), fake(AN, 20)), "openai.api_key");
    c.add("openai_api_key", "OPENAI_KEY={} python eval.py", format!("sk-svcacct-{}", fake(URL, 40)), "python eval.py");
    c.add("huggingface_token", "huggingface-cli login --token {}", format!("hf_{}", fake(LET, 34)), "huggingface-cli login --token");
    c.add("perplexity_api_key", "PPLX={} node ask.js", format!("pplx-{}", fake(AN, 48)), "node ask.js");
    c.add("cohere_api_key", "COHERE_KEY: {}", fake(LOW, 40), "COHERE_KEY:");
    // Code hosting and CI.
    c.add("github_token", "export GITHUB_TOKEN={}", format!("ghp_{}", fake(AN, 36)), "export GITHUB_TOKEN=");
    c.add("github_token", "git clone https://x-access-token:{}@github.com/acme/web.git", format!("ghs_{}", fake(AN, 36)), "@github.com/acme/web.git");
    c.add("github_token", "gh api user -H 'Authorization: token {}'", format!("gho_{}", fake(AN, 36)), "gh api user");
    c.add("github_token", "{\"refresh_token\":\"{}\"}", format!("ghr_{}", fake(AN, 36)), "refresh_token");
    c.add("github_token", "GH_TOKEN={} gh pr list", format!("github_pat_{}_{}", fake(AN, 22), fake(AN, 59)), "gh pr list");
    c.add("github_token", "echo {} | docker login ghcr.io -u bot --password-stdin", format!("ghu_{}", fake(AN, 36)), "docker login ghcr.io -u bot --password-stdin");
    c.add("gitlab_token", "git remote set-url origin https://oauth2:{}@gitlab.com/acme/web.git", format!("glpat-{}", fake(URL, 20)), "@gitlab.com/acme/web.git");
    c.add("gitlab_token", "gitlab-runner register --url https://gitlab.com --token {}", format!("glrt-{}", fake(URL, 20)), "--url https://gitlab.com");
    c.add("gitlab_token", "gitlab-runner register --registration-token {}", format!("GR1348941{}", fake(URL, 20)), "gitlab-runner register");
    c.add("gitlab_token", "CI_DEPLOY_PASSWORD={}", format!("gldt-{}", fake(URL, 20)), "CI_DEPLOY_PASSWORD=");
    c.add("gitlab_token", "curl --header \"Cookie: _gitlab_session={}\" https://gitlab.example.com", fake(HEX, 32), "https://gitlab.example.com");
    c.add("sourcegraph_token", "SRC_ACCESS_TOKEN={} src search 'repo:x'", format!("sgp_{}_{}", fake(HEX, 16), fake(HEX, 40)), "src search 'repo:x'");
    c.add("sourcegraph_token", "sourcegraph_token: {}", fake(HEX, 40), "sourcegraph_token:");
    c.add("jfrog_token", "jf c add --access-token {}", format!("cmVmd{}", fake(AN, 59)), "jf c add");
    c.add("jfrog_token", "artifactory_api_key: {}", fake(LOW, 73), "artifactory_api_key:");
    c.add("jfrog_token", "curl -H 'X-JFrog-Art-Api: {}' https://acme.jfrog.io", format!("AKCp{}", fake(AN, 69)), "https://acme.jfrog.io");
    c.add("npm_token", "echo '//registry.npmjs.org/:_authToken={}' >> .npmrc", format!("npm_{}", fake(AN, 36)), "//registry.npmjs.org/:_authToken=");
    c.add("pypi_token", "[pypi]\nusername = __token__\npassword = {}\n", format!("pypi-AgEIcHlwaS5vcmc{}", fake(URL, 60)), "username = __token__");
    c.add("rubygems_api_key", "GEM_HOST_API_KEY={} gem push x.gem", format!("rubygems_{}", fake(HEX, 48)), "gem push x.gem");
    c.add("clojars_api_token", "lein deploy clojars {}", format!("CLOJARS_{}", fake(LOW, 60)), "lein deploy clojars");
    c.add("prefect_api_key", "prefect cloud login --key {}", format!("pnu_{}", fake(AN, 36)), "prefect cloud login");
    c.add("sonar_token", "sonar-scanner -Dsonar.token={}", format!("squ_{}", fake(HEX, 40)), "sonar-scanner");
    c.add("sonar_token", "SONAR_TOKEN={}", fake(LOW, 40), "SONAR_TOKEN=");
    c.add("octopus_deploy_api_key", "octo push --apiKey {} --server https://octo.example.com", format!("API-{}", fake(UP, 26)), "--server https://octo.example.com");
    c.add("harness_token", "curl -H 'x-api-key: {}' https://app.harness.io/gateway", format!("pat.{}.{}.{}", fake(URL, 22), fake(AN, 24), fake(AN, 20)), "https://app.harness.io/gateway");
    c.add("pulumi_token", "PULUMI_ACCESS_TOKEN={} pulumi up", format!("pul-{}", fake(HEX, 40)), "pulumi up");
    c.add("infracost_token", "INFRACOST_API_KEY={} infracost breakdown", format!("ico-{}", fake(AN, 32)), "infracost breakdown");
    c.add("terraform_token", "credentials \"app.terraform.io\" { token = \"{}\" }", format!("{}.atlasv1.{}", fake(AN, 14), fake(URL, 64)), "app.terraform.io");
    c.add("vault_token", "VAULT_TOKEN={} vault kv get secret/app", format!("hvs.{}", fake(URL, 90)), "vault kv get secret/app");
    c.add("vault_token", "vault login token: {}", format!("s.{}", fake(AN, 24)), "vault login");
    c.add("doppler_token", "DOPPLER_TOKEN={} doppler run -- npm start", format!("dp.pt.{}", fake(AN, 43)), "doppler run -- npm start");
    c.add("postman_api_key", "POSTMAN_API_KEY={}", format!("PMAK-{}-{}", fake(HEX, 24), fake(HEX, 34)), "POSTMAN_API_KEY=");
    c.add("readme_api_key", "rdme openapi --key={}", format!("rdme_{}", fake(LOW, 70)), "rdme openapi");
    c.add("authress_access_key", "AUTHRESS_KEY={}", format!("sc_{}.{}.acc_{}.{}", fake(LOW, 10), fake(LOW, 5), fake(LOW, 16), fake(URL, 40)), "AUTHRESS_KEY=");
    c.add("droneci_token", "DRONE_TOKEN={}", fake(LOW, 32), "DRONE_TOKEN=");
    c.add("travisci_token", "travis_api_token: {}", fake(LOW, 22), "travis_api_token:");
    c.add("codecov_token", "CODECOV_TOKEN={} ./codecov", uuid(), "./codecov");
    c.add("snyk_token", "SNYK_TOKEN={} snyk test", uuid(), "snyk test");
    // Chat and webhooks.
    c.add("slack_token", "curl -H 'Authorization: Bearer {}' https://slack.com/api/chat.postMessage", format!("xoxb-{}-{}-{}", fake(DIG, 12), fake(DIG, 13), fake(AN, 24)), "https://slack.com/api/chat.postMessage");
    c.add("slack_token", "SLACK_USER_TOKEN={}", format!("xoxp-{}-{}-{}-{}", fake(DIG, 12), fake(DIG, 12), fake(DIG, 13), fake(HEX, 32)), "SLACK_USER_TOKEN=");
    c.add("slack_token", "SLACK_APP_TOKEN={}", format!("xapp-1-A{}-{}-{}", fake(UP, 10), fake(DIG, 13), fake(HEX, 64)), "SLACK_APP_TOKEN=");
    c.add("slack_webhook_url", "curl -X POST -d '{\"text\":\"hi\"}' https://hooks.slack.com/services/{}", format!("T{}/B{}/{}", fake(UP, 8), fake(UP, 10), fake(AN, 24)), "https://hooks.slack.com/services/");
    c.add("azure_identifiable_key", "az devops login with {}", format!("{}JQQJ99{}AZDO{}", fake(AN, 52), fake(AN, 18), fake(AN, 4)), "az devops login with ");
    c.add("asana_token", "curl -H 'Authorization: Bearer {}' https://app.asana.com/api/1.0/users/me", format!("1/{}:{}", fake(DIG, 16), fake(HEX, 32)), "https://app.asana.com/api/1.0/users/me");
    c.add("salesforce_token", "sf org display --json # {}", format!("00D{}!{}", fake(AN, 12), fake(AN, 96)), "sf org display --json # ");
    c.add("zoho_token", "ZOHO_AUTH {} crm", format!("1000.{}.{}", fake(HEX, 32), fake(HEX, 32)), " crm");
    c.add("tableau_token", "tabcmd PAT {}", format!("{}==:{}", fake(B64, 22), fake(AN, 32)), "tabcmd PAT ");
    c.add("microsoft_teams_webhook", "curl -X POST https://acme.webhook.office.com/webhookb2/{}", format!("{}@{}/IncomingWebhook/{}/{}", uuid(), uuid(), fake(HEX, 32), uuid()), "https://acme.webhook.office.com/webhookb2/");
    c.add("discord_token", "curl -X POST https://discord.com/api/webhooks/123456789012345678/{}", fake(URL, 68), "https://discord.com/api/webhooks/");
    c.add("discord_token", "DISCORD_CLIENT_SECRET={}", fake(URL, 32), "DISCORD_CLIENT_SECRET=");
    c.add("telegram_bot_token", "curl https://api.telegram.org/bot{}/sendMessage", format!("{}:AA{}", fake(DIG, 10), fake(URL, 33)), "/sendMessage");
    c.add("telegram_bot_token", "TELEGRAM_BOT_TOKEN={}", format!("{}:AA{}", fake(DIG, 10), fake(URL, 33)), "TELEGRAM_BOT_TOKEN=");
    c.add("discord_token", "bot.run({})", format!("MTk4NjIyNDgzNDcxOTI1MjQ4.{}.{}", fake(URL, 6), fake(URL, 38)), "bot.run(");
    c.add("telegram_bot_token", "bot = Bot(\"{}\")", format!("{}:AA{}", fake(DIG, 9), fake(URL, 33)), "bot = Bot(");
    c.add("rootly_api_key", "export ROOTLY={}", format!("rootly_{}", fake(HEX, 64)), "export ROOTLY=");
    c.add("razorpay_key", "razorpay.Client(auth=({}, s))", format!("rzp_live_{}", fake(AN, 14)), "razorpay.Client(auth=(");
    c.add("pinecone_api_key", "Pinecone(api={})", format!("pcsk_{}_{}", fake(AN, 6), fake(AN, 63)), "Pinecone(api=");
    c.add("langsmith_api_key", "LS={}", format!("lsv2_pt_{}_{}", fake(HEX, 32), fake(HEX, 10)), "LS=");
    c.add("spectralops_token", "spectral scan --dsn {}", format!("spu-{}", fake(HEX, 32)), "spectral scan --dsn");
    c.add("launchdarkly_token", "ld.init({})", format!("api-{}-{}-{}-{}-{}", fake(LOW, 8), fake(LOW, 4), fake(LOW, 4), fake(LOW, 4), fake(LOW, 12)), "ld.init(");
    c.add("kubernetes_secret", "kubectl apply -f - <<< '.dockerconfigjson: {}'", "eyJhdXRocyI6eyJyZWdpc3RyeS5leGFtcGxlLmNvbSI6e319fQ==".to_string(), "kubectl apply -f -");
    // Every copy of a found secret; separators, quoted and hex values after key names; curl
    // in every quoting; any Authorization scheme; Kubernetes data; printf into a variable.
    c.add("named_secret", "oanda token = '{}' | '{}'", fake(AN, 24), "oanda token = '");
    c.add("named_secret", "echo {} && export API_TOKEN={} && echo done", fake(AN, 30), "&& echo done");
    c.add("twitch_token", "twitch token - '{}'", fake(AN, 30), "twitch token - '");
    c.add("named_secret", "apikey = '{}'", "m{{h}o)p${e]q2!x}}".to_string(), "apikey = '");
    c.add("generic_api_key", "[DEBUG] Using Key={}", fake(HEX, 64), "[DEBUG] Using Key=");
    c.add("generic_api_key", "setHeader(\"Beamer-Api-Key\", \"{}\")", format!("{}=", fake(B64, 43)), "Beamer-Api-Key");
    c.add("basic_auth", "curl --user kevin:'{}' -iX PATCH", fake(AN, 16), "curl --user kevin:'");
    c.add("basic_auth", "curl -u \"{}:\" https://localhost:9200", format!("{}!t", fake(AN, 10)), "https://localhost:9200");
    c.add("basic_auth", "curl -k -X POST https://h/x \\\n  -d 'world' \\\n  -u developer:{}", fake(AN, 16), "-u developer:");
    c.add("authorization_header", "curl -H 'Authorization: Api-Token {}' https://x.live.dynatrace.com/api", fake(HEX, 32), "Authorization: Api-Token");
    c.add("kubernetes_secret", "data:\n  extra: {}\n", "YWRtaW46c3VwZXJzZWNyZXQxMjM=".to_string(), "extra: ");
    c.add("named_secret", "printf 'API_KEY=%s\\n' '{}' >> .env", fake(AN, 40), "printf 'API_KEY=%s");
    c.add("aws_access_key_id", "aws_access_key_id = {}", format!("AKIA{}", fake(UP, 16)), "aws_access_key_id = ");
    c.add("sonar_token", "sonar-scanner -Dsonar.login={}", format!("sqp_{}", fake(AN, 40)), "sonar-scanner");
    c.add("jwt", "X-Token: {}", format!("eyJ0eXAiOiJKV1QiLCJhbGciOiJub25lIn0.eyJ{}", fake(URL, 40)), "X-Token: ");
    c.add("mattermost_token", "MATTERMOST_TOKEN={}", fake(LOW, 26), "MATTERMOST_TOKEN=");
    c.add("twitch_token", "TWITCH_CLIENT_SECRET={}", fake(LOW, 30), "TWITCH_CLIENT_SECRET=");
    c.add("twitter_token", "TWITTER_API_SECRET={}", fake(LOW, 50), "TWITTER_API_SECRET=");
    c.add("linkedin_secret", "LINKEDIN_CLIENT_SECRET={}", fake(LOW, 16), "LINKEDIN_CLIENT_SECRET=");
    c.add("facebook_token", "FACEBOOK_APP_SECRET={}", fake(HEX, 32), "FACEBOOK_APP_SECRET=");
    c.add("facebook_token", "curl 'https://graph.facebook.com/me?fields=id' -H 'x-token: {}'", format!("EAAC{}", fake(AN, 120)), "https://graph.facebook.com/me?fields=id");
    // Cloud and infrastructure.
    c.add("aws_access_key_id", "aws configure set aws_access_key_id {}", format!("AKIA{}", fake(B32, 16)), "aws configure set aws_access_key_id");
    c.add("aws_secret_access_key", "aws configure set aws_secret_access_key {}", fake(B64, 40), "aws configure set aws_secret_access_key");
    c.add("aws_secret_access_key", "cat > .env <<EOF\nAWS_SECRET_ACCESS_KEY={}\nEOF", fake(B64, 40), "cat > .env <<EOF");
    c.add("aws_secret_access_key", r#"{"command":"cat > .env <<EOF\nAWS_SECRET_ACCESS_KEY={}\nEOF"}"#, fake(B64, 40), r#"{"command":"cat > .env <<EOF\n"#);
    c.add("aws_session_token", "AWS_SESSION_TOKEN={}", format!("IQoJb3JpZ2luX2VjE{}", fake(B64, 200)), "AWS_SESSION_TOKEN=");
    c.add("google_api_key", "curl 'https://maps.googleapis.com/maps/api/geocode/json?address=x&key={}'", format!("AIza{}", fake(URL, 35)), "maps.googleapis.com");
    c.add("google_oauth_client_secret", r#"{"installed":{"client_id":"123-abc.apps.googleusercontent.com","client_secret":"{}"}}"#, format!("GOCSPX-{}", fake(URL, 28)), "123-abc.apps.googleusercontent.com");
    c.add("google_oauth_token", "curl -H \"Authorization: Bearer {}\" https://www.googleapis.com/drive/v3/files", format!("ya29.{}", fake(URL, 100)), "https://www.googleapis.com/drive/v3/files");
    c.add("azure_ad_client_secret", "az login --service-principal -u app -p {} --tenant acme", format!("{}8Q~{}", fake(AN, 3), fake(AN, 34)), "--tenant acme");
    c.add("alibaba_access_key", "ALIBABA_CLOUD_ACCESS_KEY_ID={}", format!("LTAI{}", fake(AN, 20)), "ALIBABA_CLOUD_ACCESS_KEY_ID=");
    c.add("alibaba_access_key", "alibaba_secret: {}", fake(LOW, 30), "alibaba_secret:");
    c.add("digitalocean_token", "doctl auth init -t {}", format!("dop_v1_{}", fake(HEX, 64)), "doctl auth init");
    c.add("cloudflare_api_key", "CLOUDFLARE_API_TOKEN={}", fake(URL, 40), "CLOUDFLARE_API_TOKEN=");
    c.add("cloudflare_api_key", "ORIGIN_CA_KEY={}", format!("v1.0-{}-{}", fake(HEX, 24), fake(HEX, 146)), "ORIGIN_CA_KEY=");
    c.add("heroku_api_key", "HEROKU_API_KEY={} heroku apps", uuid(), "heroku apps");
    c.add("heroku_api_key", "HEROKU_TOKEN={}", format!("HRKU-AA{}", fake(URL, 58)), "HEROKU_TOKEN=");
    c.add("netlify_token", "netlify deploy --auth {}", format!("nfp_{}", fake(AN, 36)), "netlify deploy");
    c.add("flyio_token", "FLY_API_TOKEN={} fly deploy", format!("fm2_{}", fake(B64, 120)), "fly deploy");
    c.add("scalingo_token", "SCALINGO_API_TOKEN={}", format!("tk-us-{}", fake(URL, 48)), "SCALINGO_API_TOKEN=");
    c.add("yandex_token", "yandex_api_key = \"{}\"", format!("AQVN{}", fake(URL, 36)), "yandex_api_key");
    c.add("planetscale_token", "PLANETSCALE_SERVICE_TOKEN={}", format!("pscale_tkn_{}", fake(URL, 43)), "PLANETSCALE_SERVICE_TOKEN=");
    c.add("databricks_token", "DATABRICKS_TOKEN={} databricks fs ls", format!("dapi{}", fake(HEX, 32)), "databricks fs ls");
    c.add("confluent_secret", "confluent_api_secret: {}", fake(LOW, 64), "confluent_api_secret:");
    c.add("dynatrace_token", "DT_API_TOKEN={}", format!("dt0c01.{}.{}", fake(UP, 24), fake(UP, 64)), "DT_API_TOKEN=");
    c.add("datadog_api_key", "export DATADOG_API_KEY={}", fake(HEX, 32), "export DATADOG_API_KEY=");
    c.add("datadog_api_key", "DD_APP_KEY={} ./agent", fake(LOW, 40), "./agent");
    c.add("new_relic_key", "NEW_RELIC_API_KEY={}", format!("NRAK-{}", fake(UP, 27)), "NEW_RELIC_API_KEY=");
    c.add("sentry_token", "SENTRY_AUTH_TOKEN={} sentry-cli releases new v1", format!("sntryu_{}", fake(HEX, 64)), "sentry-cli releases new v1");
    c.add("sentry_token", "sentry_key: {}", fake(HEX, 64), "sentry_key:");
    c.add("grafana_token", "GRAFANA_TOKEN={}", format!("glsa_{}_{}", fake(AN, 32), fake(HEX, 8)), "GRAFANA_TOKEN=");
    c.add("sumologic_key", "SUMO_ACCESS_ID={}", format!("su{}", fake(LOW, 12)), "SUMO_ACCESS_ID=");
    c.add("openshift_token", "oc login --token={} --server=https://api.crc.testing:6443", format!("sha256~{}", fake(URL, 43)), "--server=https://api.crc.testing:6443");
    c.add("clickhouse_api_key", "CLICKHOUSE_KEY_SECRET={}", format!("4b1d{}", fake(AN, 38)), "CLICKHOUSE_KEY_SECRET=");
    c.add("defined_networking_token", "DN_API_KEY={}", format!("dnkey-{}-{}", fake(URL, 26), fake(URL, 52)), "DN_API_KEY=");
    c.add("settlemint_token", "SETTLEMINT_ACCESS_TOKEN={}", format!("sm_pat_{}", fake(AN, 16)), "SETTLEMINT_ACCESS_TOKEN=");
    c.add("cisco_meraki_api_key", "MERAKI_DASHBOARD_API_KEY={}", fake(HEX, 40), "MERAKI_DASHBOARD_API_KEY=");
    c.add("kubernetes_secret", "apiVersion: v1\nkind: Secret\nmetadata:\n  name: db\ntype: Opaque\ndata:\n  username: YWRtaW4=\n  tls.crt: {}\n", fake(B64, 40), "  name: db");
    c.add("kubernetes_secret", "kubectl apply -f - <<EOF\\ndata:\\n  api: {}\\nkind: Secret\\nEOF", fake(B64, 24), "kubectl apply -f - <<EOF");
    // Payments and commerce.
    c.add("stripe_api_key", "curl https://api.stripe.com/v1/charges -u {}:", format!("sk_live_{}", fake(AN, 24)), "https://api.stripe.com/v1/charges");
    c.add("stripe_api_key", "STRIPE_RESTRICTED_KEY={}", format!("rk_live_{}", fake(AN, 24)), "STRIPE_RESTRICTED_KEY=");
    c.add("stripe_api_key", "stripe listen --api-key {}", format!("sk_test_{}", fake(AN, 24)), "stripe listen");
    c.add("stripe_api_key", "STRIPE_WEBHOOK_SECRET={}", format!("whsec_{}", fake(AN, 32)), "STRIPE_WEBHOOK_SECRET=");
    c.add("square_token", "SQUARE_ACCESS_TOKEN={}", format!("EAAA{}", fake(URL, 60)), "SQUARE_ACCESS_TOKEN=");
    c.add("shopify_token", "curl -H 'X-Shopify-Access-Token: {}' https://shop.myshopify.com/admin", format!("shpat_{}", fake(HEX, 32)), "https://shop.myshopify.com/admin");
    c.add("plaid_token", "plaid_secret = \"{}\"", fake(LOW, 30), "plaid_secret");
    c.add("coinbase_token", "COINBASE_API_SECRET={}", fake(URL, 64), "COINBASE_API_SECRET=");
    c.add("kraken_token", "KRAKEN_PRIVATE_KEY={}", fake(B64, 88), "KRAKEN_PRIVATE_KEY=");
    c.add("kucoin_secret", "KUCOIN_API_KEY={}", fake(HEX, 24), "KUCOIN_API_KEY=");
    c.add("bitbucket_secret", "BITBUCKET_CLIENT_SECRET={}", fake(URL, 64), "BITBUCKET_CLIENT_SECRET=");
    c.add("bittrex_key", "bittrex_secret: {}", fake(LOW, 32), "bittrex_secret:");
    c.add("gocardless_token", "GOCARDLESS_ACCESS_TOKEN={}", format!("live_{}", fake(URL, 40)), "GOCARDLESS_ACCESS_TOKEN=");
    c.add("flutterwave_key", "FLW_SECRET_KEY={}", format!("FLWSECK_TEST-{}-X", fake(HEX, 32)), "FLW_SECRET_KEY=");
    c.add("finicity_secret", "finicity_app_key: {}", fake(LOW, 20), "finicity_app_key:");
    c.add("finnhub_token", "FINNHUB_API_KEY={}", fake(LOW, 20), "FINNHUB_API_KEY=");
    c.add("duffel_token", "DUFFEL_TOKEN={}", format!("duffel_test_{}", fake(URL, 43)), "DUFFEL_TOKEN=");
    c.add("easypost_token", "EASYPOST_API_KEY={}", format!("EZAK{}", fake(AN, 54)), "EASYPOST_API_KEY=");
    c.add("shippo_token", "SHIPPO_TOKEN={}", format!("shippo_live_{}", fake(HEX, 40)), "SHIPPO_TOKEN=");
    c.add("lob_api_key", "LOB_API_KEY={}", format!("live_{}", fake(HEX, 35)), "LOB_API_KEY=");
    c.add("intra42_secret", "FT_SECRET={}", format!("s-s4t2ud-{}", fake(HEX, 64)), "FT_SECRET=");
    // Messaging, marketing, productivity.
    c.add("sendgrid_api_key", "SENDGRID_API_KEY={}", format!("SG.{}.{}", fake(URL, 22), fake(URL, 43)), "SENDGRID_API_KEY=");
    c.add("sendinblue_api_key", "SIB_KEY={}", format!("xkeysib-{}-{}", fake(HEX, 64), fake(AN, 16)), "SIB_KEY=");
    c.add("mailchimp_api_key", "MC_KEY={}", format!("{}-us21", fake(HEX, 32)), "MC_KEY=");
    c.add("mailgun_key", "MAILGUN_API_KEY={}", format!("key-{}", fake(HEX, 32)), "MAILGUN_API_KEY=");
    c.add("messagebird_token", "MESSAGEBIRD_ACCESS_KEY={}", fake(LOW, 25), "MESSAGEBIRD_ACCESS_KEY=");
    c.add("sendbird_token", "SENDBIRD_API_TOKEN={}", fake(HEX, 40), "SENDBIRD_API_TOKEN=");
    c.add("intercom_token", "INTERCOM_ACCESS_TOKEN={}", fake(URL, 60), "INTERCOM_ACCESS_TOKEN=");
    c.add("hubspot_api_key", "HUBSPOT_TOKEN={}", format!("pat-na1-{}", uuid()), "HUBSPOT_TOKEN=");
    c.add("hubspot_api_key", "hubspot_api_key: {}", uuid(), "hubspot_api_key:");
    c.add("zendesk_secret_key", "ZENDESK_API_TOKEN={}", fake(LOW, 40), "ZENDESK_API_TOKEN=");
    c.add("freshbooks_token", "FRESHBOOKS_TOKEN={}", fake(LOW, 64), "FRESHBOOKS_TOKEN=");
    c.add("atlassian_api_token", "JIRA_API_TOKEN={}", format!("{}{}", fake(LOW, 20), fake(HEX, 4)), "JIRA_API_TOKEN=");
    c.add("atlassian_api_token", "curl -u me@acme.com:{} https://acme.atlassian.net/rest/api/3/myself", format!("ATATT3{}", fake(URL, 186)), "https://acme.atlassian.net/rest/api/3/myself");
    c.add("asana_secret", "ASANA_CLIENT_SECRET={}", fake(LOW, 32), "ASANA_CLIENT_SECRET=");
    c.add("linear_api_key", "LINEAR_API_KEY={}", format!("lin_api_{}", fake(AN, 40)), "LINEAR_API_KEY=");
    c.add("notion_token", "NOTION_TOKEN={}", format!("ntn_{}{}", fake(DIG, 11), fake(AN, 35)), "NOTION_TOKEN=");
    c.add("airtable_api_key", "AIRTABLE_TOKEN={}", format!("pat{}.{}", fake(AN, 14), fake(HEX, 64)), "AIRTABLE_TOKEN=");
    c.add("typeform_token", "TYPEFORM_TOKEN={}", format!("tfp_{}", fake(URL, 59)), "TYPEFORM_TOKEN=");
    c.add("contentful_token", "CONTENTFUL_DELIVERY_TOKEN={}", fake(URL, 43), "CONTENTFUL_DELIVERY_TOKEN=");
    c.add("contentful_token", "contentful space use --management-token {} --space-id x", format!("CFPAT-{}", fake(URL, 43)), "--space-id x");
    c.add("supabase_secret_key", "supabase secrets list --key {} --project x", format!("sb_secret_{}", fake(URL, 31)), "--project x");
    c.add("launchdarkly_token", "LAUNCHDARKLY_ACCESS_TOKEN={}", fake(URL, 40), "LAUNCHDARKLY_ACCESS_TOKEN=");
    c.add("rapidapi_key", "curl -H 'X-RapidAPI-Key: {}' https://api.rapidapi.com", fake(URL, 50), "https://api.rapidapi.com");
    c.add("algolia_api_key", "ALGOLIA_ADMIN_KEY={}", fake(LOW, 32), "ALGOLIA_ADMIN_KEY=");
    c.add("adafruit_api_key", "ADAFRUIT_IO_KEY={}", fake(URL, 32), "ADAFRUIT_IO_KEY=");
    c.add("adobe_secret", "ADOBE_CLIENT_SECRET={}", format!("p8e-{}", fake(AN, 32)), "ADOBE_CLIENT_SECRET=");
    c.add("beamer_api_token", "BEAMER_API_KEY={}", format!("b_{}", fake(URL, 44)), "BEAMER_API_KEY=");
    c.add("dropbox_token", "DROPBOX_ACCESS_TOKEN={}", format!("sl.u.{}", fake(URL, 140)), "DROPBOX_ACCESS_TOKEN=");
    c.add("etsy_token", "ETSY_API_KEY={}", fake(LOW, 24), "ETSY_API_KEY=");
    c.add("fastly_token", "FASTLY_API_TOKEN={}", fake(URL, 32), "FASTLY_API_TOKEN=");
    c.add("flickr_token", "FLICKR_API_SECRET={}", fake(LOW, 32), "FLICKR_API_SECRET=");
    c.add("frameio_token", "FRAMEIO_TOKEN={}", format!("fio-u-{}", fake(URL, 64)), "FRAMEIO_TOKEN=");
    c.add("freemius_secret_key", "'secret_key' => '{}',", format!("sk_{}", fake(AN, 29)), "'secret_key' =>");
    c.add("gitter_token", "GITTER_TOKEN={}", fake(LOW, 40), "GITTER_TOKEN=");
    c.add("mapbox_token", "MAPBOX_ACCESS_TOKEN={}", format!("pk.eyJ1Ijoi{}.{}", fake(URL, 40), fake(URL, 22)), "MAPBOX_ACCESS_TOKEN=");
    c.add("maxmind_license_key", "MAXMIND_LICENSE_KEY={}", format!("{}_{}_mmk", fake(AN, 6), fake(AN, 29)), "MAXMIND_LICENSE_KEY=");
    c.add("nytimes_token", "NYTIMES_API_KEY={}", fake(URL, 32), "NYTIMES_API_KEY=");
    c.add("okta_token", "OKTA_API_TOKEN={}", format!("00{}", fake(URL, 40)), "OKTA_API_TOKEN=");
    c.add("privateai_token", "PRIVATE_AI_API_KEY={}", fake(LOW, 32), "PRIVATE_AI_API_KEY=");
    c.add("sidekiq_secret", "BUNDLE_GEMS__CONTRIBSYS__COM={}", format!("{}:{}", fake(HEX, 8), fake(HEX, 8)), "BUNDLE_GEMS__CONTRIBSYS__COM=");
    c.add("squarespace_token", "SQUARESPACE_API_KEY={}", uuid(), "SQUARESPACE_API_KEY=");
    c.add("twilio_api_key", "TWILIO_API_KEY={}", format!("SK{}", fake(HEX, 32)), "TWILIO_API_KEY=");
    c.add("braintree_access_token", "bt-sync --token {} --dry-run", format!("access_token$production${}${}", fake(LOW, 16), fake(HEX, 32)), " --dry-run");
    c.add("amazon_mws_token", "mws orders {} --region eu", format!("amzn.mws.{}-{}-{}-{}-{}", fake(HEX, 8), fake(HEX, 4), fake(HEX, 4), fake(HEX, 4), fake(HEX, 12)), "mws orders ");
    c.add("new_relic_key", "newrelic_license_key: {}", fake(LOW, 64), "newrelic_license_key:");
    // Generic token shapes and places.
    c.add("jwt", "curl -b 'session={}' https://app.example.com", format!("eyJhbGciOiJIUzI1NiIsInR5cCI6IkpXVCJ9.eyJzdWIiOiIx{}.{}", fake(URL, 30), fake(URL, 43)), "https://app.example.com");
    c.add("url_credentials", "psql postgres://app:{}@db.internal:5432/app", format!("Xy9{}", fake(AN, 13)), "@db.internal:5432/app");
    c.add("url_credentials", "git clone https://deploy:{}@git.example.com/acme/web.git", fake(AN, 16), "https://deploy:");
    c.add("url_credentials", "git clone https://{}@git.example.com/acme/web.git", fake(AN, 40), "@git.example.com/acme/web.git");
    c.add("url_query_secret", "curl 'https://api.example.com/v1/items?access_token={}&page=2'", fake(AN, 30), "&page=2");
    c.add("url_query_secret", "wget 'https://bucket.s3.amazonaws.com/x.tar?X-Amz-Algorithm=AWS4-HMAC-SHA256&X-Amz-Signature={}'", fake(HEX, 64), "X-Amz-Algorithm=AWS4-HMAC-SHA256");
    c.add("url_query_secret", "azcopy copy 'https://acct.blob.core.windows.net/c/b?sv=2022-11-02&sig={}' .", fake(B64, 43), "sv=2022-11-02");
    c.add("aws_access_key_id", "curl 'https://b.s3.amazonaws.com/k?X-Amz-Credential={}%2F20240101%2Fus-east-1%2Fs3%2Faws4_request'", format!("ASIA{}", fake(B32, 16)), "https://b.s3.amazonaws.com/k?X-Amz-Credential=");
    c.add("authorization_header", "curl -H 'Authorization: token {}' https://api.example.com", fake(AN, 40), "https://api.example.com");
    c.add("authorization_header", "curl -H \"Authorization: Basic {}\" https://ci.example.com", format!("{}==", fake(B64, 30)), "https://ci.example.com");
    c.add("authorization_header", r#"{"headers":{"Authorization":"Bearer {}"}}"#, fake(AN, 32), r#"{"headers":{"Authorization":"Bearer "#);
    c.add("authorization_header", "git -c http.extraheader='AUTHORIZATION: basic {}' fetch", fake(B64, 28), "fetch");
    c.add("auth_header", "curl -H 'X-API-Key: {}' https://api.example.com/v1", fake(AN, 32), "https://api.example.com/v1");
    c.add("auth_header", "curl -H 'PRIVATE-TOKEN: {}' https://gitlab.example.com/api/v4/projects", fake(AN, 20), "https://gitlab.example.com/api/v4/projects");
    c.add("auth_header", "curl -H 'Cookie: sessionid={}' https://app.example.com", fake(AN, 32), "https://app.example.com");
    c.add("bearer_token", "the request used Bearer {} and failed", fake(AN, 40), "and failed");
    c.add("basic_auth", "curl -u admin:{} https://jenkins.example.com/api/json", fake(AN, 14), "curl -u admin:");
    c.add("generic_api_key", "api_key_prod={}", fake(AN, 32), "api_key_prod=");
    c.add("generic_api_key", r#"{"secretValue": "{}"}"#, fake(AN, 24), "secretValue");
    c.add("generic_api_key", "authHeaderValue: {}", fake(B64, 40), "authHeaderValue:");
    // Passwords in every place an agent puts them.
    let pw = "password";
    c.add(pw, "mysql -uroot -p{} -h db.example.com shop", format!("S3c{}", fake(AN, 8)), "-h db.example.com shop");
    c.add(pw, "mongodump --username admin --password {} --db app", fake(AN, 12), "--db app");
    c.add(pw, "./deploy --password={} --region eu-west-1", fake(AN, 12), "--region eu-west-1");
    c.add(pw, "PASSWORD={} ./run.sh", "hunter2".to_string(), "./run.sh");
    c.add(pw, "db:\n  user: app\n  passwd: {}\n", fake(AN, 12), "user: app");
    c.add(pw, r#"{"username":"admin","password":"{}"}"#, fake(AN, 12), r#"{"username":"admin","password":""#);
    c.add(pw, r#"{\"password\":\"{}\"}"#, "hunter2".to_string(), r#"{\"password\":\""#);
    c.add(pw, r#"{"tool_input":"{\"content\":\"{\\\"password\\\":\\\"{}\\\"}\"}"}"#, fake(AN, 12), "tool_input");
    c.add(pw, "sshpass -p {} ssh deploy@build.example.com", fake(AN, 12), "ssh deploy@build.example.com");
    c.add(pw, "docker login -u ci -p {} registry.example.com", fake(AN, 16), "registry.example.com");
    c.add(pw, "echo 'machine api.example.com login bot password {}' > ~/.netrc", fake(AN, 16), "> ~/.netrc");
    c.add(pw, "Server=db;Database=app;User Id=sa;Password={};", fake(AN, 16), "User Id=sa;");
    c.add(pw, "DB_PASS={} MYSQL_HOST=db ./migrate", fake(AN, 12), "MYSQL_HOST=db ./migrate");
    c.add(pw, "MYSQL_PWD={} mysql -u root", fake(AN, 12), "mysql -u root");
    c.add(pw, "export SMTP_PASSWORD=\"{}\"", fake(AN, 12), "export SMTP_PASSWORD=");
    c.add(pw, "openssl pkcs12 -export -in c.pem -passout pass:{} -out c.p12", fake(AN, 12), "-out c.p12");
    c.add(pw, "[database]\npassword = \"{}\"\nhost = \"db\"\n", fake(AN, 12), "host = \"db\"");
    c.add(pw, "    password: str = \"{}\"", fake(AN, 12), "password: str =");
    c.add(pw, "keytool -importkeystore -srckeystore a.jks -srcstorepass {} -destkeystore b.p12", fake(AN, 12), "-destkeystore b.p12");
    c.add(pw, "<add key=\"ClearTextPassword\" value=\"{}\" />", fake(AN, 12), "ClearTextPassword");
    c.add(pw, "ssh-keygen -t ed25519 -N '{}' -f ~/.ssh/id_ed25519", fake(AN, 12), "-f ~/.ssh/id_ed25519");
    c.add(pw, "kubectl create secret generic db --from-literal=password={}", fake(AN, 12), "kubectl create secret generic db");
    c.add("basic_auth", "curl -u 'admin:{}' https://jenkins.example.com", "p@ss w0rd!".to_string(), "https://jenkins.example.com");
    c.add(pw, "redis-cli -h cache.internal -a {} ping", fake(AN, 16), "ping");
    c.add(pw, "mongosh --host db -u admin -p {} --authenticationDatabase admin", fake(AN, 16), "--authenticationDatabase admin");
    c.add(pw, "sqlcmd -S db -U sa -P {} -Q 'select 1'", fake(AN, 16), "-Q 'select 1'");
    c.add(pw, "openssl enc -aes-256-cbc -k {} -in a -out b", fake(AN, 16), "-in a -out b");
    c.add(pw, "zip -P {} secrets.zip notes.txt", fake(AN, 16), "secrets.zip notes.txt");
    c.add(pw, "7z a -p{} archive.7z dir", fake(AN, 16), "archive.7z dir");
    c.add(pw, "htpasswd -bc .htpasswd admin {}", fake(AN, 16), "htpasswd -bc .htpasswd admin");
    c.add(pw, "$pw = ConvertTo-SecureString \"{}\" -AsPlainText -Force", fake(AN, 16), "-AsPlainText -Force");
    c.add(pw, "echo 'db.internal:5432:app:admin:{}' > ~/.pgpass", fake(AN, 16), "db.internal:5432:app:admin:");
    c.add(pw, r#"{"password": {}}"#, fake(DIG, 10), r#"{"password": "#);
    c.add(pw, "helm install db bitnami/postgresql --set auth.password={}", fake(AN, 16), "bitnami/postgresql");
    c.add("url_query_secret", "jdbc:mysql://db:3306/app?user=root&password={}", fake(AN, 16), "?user=root&password=");
    c.add("url_credentials", "redis://:{}@cache.internal:6379/0", fake(AN, 16), "@cache.internal:6379/0");
    c.add(pw, "kubectl create secret docker-registry r --docker-password={} --docker-username=ci", fake(AN, 16), "--docker-username=ci");
    // Named secrets: env-style names, JSON/YAML/TOML keys, flags.
    let ns = "named_secret";
    c.add(ns, "export API_TOKEN={}", fake(AN, 24), "export API_TOKEN=");
    c.add(ns, "SLACK_SIGNING_SECRET={} node app.js", fake(HEX, 32), "node app.js");
    c.add(ns, "GOOGLE_CREDENTIALS='{}'", fake(B64, 48), "GOOGLE_CREDENTIALS=");
    c.add(ns, "ENCRYPTION_KEY={}", fake(B64, 44), "ENCRYPTION_KEY=");
    c.add(ns, r#"{"api_key": "{}"}"#, fake(AN, 24), r#"{"api_key": ""#);
    c.add(ns, r#"{"token": "{}"}"#, "hunter2!".to_string(), r#"{"token": ""#);
    c.add(ns, r#"{"client_secret":"{}"}"#, fake(AN, 24), r#"{"client_secret":""#);
    c.add(ns, r#"{"private_key": "{}"}"#, format!("0x{}", fake(HEX, 64)), r#"{"private_key": ""#);
    c.add(ns, "//npm.pkg.github.com/:_authToken={}", uuid(), "//npm.pkg.github.com/:_authToken=");
    c.add(ns, r#"{"auths":{"ghcr.io":{"auth":"{}"}}}"#, fake(B64, 32), r#"{"auths":{"ghcr.io":{"auth":""#);
    c.add(ns, "[registry]\ntoken = \"{}\"\n", fake(AN, 32), "[registry]");
    c.add(ns, "api_key: {}\nregion: eu\n", fake(AN, 32), "region: eu");
    c.add(ns, "vercel deploy --prod --token {}", fake(AN, 24), "vercel deploy --prod --token");
    c.add(ns, "const apiKey: string = \"{}\";", fake(AN, 32), "const apiKey: string =");
    c.add(ns, "os.environ[\"SERVICE_API_KEY\"] = \"{}\"", fake(AN, 32), "os.environ[\"SERVICE_API_KEY\"]");
    c.add(ns, "docker run -e APP_SECRET={} -p 8080:80 app", fake(AN, 24), "-p 8080:80 app");
    c.add(ns, "git config --global github.token {}", fake(AN, 32), "git config --global github.token");
    c.add(ns, "npm config set //registry.example.com/:_authToken {}", uuid(), "npm config set");
    c.add(ns, "gh secret set DEPLOY_KEY --body \"{}\" -R acme/web", fake(AN, 32), "-R acme/web");
    c.add("connection_string", "DefaultEndpointsProtocol=https;AccountName=acct;AccountKey={};EndpointSuffix=core.windows.net", format!("{}==", fake(B64, 86)), "EndpointSuffix=core.windows.net");
    c.add("password_hash", "htpasswd line admin:{}", format!("$2y$10${}", fake(&format!("{AN}./"), 53)), "htpasswd line admin:");
    c.add("password_hash", "usermod -p '{}' deploy", format!("$6$rounds=5000$saltsalt${}", fake(&format!("{AN}./"), 86)), "usermod -p '");
    c.add("password_hash", "ARGON={} ./seed", format!("$argon2id$v=19$m=65536,t=3,p=4${}${}", fake(B64, 22), fake(B64, 43)), "./seed");
    c.add("webhook_url", "curl -d @msg.json https://chat.googleapis.com/v1/spaces/AAAAx1/messages?key={}", format!("{}&token={}", fake(URL, 39), fake(URL, 43)), "curl -d @msg.json");
    c.add("prefixed_token", "tailscale up --authkey {}", format!("tskey-auth-{}-{}", fake(AN, 12), fake(AN, 30)), "tailscale up --authkey");
    c.add("prefixed_token", "export VERCEL_TOKEN={}", format!("vcp_{}", fake(AN, 24)), "export VERCEL_TOKEN=");
    c.add("prefixed_token", "acme-cli login {}", format!("acme_{}", fake(AN, 32)), "acme-cli login");
    c.add("high_entropy_string", "client.connect(\"{}\")", fake(AN, 40), "client.connect(");
    c.add(ns, "helm upgrade web ./chart --set-string secrets.apiKey={}", fake(AN, 32), "./chart");
    c.add(ns, "$env:API_KEY = \"{}\"", fake(AN, 32), "$env:API_KEY =");
    c.add("url_query_secret", "curl -d 'grant_type=client_credentials&client_secret={}&scope=read' https://auth.example.com/token", fake(AN, 32), "&scope=read");
    c.add(ns, r#"{"Credentials":{"AccessKeyId":"x","SecretAccessKey":"y","SessionToken":"{}"}}"#, fake(B64, 60), "AccessKeyId");
    c.add("url_credentials", "SENTRY_DSN=https://{}@o123.ingest.sentry.io/456", fake(HEX, 32), "@o123.ingest.sentry.io/456");
    c.add("aws_secret_access_key", r#"{"AccessKeyId":"ASIAX","SecretAccessKey":"{}"}"#, fake(B64, 40), r#""AccessKeyId":"ASIAX""#);
    c.add(pw, "<server><id>nexus</id><username>ci</username><password>{}</password></server>", fake(AN, 16), "<username>ci</username>");
    c.add(ns, "<apiToken>{}</apiToken>", fake(AN, 32), "<apiToken>");
    c.add(pw, "psql -c \"CREATE ROLE app WITH LOGIN PASSWORD '{}'\"", fake(AN, 16), "CREATE ROLE app WITH LOGIN PASSWORD");
    c.add(pw, "mysql -e \"CREATE USER 'app'@'%' IDENTIFIED BY '{}'\"", fake(AN, 16), "CREATE USER 'app'@'%' IDENTIFIED BY");
    c.add(pw, "env:\n  - name: DB_PASSWORD\n    value: {}\n  - name: DB_HOST\n    value: db\n", fake(AN, 16), "name: DB_HOST");
    c.add(ns, r#"{"environment":[{"name":"API_TOKEN","value":"{}"},{"name":"REGION","value":"eu-west-1"}]}"#, fake(AN, 32), r#"{"name":"REGION","value":"eu-west-1"}"#);
    c.add(ns, "API_KEY={}", "MySecretKey".to_string(), "API_KEY=");
    c.add("github_token", r#"{"file_path":"tokens.txt","content":"first\n{}\n"}"#, format!("ghp_{}", fake(AN, 36)), r#""content":"first\n"#);
    c.add(pw, r#"{"command":"cd app\nmysql -p{} shop"}"#, fake(AN, 12), r#"{"command":"cd app\nmysql -p"#);
    c.add(pw, "PASSWORD={} && make deploy", "hunter".to_string(), "&& make deploy");
    // A password that counts is a weak password, not a stand-in; a key that counts for a while
    // and then runs on at random is a key; a Slack token with its secret part is a token.
    c.add(pw, "MYSQL_PASSWORD={} docker compose up", "123456789".to_string(), "docker compose up");
    c.add(ns, "API_KEY={} ./run", format!("123456{}", fake(AN, 26)), "./run");
    c.add("slack_token", "SLACK_BOT_TOKEN={}", format!("xoxb-918273645012-564738291034-{}", fake(AN, 24)), "SLACK_BOT_TOKEN=");
    // A JWT whose header is damaged still carries its claims.
    c.add("jwt", "Authorization-less call with {} failed", format!("eyJhbGcizzJIUzI1NiIsInR5cCI6IkpXVCJ9.eyJzdWIiOiJzdmMtNDIiLCJzY29wZSI6ImRlcGxveSJ9.{}", fake(URL, 43)), "failed");
    // A name of several words whose last word names a credential, or follows a preposition,
    // still names a secret; a distinctive prefix glued after an upper-case word is a token.
    c.add("generic_api_key", "echo \"token for user = {}\"", fake(AN, 32), "echo \"token for user = ");
    c.add("generic_api_key", "deploy id and key = {}", fake(AN, 32), "deploy id and key = ");
    c.add("github_token", "PASTED:TTTT{} done", format!("ghp_{}", fake(AN, 36)), " done");
    // A denial reason that quotes the command.
    c.add("authorization_header", "PreToolUse hook block-exfil denied: curl -H 'Authorization: Bearer {}' https://api.example.com", fake(AN, 40), "PreToolUse hook block-exfil denied: curl");
    c.0
}

pub(super) const NEGATIVE: &[&str] = &[
    // Anchored formats inside longer words, readable values, a name on the next line.
    "TODAYINASIAASACKOFRICEFELLOVER",
    // A fixed-length format inside a base64 blob, or followed by more of its characters.
    "data:image/png;base64,iVBORw0KGgoAAAANSUhEUgAAAAEAAAAB8CAIAAAC3q9n2AIzaQm7Rk2VpX0cLs9TfW4yNbH6jE1uGd8oPqAx",
    "AIzaQm7Rk2VpX0cLs9TfW4yNbH6jE1uGd8oPqAxZ5tMvC0",
    "sntryu_4f0c2a9e7b3d18e65a0f9c2b7d4e1a83c6f5b2d90e7a4c1f8b3d6e0a9c2f5b8e1",
    // The Firebase SDKs' published test API key.
    "firebase test config: AIzaSyA4UrcGxgwQFTfaI3no3t7Lt1sjmdnP5sQ",
    "open xoxo-indieweb-1.jpg",
    "key: secret/mysecret",
    "schemaKey = 'DOC_Vector_5_32'",
    // A vendor keyword inside a longer word or camelCase part is no vendor's key name.
    "ReactNativeCameraKit: f15a5a04b0f6dc6073e6db0296e6ef2d8b8d2522",
    "sumOfExposures = 3Kof2VffNQ0QgYIhXUPJosVlCaQKm2hfpWE6F1fT9YGY74blQBIPsrkCcf1TwKE5;",
    "rookTable = 0023452Lllk2KqjLBvaxANWEgTd7bqjsxjo8aZj0wd",
    // Stand-ins of documentation: a key's name for its value, `…Here`, a PEM block with no key.
    "GET https://qyapi.weixin.qq.com/cgi-bin/department/create?access_token=ACCESS_TOKEN",
    "xoxe.xoxp-1-SlackAppConfigurationAccessTokenHere",
    "--set kraken.kubeconfig.token.token=\"sha256~XXXXXXXXXX_PUT_YOUR_TOKEN_HERE_XXXXXXXXXXXX\"",
    "-----BEGIN PRIVATE KEY-----\nanything\n-----END PRIVATE KEY-----",
    "curl -u <user:password> https://test.com/endpoint",
    // A bundler's content hash in an asset's file name.
    "<img src=\"./assets/vipul-f0eb1acf0da84c06a50c5b2c59932001997786b176dec02bd16128ee9ea83628.png\">",
    "GITHUB_API_KEY=\nDYNATRACE_API_KEY=",
    "cat .env\nGITHUB_API_KEY=\nDYNATRACE_API_KEY=\n",
    "&hf_servingcellpriorityparametersdescription_h_prio),",
    // A short prefix glued after a lowercase word ends that word: a Notion page's slug.
    "see https://acme.notion.site/Trip-to-mexico-4f2a9c81d0b3e57a6c9d2e8f1b4a7c30",
    // `ey` and random characters in every segment carry no JSON: no JWT.
    "build cache key ey9QmT2xVbR4LpZs7WcN.eyK3fJ8dHq1YtUo6AeRg restored",
    // A vendor's keyword before one character over and over: a stand-in.
    "mattermost: 00000000000000000000000000",
    // A Slack token cut before its secret shows only ids; a key that only counts is typed by hand.
    "SLACK_BOT_TOKEN=xoxb-918273645012-564738291034-",
    "STRIPE_KEY='a1b2c3d4e5' npm test",
    r#"{"apiKey": "0123456789", "region": "eu"}"#,
    // A name of several words names what its last word does: an id, not a key.
    "echo \"deploy key and id = 7Hq2xLm9Rk4Tz8Wc3Vb6Np1Ys5Fd0Gj\"",
    "curl -u username:password https://example.com",
    "ghp_xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx",
    "git push --force origin main",
    "rm -rf /tmp/x",
    "curl https://api.github.com/repos/acme/web",
    "npm install",
    "cargo build --release",
    "cargo test -p denials-exporter -- --nocapture",
    "Permission to use Bash has been denied.",
    "PreToolUse hook block-destructive-bash denied: git push --force origin main",
    r#"{"level":30,"time":1700000000000,"pid":42,"hostname":"runner-1","msg":"Permission to use Bash has been denied."}"#,
    "toolu_01A2b3C4d5E6f7G8h9J0kLmN",
    r#"{"tool_use_id":"toolu_01A2b3C4d5E6f7G8h9J0kLmN","tool_name":"Bash","command":"ls -la"}"#,
    "exec_01HZX3K9M2N4P5Q6R7S8T9V0W1",
    "git show 9fceb02d0ae598e95dc970b74767f19372d61af8",
    r#"{"sha": "9fceb02d0ae598e95dc970b74767f19372d61af8", "parent": "9fceb02"}"#,
    "cache-key: 9fceb02d0ae598e95dc970b74767f19372d61af8",
    "docker pull nginx@sha256:e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855",
    "digest: sha256:e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855",
    "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855",
    "550e8400-e29b-41d4-a716-446655440000",
    r#"{"session_id":"550e8400-e29b-41d4-a716-446655440000","transcript_path":"/home/u/.claude/projects/x.jsonl"}"#,
    r#"{"api_request_id": "550e8400-e29b-41d4-a716-446655440000"}"#,
    "mkdir -p /tmp/x && cd /tmp/x",
    "ssh -p 2222 deploy@build.example.com",
    "docker run -p 8080:80 -u 1000:1000 nginx",
    "git push -u origin main",
    "cat /etc/passwd",
    "grep root /etc/passwd: no match",
    "docker login --password-stdin -u ci registry.example.com",
    "echo $GITHUB_TOKEN | gh auth login --with-token",
    "export GITHUB_TOKEN=$(gh auth token)",
    "export GITHUB_TOKEN=\"${{ secrets.GITHUB_TOKEN }}\"",
    "curl -H \"Authorization: Bearer $TOKEN\" https://api.example.com",
    "Authorization: required",
    r#"{"max_tokens": 1024, "input_tokens": 12, "cache_read_input_tokens": 3}"#,
    "let token = get_token(&config)?;",
    "pub password: String,",
    "const apiKey = process.env.API_KEY;",
    "GOOGLE_APPLICATION_CREDENTIALS=/home/ci/sa.json gcloud auth list",
    "ssh -i ~/.ssh/id_ed25519 deploy@build.example.com",
    "ssh-keygen -t ed25519 -f ~/.ssh/id_ed25519 -C dev@example.com",
    "kubectl get secret db-creds -n prod -o yaml",
    "PWD=/home/dev/project",
    r#"{"eos_token": "</s>", "pad_token": "<pad>"}"#,
    r#"fetch(url, {"credentials": "include"})"#,
    "https://example.com/search?q=rust&page=2",
    "git clone git@github.com:acme/web.git",
    "git clone ssh://git@github.com/acme/web.git",
    r#"{"auth": true, "key": "Enter"}"#,
    "Secret key rotation is scheduled for Monday",
    "password reset email sent to user@example.com",
    "./tool --password-file /run/secrets/db",
    "helm upgrade --install web ./chart --set image.tag=v1.2.3",
    "docker build --secret id=npmrc,src=$HOME/.npmrc .",
    "ls -la ~/.aws && cat ~/.aws/config",
    "SSH_KEY=~/.ssh/id_rsa ./deploy.sh",
    "tls_key: /etc/ssl/private/server.key",
    "Edit src/auth/token.rs:12: use crate::password::hash;",
    "if password == confirm { ok() }",
    r#"{"command":"npm run build && npm test","description":"Build and test","timeout":120000}"#,
    "aws s3 ls s3://acme-artifacts/releases/ --region us-east-1",
    "The API key was rotated; see https://wiki.example.com/api-keys",
    "[REDACTED:github_token]",
    "export GITHUB_TOKEN=[REDACTED:github_token]",
    // Code and prose that an agent writes, found while auditing real source trees.
    "        token: Token,",
    "    pub fn with_auth(mut self, mut auth: HeaderValue) -> Self {",
    "    in_filter_pass: Cell<usize>,",
    "        let token: cpuid_aes_sha::InitToken = cpuid_aes_sha::init();",
    "    NoAuth = 0x00,",
    "def request(self, headers=None, credentials=None):",
    "                    token = Name.Builtin.Pseudo",
    "                    password = auth[2]",
    "        username, password = split",
    "        self.api_key = api_key",
    "        if isinstance(key, (Ed25519PrivateKey, Ed448PrivateKey)):",
    r#"raise TypeError("pwd: expected bytes, got %s" % type(pwd).__name__)"#,
    "        :param token: The access token string.",
    "        const auth = !er.headers || !er.headers['www-authenticate']",
    "exports.X509KeyUsageExtension = X509KeyUsageExtension;",
    "      credentials: corsAttributeState === 'anonymous'",
    "            authorization = authorization.split(':')",
    r#"        _debug(" setting cookie: %s", cookie)"#,
    "        Token:                 '#cccccc',",
    r#"    "closed_lock_with_key": "🔐","#,
    "#URI ldap://ldap-provider.example.com:666",
    "curl https://very-long-internal-hostname.example.com:8443/api/v1/status",
    "            'sum', 'sumint', 'sumofsquares', 'sumsandsquares', 'syddepreciation',",
    r#"if (!token) { throw new Error("missing token: please log in") }"#,
    "use the --token flag or set GITHUB_TOKEN",
    "def authenticate(username: str, password: str) -> Token:",
    "echo \"API_KEY=your-api-key-here\" >> .env.example",
    "jq '.items[] | {name: .metadata.name, token: .spec.tokenRef}' out.json",
    r#"_SK_START = b"-----BEGIN OPENSSH PRIVATE KEY-----""#,
    "const { data: session } = useSession();",
    r#"client = OpenAI(api_key=os.environ.get("OPENAI_API_KEY"))"#,
    "secret_key = os.environ[\"SECRET_KEY\"]",
];
