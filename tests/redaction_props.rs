//! Property tests of the redactor: a generated secret of each family, inserted anywhere in
//! generated text, plain or encoded (base64, URL-safe base64, percent-encoded, JSON-escaped
//! once or twice, `\u`-escaped), never survives, and a second copy of it anywhere is redacted
//! too; redaction is idempotent; any text redacts
//! without panicking to valid UTF-8; valid JSON stays valid JSON.

use std::collections::BTreeMap;

use denials_exporter::redact::Redactor;
use proptest::prelude::*;
use std::sync::OnceLock;

fn redactor() -> &'static Redactor {
    static R: OnceLock<Redactor> = OnceLock::new();
    R.get_or_init(Redactor::new)
}

fn redact(text: &str) -> String {
    redactor().redact(text, &mut BTreeMap::new()).into_owned()
}

/// (secret, the text that carries it): a token format, a CLI password or a generic assignment.
fn secret() -> impl Strategy<Value = (String, String)> {
    let token = |prefix: &'static str, body: &'static str| {
        body.prop_map(move |b| {
            let s = format!("{prefix}{b}");
            (s.clone(), s)
        })
    };
    let password = "[A-Za-z0-9]{6,14}[0-9!@#^*]";
    prop_oneof![
        token("ghp_", "[A-Za-z0-9]{36}"),
        token("gho_", "[A-Za-z0-9]{36}"),
        token("ghs_", "[A-Za-z0-9]{36}"),
        token("github_pat_", "[A-Za-z0-9]{22}_[A-Za-z0-9]{59}"),
        token("glpat-", "[A-Za-z0-9_-]{20}"),
        token("xoxb-", "[0-9]{12}-[0-9]{13}-[A-Za-z0-9]{24}"),
        token("sk-ant-api03-", "[A-Za-z0-9_-]{93}AA"),
        token("sk_live_", "[A-Za-z0-9]{24}"),
        token("npm_", "[A-Za-z0-9]{36}"),
        token("AKIA", "[A-Z2-7]{16}"),
        token("ASIA", "[A-Z2-7]{16}"),
        token("AIza", "[A-Za-z0-9_-]{35}"),
        (
            password,
            prop::sample::select(vec![
                "sshpass -p '{}' ssh deploy@host",
                "docker login -u ci -p {} registry.example.com",
                "mysql -uroot -p{} shop",
                "curl -u admin:{} https://ci.example.com",
                "htpasswd -b .htpasswd admin {}",
                "PGPASSWORD={} psql -h db",
                "./run --password={} --fast",
            ])
        )
            .prop_map(|(pw, t)| (pw.clone(), format!(" {} ", t.replace("{}", &pw)))),
        ("[A-Z]{2,8}", "[A-Za-z0-9]{12}", "[A-Za-z0-9]{12}").prop_map(|(name, a, b)| {
            let value = format!("{a}7{b}");
            (value.clone(), format!(" {name}_SECRET={value} "))
        }),
    ]
}

/// What sets a secret apart from the filler around it: a token glued inside a longer word
/// (`TODAYINASIAAS…`) is a word, not a token.
fn sep() -> impl Strategy<Value = &'static str> {
    prop::sample::select(vec![
        " ", "\n", "\t", "/", ":", "=", ",", ";", "(", ")", "'", "\"",
    ])
}

/// Filler text: words, spaces and light punctuation.
fn filler() -> impl Strategy<Value = String> {
    "[a-zA-Z0-9 ./:,=-]{0,40}"
}

#[derive(Clone, Copy, Debug)]
enum Encoding {
    Plain,
    Base64,
    Base64Url,
    Percent,
    JsonOnce,
    JsonTwice,
    JsonUnicode,
}

fn encoding() -> impl Strategy<Value = Encoding> {
    prop::sample::select(vec![
        Encoding::Plain,
        Encoding::Base64,
        Encoding::Base64Url,
        Encoding::Percent,
        Encoding::JsonOnce,
        Encoding::JsonTwice,
        Encoding::JsonUnicode,
    ])
}

fn base64(bytes: &[u8], url: bool) -> String {
    let alphabet: &[u8] = if url {
        b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_"
    } else {
        b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/"
    };
    let mut out = String::new();
    for chunk in bytes.chunks(3) {
        let n = chunk
            .iter()
            .enumerate()
            .fold(0u32, |acc, (i, &b)| acc | u32::from(b) << (16 - 8 * i));
        for i in 0..=chunk.len() {
            out.push(char::from(alphabet[(n >> (18 - 6 * i) & 63) as usize]));
        }
    }
    if !url {
        while out.len() % 4 != 0 {
            out.push('=');
        }
    }
    out
}

/// The carrier text encoded, and the form of the secret that must not survive. Base64 runs
/// are set apart by spaces (a run glued to other base64 characters is not aligned).
fn encode(carrier: &str, secret: &str, how: Encoding) -> (String, Vec<String>) {
    let json = |s: &str| {
        let quoted = serde_json::to_string(s).unwrap();
        quoted[1..quoted.len() - 1].to_string()
    };
    match how {
        Encoding::Plain => (carrier.to_string(), vec![secret.to_string()]),
        Encoding::Base64 | Encoding::Base64Url => {
            let run = base64(carrier.as_bytes(), matches!(how, Encoding::Base64Url));
            (
                format!(" {run} "),
                vec![run.trim_end_matches('=').to_string()],
            )
        }
        Encoding::Percent => {
            let pct: String = carrier.bytes().map(|b| format!("%{b:02X}")).collect();
            let gone = secret.bytes().map(|b| format!("%{b:02X}")).collect();
            (pct, vec![gone])
        }
        Encoding::JsonOnce => (json(carrier), vec![json(secret)]),
        Encoding::JsonTwice => (json(&json(carrier)), vec![json(&json(secret))]),
        Encoding::JsonUnicode => {
            let u: String = carrier
                .chars()
                .map(|c| format!("\\u{:04x}", c as u32))
                .collect();
            let gone = secret
                .chars()
                .map(|c| format!("\\u{:04x}", c as u32))
                .collect();
            (u, vec![gone])
        }
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(512))]

    #[test]
    fn a_secret_never_survives(
        (secret, carrier) in secret(),
        how in encoding(),
        before in filler(),
        after in filler(),
        (left, right) in (sep(), sep()),
    ) {
        let (encoded, gone) = encode(&carrier, &secret, how);
        let text = format!("{before}{left}{encoded}{right}{after}");
        let out = redact(&text);
        prop_assert!(!out.contains(&secret), "secret survived:\n in: {text}\nout: {out}");
        for form in gone {
            prop_assert!(!out.contains(&form), "encoded secret survived:\n in: {text}\nout: {out}");
        }
        prop_assert_eq!(redact(&out), out.clone(), "not idempotent on {}", text);
    }

    #[test]
    fn a_secret_inserted_twice_is_redacted_twice(
        (secret, carrier) in secret(),
        how in prop::sample::select(vec![Encoding::Plain, Encoding::Percent, Encoding::JsonOnce, Encoding::JsonUnicode]),
        (before, middle, after) in (filler(), filler(), filler()),
        (a, b, c, d) in (sep(), sep(), sep(), sep()),
    ) {
        // The second copy is the bare value, plain or encoded: found because the first was.
        let (copy, gone) = encode(&secret, &secret, how);
        let text = format!("{before}{a}{carrier}{b}{middle}{c}{copy}{d}{after}");
        let out = redact(&text);
        prop_assert!(!out.contains(&secret), "a copy survived:\n in: {text}\nout: {out}");
        for form in gone {
            prop_assert!(!out.contains(&form), "an encoded copy survived:\n in: {text}\nout: {out}");
        }
        prop_assert!(out.matches("[REDACTED:").count() >= 2, "not redacted twice:\n in: {text}\nout: {out}");
    }

    #[test]
    fn any_text_redacts_to_utf8_and_twice_is_once(text in "\\PC{0,200}") {
        let once = redact(&text);
        prop_assert!(std::str::from_utf8(once.as_bytes()).is_ok());
        prop_assert_eq!(redact(&once), once.clone());
    }

    #[test]
    fn json_stays_json(
        (secret, carrier) in secret(),
        before in filler(),
        after in filler(),
        nest in any::<bool>(),
        (left, right) in (sep(), sep()),
    ) {
        let command = format!("{before}{left}{carrier}{right}{after}");
        let inner = serde_json::json!({ "command": command, "description": after });
        let value = if nest {
            serde_json::json!({ "tool_input": inner.to_string(), "id": "toolu_01A2b3C4d5E6f7G8h9J0kLmN" })
        } else {
            inner
        };
        let text = value.to_string();
        let out = redact(&text);
        prop_assert!(serde_json::from_str::<serde_json::Value>(&out).is_ok(), "invalid JSON:\n in: {text}\nout: {out}");
        prop_assert!(!out.contains(&secret), "secret survived:\n in: {text}\nout: {out}");
    }
}
