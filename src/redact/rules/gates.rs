//! Generated: the gate of each default rule, in `super::default_rules()` order: the byte
//! sets every match of its pattern hits, as `gate::requirements` derives them. Do not edit:
//! `gate_table_is_current` checks it against the patterns, and
//! `REDACT_WRITE_GATES=1 cargo test --lib gate_table_is_current` writes it again.

/// The byte sets of each rule's gate, by rule index.
#[rustfmt::skip]
pub(in crate::redact) const GATES: &[&[&[u8]]] = &[
    // 0 private_key
    &[b"-P"],
    // 1 age_secret_key
    &[b"A", b"G", b"E", b"-", b"S", b"C", b"R", b"T"],
    // 2 onepassword_secret
    &[b"Ao"],
    // 3 anthropic_api_key
    &[b"s", b"k", b"-", b"a", b"n", b"t", b"0123456789"],
    // 4 openai_api_key
    &[b"s", b"k", b"-"],
    // 5 huggingface_token
    &[b"ah"],
    // 6 perplexity_api_key
    &[b"p", b"l", b"x", b"-"],
    // 7 github_token
    &[b"g"],
    // 8 gitlab_token
    &[b"G_g"],
    // 9 sourcegraph_token
    &[b"s", b"g", b"p", b"_"],
    // 10 jfrog_token
    &[b"Ac"],
    // 11 npm_token
    &[b"n", b"p", b"m", b"_"],
    // 12 pypi_token
    &[b"p"],
    // 13 rubygems_api_key
    &[b"r", b"u", b"b", b"y", b"g", b"e", b"m", b"s"],
    // 14 clojars_api_token
    &[b"_", b"Cc", b"Ll", b"Oo", b"Jj", b"Aa", b"Rr", b"Ss"],
    // 15 prefect_api_key
    &[b"p", b"n", b"u", b"_"],
    // 16 sonar_token
    &[b"s", b"q", b"_", b"apu"],
    // 17 octopus_deploy_api_key
    &[b"A", b"P", b"I", b"-"],
    // 18 harness_token
    &[b".", b"ps"],
    // 19 pulumi_token
    &[b"p", b"u", b"l", b"-", b"0123456789abcdef"],
    // 20 infracost_token
    &[b"i", b"c", b"o", b"-"],
    // 21 terraform_token
    &[b".", b"a", b"t", b"l", b"s", b"v", b"1"],
    // 22 vault_token
    &[b"h", b"v", b".", b"brs"],
    // 23 doppler_token
    &[b"d", b"p", b"."],
    // 24 postman_api_key
    &[b"P", b"M", b"A", b"K", b"-"],
    // 25 readme_api_key
    &[b"r", b"d", b"m", b"e", b"_"],
    // 26 authress_access_key
    &[b"_", b".", b"a", b"c"],
    // 27 slack_token
    &[b"x"],
    // 28 aws_access_key_id
    &[b"A"],
    // 29 aws_session_token
    &[b"FI"],
    // 30 google_api_key
    &[b"A", b"I", b"z", b"a"],
    // 31 google_oauth_client_secret
    &[b"G", b"O", b"C", b"S", b"P", b"X", b"-"],
    // 32 google_oauth_token
    &[b"1y"],
    // 33 azure_ad_client_secret
    &[b"Q", b"~", b"0123456789"],
    // 34 alibaba_access_key
    &[b"L", b"T", b"A", b"I"],
    // 35 digitalocean_token
    &[b"d", b"o", b"_", b"v", b"1"],
    // 36 cloudflare_api_key
    &[b"v", b"1", b".", b"0", b"-"],
    // 37 heroku_api_key
    &[b"H", b"R", b"K", b"U", b"-", b"A"],
    // 38 netlify_token
    &[b"n", b"f", b"p", b"_"],
    // 39 flyio_token
    &[b"f"],
    // 40 scalingo_token
    &[b"t", b"k", b"-", b"u", b"s"],
    // 41 planetscale_token
    &[b"p", b"s", b"c", b"a", b"l", b"e", b"_"],
    // 42 databricks_token
    &[b"d", b"a", b"p", b"i"],
    // 43 dynatrace_token
    &[b"d", b"t", b"0", b"c", b"1", b"."],
    // 44 new_relic_key
    &[b"N"],
    // 45 sentry_token
    &[b"s"],
    // 46 grafana_token
    &[b"eg"],
    // 47 openshift_token
    &[b"s", b"h", b"a", b"2", b"5", b"6", b"~"],
    // 48 clickhouse_api_key
    &[b"4", b"b", b"1", b"d"],
    // 49 defined_networking_token
    &[b"d", b"n", b"k", b"e", b"y", b"-"],
    // 50 settlemint_token
    &[b"s", b"m", b"_"],
    // 51 stripe_api_key
    &[b"_w"],
    // 52 square_token
    &[b"Es"],
    // 53 shopify_token
    &[b"s", b"h", b"p", b"_", b"0123456789ABCDEFabcdef"],
    // 54 flutterwave_key
    &[b"F", b"L", b"W", b"-", b"PS"],
    // 55 duffel_token
    &[b"d", b"u", b"f", b"e", b"l", b"_"],
    // 56 easypost_token
    &[b"E", b"Z", b"K", b"AT"],
    // 57 shippo_token
    &[b"s", b"h", b"i", b"p", b"o", b"_", b"lt", b"0123456789ABCDEFabcdef"],
    // 58 intra42_secret
    &[b"s", b"-", b"4", b"t", b"2", b"au"],
    // 59 sendgrid_api_key
    &[b"S", b"G", b"."],
    // 60 sendinblue_api_key
    &[b"x", b"-", b"ks", b"0123456789abcdef"],
    // 61 mailchimp_api_key
    &[b"-", b"u", b"s", b"0123456789"],
    // 62 twilio_api_key
    &[b"S", b"K", b"0123456789ABCDEFabcdef"],
    // 63 atlassian_api_token
    &[b"A", b"T", b"3"],
    // 64 linear_api_key
    &[b"l", b"i", b"n", b"_", b"a", b"p"],
    // 65 notion_token
    &[b"ns"],
    // 66 airtable_api_key
    &[b"p", b"a", b"t", b"."],
    // 67 typeform_token
    &[b"t", b"f", b"p", b"_"],
    // 68 hubspot_api_key
    &[b"p", b"a", b"t", b"-", b"en", b"0123456789"],
    // 69 frameio_token
    &[b"f", b"i", b"o", b"-", b"u"],
    // 70 maxmind_license_key
    &[b"_", b"m", b"k"],
    // 71 adobe_secret
    &[b"p", b"8", b"e", b"-"],
    // 72 mapbox_token
    &[b".", b"e", b"y", b"J", b"pst"],
    // 73 facebook_token
    &[b"E", b"A", b"CM"],
    // 74 facebook_token
    &[b"%|", b"0123456789"],
    // 75 dropbox_token
    &[b"s", b"l", b"."],
    // 76 freemius_secret_key
    &[b"s", b"e", b"c", b"r", b"t", b"_", b"k", b"y"],
    // 77 discord_token
    &[b".", b"MNO"],
    // 78 telegram_bot_token
    &[b":", b"A", b"0123456789"],
    // 79 rootly_api_key
    &[b"r", b"o", b"t", b"l", b"y", b"_", b"0123456789abcdef"],
    // 80 launchdarkly_token
    &[b"-", b"as"],
    // 81 razorpay_key
    &[b"r", b"z", b"p", b"_", b"lt"],
    // 82 pinecone_api_key
    &[b"p", b"c", b"s", b"k", b"_"],
    // 83 langsmith_api_key
    &[b"l", b"s", b"v", b"2", b"_"],
    // 84 spectralops_token
    &[b"s", b"p", b"-", b"ktu", b"0123456789abcdef"],
    // 85 atlassian_api_token
    &[b"AB"],
    // 86 jwt
    &[b"Ze"],
    // 87 adafruit_api_key
    &[b"Aa", b"Dd", b"Ff", b"Rr", b"Uu", b"Ii", b"Tt", b",-:=>?|"],
    // 88 adobe_secret
    &[b"Aa", b"Dd", b"Oo", b"Bb", b"Ee", b",-:=>?|"],
    // 89 airtable_api_key
    &[b"Aa", b"Ii", b"Rr", b"Tt", b"Bb", b"Ll", b"Ee", b",-:=>?|"],
    // 90 algolia_api_key
    &[b"Aa", b"Ll", b"Gg", b"Oo", b"Ii", b",-:=>?|"],
    // 91 alibaba_access_key
    &[b"Aa", b"Ll", b"Ii", b"Bb", b",-:=>?|"],
    // 92 asana_secret
    &[b"Aa", b"Ss", b"Nn", b",-:=>?|"],
    // 93 atlassian_api_token
    &[b"ACJacj", b",-:=>?|", b"0123456789ABCDEFabcdef"],
    // 94 beamer_api_token
    &[b"_", b"Bb", b"Ee", b"Aa", b"Mm", b"Rr", b",-:=>?|"],
    // 95 bitbucket_secret
    &[b"Bb", b"Ii", b"Tt", b"Uu", b"Cc", b"Kk", b"Ee", b",-:=>?|"],
    // 96 bittrex_key
    &[b"Bb", b"Ii", b"Tt", b"Rr", b"Ee", b"Xx", b",-:=>?|"],
    // 97 cisco_meraki_api_key
    &[b"Mm", b"Ee", b"Rr", b"Aa", b"Kk", b"Ii", b",-:=>?|"],
    // 98 cloudflare_api_key
    &[b"Cc", b"Ll", b"Oo", b"Uu", b"Dd", b"Ff", b"Aa", b"Rr"],
    // 99 codecov_token
    &[b"Cc", b"Oo", b"Dd", b"Ee", b"Vv", b",-:=>?|"],
    // 100 cohere_api_key
    &[b"Cc", b"Oo", b"H_h", b",-:=>?|"],
    // 101 coinbase_token
    &[b"Cc", b"Oo", b"Ii", b"Nn", b"Bb", b"Aa", b"Ss", b"Ee"],
    // 102 confluent_secret
    &[b"Cc", b"Oo", b"Nn", b"Ff", b"Ll", b"Uu", b"Ee", b"Tt"],
    // 103 contentful_token
    &[b"Cc", b"Oo", b"Nn", b"Tt", b"Ee", b"Ff", b"Uu", b"Ll"],
    // 104 datadog_api_key
    &[b"Dd", b"-A_a", b",-:=>?|"],
    // 105 discord_token
    &[b"Dd", b"Ii", b"Ss", b"Cc", b"Oo", b"Rr", b",-:=>?|"],
    // 106 droneci_token
    &[b"Dd", b"Rr", b"Oo", b"Nn", b"Ee", b"C_c", b",-:=>?|"],
    // 107 dropbox_token
    &[b"Dd", b"Rr", b"Oo", b"Pp", b"Bb", b"Xx", b",-:=>?|"],
    // 108 etsy_token
    &[b"Ee", b"Tt", b"Ss", b"Yy", b",-:=>?|"],
    // 109 facebook_token
    &[b"Ff", b"Aa", b"Cc", b"Ee", b"Bb", b"Oo", b"Kk", b",-:=>?|"],
    // 110 fastly_token
    &[b"Ff", b"Aa", b"Ss", b"Tt", b"Ll", b"Yy", b",-:=>?|"],
    // 111 finicity_secret
    &[b"Ff", b"Ii", b"Nn", b"Cc", b"Tt", b"Yy", b",-:=>?|"],
    // 112 finnhub_token
    &[b"Ff", b"Ii", b"Nn", b"Hh", b"Uu", b"Bb", b",-:=>?|"],
    // 113 flickr_token
    &[b"Ff", b"Ll", b"Ii", b"Cc", b"Kk", b"Rr", b",-:=>?|"],
    // 114 freshbooks_token
    &[b"Ff", b"Rr", b"Ee", b"Ss", b"Hh", b"Bb", b"Oo", b"Kk"],
    // 115 gitter_token
    &[b"Gg", b"Ii", b"Tt", b"Ee", b"Rr", b",-:=>?|"],
    // 116 gocardless_token
    &[b"_", b"Gg", b"Oo", b"Cc", b"Aa", b"Rr", b"Dd", b"Ll"],
    // 117 heroku_api_key
    &[b"-", b"Hh", b"Ee", b"Rr", b"Oo", b"Kk", b"Uu"],
    // 118 hubspot_api_key
    &[b"-", b"Hh", b"Uu", b"Bb", b"Ss", b"Pp", b"Oo", b"Tt"],
    // 119 intercom_token
    &[b"Ii", b"Nn", b"Tt", b"Ee", b"Rr", b"Cc", b"Oo", b"Mm"],
    // 120 jfrog_token
    &[b",-:=>?|", b"ABJXabjx"],
    // 121 kraken_token
    &[b"Kk", b"Rr", b"Aa", b"Ee", b"Nn", b",-:=>?|"],
    // 122 kucoin_secret
    &[b"Kk", b"Uu", b"Cc", b"Oo", b"Ii", b"Nn", b",-:=>?|"],
    // 123 launchdarkly_token
    &[b"Ll", b"Aa", b"Uu", b"Nn", b"Cc", b"Hh", b"Dd", b"Rr"],
    // 124 linear_api_key
    &[b"Ll", b"Ii", b"Nn", b"Ee", b"Aa", b"Rr", b",-:=>?|"],
    // 125 linkedin_secret
    &[b"Ll", b"Ii", b"Nn", b"Kk", b"Ee", b"Dd", b",-:=>?|"],
    // 126 lob_api_key
    &[b"_", b"Ll", b"Oo", b"Bb", b",-:=>?|"],
    // 127 mailgun_key
    &[b"-", b"Mm", b"Aa", b"Ii", b"Ll", b"Gg", b"Uu", b"Nn"],
    // 128 mapbox_token
    &[b".", b"Mm", b"Aa", b"Pp", b"Bb", b"Oo", b"Xx", b"Kk"],
    // 129 mattermost_token
    &[b"Mm", b"Aa", b"Tt", b"Ee", b"Rr", b"Oo", b"Ss", b",-:=>?|"],
    // 130 messagebird_token
    &[b"Mm", b"Ee", b"Ss", b"Aa", b"Gg", b"Bb", b"Ii", b"Rr"],
    // 131 netlify_token
    &[b"Nn", b"Ee", b"Tt", b"Ll", b"Ii", b"Ff", b"Yy", b",-:=>?|"],
    // 132 new_relic_key
    &[b"Nn", b"Ee", b"Ww", b"-R_r", b",-:=>?|"],
    // 133 nytimes_token
    &[b"Nn", b"-EYey", b",-:=>?|"],
    // 134 okta_token
    &[b"0", b"Oo", b"Kk", b"Tt", b"Aa", b",-:=>?|"],
    // 135 plaid_token
    &[b"Pp", b"Ll", b"Aa", b"Ii", b"Dd", b",-:=>?|"],
    // 136 privateai_token
    &[b"Pp", b"Rr", b"Ii", b"Vv", b"Aa", b"Tt", b"Ee", b",-:=>?|"],
    // 137 rapidapi_key
    &[b"Rr", b"Aa", b"Pp", b"Ii", b"Dd", b",-:=>?|"],
    // 138 sendbird_token
    &[b"Ss", b"Ee", b"Nn", b"Dd", b"Bb", b"Ii", b"Rr", b",-:=>?|"],
    // 139 sentry_token
    &[b"Ss", b"Ee", b"Nn", b"Tt", b"Rr", b"Yy", b",-:=>?|"],
    // 140 sidekiq_secret
    &[b"_", b":", b"Bb", b"Uu", b"Nn", b"Dd", b"Ll", b"Ee"],
    // 141 snyk_token
    &[b"-", b"Ss", b"Nn", b"Yy", b"Kk", b"0123456789ABCDEFabcdef"],
    // 142 sonar_token
    &[b"Ss", b"Oo", b"Nn", b"Aa", b"Rr", b"LTlt", b",-:=>?|"],
    // 143 sourcegraph_token
    &[b"Ss", b"Oo", b"Uu", b"Rr", b"Cc", b"Ee", b"Gg", b"Aa"],
    // 144 squarespace_token
    &[b"-", b"Ss", b"Qq", b"Uu", b"Aa", b"Rr", b"Ee", b"Pp"],
    // 145 sumologic_key
    &[b"Ss", b"Uu", b"Mm", b"Oo", b",-:=>?|"],
    // 146 telegram_bot_token
    &[b":", b"Tt", b"Ee", b"Ll", b"Gg", b"Rr", b"Aa", b"0123456789"],
    // 147 travisci_token
    &[b"Tt", b"Rr", b"Aa", b"Vv", b"Ii", b"Ss", b",-:=>?|"],
    // 148 twitch_token
    &[b"Tt", b"Ww", b"Ii", b"Cc", b"Hh", b",-:=>?|"],
    // 149 twitter_token
    &[b"Tt", b"Ww", b"Ii", b"Ee", b"Rr", b",-:=>?|"],
    // 150 vault_token
    &[b".", b"Vv", b"Aa", b"Uu", b"Ll", b"Tt", b"Ss", b",-:=>?|"],
    // 151 yandex_token
    &[b"Yy", b"Aa", b"Nn", b"Dd", b"Ee", b"Xx", b",-:=>?|"],
    // 152 zendesk_secret_key
    &[b"Zz", b"Ee", b"Nn", b"Dd", b"Ss", b"Kk", b",-:=>?|"],
    // 153 slack_webhook_url
    &[b"h", b"o", b"k", b"s", b".", b"l", b"a", b"c"],
    // 154 microsoft_teams_webhook
    &[b":", b"/", b".", b"2", b"@", b"Hh", b"Tt", b"Pp"],
    // 155 discord_token
    &[b".", b"/", b"Dd", b"Ii", b"Ss", b"Cc", b"Oo", b"Rr"],
    // 156 telegram_bot_token
    &[b"a", b"p", b"i", b".", b"t", b"e", b"l", b"g"],
    // 157 sidekiq_secret
    &[b":", b"/", b"@", b".", b"Hh", b"Tt", b"Pp", b"Cc"],
    // 158 url_credentials
    &[b":", b"/", b"@", b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz"],
    // 159 url_credentials
    &[b":", b"/", b"@", b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz"],
    // 160 url_query_secret
    &[b"=", b"&?", b"-AJKPST_ajkpst"],
    // 161 authorization_header
    &[b"Aa", b"Uu", b"Tt", b"Hh", b"Oo", b"Rr", b"Ii", b"Zz"],
    // 162 auth_header
    &[b"-", b":"],
    // 163 auth_header
    &[b":", b"Cc", b"Oo", b"Kk", b"Ii", b"Ee"],
    // 164 bearer_token
    &[b"Bb", b"Ee", b"Aa", b"Rr", b"\t "],
    // 165 basic_auth
    &[b"c", b"u", b"r", b"l", b"-", b"\t ", b"\"\':"],
    // 166 sidekiq_secret
    &[b"_", b":", b"Bb", b"Uu", b"Nn", b"Dd", b"Ll", b"Ee"],
    // 167 kubernetes_secret
    &[b".", b"d", b"o", b"c", b"k", b"e", b"r", b":"],
    // 168 named_secret
    &[b"=", b"%", b"s", b"ep", b"\t "],
    // 169 aws_secret_access_key
    &[b"ASas", b"\t :="],
    // 170 password
    &[b"-", b"p", b"\t "],
    // 171 password
    &[b"-", b"p", b"\t "],
    // 172 password
    &[b"-", b"\t "],
    // 173 password
    &[b"-", b"\t "],
    // 174 password
    &[b"-", b"p", b"\t "],
    // 175 password
    &[b"-", b"P", b"\t "],
    // 176 password
    &[b"-", b"k", b"\t "],
    // 177 password
    &[b"-", b"\t "],
    // 178 password
    &[b"-", b"p", b"\t "],
    // 179 password
    &[b"-", b"\t "],
    // 180 password
    &[b"-", b"w", b"\t "],
    // 181 password
    &[b"-", b"P", b"\t "],
    // 182 password
    &[b"-", b"p", b"a", b"s", b"w", b"o", b"r", b"d"],
    // 183 password
    &[b"-", b"p", b"\t "],
    // 184 password
    &[b"-", b"P", b"\t "],
    // 185 password
    &[b"-", b"p", b"w", b"\t "],
    // 186 password
    &[b"-", b"p", b"\t "],
    // 187 password
    &[b"-", b"\t "],
    // 188 password
    &[b"/", b"p", b":", b"\t "],
    // 189 password
    &[b"-", b"o", b"a", b"u", b"t", b"h", b"2", b"b"],
    // 190 password
    &[b"-", b"\t "],
    // 191 password
    &[b"-", b"p", b"a", b"s", b":", b"\t "],
    // 192 password
    &[b"h", b"t", b"p", b"a", b"s", b"w", b"d", b"-"],
    // 193 password
    &[b"-", b"%", b"rs", b"\t "],
    // 194 password
    &[b"l", b"f", b"t", b"p", b"-", b"u", b",", b"\t "],
    // 195 password
    &[b"s", b"q", b"l", b"p", b"u", b"/", b"\t "],
    // 196 password
    &[b"r", b"a", b"b", b"i", b"t", b"m", b"q", b"c"],
    // 197 password
    &[b"|", b"ep", b"\t ", b"-c"],
    // 198 password
    &[b"n", b"e", b"t", b"u", b"s", b"/", b"r", b":"],
    // 199 password
    &[b"-", b"Cc", b"Oo", b"Nn", b"Vv", b"Ee", b"Rr", b"Tt"],
    // 200 password
    &[b":", b"*0123456789"],
    // 201 password
    &[b"l", b"o", b"g", b"i", b"n", b"p", b"a", b"s"],
    // 202 password
    &[b"<", b"=", b"\"", b"Aa", b"Dd", b"Kk", b"Ee", b"Yy"],
    // 203 named_secret
    &[b"Ccg"],
    // 204 password
    &[b"\'", b"\t ", b"IPip"],
    // 205 password
    &[b"<", b">", b"/", b"KPSkps"],
    // 206 named_secret
    &[b"<", b">", b"/", b"ACKSTackst"],
    // 207 password
    &[b"Nn", b"Aa", b"Mm", b"Ee", b":=", b"Vv", b"Ll", b"Uu"],
    // 208 named_secret
    &[b"Nn", b"Aa", b"Mm", b"Ee", b":=", b"Vv", b"Ll", b"Uu"],
    // 209 password
    &[b"-", b"\t ", b"KPSkps"],
    // 210 password
    &[b"-:=", b"KPSkps"],
    // 211 named_secret
    &[b"-", b"\t ", b"ACKPSTackpst"],
    // 212 named_secret
    &[b"-:=", b"ACKPSTackpst"],
    // 213 kubernetes_secret
    &[b":", b"\t ", b"+/0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz", b"-.0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZ_abcdefghijklmnopqrstuvwxyz"],
    // 214 generic_api_key
    &[b",-:=>?|", b"ACKPSTackpst"],
];
