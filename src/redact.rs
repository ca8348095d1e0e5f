//! Turns attacker-influenced text (tool inputs, denial reasons) into text where every secret
//! the rules recognise is replaced by `[REDACTED:<kind>]`, keeping commands, paths, hosts, ids,
//! commit SHAs and digests readable.
//!
//! Owns the rule table (`redact/rules.rs`: the families of gitleaks' default config, plus
//! secrets found by their place: URLs, headers, flags, assignments, JSON keys, PEM blocks) and
//! the closed set of kind names, which are Prometheus label values.
//!
//! Not here: reading logs, counting, exporting metrics, or deciding which fields get redacted;
//! callers pass every string that may leave the exporter.
//!
//! Cost: one pass of each of four `RegexSet`s (the rule shards, kept apart so their lazy DFAs
//! stay small) over the text; text where nothing matches is returned borrowed without
//! allocating. Only the rules the sets reported are then run, each compiled on first use.
//! Building a [`Redactor`] compiles only the sets (15–25 ms in a release build). Each set's
//! DFA cache may grow to 16 MiB per searching thread.
//!
//! Limits: detection is pattern-based. A secret with no recognisable format, keyword or key
//! name (say, a bare random word passed as a positional argument) is not found. Overlapping
//! matches are merged into one replacement whose kind is the highest-priority rule's.

use std::borrow::Cow;
use std::collections::BTreeMap;
use std::sync::OnceLock;

use regex::{Regex, RegexBuilder, RegexSet, RegexSetBuilder};

mod rules;

/// Upper bound on the compiled size of the rule set (and of one rule's regex).
const SIZE_LIMIT: usize = 64 << 20;
/// Upper bound on the lazy DFA cache of each set (per searching thread). Too small a cache
/// thrashes on source code, and a thrashed cache makes the regex engine fall back to its slow
/// search on every later text.
const DFA_SIZE_LIMIT: usize = 16 << 20;
const MARKER_OPEN: &str = "[REDACTED:";

/// The compiled rule set. Build once, share by reference (it is Send + Sync).
pub struct Redactor {
    /// One set per shard of rules, with the index of its first rule in `rules`.
    sets: Vec<(RegexSet, usize)>,
    /// All rules, highest priority first.
    rules: Vec<Compiled>,
}

/// A rule with its regex, compiled the first time the set reports it.
struct Compiled {
    rule: rules::Rule,
    lazy: OnceLock<Lazy>,
}

struct Lazy {
    regex: Regex,
    /// Capture groups that hold the secret, in order; the first that participates is used.
    secret_groups: Vec<usize>,
    requires: Option<Regex>,
}

/// One replacement: byte range, kind, and the index (priority) of the rule that found it.
#[derive(Clone, Copy, Debug)]
struct Span {
    start: usize,
    end: usize,
    kind: &'static str,
    priority: usize,
}

impl Redactor {
    /// The default rule set.
    pub fn new() -> Redactor {
        let mut sets = Vec::new();
        let mut rules = Vec::new();
        for shard in rules::default_shards() {
            let set = RegexSetBuilder::new(shard.iter().map(rules::Rule::set_pattern))
                .size_limit(SIZE_LIMIT)
                .dfa_size_limit(DFA_SIZE_LIMIT)
                .build()
                .expect("the built-in redaction rules compile");
            sets.push((set, rules.len()));
            rules.extend(shard.into_iter().map(|rule| Compiled {
                rule,
                lazy: OnceLock::new(),
            }));
        }
        Redactor { sets, rules }
    }

    /// Every kind name this redactor can emit (closed set, stable, snake_case).
    #[cfg(test)]
    pub fn kinds(&self) -> Vec<&'static str> {
        kind_names().to_vec()
    }

    /// Returns `text` with every secret replaced by `[REDACTED:<kind>]`, borrowing when nothing matched.
    /// For each replacement, `*tally.entry(kind.to_string()).or_insert(0) += 1`.
    pub fn redact<'a>(&self, text: &'a str, tally: &mut BTreeMap<String, u64>) -> Cow<'a, str> {
        let matched: Vec<usize> = self
            .sets
            .iter()
            .flat_map(|(set, first)| {
                set.matches(text)
                    .into_iter()
                    .map(move |index| first + index)
            })
            .collect();
        if matched.is_empty() {
            return Cow::Borrowed(text);
        }
        let protected = marker_spans(text);
        let mut spans: BTreeMap<usize, Span> = BTreeMap::new();
        for index in matched {
            self.rules[index].find(index, text, &protected, &mut spans);
        }
        if spans.is_empty() {
            return Cow::Borrowed(text);
        }
        let mut out = String::with_capacity(text.len() + spans.len() * 16);
        let mut last = 0;
        for span in spans.values() {
            out.push_str(&text[last..span.start]);
            out.push_str(MARKER_OPEN);
            out.push_str(span.kind);
            out.push(']');
            last = span.end;
            *tally.entry(span.kind.to_string()).or_insert(0) += 1;
        }
        out.push_str(&text[last..]);
        Cow::Owned(out)
    }
}

impl Default for Redactor {
    fn default() -> Self {
        Self::new()
    }
}

impl Compiled {
    /// Adds this rule's accepted secrets in `text` to `spans`.
    fn find(
        &self,
        priority: usize,
        text: &str,
        protected: &[(usize, usize)],
        spans: &mut BTreeMap<usize, Span>,
    ) {
        let lazy = self.lazy();
        if lazy
            .requires
            .as_ref()
            .is_some_and(|requires| !requires.is_match(text))
        {
            return;
        }
        // `protected` is sorted and disjoint: the first marker ending after `a` decides.
        let overlaps_marker = |a: usize, b: usize| {
            let i = protected.partition_point(|p| p.1 <= a);
            protected.get(i).is_some_and(|p| p.0 < b)
        };
        let mut at = 0;
        while at <= text.len() {
            let Some(caps) = lazy.regex.captures_at(text, at) else {
                break;
            };
            let whole = caps.get(0).expect("group 0 always participates");
            let (mut start, end) = lazy
                .secret_groups
                .iter()
                .find_map(|&group| caps.get(group))
                .map_or((whole.start(), whole.end()), |m| (m.start(), m.end()));
            // A whole-match secret may begin with the `\n` escape its boundary matched.
            while ["\\n", "\\r", "\\t"]
                .iter()
                .any(|escape| text[start..end].starts_with(escape))
            {
                start += 2;
            }
            let name = caps.name("k");
            let accepted = self
                .rule
                .vet(name.map(|m| m.as_str()), text, start, end)
                // An existing marker is neither redacted again nor read as a key name
                // (`[REDACTED:password] = x` is not a password assignment).
                .filter(|&(s, e)| {
                    !overlaps_marker(s, e)
                        && !name.is_some_and(|m| overlaps_marker(m.start(), m.end()))
                });
            // Resume after an accepted secret. After a rejected one, resume one character
            // before it, so a match may start inside it or use the character before it as its
            // left edge (`-p$X/mysql -pY`, `key: .auth: y`). Never after the whole match: its
            // trailing context (a quote, a newline) may lead the next match.
            at = match accepted {
                Some((_, e)) if e > at => e,
                _ => next_char_boundary(text, whole.start()).max(prev_char_boundary(text, start)),
            };
            if let Some((start, end)) = accepted {
                let kind = self.rule.kind;
                insert(
                    spans,
                    Span {
                        start,
                        end,
                        kind,
                        priority,
                    },
                );
            }
        }
    }

    fn lazy(&self) -> &Lazy {
        self.lazy.get_or_init(|| {
            let regex = build_regex(&self.rule.pattern);
            let secret_groups = regex
                .capture_names()
                .enumerate()
                .skip(1)
                .filter(|(_, name)| *name != Some("k"))
                .map(|(index, _)| index)
                .collect();
            let requires = self
                .rule
                .requires
                .map(|pattern| build_regex(&rules::word_boundaries(pattern)));
            Lazy {
                regex,
                secret_groups,
                requires,
            }
        })
    }
}

/// Every kind name the default rules can emit, sorted, without compiling anything: the
/// exposition lists them all at 0 even in a process that never redacts.
pub fn kind_names() -> &'static [&'static str] {
    static KINDS: OnceLock<Vec<&'static str>> = OnceLock::new();
    KINDS.get_or_init(|| {
        let mut kinds: Vec<&'static str> = rules::default_shards()
            .into_iter()
            .flatten()
            .map(|r| r.kind)
            .collect();
        kinds.sort_unstable();
        kinds.dedup();
        kinds
    })
}

fn build_regex(pattern: &str) -> Regex {
    // The same pattern already compiled inside the set, so this cannot fail at run time;
    // `every_rule_compiles_and_uses_ascii_classes` compiles each one eagerly.
    RegexBuilder::new(pattern)
        .size_limit(SIZE_LIMIT)
        .build()
        .expect("the built-in redaction rule compiles")
}

fn prev_char_boundary(text: &str, index: usize) -> usize {
    text[..index]
        .chars()
        .next_back()
        .map_or(0, |c| index - c.len_utf8())
}

fn next_char_boundary(text: &str, index: usize) -> usize {
    text[index..]
        .chars()
        .next()
        .map_or(text.len() + 1, |c| index + c.len_utf8())
}

/// Byte ranges of markers already in the text, which no rule may redact again.
fn marker_spans(text: &str) -> Vec<(usize, usize)> {
    let mut spans = Vec::new();
    let mut from = 0;
    while let Some(found) = text[from..].find(MARKER_OPEN) {
        let start = from + found;
        let rest = &text[start + MARKER_OPEN.len()..];
        let kind_len = rest
            .bytes()
            .take_while(|b| b.is_ascii_lowercase() || b.is_ascii_digit() || *b == b'_')
            .count();
        if rest.as_bytes().get(kind_len) == Some(&b']') {
            let end = start + MARKER_OPEN.len() + kind_len + 1;
            spans.push((start, end));
            from = end;
        } else {
            from = start + MARKER_OPEN.len();
        }
    }
    spans
}

/// Adds a candidate in priority order: one already covered by earlier spans is dropped; one
/// that overlaps earlier spans and reaches beyond them is merged with them, keeping the kind
/// of the highest-priority span, so no part of either is left readable. The spans are kept
/// disjoint and keyed by start, so each insertion costs O(log n + overlaps).
fn insert(spans: &mut BTreeMap<usize, Span>, candidate: Span) {
    let mut overlapping: Vec<Span> = Vec::new();
    if let Some((_, before)) = spans.range(..candidate.start).next_back() {
        if before.end > candidate.start {
            overlapping.push(*before);
        }
    }
    overlapping.extend(
        spans
            .range(candidate.start..candidate.end)
            .map(|(_, span)| *span),
    );
    if overlapping.is_empty() {
        spans.insert(candidate.start, candidate);
        return;
    }
    let mut covered_to = candidate.start;
    for span in &overlapping {
        if span.start > covered_to {
            break;
        }
        covered_to = covered_to.max(span.end);
    }
    if covered_to >= candidate.end {
        return;
    }
    let mut merged = candidate;
    for span in &overlapping {
        spans.remove(&span.start);
        merged.start = merged.start.min(span.start);
        merged.end = merged.end.max(span.end);
        if span.priority < merged.priority {
            merged.priority = span.priority;
            merged.kind = span.kind;
        }
    }
    spans.insert(merged.start, merged);
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::cell::Cell;
    use std::time::{Duration, Instant};

    const AN: &str = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789";
    const LET: &str = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz";
    const LOW: &str = "abcdefghijklmnopqrstuvwxyz0123456789";
    const UP: &str = "ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789";
    const HEX: &str = "0123456789abcdef";
    const DIG: &str = "0123456789";
    const B64: &str = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
    const URL: &str = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_";
    const B32: &str = "ABCDEFGHIJKLMNOPQRSTUVWXYZ234567";
    const BECH32: &str = "QPZRY9X8GF2TVDW0S3JN54KHCE6MUA7L";

    thread_local! {
        static SEED: Cell<u64> = const { Cell::new(0x5eed_1234_abcd_ef01) };
    }

    /// A deterministic, high-entropy FAKE secret of `len` characters from `alphabet`.
    fn fake(alphabet: &str, len: usize) -> String {
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

    fn uuid() -> String {
        format!(
            "{}-{}-{}-{}-{}",
            fake(HEX, 8),
            fake(HEX, 4),
            fake(HEX, 4),
            fake(HEX, 4),
            fake(HEX, 12)
        )
    }

    struct Case {
        input: String,
        secret: String,
        readable: &'static str,
        kind: &'static str,
    }

    #[derive(Default)]
    struct Cases(Vec<Case>);

    impl Cases {
        /// `template` with `{}` replaced by `secret`; `readable` must survive, `kind` must be emitted.
        fn add(
            &mut self,
            kind: &'static str,
            template: &str,
            secret: String,
            readable: &'static str,
        ) {
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

    fn redactor() -> &'static Redactor {
        static REDACTOR: OnceLock<Redactor> = OnceLock::new();
        REDACTOR.get_or_init(Redactor::new)
    }

    fn run(text: &str) -> (String, BTreeMap<String, u64>) {
        let mut tally = BTreeMap::new();
        let out = redactor().redact(text, &mut tally).into_owned();
        (out, tally)
    }

    #[allow(clippy::too_many_lines)]
    #[rustfmt::skip]
    fn positive_cases() -> Vec<Case> {
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
        c.add("microsoft_teams_webhook", "curl -X POST https://acme.webhook.office.com/webhookb2/{}", format!("{}@{}/IncomingWebhook/{}/{}", uuid(), uuid(), fake(HEX, 32), uuid()), "https://acme.webhook.office.com/webhookb2/");
        c.add("discord_token", "curl -X POST https://discord.com/api/webhooks/123456789012345678/{}", fake(URL, 68), "https://discord.com/api/webhooks/");
        c.add("discord_token", "DISCORD_CLIENT_SECRET={}", fake(URL, 32), "DISCORD_CLIENT_SECRET=");
        c.add("telegram_bot_token", "curl https://api.telegram.org/bot{}/sendMessage", format!("{}:AA{}", fake(DIG, 10), fake(URL, 33)), "/sendMessage");
        c.add("telegram_bot_token", "TELEGRAM_BOT_TOKEN={}", format!("{}:AA{}", fake(DIG, 10), fake(URL, 33)), "TELEGRAM_BOT_TOKEN=");
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
        c.add(ns, "DefaultEndpointsProtocol=https;AccountName=acct;AccountKey={};EndpointSuffix=core.windows.net", format!("{}==", fake(B64, 86)), "EndpointSuffix=core.windows.net");
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
        // A denial reason that quotes the command.
        c.add("authorization_header", "PreToolUse hook block-exfil denied: curl -H 'Authorization: Bearer {}' https://api.example.com", fake(AN, 40), "PreToolUse hook block-exfil denied: curl");
        c.0
    }

    const NEGATIVE: &[&str] = &[
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

    #[test]
    fn every_positive_case_is_redacted_and_keeps_the_readable_part() {
        let mut failures = Vec::new();
        for case in positive_cases() {
            let (out, tally) = run(&case.input);
            let marker = format!("[REDACTED:{}]", case.kind);
            let problems: Vec<&str> = [
                (out.contains(&case.secret), "secret left in output"),
                (!out.contains(case.readable), "readable part lost"),
                (!out.contains(&marker), "expected kind not emitted"),
                (!tally.contains_key(case.kind), "kind not tallied"),
            ]
            .into_iter()
            .filter_map(|(bad, what)| bad.then_some(what))
            .collect();
            if !problems.is_empty() {
                failures.push(format!(
                    "{problems:?}\n  input:  {}\n  output: {out}\n  kind:   {}",
                    case.input, case.kind
                ));
            }
        }
        assert!(
            failures.is_empty(),
            "{} failing cases:\n{}",
            failures.len(),
            failures.join("\n")
        );
    }

    #[test]
    fn redacting_twice_is_a_no_op() {
        for case in positive_cases() {
            let (once, _) = run(&case.input);
            let mut tally = BTreeMap::new();
            let twice = redactor().redact(&once, &mut tally);
            assert!(
                matches!(twice, Cow::Borrowed(_)),
                "second pass changed {once:?} into {twice:?}"
            );
            assert!(
                tally.is_empty(),
                "second pass tallied {tally:?} for {once:?}"
            );
        }
    }

    #[test]
    fn negative_cases_pass_unchanged_and_borrowed() {
        let mut failures = Vec::new();
        for &text in NEGATIVE {
            let mut tally = BTreeMap::new();
            let out = redactor().redact(text, &mut tally);
            if !matches!(out, Cow::Borrowed(_)) || !tally.is_empty() {
                failures.push(format!("  input:  {text}\n  output: {out}"));
            }
        }
        assert!(
            failures.is_empty(),
            "{} changed:\n{}",
            failures.len(),
            failures.join("\n")
        );
    }

    #[test]
    fn every_kind_has_a_positive_case() {
        let cases = positive_cases();
        let missing: Vec<&str> = redactor()
            .kinds()
            .into_iter()
            .filter(|kind| !cases.iter().any(|case| case.kind == *kind))
            .collect();
        assert!(missing.is_empty(), "kinds without a test case: {missing:?}");
        for case in &cases {
            assert!(
                redactor().kinds().contains(&case.kind),
                "case uses unknown kind {}",
                case.kind
            );
        }
    }

    #[test]
    fn kinds_are_a_closed_sorted_set_of_snake_case_names() {
        let kinds = redactor().kinds();
        assert!(
            kinds.windows(2).all(|w| w[0] < w[1]),
            "kinds are sorted and unique"
        );
        for kind in &kinds {
            assert!(
                kind.starts_with(|c: char| c.is_ascii_lowercase())
                    && kind
                        .bytes()
                        .all(|b| b.is_ascii_lowercase() || b.is_ascii_digit() || b == b'_'),
                "not snake_case: {kind}"
            );
        }
        assert!(
            kinds.len() < 200,
            "kind set should stay modest: {}",
            kinds.len()
        );
    }

    #[test]
    fn tally_counts_each_replacement_by_kind_and_accumulates() {
        let a = format!("ghp_{}", fake(AN, 36));
        let b = format!("ghp_{}", fake(AN, 36));
        let text = format!(
            "GH_TOKEN={a} git push https://x:{b}@github.com/acme/web.git && PASSWORD=hunter2 make"
        );
        let mut tally = BTreeMap::new();
        let out = redactor().redact(&text, &mut tally);
        assert!(
            !out.contains(&a) && !out.contains(&b) && !out.contains("hunter2"),
            "{out}"
        );
        assert_eq!(
            tally,
            BTreeMap::from([("github_token".to_string(), 2), ("password".to_string(), 1)])
        );
        let _ = redactor().redact("PASSWORD=letmein1", &mut tally);
        let _ = redactor().redact("nothing here", &mut tally);
        assert_eq!(tally["password"], 2);
        assert_eq!(tally["github_token"], 2);
    }

    #[test]
    fn key_stays_readable_and_only_the_value_is_replaced() {
        let (out, _) = run("PASSWORD=hunter2 ./run");
        assert_eq!(out, "PASSWORD=[REDACTED:password] ./run");
        let (out, _) = run("https://user:pa55word@db.example.com/x");
        assert_eq!(
            out,
            "https://user:[REDACTED:url_credentials]@db.example.com/x"
        );
        let (out, _) = run(r#"{\"password\":\"hunter2\"}"#);
        assert_eq!(out, r#"{\"password\":\"[REDACTED:password]\"}"#);
        let (out, _) = run("mysql -uroot -pS3cret");
        assert_eq!(out, "mysql -uroot -p[REDACTED:password]");
    }

    #[test]
    fn specific_kinds_win_over_generic_context() {
        let token = format!("ghp_{}", fake(AN, 36));
        let (out, tally) = run(&format!(
            "https://x:{token}@github.com/a/b and PASSWORD={token}"
        ));
        assert_eq!(
            out,
            "https://x:[REDACTED:github_token]@github.com/a/b and PASSWORD=[REDACTED:github_token]"
        );
        assert_eq!(tally, BTreeMap::from([("github_token".to_string(), 2)]));
    }

    #[test]
    fn overlapping_matches_are_merged_without_leaking_either() {
        let token = format!("ghp_{}", fake(AN, 36));
        let text = format!(r#"{{"password": "prefix {token} suffix"}}"#);
        let (out, tally) = run(&text);
        assert!(
            !out.contains(&token) && !out.contains("prefix") && !out.contains("suffix"),
            "{out}"
        );
        assert_eq!(tally.values().sum::<u64>(), 1, "{tally:?}");
    }

    #[test]
    fn unicode_text_is_handled() {
        let token = format!("ghp_{}", fake(AN, 36));
        let (out, _) = run(&format!("überprüfe — token={token} ✓ Grüße"));
        assert_eq!(out, "überprüfe — token=[REDACTED:github_token] ✓ Grüße");
        let text = "naïve café ünïcödé — no secrets here ✓";
        assert!(matches!(
            redactor().redact(text, &mut BTreeMap::new()),
            Cow::Borrowed(_)
        ));
    }

    #[test]
    fn every_rule_compiles_and_uses_ascii_classes() {
        let r = Redactor::new();
        for compiled in &r.rules {
            let _ = compiled.lazy();
            let p = &compiled.rule.pattern;
            let bytes = p.as_bytes();
            for i in 1..bytes.len() {
                // An unescaped `\w` or `\d` would be Unicode-wide.
                if matches!(bytes[i], b'w' | b'd') && bytes[i - 1] == b'\\' {
                    let escapes = bytes[..i].iter().rev().take_while(|&&b| b == b'\\').count();
                    assert!(
                        escapes % 2 == 0,
                        "Unicode class in {} rule: {p}",
                        compiled.rule.kind
                    );
                }
            }
        }
    }

    #[test]
    fn building_is_fast() {
        let start = Instant::now();
        let r = Redactor::new();
        let took = start.elapsed();
        let budget = if cfg!(debug_assertions) {
            Duration::from_secs(2)
        } else {
            Duration::from_millis(100)
        };
        assert!(took < budget, "Redactor::new took {took:?}");
        assert!(!r.kinds().is_empty());
    }

    #[test]
    fn redactor_is_send_and_sync() {
        fn assert_send_sync<T: Send + Sync>() {}
        assert_send_sync::<Redactor>();
    }

    /// `after` is `before` with zero or more substrings replaced by markers.
    fn only_adds_markers(before: &str, after: &str) -> bool {
        let mut rest = before;
        let mut last = 0;
        let spans = marker_spans(after);
        for piece in spans.iter().map(|&(start, end)| {
            let piece = &after[last..start];
            last = end;
            piece
        }) {
            match rest.find(piece) {
                Some(at) => rest = &rest[at + piece.len()..],
                None => return false,
            }
        }
        rest.ends_with(&after[last..])
    }

    /// Random text built from keywords, operators, quotes, escapes and non-ASCII pieces: no
    /// panic, `Borrowed` exactly when nothing was tallied, and a second pass at most adds
    /// markers. (On such garbage a second pass may rarely add one: a redacted span can remove a
    /// `|` or newline that bounded a command's context. Realistic text is checked for strict
    /// idempotency by `redacting_twice_is_a_no_op`.)
    #[test]
    fn random_text_never_panics_and_a_second_pass_only_adds_markers() {
        const PIECES: &[&str] = &[
            "password",
            "token",
            "key",
            "secret",
            "auth",
            "Authorization",
            "Bearer ",
            "=",
            ": ",
            " = ",
            "\"",
            "'",
            "\\\"",
            "\\n",
            "\n",
            " ",
            "-",
            "--",
            "_",
            ".",
            "/",
            "://",
            "@",
            "?",
            "&",
            "[REDACTED:",
            "]",
            "ü",
            "—",
            "日本",
            "ghp_",
            "sk-",
            "AKIA",
            "eyJ",
            "-----BEGIN PRIVATE KEY-----",
            "-----END PRIVATE KEY-----",
            "curl -u ",
            "mysql -p",
            "x",
            "Q9",
            "(",
            ")",
            "{",
            "}",
            ",",
            ";",
            "|",
            "0x1f",
            "$HOME",
            "%s",
            "PASSWORD=",
            "--password ",
            "https://",
            "Authorization: ",
            " -H ",
            "X-Api-Key: ",
            "Cookie: a=",
            "`",
            "kind: Secret\n",
            "\n  data: ",
            "<password>",
            "</password>",
            "name: DB_TOKEN\n  value: ",
            "== ",
        ];
        const ROUNDS: usize = 3000;
        let mut changed_twice = 0;
        for round in 0..ROUNDS {
            let count = 1 + round % 24;
            let text: String = (0..count)
                .map(|_| {
                    let pick = fake(DIG, 3).parse::<usize>().unwrap_or(0) % (PIECES.len() + 1);
                    PIECES
                        .get(pick)
                        .map_or_else(|| fake(AN, 24), |piece| (*piece).to_string())
                })
                .collect();
            let mut tally = BTreeMap::new();
            let once = redactor().redact(&text, &mut tally);
            assert_eq!(
                matches!(once, Cow::Borrowed(_)),
                tally.is_empty(),
                "{text:?}"
            );
            let mut again = BTreeMap::new();
            let twice = redactor().redact(&once, &mut again);
            assert!(
                only_adds_markers(&once, &twice),
                "second pass changed text: {text:?} -> {once:?} -> {twice:?}"
            );
            changed_twice += usize::from(matches!(twice, Cow::Owned(_)));
        }
        assert!(
            changed_twice * 100 < ROUNDS,
            "second pass changed {changed_twice} of {ROUNDS} texts"
        );
    }

    #[test]
    fn empty_and_marker_only_text_is_borrowed() {
        for text in ["", "[REDACTED:", "[REDACTED:x", "[REDACTED:password]"] {
            assert!(
                matches!(
                    redactor().redact(text, &mut BTreeMap::new()),
                    Cow::Borrowed(_)
                ),
                "{text}"
            );
        }
    }
}
