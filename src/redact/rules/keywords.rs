//! gitleaks families recognisable only by a keyword naming the service before the value
//! (`adafruit … = <32 chars>`): keyword, up to 20 name characters, an assignment, a value of
//! the family's shape. A rule's anchors are its keywords.
//!
//! Not here: formats recognisable alone (`formats`), vetting (`vet`).

use super::{kw, Rule, UUID};

/// gitleaks families recognisable only by a keyword naming the service before the value.
#[rustfmt::skip]
pub(super) fn keyword_families() -> Vec<Rule> {
    let uuid = UUID;
    vec![
        kw("adafruit_api_key", "adafruit", "[a-z0-9_-]{32}"),
        kw("adobe_secret", "adobe", "[a-f0-9]{32}"),
        kw("airtable_api_key", "airtable", "[a-z0-9]{17}"),
        kw("algolia_api_key", "algolia", "[a-z0-9]{32}"),
        kw("alibaba_access_key", "alibaba", "[a-z0-9]{30}"),
        kw("asana_secret", "asana", "[0-9]{16}|[a-z0-9]{32}"),
        // Data Center and Server personal access tokens: base64 of a numeric id, `:` and a
        // random part (trufflehog atlassian data center).
        kw("atlassian_api_token", "atlassian|confluence|jira|bitbucket", "[a-z0-9]{20}[a-f0-9]{4}|[mno][a-z0-9+/]{43}"),
        kw("beamer_api_token", "beamer", "b_[a-z0-9=_-]{44}"),
        kw("bitbucket_secret", "bitbucket", "[a-z0-9]{32}|[a-z0-9=_-]{64}"),
        kw("bittrex_key", "bittrex", "[a-z0-9]{32}"),
        kw("cisco_meraki_api_key", "meraki", "[0-9a-f]{40}"),
        kw("cloudflare_api_key", "cloudflare", "[a-z0-9_-]{40}|[a-f0-9]{37}"),
        kw("codecov_token", "codecov", &format!("[a-z0-9]{{32}}|{uuid}")),
        kw("cohere_api_key", "cohere|co_api_key", "[a-z0-9]{40}"),
        kw("coinbase_token", "coinbase", "[a-z0-9_-]{64}"),
        kw("confluent_secret", "confluent", "[a-z0-9]{16}|[a-z0-9]{64}"),
        kw("contentful_token", "contentful", "[a-z0-9=_-]{43}"),
        kw("datadog_api_key", "datadog|dd_api_key|dd_app_key|dd_application_key|dd-api-key|dd-application-key", "[a-z0-9]{40}|[a-f0-9]{32}"),
        kw("discord_token", "discord", "[a-f0-9]{64}|[0-9]{18}|[a-z0-9=_-]{32}"),
        kw("droneci_token", "droneci|drone_token", "[a-z0-9]{32}"),
        kw("dropbox_token", "dropbox", r"[a-z0-9]{15}|sl\.[a-z0-9=_-]{130,}|[a-z0-9]{11}AAAAAAAAAA[a-z0-9_=-]{43}"),
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
        kw("jfrog_token", "jfrog|artifactory|bintray|xray", "[a-z0-9]{73}|[a-z0-9]{64}"),
        kw("kraken_token", "kraken", "[a-z0-9/=_+-]{80,90}"),
        kw("kucoin_secret", "kucoin", &format!("[a-f0-9]{{24}}|{uuid}")),
        kw("launchdarkly_token", "launchdarkly", "[a-z0-9=_-]{40}"),
        kw("linear_api_key", "linear", "[a-f0-9]{32}"),
        kw("linkedin_secret", "linked[_-]?in", "[a-z0-9]{14}|[a-z0-9]{16}"),
        kw("lob_api_key", "lob", "(?:live|test)_[a-f0-9]{35}|(?:test|live)_pub_[a-f0-9]{31}"),
        kw("mailgun_key", "mailgun", "key-[a-f0-9]{32}|pubkey-[a-f0-9]{32}|[a-h0-9]{32}-[a-h0-9]{8}-[a-h0-9]{8}"),
        kw("mapbox_token", "mapbox", r"pk\.[a-z0-9]{60}\.[a-z0-9]{22}"),
        kw("mattermost_token", "mattermost", "[a-z0-9]{26}"),
        kw("messagebird_token", "message[_-]?bird", &format!("[a-z0-9]{{25}}|{uuid}")),
        kw("netlify_token", "netlify", "[a-z0-9=_-]{40,46}"),
        kw("new_relic_key", "new-relic|newrelic|new_relic", "[a-z0-9]{64}|NRAK-[a-z0-9]{27}|NRJS-[a-f0-9]{19}|NRII-[a-z0-9-]{32}"),
        kw("nytimes_token", "nytimes|new-york-times|newyorktimes", "[a-z0-9=_-]{32}"),
        kw("okta_token", "okta", "00[a-z0-9_=-]{40}"),
        kw("plaid_token", "plaid", &format!("access-(?:sandbox|development|production)-{uuid}|[a-z0-9]{{24}}|[a-z0-9]{{30}}")),
        kw("privateai_token", "private[_-]?ai", "[a-z0-9]{32}"),
        kw("rapidapi_key", "rapidapi", "[a-z0-9_-]{50}"),
        kw("sendbird_token", "sendbird", &format!("{uuid}|[a-f0-9]{{40}}")),
        kw("sentry_token", "sentry", "[a-f0-9]{64}"),
        kw("sidekiq_secret", "bundle_enterprise__contribsys__com|bundle_gems__contribsys__com", "[a-f0-9]{8}:[a-f0-9]{8}"),
        kw("snyk_token", "snyk[_.-]?(?:(?:api|oauth)[_.-]?)?(?:key|token)", uuid),
        kw("sonar_token", "sonar[_.-]?(?:login|token)", "[a-z0-9=_-]{40}"),
        kw("sourcegraph_token", "sourcegraph", "[a-f0-9]{40}"),
        kw("squarespace_token", "squarespace", uuid),
        kw("sumologic_key", "sumo", "su[a-z0-9]{12}|[a-z0-9]{64}"),
        kw("telegram_bot_token", "telegr", "[0-9]{5,16}:a[a-z0-9_-]{34}"),
        kw("travisci_token", "travis", "[a-z0-9]{22}"),
        kw("twitch_token", "twitch", "[a-z0-9]{30}"),
        kw("twitter_token", "twitter", "[a-z0-9]{45}|[0-9]{15,25}-[a-z0-9]{20,40}|[a-z0-9]{25}|[a-z0-9]{50}|a{22}[a-z0-9%]{80,100}"),
        kw("vault_token", "vault", r"s\.[a-z0-9]{24}"),
        kw("yandex_token", "yandex", r"t1\.[a-z0-9_-]+={0,2}\.[a-z0-9_-]{86}={0,2}|aqvn[a-z0-9_-]{35,38}|yc[a-z0-9_-]{38}"),
        kw("zendesk_secret_key", "zendesk", "[a-z0-9]{40}"),
    ]
}
