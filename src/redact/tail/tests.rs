//! Holds every rule's tail to its pattern: wherever the pattern matches (from every start, over
//! the redaction corpus, the scanner corpus, generated assignments and adversarial texts), one
//! of the rule's anchors occurs inside the match where the tail matches, by its own regex and by
//! the DFA the engine runs. A tail that ever dropped a match fails here.

use std::collections::BTreeMap;

use regex_automata::{Anchored, Input};

use super::Tail;
use crate::redact::compile::{build_bytes_regex, build_nfa, parse};
use crate::redact::engine::{prepared_rules, ran};
use crate::redact::prefilter::Prefilter;
use crate::redact::rules::Lead;
use crate::redact::{search_with_dfa_on_this_thread, Redactor};

/// The texts of the redaction corpus and of the scanner corpus, each also JSON-escaped.
fn corpus() -> Vec<String> {
    let root = env!("CARGO_MANIFEST_DIR");
    let mut texts: Vec<String> = ["positives.txt", "negatives.txt"]
        .iter()
        .flat_map(|name| {
            std::fs::read_to_string(format!("{root}/tests/data/redaction/{name}"))
                .unwrap()
                .lines()
                .filter(|line| !line.starts_with('#'))
                .map(|line| line.rsplit('\t').next().unwrap().to_string())
                .collect::<Vec<_>>()
        })
        .collect();
    let scanners =
        std::fs::read_to_string(format!("{root}/tests/data/scanners/scanners.jsonl")).unwrap();
    texts.extend(scanners.lines().filter_map(|line| {
        let case: serde_json::Value = serde_json::from_str(line).unwrap();
        case.get("text")?.as_str().map(str::to_string)
    }));
    let escaped: Vec<String> = texts
        .iter()
        .map(|text| {
            let json = serde_json::to_string(text).unwrap();
            json[1..json.len() - 1].to_string()
        })
        .collect();
    texts.extend(escaped);
    texts
}

/// Assignments built from the pieces the tails read, in every combination a small generator
/// reaches: names around a key word (any case), quotes, every separator, values of every
/// class and length around the bounds, and what follows.
fn generated() -> Vec<String> {
    const WORDS: &[&str] = &[
        "access",
        "auth",
        "api",
        "Api",
        "API",
        "aPi",
        "credential",
        "credentials",
        "creds",
        "key",
        "KEY",
        "passwd",
        "password",
        "PassWord",
        "secret",
        "token",
        "Token",
        "pass",
        "pw",
        "Pw",
        "pwd",
        "storepass",
        "keypass",
        "passphrase",
        "apikey",
        "accesskey",
        "privatekey",
        "Auth",
        "Key",
    ];
    const BEFORE: &[&str] = &[
        "", "my_", "X-", "a.b.", "\\n", " ", "\"", "env[\"", "/", "-", "--",
    ];
    const AFTER: &[&str] = &[
        "",
        "_id",
        "s",
        "Name",
        " x",
        "\t",
        "_file_name_is_long_",
        "\\\"",
        "\"]",
        "'",
    ];
    const SEPS: &[&str] = &[
        "=",
        ":",
        "=>",
        ":=",
        "::=",
        ":::=",
        "||",
        "?=",
        ",",
        " - ",
        "\t-\t",
        ">",
        " = ",
        ": ",
        ": str = ",
        ": &Vec<u8> = ",
        "\\\":\\\"",
        "\":\"",
        "='",
        "=\"",
        " ",
        "-",
    ];
    const VALUES: &[&str] = &[
        "abcdefgh",
        "abcdefghij",
        "Zq3xV9pL2mN8rT5wY7uK1",
        "m{{h}o)p${e]x",
        "a b c d e f",
        "'quoted value 1'",
        "\"dq value 12\"",
        "aGVsbG8gd29ybGQ=",
        "0123456789abcdef0123",
        "x/y/z/aaaaaaaaaa",
        "short",
        "$TOKEN",
        "<password>",
        "***",
        "abc\\\"def",
        "eyJhbGciOiJIUzI1NiJ9",
        "A1b2C3d4E5f6G7h8",
        "a-b_c.d=e+f/g",
    ];
    const ENDS: &[&str] = &[
        "", " ", "\n", "\\n", "\"", "'", ";", ")", ",", ".", "&&", "x",
    ];
    let mut state = 0x2545_F491_4F6C_DD1Du64;
    let mut pick = |n: usize| {
        state ^= state << 13;
        state ^= state >> 7;
        state ^= state << 17;
        (state % n as u64) as usize
    };
    (0..20_000)
        .map(|_| {
            let mut text = String::new();
            for _ in 0..1 + pick(2) {
                for part in [BEFORE, WORDS, AFTER, SEPS, VALUES, ENDS] {
                    text.push_str(part[pick(part.len())]);
                }
            }
            text
        })
        .collect()
}

/// Texts made to sit on a tail's edges: a key word at the very start or end, a name of exactly
/// 20 more characters, values at their length bounds, words inside words, escapes, markers.
fn adversarial() -> Vec<String> {
    [
        "PreToolUse hook protect-secrets denied: infra/terraform/prod.tfvars",
        "hook protect-secrets denied: 'rm -rf build'",
        "api_key_with_twenty_chars = 'abcdefgh'",
        "api_key_with_twenty_char1 = 'abcdefgh'",
        "key12345678901234567890='abcdefgh'",
        "key123456789012345678901='abcdefgh'",
        "storepass=Zq3xV9pL2mN8",
        "-keypass 'Zq3xV9pL2mN8'",
        "environ[\"SECRET\"] = 'Zq3xV9pL2mN8'",
        "MY_API_KEY - 'Zq3xV9pL2mN8rT5'",
        "token: &'static str = \"Zq3xV9pL2mN8\"",
        "{\\\"api_key\\\":\\\"Zq3xV9pL2mN8rT5wY\\\"}",
        "AUTH=Zq3xV9pL2mN8rT5wY7uK1",
        "a=b key",
        "key",
        "=key=Zq3xV9pL2mN8rT5wY7uK1",
        "passwordpassword=passwordpassword",
        "[REDACTED:password] = Zq3xV9pL2mN8",
        "secret\u{e9}=Zq3xV9pL2mN8rT5wY7uK1",
        "T\u{f6}ken: 'Zq3xV9pL2mN8rT5wY7uK1'",
    ]
    .iter()
    .map(|s| s.to_string())
    .collect()
}

#[test]
fn a_tail_matches_where_its_pattern_does() {
    let texts: Vec<String> = [corpus(), generated(), adversarial()].concat();
    assert!(texts.len() > 30_000, "the corpora are there");
    let mut tails = 0;
    let mut checked = 0usize;
    for rule in prepared_rules() {
        let Some(tail_pattern) = &rule.tail else {
            continue;
        };
        tails += 1;
        let pattern = build_bytes_regex(&parse(&rule.pattern));
        let tail_regex = build_bytes_regex(&parse(tail_pattern));
        // Built as the engine builds it: a pattern that is its own tail shares its NFA.
        let tail = match rule.lead {
            Lead::At(_) => Tail::of_nfa(build_nfa(&parse(tail_pattern))),
            Lead::Name(_) => Tail::new(tail_pattern),
        }
        .expect("a tail's DFA fits its cache");
        let prefilter = Prefilter::new(std::slice::from_ref(&rule.anchors));
        let mut occurrences = Vec::new();
        for text in &texts {
            let bytes = text.as_bytes();
            prefilter
                .candidates(text, Some(&mut occurrences))
                .for_each(drop);
            let anchors: Vec<usize> = prefilter.starts_of(&occurrences, 0).collect();
            let tried = anchors.iter().flat_map(|&anchor| rule.lead.tried(anchor));
            let heads = tail.matches_at(bytes, tried).expect("the DFA held");
            // Every match the engine's loop can meet: the leftmost from each start (one search
            // per match: from every start up to a match's own, the same match is found).
            let mut at = 0;
            while at <= bytes.len() {
                let Some(found) = pattern.search(&Input::new(bytes).range(at..)) else {
                    break;
                };
                let inside = anchors
                    .iter()
                    .filter(|&&q| found.start() <= q && q < found.end())
                    .flat_map(|&q| rule.lead.tried(q));
                let by_regex = inside.clone().any(|q| {
                    let input = Input::new(bytes).range(q..).anchored(Anchored::Yes);
                    tail_regex.search(&input).is_some()
                });
                let what = &text[found.range()];
                assert!(by_regex, "{}: tail misses {what:?} in {text:?}", rule.kind);
                // The engine searches from the lead of the first head at or after its start:
                // the match must start no earlier, from every start up to its own.
                let head = heads.iter().find(|&&head| head >= found.start());
                assert!(
                    head.is_some_and(
                        |&head| head < found.end() && rule.lead.start(bytes, head) <= found.start()
                    ),
                    "{}: heads {heads:?} miss {what:?} at {} in {text:?}",
                    rule.kind,
                    found.start()
                );
                checked += 1;
                at = found.start() + 1;
            }
        }
    }
    assert!(
        tails >= 20,
        "the generic rule, the named assignments and the prefixed formats have tails: {tails}"
    );
    assert!(
        checked > 5_000,
        "the texts hold enough matches to test: {checked}"
    );
}

#[test]
fn a_reason_with_a_key_word_and_no_value_costs_no_search_of_the_generic_rule() {
    let reason = "PreToolUse hook protect-secrets denied: infra/terraform/prod.tfvars";
    let secret = "export API_KEY_FILE_X = 'Zq3xV9pL2mN8rT5wY7uK1' && make";
    let on_thread = |dfa: bool| {
        std::thread::spawn(move || {
            if dfa {
                search_with_dfa_on_this_thread();
            }
            let redactor = Redactor::new();
            let mut tally = BTreeMap::new();
            let shown = redactor.redact(reason, &mut tally).into_owned();
            let ran_on_reason = ran::take();
            let found = redactor.redact(secret, &mut tally).into_owned();
            (shown, ran_on_reason, found, ran::take(), tally)
        })
        .join()
        .unwrap()
    };
    let (shown, ran_on_reason, found, ran_on_secret, tally) = on_thread(true);
    assert_eq!(shown, reason);
    assert!(
        !ran_on_reason.contains(&"generic_api_key"),
        "searched: {ran_on_reason:?}"
    );
    assert!(
        ran_on_secret.contains(&"generic_api_key"),
        "{ran_on_secret:?}"
    );
    // The same output as a thread that asks no tail (`run`'s).
    let (plain_shown, plain_ran, plain_found, _, plain_tally) = on_thread(false);
    assert!(plain_ran.contains(&"generic_api_key"), "{plain_ran:?}");
    assert_eq!(
        (shown, found, tally),
        (plain_shown, plain_found, plain_tally)
    );
}

#[test]
fn the_corpora_redact_the_same_with_and_without_tails() {
    let texts: Vec<String> = [corpus(), adversarial()].concat();
    let redact_all = |dfa: bool, texts: Vec<String>| {
        std::thread::spawn(move || {
            if dfa {
                search_with_dfa_on_this_thread();
            }
            let redactor = Redactor::new();
            let mut tally = BTreeMap::new();
            let out: Vec<String> = texts
                .iter()
                .map(|text| redactor.redact(text, &mut tally).into_owned())
                .collect();
            (out, tally)
        })
        .join()
        .unwrap()
    };
    let with = redact_all(true, texts.clone());
    let without = redact_all(false, texts);
    assert_eq!(with, without);
}
