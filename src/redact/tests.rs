//! Unit tests of the redactor over the table in `cases`: every positive redacted with its kind
//! and readable part kept, every negative unchanged, idempotency, kinds, and the label policy.

use std::borrow::Cow;
use std::collections::BTreeMap;
use std::sync::OnceLock;

use super::spans::marker_spans;
use super::Redactor;
use cases::*;

mod cases;

fn redactor() -> &'static Redactor {
    static REDACTOR: OnceLock<Redactor> = OnceLock::new();
    REDACTOR.get_or_init(Redactor::new)
}

fn run(text: &str) -> (String, BTreeMap<String, u64>) {
    let mut tally = BTreeMap::new();
    let out = redactor().redact(text, &mut tally).into_owned();
    (out, tally)
}

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
    for index in 0..r.engine.rules().count() {
        r.engine.matcher().regex(index);
    }
    // Building the matcher derived each rule's anchors where it names none, or refused it.
    for rule in r.engine.rules() {
        let p = &rule.pattern;
        let bytes = p.as_bytes();
        for i in 1..bytes.len() {
            // An unescaped `\w` or `\d` would be Unicode-wide.
            if matches!(bytes[i], b'w' | b'd') && bytes[i - 1] == b'\\' {
                let escapes = bytes[..i].iter().rev().take_while(|&&b| b == b'\\').count();
                assert!(escapes % 2 == 0, "Unicode class in {} rule: {p}", rule.kind);
            }
        }
    }
}

#[test]
fn every_match_holds_one_of_its_rules_anchors() {
    // A rule runs only on a text holding one of its anchors: a match in a text without one
    // would be a secret left in place. Every text here, in every case variant, and every rule.
    let mut texts: Vec<String> = positive_cases().into_iter().map(|c| c.input).collect();
    texts.extend(NEGATIVE.iter().map(|s| s.to_string()));
    let dir = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/data/redaction");
    for name in ["positives.txt", "negatives.txt"] {
        let file = std::fs::read_to_string(format!("{dir}/{name}")).expect("corpus file");
        // `SECRET<TAB>TEXT` or `TEXT` a line; `#` starts a comment.
        let lines = file
            .lines()
            .filter(|l| !l.is_empty() && !l.starts_with('#'));
        texts.extend(lines.map(|l| l.rsplit('\t').next().unwrap_or(l).to_string()));
    }
    let variants: Vec<String> = texts
        .iter()
        .flat_map(|t| [t.to_ascii_uppercase(), t.to_ascii_lowercase()])
        .collect();
    texts.extend(variants);
    let matcher = redactor().engine.matcher();
    let compile = crate::matcher::compile;
    // Each rule's match test: its `requires`, then its pattern (inside its scope, if it has one).
    let rules: Vec<_> = redactor()
        .engine
        .rules()
        .enumerate()
        .map(|(index, rule)| {
            let requires = rule
                .requires
                .map(|r| compile(&super::rules::word_boundaries(r)));
            let scope = rule.scope.as_deref().map(compile);
            (index, rule.kind, requires, scope)
        })
        .collect();
    let mut missed = Vec::new();
    for text in &texts {
        let bytes = text.as_bytes();
        let candidates = matcher.candidates(bytes);
        for (index, kind, requires, scope) in &rules {
            let matches = || {
                requires.as_ref().is_none_or(|r| r.is_match(bytes))
                    && scope.as_ref().map_or_else(
                        || matcher.regex(*index).is_match(bytes),
                        |s| s.is_match(bytes),
                    )
            };
            if !candidates.contains(index) && matches() {
                missed.push(format!("{kind}: {text}"));
            }
        }
    }
    assert!(
        missed.is_empty(),
        "matches without an anchor:\n{}",
        missed.join("\n")
    );
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

#[test]
fn label_values_holding_a_secret_become_the_fixed_marker() {
    let token = format!("ghp_{}", fake(AN, 36));
    let r = redactor();
    for value in [
        format!("mcp__x__send_{token}"),
        format!("/tmp/{token}/out.log"),
        format!("exec_{token}"),
    ] {
        assert_eq!(r.label_value(&value), super::REDACTED_LABEL, "{value}");
        assert!(r.contains_secret(&value));
    }
    for value in [
        "mcp__github__create_issue",
        "Bash",
        "toolu_01A2b3C4d5E6f7G8h9J0kLmN",
        "exec_01HZX3K9M2N4P5Q6R7S8T9V0W1",
        "/home/dev/project/src/main.rs",
        "9fceb02d0ae598e95dc970b74767f19372d61af8",
    ] {
        assert_eq!(r.label_value(value), value);
        assert!(!r.contains_secret(value));
    }
}

#[test]
fn excerpt_redacts_before_it_cuts() {
    let token = format!("ghp_{}", fake(AN, 36));
    let text = format!("deploy with {token} now");
    let r = redactor();
    let mut tally = BTreeMap::new();
    // A cut inside the token: neither the token nor its first part may show.
    for max in [14, 16, 20, 30] {
        let out = r.excerpt(&text, max, &mut tally);
        assert!(!out.contains("ghp_"), "{max}: {out}");
        assert!(out.chars().count() <= max, "{max}: {out}");
        assert!(
            !out.contains("[REDACTED:gith"),
            "a cut marker is dropped whole: {out}"
        );
    }
    assert_eq!(tally["github_token"], 4);
    let out = r.excerpt(&text, 100, &mut BTreeMap::new());
    assert_eq!(out, "deploy with [REDACTED:github_token] now");
    assert_eq!(r.excerpt(&text, 0, &mut BTreeMap::new()), "");
    assert_eq!(r.excerpt("héllo wörld", 6, &mut BTreeMap::new()), "héllo…");
}

#[test]
fn secrets_in_encodings_are_replaced_where_they_sit() {
    let token = format!("ghp_{}", fake(AN, 36));
    let pct: String = token.bytes().map(|b| format!("%{b:02X}")).collect();
    let (out, tally) = run(&format!("open https://x.example.com/?t={pct}&page=2"));
    assert_eq!(
        out,
        "open https://x.example.com/?t=[REDACTED:github_token]&page=2"
    );
    assert_eq!(tally["github_token"], 1);
    let escaped: String = token
        .chars()
        .map(|c| format!("\\u{:04x}", c as u32))
        .collect();
    let (out, _) = run(&format!(r#"{{"command":"echo {escaped}"}}"#));
    assert_eq!(out, r#"{"command":"echo [REDACTED:github_token]"}"#);
}

#[test]
fn made_up_and_cut_short_values_stay_readable_and_real_ones_do_not() {
    // Values that say they were made up, open with `=`/`@`, or are a prefix cut short.
    for text in [
        "deepseek.key = sk-abc123invalid",
        r#"salesforce_key = "invalid-key-format""#,
        "webex token - 'redirect_url_mismatch'",
        r#"token := "hvb.shorttoken""#,
        "mattermost key = '=2rgfqdg7xpzbq0nmj8l68gmuz'",
        "sonarcloud token = '@hxrxxgxtcjxj7ta3dn33c5r5i2h0i6cqjv9kwkye'",
        "[DEBUG] braintrust_key=sk-1234",
        "[DEBUG] token=spu-1234",
        "typeform_token = 'tfp_1'",
    ] {
        assert_eq!(run(text).0, text, "{text}");
    }
    // The same places with a value that could be issued; and a password may be anything.
    for (text, secret) in [
        (
            "mattermost key = 'e2rgfqdg7xpzbq0nmj8l68gmuz'",
            "e2rgfqdg7xpzbq0nmj8l68gmuz",
        ),
        ("[DEBUG] token=spu-3F10194CA38", "spu-3F10194CA38"),
        ("mockaroo token = 'mlm9iqkm'", "mlm9iqkm"),
        ("db_password = '@hxr7ta3dn33c5r5'", "@hxr7ta3dn33c5r5"),
        ("PASSWORD=shortpass99", "shortpass99"),
    ] {
        let out = run(text).0;
        assert!(!out.contains(secret), "{text} -> {out}");
    }
}

/// A JWT signed with a secret jwt.io publishes is redacted like any other: a server left on
/// that default secret accepts it, and its claims may name people.
#[test]
fn jwts_signed_with_a_published_secret_are_redacted_too() {
    use base64::engine::general_purpose::URL_SAFE_NO_PAD;
    use base64::Engine;
    use ring::hmac;
    let token = |secret: &[u8]| {
        let signed = format!(
            "{}.{}",
            URL_SAFE_NO_PAD.encode(r#"{"alg":"HS256","typ":"JWT"}"#),
            URL_SAFE_NO_PAD.encode(r#"{"sub":"svc-deploy","scope":"write","iat":1735689600}"#)
        );
        let tag = hmac::sign(
            &hmac::Key::new(hmac::HMAC_SHA256, secret),
            signed.as_bytes(),
        );
        format!("{signed}.{}", URL_SAFE_NO_PAD.encode(tag.as_ref()))
    };
    let example = token(b"your-256-bit-secret");
    let (out, _) = run(&format!("jwt.io shows {example} in its debugger"));
    assert_eq!(out, "jwt.io shows [REDACTED:jwt] in its debugger");
    let private = token(b"k8s-prod-3b9f1c7e2a");
    let (out, _) = run(&format!("jwt.io shows {private} in its debugger"));
    assert_eq!(out, "jwt.io shows [REDACTED:jwt] in its debugger");
}
