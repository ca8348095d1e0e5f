//! The scanner corpus (`tests/data/scanners/scanners.jsonl`, written by its `extract.py` from the
//! test strings gitleaks, trufflehog and detect-secrets ship with their rules): each scanner's
//! positives are redacted at least as often as [`MIN_POSITIVES_PCT`] says, and at least
//! [`MIN_READABLE_PCT`] of the false-positive cases come out unchanged, not counting those whose
//! every replaced value is random-looking and given to a credential-named key.
//! Each case goes in as a denial's decision reason (the text itself) and as a tool input (the
//! `command` of a JSON object, escaped), and is judged on what the audit log shows of it: the
//! redacted text cut to [`AUDIT_TEXT_CHARS`]; both must pass. The table also shows the whole texts' rates.
//! Prints a table per source and the cases that fail.
//!
//! A positive is redacted when no secret the scanner reports for it (the part of it the text
//! holds, when the scanner joins several values) is shown, whole or its first 8 characters at
//! the excerpt's end; for a positive the test names no secret of, when the whole text gets a
//! marker.

use std::collections::BTreeMap;

use denials_exporter::redact::Redactor;
use serde_json::Value;

struct Case {
    src: String,
    family: String,
    positive: bool,
    secrets: Vec<String>,
    text: String,
}

fn corpus() -> Vec<Case> {
    let path = format!(
        "{}/tests/data/scanners/scanners.jsonl",
        env!("CARGO_MANIFEST_DIR")
    );
    let data = std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("cannot read {path}: {e}"));
    data.lines()
        .map(|line| serde_json::from_str::<Value>(line).expect("one JSON object a line"))
        .filter(|row| row.get("meta").is_none())
        .map(|row| {
            let s = |key: &str| row[key].as_str().expect("string field").to_string();
            Case {
                src: s("src"),
                family: s("family"),
                positive: row["kind"] == "tp",
                secrets: row["secrets"]
                    .as_array()
                    .expect("secrets")
                    .iter()
                    .map(|v| v.as_str().expect("a secret").to_string())
                    .collect(),
                text: s("text"),
            }
        })
        .collect()
}

/// The pieces of `secret` that must be gone: none when it is only an e-mail address or a host
/// (the account or place a detector reports, [`is_address`]), itself when the text holds it
/// whole, the longest value of a JSON object the text holds, else the longest of its
/// `:`/`;`/`|`/`,`/space-separated parts that the text holds (a scanner may report `id:secret`
/// for an id and a secret found apart; the id may stay). Addresses are never the piece.
fn pieces(secret: &str, text: &str) -> Vec<String> {
    // An account's e-mail address or a host alone names no secret.
    if !secret.contains([':', '/']) && is_address(secret) {
        return Vec::new();
    }
    if text.contains(secret) {
        return vec![secret.to_string()];
    }
    // A detector that reports a JSON object (`{"accountName":…,"accountKey":…}`): its longest
    // value the text holds is the secret, the others (a name, an id) may stay.
    if let Ok(Value::Object(fields)) = serde_json::from_str::<Value>(secret) {
        return fields
            .values()
            .filter_map(Value::as_str)
            .filter(|v| v.len() >= 8 && text.contains(v) && !is_address(v))
            .max_by_key(|v| v.len())
            .map(|v| vec![v.to_string()])
            .unwrap_or_default();
    }
    secret
        .split([':', ';', '|', ',', ' ', '\n'])
        // A URL, a host or an e-mail address joined to the secret is not the secret.
        .filter(|p| !is_address(p))
        .filter(|p| p.len() >= 8 && text.contains(p))
        .max_by_key(|p| p.len())
        .map(|p| vec![p.to_string()])
        .unwrap_or_default()
}

/// Positives redacted, in percent, of each scanner's tests: fails below 98% for each.
const MIN_POSITIVES_PCT: &[(&str, f64)] = &[
    ("gitleaks", 98.0),
    ("trufflehog", 98.0),
    ("detect-secrets", 98.0),
];
/// Families whose positives are no secrets, left out of the rates and shown apart: a public IP
/// address (detect-secrets' `ip_public` plugin) is a host, which the audit stream keeps.
const NOT_SECRETS: &[(&str, &str)] = &[("detect-secrets", "ip_public")];
/// False-positive cases left readable, in percent, not counting those whose every replaced
/// value is random-looking and given to a credential-named key ([`replaced_for_its_name`]):
/// fails below.
///
/// Those are left out on purpose. A random-looking value assigned to a key named as a secret
/// (`Using Key=<32 random characters>`, `secret: <base64>`, `apiKey := "<40 characters>"`) is
/// the generic shape of a secret whatever its vendor; the scanners list some as false positives
/// only for want of their vendor's keyword nearby, of the exact length or of a checksum.
///
/// The goal is 95%; the floor keeps what was reached: 95 of the other cases replaced, 92.4%
/// of 1,255 (a password's tail after `&` is now replaced with it, so three Azure cases join
/// those replaced for their key's name; a vendor's prefix and one lowercase letter over and
/// over is replaced as its uppercase twin was, which gitleaks lists false, `sntryu_aaaa…`, and
/// trufflehog true, `shippo_test_aaaa…`, three cases). A token of an unnamed prefix may hold a second and third word (`sk_live_`), `-`
/// and `_` in its body, or hex after the words: eight cases cost so are random values of a
/// vendor's shape that fail its exact length or checksum, four of them verbatim the secret of
/// a positive of the same scanner (with its keyword beside it). A value of two words or more
/// of its key's own name (`const fastlyKeyToken string = "Fastly-Key"`) is a name, readable.
const MIN_READABLE_PCT: f64 = 92.2;

/// Words of which a key's name holds one when it names a credential, for this test's own
/// reading of a text (the redactor's vocabulary is not used to judge it).
const CREDENTIAL_WORDS: &[&str] = &[
    "password",
    "passwd",
    "pwd",
    "pass",
    "secret",
    "token",
    "key",
    "credential",
    "auth",
];

/// Whether the value at `original[at..]` is given to a credential-named key: the text before it
/// ends with a name holding one of [`CREDENTIAL_WORDS`], then an assignment (`=`, `:`, `:=`,
/// `=>`, ` - `, `|`, a space, ` is `), quotes allowed around either, and an authorization
/// scheme word (`Bearer`) allowed before the value.
fn after_credential_key(original: &str, at: usize) -> bool {
    let quotes: &[char] = &['"', '\'', '`', '\\', ' ', '\t'];
    let mut before = original[..at].trim_end_matches(quotes);
    for scheme in [
        "Bearer", "Basic", "Token", "bearer", "basic", "token", " is",
    ] {
        if let Some(rest) = before.strip_suffix(scheme) {
            before = rest.trim_end_matches(quotes);
        }
    }
    let before = before
        .trim_end_matches(['=', ':', '>', '-', '|'])
        .trim_end_matches(quotes);
    let name = before
        .rsplit(|c: char| !(c.is_ascii_alphanumeric() || matches!(c, '_' | '.' | '-')))
        .next()
        .unwrap_or("")
        .to_ascii_lowercase();
    CREDENTIAL_WORDS.iter().any(|w| name.contains(w))
}

/// The values `redacted` replaced in `original`, with their kinds: what lies between markers
/// is kept as it was, so each marker stands for the text between the kept pieces around it.
fn replaced(original: &str, redacted: &str) -> Vec<(String, String, usize)> {
    let mut kept = Vec::new();
    let mut kinds = Vec::new();
    let mut rest = redacted;
    while let Some(at) = rest.find("[REDACTED:") {
        kept.push(&rest[..at]);
        let close = at + rest[at..].find(']').expect("a marker closes");
        kinds.push(rest[at + 10..close].to_string());
        rest = &rest[close + 1..];
    }
    kept.push(rest);
    let mut out = Vec::new();
    let mut pos = kept[0].len();
    for (i, kind) in kinds.into_iter().enumerate() {
        let next = kept[i + 1];
        let end = if next.is_empty() && i + 2 == kept.len() {
            original.len()
        } else {
            original[pos..]
                .find(next)
                .map_or(original.len(), |at| pos + at)
        };
        out.push((kind, original[pos..end].to_string(), pos));
        pos = end + next.len();
    }
    out
}

/// A value that looks random rather than like a word or a stand-in: 8 characters or more, no
/// whitespace, two kinds of characters or more (lowercase, uppercase, digits, punctuation), and
/// a Shannon entropy of 3 bits a character or more.
fn random_looking(value: &str) -> bool {
    let classes = [
        value.bytes().any(|b| b.is_ascii_lowercase()),
        value.bytes().any(|b| b.is_ascii_uppercase()),
        value.bytes().any(|b| b.is_ascii_digit()),
        value.bytes().any(|b| b.is_ascii_punctuation()),
    ];
    let mut counts = [0u32; 256];
    value.bytes().for_each(|b| counts[usize::from(b)] += 1);
    let entropy: f64 = counts
        .iter()
        .filter(|&&n| n > 0)
        .map(|&n| {
            let p = f64::from(n) / value.len() as f64;
            -p * p.log2()
        })
        .sum();
    value.len() >= 8
        && !value.contains(char::is_whitespace)
        && classes.iter().filter(|&&c| c).count() >= 2
        && entropy >= 3.0
}

/// Whether every replacement `redactor` makes in `text` is a random-looking value given to a
/// credential-named key ([`after_credential_key`]), and there is one.
fn replaced_for_its_name(redactor: &Redactor, text: &str) -> bool {
    let redacted = redactor.redact(text, &mut BTreeMap::new());
    let values = replaced(text, &redacted);
    !values.is_empty()
        && values
            .iter()
            .all(|(_, value, at)| random_looking(value) && after_credential_key(text, *at))
}

#[test]
fn replaced_values_are_read_back() {
    let original = "a=SECRET1 b c=TOKEN2x d";
    let redacted = "a=[REDACTED:password] b c=[REDACTED:named_secret] d";
    assert_eq!(
        replaced(original, redacted),
        [
            ("password".to_string(), "SECRET1".to_string(), 2),
            ("named_secret".to_string(), "TOKEN2x".to_string(), 14)
        ]
    );
    assert!(after_credential_key("api_key = 'x", 11));
    assert!(after_credential_key("Authorization: Bearer x", 22));
    assert!(!after_credential_key("iconfinder = 'x", 14));
    assert!(random_looking("x9Kq2mZ7pL"));
    assert!(!random_looking("expired"));
    assert!(!random_looking("aaaaaaaaaaaa"));
}

/// How many characters of a field an audit record shows (the exporter's audit excerpt length).
const AUDIT_TEXT_CHARS: usize = 240;

/// A URL, a host, an e-mail address or a reference (`$DB_USER`): what a scanner reports beside a
/// secret (the account or place it is for, the name it is read from), which the audit stream
/// keeps.
fn is_address(part: &str) -> bool {
    // A host: lowercase labels of at most 24 characters, a top-level label of letters, a port.
    let name = part.split(':').next().unwrap_or("");
    let host = name.contains('.')
        && name.split('.').all(|l| (1..=24).contains(&l.len()))
        && name
            .bytes()
            .all(|b| b.is_ascii_lowercase() || b.is_ascii_digit() || b"-.".contains(&b))
        && name
            .rsplit('.')
            .next()
            .is_some_and(|tld| tld.bytes().all(|b| b.is_ascii_lowercase()));
    part.starts_with("//") || part.contains('@') || part.starts_with('$') || host
}

/// `text` cut as an audit excerpt is: at most `max` characters, the last one `…` when cut.
fn cut(text: &str, max: usize) -> String {
    if text.chars().count() <= max {
        return text.to_string();
    }
    let mut out: String = text.chars().take(max - 1).collect();
    out.push('…');
    out
}

fn json_command(text: &str) -> String {
    serde_json::json!({ "command": text }).to_string()
}

fn json_escaped(text: &str) -> String {
    let quoted = serde_json::to_string(text).expect("a string serialises");
    quoted[1..quoted.len() - 1].to_string()
}

/// Whether `case` passes: a positive is redacted, a false positive unchanged; in what an audit
/// record shows (`max` = [`AUDIT_TEXT_CHARS`]) or in the whole text (`max` = `usize::MAX`).
fn passes(redactor: &Redactor, case: &Case, max: usize) -> bool {
    let shown = |text: &str| redactor.excerpt(text, max, &mut BTreeMap::new());
    let plain = shown(&case.text);
    let wrapped = json_command(&case.text);
    let json = shown(&wrapped);
    if !case.positive {
        return plain == cut(&case.text, max) && json == cut(&wrapped, max);
    }
    let pieces: Vec<String> = case
        .secrets
        .iter()
        .flat_map(|secret| pieces(secret, &case.text))
        .collect();
    if pieces.is_empty() {
        // The test names no secret: something must be redacted in the whole text.
        let marker = |text: &str| {
            redactor
                .redact(text, &mut BTreeMap::new())
                .contains("[REDACTED:")
        };
        return marker(&case.text) && marker(&wrapped);
    }
    pieces.iter().all(|piece| {
        !leaks(&plain, piece) && !leaks(&json, piece) && !leaks(&json, &json_escaped(piece))
    })
}

/// Whether `shown` (an excerpt) shows `secret`, whole or (cut at the excerpt's end) its first
/// 8 characters or more.
fn leaks(shown: &str, secret: &str) -> bool {
    if shown.contains(secret) {
        return true;
    }
    let Some(body) = shown.strip_suffix('…') else {
        return false;
    };
    (8..secret.len())
        .filter(|&n| secret.is_char_boundary(n))
        .any(|n| body.ends_with(&secret[..n]))
}

/// How many false-positive cases the redactor still replaces differ from one of the same
/// detector's positives by at most one and at most three characters (edits): the scanner tells
/// such a pair apart by an exact length or alphabet, and what the audit stream would show of the
/// false one is all but the positive's secret.
fn near_twins(cases: &[Case], redactor: &Redactor) -> (usize, usize) {
    let mut positives: BTreeMap<(&str, &str), Vec<&[u8]>> = BTreeMap::new();
    for case in cases.iter().filter(|c| c.positive) {
        positives
            .entry((&case.src, &case.family))
            .or_default()
            .push(case.text.as_bytes());
    }
    let (mut one, mut three) = (0, 0);
    for case in cases.iter().filter(|c| !c.positive) {
        if passes(redactor, case, AUDIT_TEXT_CHARS) {
            continue;
        }
        let nearest = positives
            .get(&(case.src.as_str(), case.family.as_str()))
            .into_iter()
            .flatten()
            .map(|twin| edits_within(case.text.as_bytes(), twin, 3))
            .min()
            .unwrap_or(usize::MAX);
        one += usize::from(nearest <= 1);
        three += usize::from(nearest <= 3);
    }
    (one, three)
}

/// The edit distance between `a` and `b` when it is at most `cap`, else `cap + 1` (a band of
/// width `2 * cap + 1` around the diagonal).
fn edits_within(a: &[u8], b: &[u8], cap: usize) -> usize {
    if a.len().abs_diff(b.len()) > cap {
        return cap + 1;
    }
    let far = cap + 1;
    let mut row: Vec<usize> = (0..=b.len()).map(|j| j.min(far)).collect();
    for (i, &x) in a.iter().enumerate() {
        let (lo, hi) = ((i + 1).saturating_sub(cap), (i + 1 + cap).min(b.len()));
        let mut diagonal = row[lo.saturating_sub(1)];
        let mut left = if lo == 0 { (i + 1).min(far) } else { far };
        if lo == 0 {
            diagonal = row[0];
            row[0] = left;
        }
        let mut best = left;
        for j in lo.max(1)..=hi {
            let up = row[j];
            left = (diagonal + usize::from(x != b[j - 1]))
                .min(up + 1)
                .min(left + 1)
                .min(far);
            diagonal = up;
            row[j] = left;
            best = best.min(left);
        }
        if hi < b.len() {
            row[hi + 1] = far;
        }
        if best >= far {
            return far;
        }
    }
    row[b.len()].min(far)
}

#[test]
fn edit_distance_within_a_band() {
    assert_eq!(edits_within(b"kitten", b"sitting", 3), 3);
    assert_eq!(edits_within(b"kitten", b"sitting", 2), 3);
    assert_eq!(edits_within(b"abcdef", b"abcdef", 1), 0);
    assert_eq!(edits_within(b"abcdef", b"abXdef", 1), 1);
    assert_eq!(edits_within(b"abcdef", b"abdef", 1), 1);
    assert_eq!(edits_within(b"abcdef", b"fedcba", 3), 4);
    assert_eq!(edits_within(b"", b"ab", 3), 2);
    // Against the full table, over every pair of strings of up to five letters `a`/`b`.
    let words: Vec<Vec<u8>> = (0..=5)
        .flat_map(|n| {
            (0..1usize << n).map(move |bits| (0..n).map(|k| b'a' + (bits >> k & 1) as u8).collect())
        })
        .collect();
    for a in &words {
        for b in &words {
            let mut row: Vec<usize> = (0..=b.len()).collect();
            for (i, &x) in a.iter().enumerate() {
                let mut next = vec![i + 1];
                for (j, &y) in b.iter().enumerate() {
                    next.push(
                        (row[j] + usize::from(x != y))
                            .min(row[j + 1] + 1)
                            .min(next[j] + 1),
                    );
                }
                row = next;
            }
            for cap in 0..4 {
                assert_eq!(
                    edits_within(a, b, cap),
                    row[b.len()].min(cap + 1),
                    "{a:?} {b:?} {cap}"
                );
            }
        }
    }
}

#[test]
fn scanner_corpus_meets_its_targets() {
    let redactor = Redactor::new();
    let cases = corpus();
    // (src, positive) -> (passed in the audit excerpt, passed in the whole text, total)
    let mut table: BTreeMap<(String, bool), (usize, usize, usize)> = BTreeMap::new();
    let mut failed: BTreeMap<bool, Vec<String>> = BTreeMap::new();
    // False-positive cases replaced only for a random value's key name (see `MIN_READABLE_PCT`).
    let mut by_name_cases = 0;
    let mut not_secrets = (0, 0);
    for case in &cases {
        let ok = passes(&redactor, case, AUDIT_TEXT_CHARS);
        if NOT_SECRETS.contains(&(case.src.as_str(), case.family.as_str())) {
            not_secrets.0 += usize::from(ok);
            not_secrets.1 += 1;
            continue;
        }
        let whole = passes(&redactor, case, usize::MAX);
        for src in [case.src.as_str(), "all"] {
            let row = table.entry((src.to_string(), case.positive)).or_default();
            row.0 += usize::from(ok);
            row.1 += usize::from(whole);
            row.2 += 1;
        }
        if !case.positive {
            let by_name = !ok
                && replaced_for_its_name(&redactor, &case.text)
                && replaced_for_its_name(&redactor, &json_command(&case.text));
            by_name_cases += usize::from(by_name);
        }
        if !ok {
            let out = redactor.redact(&case.text, &mut BTreeMap::new());
            failed.entry(case.positive).or_default().push(format!(
                "  [{} {}] {:?}\n    -> {:?}",
                case.src, case.family, case.text, out
            ));
        }
    }
    println!("| source | positives redacted | false positives left readable | whole texts: positives, false positives |");
    println!("| --- | ---: | ---: | ---: |");
    let rate = |passed: usize, total: usize| 100.0 * passed as f64 / total.max(1) as f64;
    for src in ["gitleaks", "trufflehog", "detect-secrets", "all"] {
        let tp = table[&(src.to_string(), true)];
        let fp = table[&(src.to_string(), false)];
        println!(
            "| {src} | {}/{} = {:.1}% | {}/{} = {:.1}% | {:.1}%, {:.1}% |",
            tp.0,
            tp.2,
            rate(tp.0, tp.2),
            fp.0,
            fp.2,
            rate(fp.0, fp.2),
            rate(tp.1, tp.2),
            rate(fp.1, fp.2)
        );
    }
    for (positive, list) in &failed {
        let what = if *positive {
            "positives missed"
        } else {
            "false positives redacted"
        };
        println!("{} {what}:\n{}", list.len(), list.join("\n"));
    }
    let fp = table[&("all".to_string(), false)];
    let readable = rate(fp.0, fp.2 - by_name_cases);
    let (one, three) = near_twins(&cases, &redactor);
    println!(
        "false positives still replaced that differ from one of the same detector's positives by \
         at most one character: {one}; at most three: {three}"
    );
    println!(
        "false positives replaced only for a random value's credential-named key: {by_name_cases}; \
         left readable among the other {}: {}/{} = {readable:.1}%",
        fp.2 - by_name_cases,
        fp.0,
        fp.2 - by_name_cases,
    );
    println!(
        "left out as no secrets ({NOT_SECRETS:?}): {} cases, {} of them as the scanner wants",
        not_secrets.1, not_secrets.0
    );
    for &(src, min) in MIN_POSITIVES_PCT {
        let tp = table[&(src.to_string(), true)];
        let pct = rate(tp.0, tp.2);
        assert!(pct >= min, "only {pct:.2}% of {src}'s positives redacted");
    }
    assert!(
        readable >= MIN_READABLE_PCT,
        "only {readable:.2}% of the scanners' false positives (not replaced for a key's name) left readable"
    );
}

/// The false-positive cases still redacted (other than random values replaced for their key's
/// name), each with what its plain and JSON forms become, grouped by the rules that fire: `cargo test --test redaction_scanners -- --ignored --nocapture`.
#[test]
#[ignore = "a listing for tuning the rules, not a check"]
fn list_redacted_false_positives() {
    let redactor = Redactor::new();
    let mut groups: BTreeMap<String, Vec<String>> = BTreeMap::new();
    for case in corpus().iter().filter(|c| !c.positive) {
        if passes(&redactor, case, AUDIT_TEXT_CHARS)
            || (replaced_for_its_name(&redactor, &case.text)
                && replaced_for_its_name(&redactor, &json_command(&case.text)))
        {
            continue;
        }
        let plain = redactor
            .redact(&case.text, &mut BTreeMap::new())
            .to_string();
        let wrapped = json_command(&case.text);
        let json = redactor.redact(&wrapped, &mut BTreeMap::new()).to_string();
        let kinds: std::collections::BTreeSet<&str> = [plain.as_str(), json.as_str()]
            .iter()
            .flat_map(|t| t.match_indices("[REDACTED:").map(|(at, _)| &t[at + 10..]))
            .map(|rest| &rest[..rest.find(']').unwrap_or(rest.len())])
            .collect();
        let key = kinds.into_iter().collect::<Vec<_>>().join("+");
        groups.entry(key).or_default().push(format!(
            "  [{} {}] {:?}\n    plain -> {:?}\n    json  -> {}\n    values: {:?}",
            case.src,
            case.family,
            case.text,
            plain,
            json,
            replaced(&case.text, &plain)
        ));
    }
    for (key, list) in &groups {
        println!("== {key}: {}\n{}", list.len(), list.join("\n"));
    }
}
