//! Generated: the anchors derived from each default rule's pattern, in
//! `super::default_rules()` order, as `prefilter::derive` finds them. Do not
//! edit: `anchor_table_is_current` checks it against the patterns, and
//! `REDACT_WRITE_ANCHORS=1 cargo test --lib anchor_table_is_current` writes it again.

/// Each rule's derived anchors (lowercase) and, when they are prefixes, how many bytes at most
/// a match starts before the one it begins with; by rule index. A rule that names its
/// anchors has none here.
#[rustfmt::skip]
pub(in crate::redact) const DERIVED_ANCHORS: &[(&[&str], Option<usize>)] = &[
    // 0 private_key
    (&["-----begin", "private-lines:\t", "private-lines: ", "private-lines:0", "private-lines:1", "private-lines:2", "private-lines:3", "private-lines:4", "private-lines:5", "private-lines:6", "private-lines:7", "private-lines:8", "private-lines:9"], Some(0)),
    // 1 age_secret_key
    (&["age-secret-key-1"], Some(0)),
    // 2 onepassword_secret
    (&["a3-", "ops_eyj"], Some(2)),
    // 3 anthropic_api_key
    (&["sk-ant-admin", "sk-ant-api", "sk-ant-oat", "sk-ant-ort", "sk-ant-sid"], Some(0)),
    // 4 openai_api_key
    (&["sk-"], Some(0)),
    // 5 huggingface_token
    (&["api_org_", "hf_"], Some(0)),
    // 6 perplexity_api_key
    (&["pplx-"], Some(0)),
    // 7 github_token
    (&["gho_", "ghp_", "ghr_", "ghs_", "ghu_", "github_pat_"], Some(0)),
    // 8 gitlab_token
    (&["_gitlab_session=", "glagent-", "glcbt-", "gldt-", "glffct-", "glft-", "glimt-", "gloas-", "glpat-", "glptt-", "glrt-", "glsoat-", "gr1348941"], Some(0)),
    // 9 sourcegraph_token
    (&["sgp_"], Some(0)),
    // 10 jfrog_token
    (&["akcp", "cmvmd"], Some(2)),
    // 11 npm_token
    (&["npm_"], Some(0)),
    // 12 pypi_token
    (&["pypi-ageichlwas5vcmc", "pypi-agendgvzdc5wexbplm9yzw"], Some(0)),
    // 13 rubygems_api_key
    (&["rubygems_"], Some(0)),
    // 14 clojars_api_token
    (&["clojars_"], Some(0)),
    // 15 prefect_api_key
    (&["pnu_"], Some(0)),
    // 16 sonar_token
    (&["sqa_", "sqp_", "squ_"], Some(0)),
    // 17 octopus_deploy_api_key
    (&["api-"], Some(2)),
    // 18 harness_token
    (&["pat.", "sat."], Some(2)),
    // 19 pulumi_token
    (&["pul-"], Some(0)),
    // 20 infracost_token
    (&["ico-"], Some(0)),
    // 21 terraform_token
    (&[], None),
    // 22 vault_token
    (&["hvb.", "hvr.", "hvs."], Some(0)),
    // 23 doppler_token
    (&["dp.audit.", "dp.ct.", "dp.pt.", "dp.sa.", "dp.scim.", "dp.st."], Some(0)),
    // 24 postman_api_key
    (&["pmak-"], Some(0)),
    // 25 readme_api_key
    (&["rdme_"], Some(0)),
    // 26 authress_access_key
    (&[], None),
    // 27 slack_token
    (&["xapp-0-", "xapp-1-", "xapp-2-", "xapp-3-", "xapp-4-", "xapp-5-", "xapp-6-", "xapp-7-", "xapp-8-", "xapp-9-", "xoxa-0", "xoxa-1", "xoxa-2", "xoxa-3", "xoxa-4", "xoxa-5", "xoxa-6", "xoxa-7", "xoxa-8", "xoxa-9", "xoxb-0", "xoxb-1", "xoxb-2", "xoxb-3", "xoxb-4", "xoxb-5", "xoxb-6", "xoxb-7", "xoxb-8", "xoxb-9", "xoxe-0", "xoxe-1", "xoxe-2", "xoxe-3", "xoxe-4", "xoxe-5", "xoxe-6", "xoxe-7", "xoxe-8", "xoxe-9", "xoxo-0", "xoxo-1", "xoxo-2", "xoxo-3", "xoxo-4", "xoxo-5", "xoxo-6", "xoxo-7", "xoxo-8", "xoxo-9", "xoxp-0", "xoxp-1", "xoxp-2", "xoxp-3", "xoxp-4", "xoxp-5", "xoxp-6", "xoxp-7", "xoxp-8", "xoxp-9", "xoxr-0", "xoxr-1", "xoxr-2", "xoxr-3", "xoxr-4", "xoxr-5", "xoxr-6", "xoxr-7", "xoxr-8", "xoxr-9", "xoxs-0", "xoxs-1", "xoxs-2", "xoxs-3", "xoxs-4", "xoxs-5", "xoxs-6", "xoxs-7", "xoxs-8", "xoxs-9"], None),
    // 28 aws_access_key_id
    (&["a3t", "abia", "acca", "akia", "asia"], Some(0)),
    // 29 aws_session_token
    (&["fwogzxivyxdz", "iqojb3jpz2lu"], Some(0)),
    // 30 google_api_key
    (&["aiza"], Some(0)),
    // 31 google_oauth_client_secret
    (&["gocspx-"], Some(0)),
    // 32 google_oauth_token
    (&["1//0", "ya29."], Some(2)),
    // 33 azure_ad_client_secret
    (&[], None),
    // 34 alibaba_access_key
    (&["ltai"], Some(0)),
    // 35 digitalocean_token
    (&["doo_v1_", "dop_v1_", "dor_v1_"], Some(0)),
    // 36 cloudflare_api_key
    (&["v1.0-"], Some(2)),
    // 37 heroku_api_key
    (&["hrku-aa"], Some(0)),
    // 38 netlify_token
    (&["nfp_"], Some(0)),
    // 39 flyio_token
    (&["fm1a_", "fm1r_", "fm2_", "fo1_"], Some(0)),
    // 40 scalingo_token
    (&["tk-us-"], Some(0)),
    // 41 planetscale_token
    (&["pscale_oauth_", "pscale_pw_", "pscale_tkn_"], Some(0)),
    // 42 databricks_token
    (&["dapi"], Some(0)),
    // 43 dynatrace_token
    (&["dt0c01."], Some(0)),
    // 44 new_relic_key
    (&["nraa-", "nrak-", "nrii-", "nrjs-"], Some(0)),
    // 45 sentry_token
    (&["sntrys_eyjpyxqio", "sntryu_"], Some(0)),
    // 46 grafana_token
    (&["eyjrijoi", "glc_", "glsa_"], Some(0)),
    // 47 openshift_token
    (&["sha256~"], Some(0)),
    // 48 clickhouse_api_key
    (&["4b1d"], Some(2)),
    // 49 defined_networking_token
    (&["dnkey-"], Some(0)),
    // 50 settlemint_token
    (&["sm_aat_", "sm_pat_", "sm_sat_"], Some(0)),
    // 51 stripe_api_key
    (&["rk_live_", "rk_prod_", "rk_test_", "sk_live_", "sk_prod_", "sk_test_", "whsec_"], Some(0)),
    // 52 square_token
    (&["eaaa", "sq0atp-", "sq0csp-"], Some(2)),
    // 53 shopify_token
    (&["shpat_", "shpca_", "shppa_", "shpss_"], Some(0)),
    // 54 flutterwave_key
    (&["flwpubk-", "flwpubk_test-", "flwseck-", "flwseck_test-"], Some(0)),
    // 55 duffel_token
    (&["duffel_live_", "duffel_test_"], Some(0)),
    // 56 easypost_token
    (&["ezak", "eztk"], Some(2)),
    // 57 shippo_token
    (&["shippo_live_", "shippo_test_"], Some(0)),
    // 58 intra42_secret
    (&["s-s4t2af-", "s-s4t2ud-"], Some(0)),
    // 59 sendgrid_api_key
    (&["sg."], Some(0)),
    // 60 sendinblue_api_key
    (&["xkeysib-", "xsmtpsib-"], Some(0)),
    // 61 mailchimp_api_key
    (&[], None),
    // 62 twilio_api_key
    (&["sk"], Some(2)),
    // 63 atlassian_api_token
    (&["atatt3"], Some(0)),
    // 64 linear_api_key
    (&["lin_api_"], Some(0)),
    // 65 notion_token
    (&[], None),
    // 66 airtable_api_key
    (&["pat"], Some(2)),
    // 67 typeform_token
    (&["tfp_"], Some(0)),
    // 68 hubspot_api_key
    (&["pat-eu0-", "pat-eu1-", "pat-eu2-", "pat-eu3-", "pat-eu4-", "pat-eu5-", "pat-eu6-", "pat-eu7-", "pat-eu8-", "pat-eu9-", "pat-na0-", "pat-na1-", "pat-na2-", "pat-na3-", "pat-na4-", "pat-na5-", "pat-na6-", "pat-na7-", "pat-na8-", "pat-na9-"], Some(0)),
    // 69 frameio_token
    (&["fio-u-"], Some(0)),
    // 70 maxmind_license_key
    (&["_mmk"], None),
    // 71 adobe_secret
    (&["p8e-"], Some(0)),
    // 72 mapbox_token
    (&["pk.eyj", "sk.eyj", "tk.eyj"], Some(2)),
    // 73 facebook_token
    (&["eaac", "eaam"], Some(2)),
    // 74 facebook_token
    (&[], None),
    // 75 dropbox_token
    (&["sl."], Some(2)),
    // 76 freemius_secret_key
    (&["\"secret_key\"", "\"secret_key'", "\"secret_key\\\"", "\"secret_key\\'", "'secret_key\"", "'secret_key'", "'secret_key\\\"", "'secret_key\\'"], Some(1)),
    // 77 discord_token
    (&[], None),
    // 78 telegram_bot_token
    (&[], None),
    // 79 rootly_api_key
    (&["rootly_"], Some(0)),
    // 80 launchdarkly_token
    (&["api-", "sdk-"], Some(2)),
    // 81 razorpay_key
    (&["rzp_live_", "rzp_test_"], Some(0)),
    // 82 pinecone_api_key
    (&["pcsk_"], Some(0)),
    // 83 langsmith_api_key
    (&["lsv2_pt_", "lsv2_sk_"], Some(0)),
    // 84 spectralops_token
    (&["spk-", "spt-", "spu-"], Some(0)),
    // 85 atlassian_api_token
    (&["atbb", "bbdc-"], Some(0)),
    // 86 jwt
    (&["ey", "zxlk"], Some(0)),
    // 87 adafruit_api_key
    (&[], None),
    // 88 adobe_secret
    (&[], None),
    // 89 airtable_api_key
    (&[], None),
    // 90 algolia_api_key
    (&[], None),
    // 91 alibaba_access_key
    (&[], None),
    // 92 asana_secret
    (&[], None),
    // 93 atlassian_api_token
    (&[], None),
    // 94 beamer_api_token
    (&[], None),
    // 95 bitbucket_secret
    (&[], None),
    // 96 bittrex_key
    (&[], None),
    // 97 cisco_meraki_api_key
    (&[], None),
    // 98 cloudflare_api_key
    (&[], None),
    // 99 codecov_token
    (&[], None),
    // 100 cohere_api_key
    (&[], None),
    // 101 coinbase_token
    (&[], None),
    // 102 confluent_secret
    (&[], None),
    // 103 contentful_token
    (&[], None),
    // 104 datadog_api_key
    (&[], None),
    // 105 discord_token
    (&[], None),
    // 106 droneci_token
    (&[], None),
    // 107 dropbox_token
    (&[], None),
    // 108 etsy_token
    (&[], None),
    // 109 facebook_token
    (&[], None),
    // 110 fastly_token
    (&[], None),
    // 111 finicity_secret
    (&[], None),
    // 112 finnhub_token
    (&[], None),
    // 113 flickr_token
    (&[], None),
    // 114 freshbooks_token
    (&[], None),
    // 115 gitter_token
    (&[], None),
    // 116 gocardless_token
    (&[], None),
    // 117 heroku_api_key
    (&[], None),
    // 118 hubspot_api_key
    (&[], None),
    // 119 intercom_token
    (&[], None),
    // 120 jfrog_token
    (&[], None),
    // 121 kraken_token
    (&[], None),
    // 122 kucoin_secret
    (&[], None),
    // 123 launchdarkly_token
    (&[], None),
    // 124 linear_api_key
    (&[], None),
    // 125 linkedin_secret
    (&[], None),
    // 126 lob_api_key
    (&[], None),
    // 127 mailgun_key
    (&[], None),
    // 128 mapbox_token
    (&[], None),
    // 129 mattermost_token
    (&[], None),
    // 130 messagebird_token
    (&[], None),
    // 131 netlify_token
    (&[], None),
    // 132 new_relic_key
    (&[], None),
    // 133 nytimes_token
    (&[], None),
    // 134 okta_token
    (&[], None),
    // 135 plaid_token
    (&[], None),
    // 136 privateai_token
    (&[], None),
    // 137 rapidapi_key
    (&[], None),
    // 138 sendbird_token
    (&[], None),
    // 139 sentry_token
    (&[], None),
    // 140 sidekiq_secret
    (&[], None),
    // 141 snyk_token
    (&[], None),
    // 142 sonar_token
    (&[], None),
    // 143 sourcegraph_token
    (&[], None),
    // 144 squarespace_token
    (&[], None),
    // 145 sumologic_key
    (&[], None),
    // 146 telegram_bot_token
    (&[], None),
    // 147 travisci_token
    (&[], None),
    // 148 twitch_token
    (&[], None),
    // 149 twitter_token
    (&[], None),
    // 150 vault_token
    (&[], None),
    // 151 yandex_token
    (&[], None),
    // 152 zendesk_secret_key
    (&[], None),
    // 153 slack_webhook_url
    (&["hooks.slack.com/services/", "hooks.slack.com/triggers/", "hooks.slack.com/workflows/"], Some(0)),
    // 154 microsoft_teams_webhook
    (&["https://"], Some(0)),
    // 155 discord_token
    (&["discord"], Some(0)),
    // 156 telegram_bot_token
    (&["api.telegram.org/bot00", "api.telegram.org/bot01", "api.telegram.org/bot02", "api.telegram.org/bot03", "api.telegram.org/bot04", "api.telegram.org/bot05", "api.telegram.org/bot06", "api.telegram.org/bot07", "api.telegram.org/bot08", "api.telegram.org/bot09", "api.telegram.org/bot10", "api.telegram.org/bot11", "api.telegram.org/bot12", "api.telegram.org/bot13", "api.telegram.org/bot14", "api.telegram.org/bot15", "api.telegram.org/bot16", "api.telegram.org/bot17", "api.telegram.org/bot18", "api.telegram.org/bot19", "api.telegram.org/bot20", "api.telegram.org/bot21", "api.telegram.org/bot22", "api.telegram.org/bot23", "api.telegram.org/bot24", "api.telegram.org/bot25", "api.telegram.org/bot26", "api.telegram.org/bot27", "api.telegram.org/bot28", "api.telegram.org/bot29", "api.telegram.org/bot30", "api.telegram.org/bot31", "api.telegram.org/bot32", "api.telegram.org/bot33", "api.telegram.org/bot34", "api.telegram.org/bot35", "api.telegram.org/bot36", "api.telegram.org/bot37", "api.telegram.org/bot38", "api.telegram.org/bot39", "api.telegram.org/bot40", "api.telegram.org/bot41", "api.telegram.org/bot42", "api.telegram.org/bot43", "api.telegram.org/bot44", "api.telegram.org/bot45", "api.telegram.org/bot46", "api.telegram.org/bot47", "api.telegram.org/bot48", "api.telegram.org/bot49", "api.telegram.org/bot50", "api.telegram.org/bot51", "api.telegram.org/bot52", "api.telegram.org/bot53", "api.telegram.org/bot54", "api.telegram.org/bot55", "api.telegram.org/bot56", "api.telegram.org/bot57", "api.telegram.org/bot58", "api.telegram.org/bot59", "api.telegram.org/bot60", "api.telegram.org/bot61", "api.telegram.org/bot62", "api.telegram.org/bot63", "api.telegram.org/bot64", "api.telegram.org/bot65", "api.telegram.org/bot66", "api.telegram.org/bot67", "api.telegram.org/bot68", "api.telegram.org/bot69", "api.telegram.org/bot70", "api.telegram.org/bot71", "api.telegram.org/bot72", "api.telegram.org/bot73", "api.telegram.org/bot74", "api.telegram.org/bot75", "api.telegram.org/bot76", "api.telegram.org/bot77", "api.telegram.org/bot78", "api.telegram.org/bot79", "api.telegram.org/bot80", "api.telegram.org/bot81", "api.telegram.org/bot82", "api.telegram.org/bot83", "api.telegram.org/bot84", "api.telegram.org/bot85", "api.telegram.org/bot86", "api.telegram.org/bot87", "api.telegram.org/bot88", "api.telegram.org/bot89", "api.telegram.org/bot90", "api.telegram.org/bot91", "api.telegram.org/bot92", "api.telegram.org/bot93", "api.telegram.org/bot94", "api.telegram.org/bot95", "api.telegram.org/bot96", "api.telegram.org/bot97", "api.telegram.org/bot98", "api.telegram.org/bot99", "api.telegram.org/file/bot00", "api.telegram.org/file/bot01", "api.telegram.org/file/bot02", "api.telegram.org/file/bot03", "api.telegram.org/file/bot04", "api.telegram.org/file/bot05", "api.telegram.org/file/bot06", "api.telegram.org/file/bot07", "api.telegram.org/file/bot08", "api.telegram.org/file/bot09", "api.telegram.org/file/bot10", "api.telegram.org/file/bot11", "api.telegram.org/file/bot12", "api.telegram.org/file/bot13", "api.telegram.org/file/bot14", "api.telegram.org/file/bot15", "api.telegram.org/file/bot16", "api.telegram.org/file/bot17", "api.telegram.org/file/bot18", "api.telegram.org/file/bot19", "api.telegram.org/file/bot20", "api.telegram.org/file/bot21", "api.telegram.org/file/bot22", "api.telegram.org/file/bot23", "api.telegram.org/file/bot24", "api.telegram.org/file/bot25", "api.telegram.org/file/bot26", "api.telegram.org/file/bot27", "api.telegram.org/file/bot28", "api.telegram.org/file/bot29", "api.telegram.org/file/bot30", "api.telegram.org/file/bot31", "api.telegram.org/file/bot32", "api.telegram.org/file/bot33", "api.telegram.org/file/bot34", "api.telegram.org/file/bot35", "api.telegram.org/file/bot36", "api.telegram.org/file/bot37", "api.telegram.org/file/bot38", "api.telegram.org/file/bot39", "api.telegram.org/file/bot40", "api.telegram.org/file/bot41", "api.telegram.org/file/bot42", "api.telegram.org/file/bot43", "api.telegram.org/file/bot44", "api.telegram.org/file/bot45", "api.telegram.org/file/bot46", "api.telegram.org/file/bot47", "api.telegram.org/file/bot48", "api.telegram.org/file/bot49", "api.telegram.org/file/bot50", "api.telegram.org/file/bot51", "api.telegram.org/file/bot52", "api.telegram.org/file/bot53", "api.telegram.org/file/bot54", "api.telegram.org/file/bot55", "api.telegram.org/file/bot56", "api.telegram.org/file/bot57", "api.telegram.org/file/bot58", "api.telegram.org/file/bot59", "api.telegram.org/file/bot60", "api.telegram.org/file/bot61", "api.telegram.org/file/bot62", "api.telegram.org/file/bot63", "api.telegram.org/file/bot64", "api.telegram.org/file/bot65", "api.telegram.org/file/bot66", "api.telegram.org/file/bot67", "api.telegram.org/file/bot68", "api.telegram.org/file/bot69", "api.telegram.org/file/bot70", "api.telegram.org/file/bot71", "api.telegram.org/file/bot72", "api.telegram.org/file/bot73", "api.telegram.org/file/bot74", "api.telegram.org/file/bot75", "api.telegram.org/file/bot76", "api.telegram.org/file/bot77", "api.telegram.org/file/bot78", "api.telegram.org/file/bot79", "api.telegram.org/file/bot80", "api.telegram.org/file/bot81", "api.telegram.org/file/bot82", "api.telegram.org/file/bot83", "api.telegram.org/file/bot84", "api.telegram.org/file/bot85", "api.telegram.org/file/bot86", "api.telegram.org/file/bot87", "api.telegram.org/file/bot88", "api.telegram.org/file/bot89", "api.telegram.org/file/bot90", "api.telegram.org/file/bot91", "api.telegram.org/file/bot92", "api.telegram.org/file/bot93", "api.telegram.org/file/bot94", "api.telegram.org/file/bot95", "api.telegram.org/file/bot96", "api.telegram.org/file/bot97", "api.telegram.org/file/bot98", "api.telegram.org/file/bot99"], Some(0)),
    // 157 sidekiq_secret
    (&["http"], Some(2)),
    // 158 url_credentials
    (&[], None),
    // 159 url_credentials
    (&[], None),
    // 160 url_query_secret
    (&[], None),
    // 161 authorization_header
    (&[], None),
    // 162 auth_header
    (&[], None),
    // 163 auth_header
    (&[], None),
    // 164 bearer_token
    (&["beare"], Some(2)),
    // 165 basic_auth
    (&["curl"], Some(2)),
    // 166 sidekiq_secret
    (&[], None),
    // 167 kubernetes_secret
    (&[], None),
    // 168 named_secret
    (&[], None),
    // 169 aws_secret_access_key
    (&["aws-se", "aws.se", "aws_se", "awsse", "secret"], Some(0)),
    // 170 password
    (&[], None),
    // 171 password
    (&[], None),
    // 172 password
    (&[], None),
    // 173 password
    (&[], None),
    // 174 password
    (&[], None),
    // 175 password
    (&[], None),
    // 176 password
    (&[], None),
    // 177 password
    (&[], None),
    // 178 password
    (&[], None),
    // 179 password
    (&[], None),
    // 180 password
    (&[], None),
    // 181 password
    (&[], None),
    // 182 password
    (&[], None),
    // 183 password
    (&[], None),
    // 184 password
    (&[], None),
    // 185 password
    (&[], None),
    // 186 password
    (&[], None),
    // 187 password
    (&[], None),
    // 188 password
    (&[], None),
    // 189 password
    (&[], None),
    // 190 password
    (&[], None),
    // 191 password
    (&[], None),
    // 192 password
    (&[], None),
    // 193 password
    (&[], None),
    // 194 password
    (&[], None),
    // 195 password
    (&[], None),
    // 196 password
    (&[], None),
    // 197 password
    (&[], None),
    // 198 password
    (&[], None),
    // 199 password
    (&[], None),
    // 200 password
    (&[], None),
    // 201 password
    (&["login"], Some(2)),
    // 202 password
    (&[], None),
    // 203 named_secret
    (&["confi", "gh\t", "gh "], Some(2)),
    // 204 password
    (&["iden", "pass"], Some(2)),
    // 205 password
    (&[], None),
    // 206 named_secret
    (&[], None),
    // 207 password
    (&[], None),
    // 208 named_secret
    (&[], None),
    // 209 password
    (&[], None),
    // 210 password
    (&[], None),
    // 211 named_secret
    (&[], None),
    // 212 named_secret
    (&[], None),
    // 213 kubernetes_secret
    (&[], None),
    // 214 generic_api_key
    (&[], None),
];
