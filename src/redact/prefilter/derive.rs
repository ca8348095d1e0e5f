//! Derives a rule's anchors from its pattern: the literals every match contains, and how far
//! before them a match may start. Test-only: the derivation parses each pattern, so the tests
//! here write what it finds for the default rules to `rules::DERIVED_ANCHORS` and hold that
//! table to the patterns, and a redactor reads the table.

use regex_syntax::hir::literal::{ExtractKind, Extractor};

use super::minimise;

/// Anchors shorter than this would make a rule run on almost every text.
const MIN_ANCHOR_BYTES: usize = 2;

/// The literals every match of `pattern` contains: its prefix literals, else its suffix
/// literals, lowercased and deduplicated; `None` when neither set is finite and long enough.
/// With them, when they are prefixes, how many bytes at most a match starts before the anchor
/// it begins with (`\nghp_…` starts two bytes before `ghp_`).
fn derive_anchors_and_lead(pattern: &str) -> Option<(Vec<String>, Option<usize>)> {
    let hir = regex_syntax::ParserBuilder::new()
        .build()
        .parse(pattern)
        .ok()?;
    [ExtractKind::Prefix, ExtractKind::Suffix]
        .into_iter()
        .find_map(|kind| {
            let prefixes = matches!(kind, ExtractKind::Prefix);
            let seq = Extractor::new().kind(kind).extract(&hir);
            let literals: Vec<String> = seq
                .literals()?
                .iter()
                .map(|lit| String::from_utf8_lossy(lit.as_bytes()).to_ascii_lowercase())
                .collect();
            let mut anchors = literals.clone();
            minimise(&mut anchors);
            let usable =
                !anchors.is_empty() && anchors.iter().all(|a| a.trim().len() >= MIN_ANCHOR_BYTES);
            if !usable {
                return None;
            }
            let lead = prefixes
                .then(|| {
                    literals
                        .iter()
                        .map(|lit| anchor_offset(&anchors, lit))
                        .try_fold(0, |most, at| Some(most.max(at?)))
                })
                .flatten();
            Some((anchors, lead))
        })
}

/// Most bytes a literal may hold before the anchor it begins with, for its rule to start at
/// its anchors (a `\\n` escape before a token is two).
const MAX_LEAD: usize = 3;

/// Where in `literal` the first of `anchors` (sorted, none a prefix of another, as
/// [`super::minimise`] leaves them) begins, if within [`MAX_LEAD`] bytes. At most one anchor starts
/// any one place: the greatest not after the rest of the literal there.
fn anchor_offset(anchors: &[String], literal: &str) -> Option<usize> {
    (0..=MAX_LEAD.min(literal.len())).find(|&at| {
        let rest = literal.get(at..).unwrap_or_default();
        let after = anchors.partition_point(|a| a.as_str() <= rest);
        after > 0 && rest.starts_with(anchors[after - 1].as_str())
    })
}

/// `rules::DERIVED_ANCHORS` as [`derive_anchors_and_lead`] derives it from the default rules
/// that name no anchors, as Rust source.
fn anchor_table_source() -> String {
    crate::redact::tests::rule_table_source(
        concat!(
            "//! Generated: the anchors derived from each default rule's pattern, in\n",
            "//! `super::default_rules()` order, as `prefilter::derive` finds them. Do not\n",
            "//! edit: `anchor_table_is_current` checks it against the patterns, and\n",
            "//! `REDACT_WRITE_ANCHORS=1 cargo test --lib anchor_table_is_current` writes it again.\n",
            "\n",
            "/// Each rule's derived anchors (lowercase) and, when they are prefixes, how many bytes at most\n",
            "/// a match starts before the one it begins with; by rule index. A rule that names its\n",
            "/// anchors has none here.\n",
            "#[rustfmt::skip]\n",
            "pub(in crate::redact) const DERIVED_ANCHORS: &[(&[&str], Option<usize>)] = &[\n",
        ),
        |rule| {
            let (anchors, lead) = if rule.anchors.is_empty() {
                derive_anchors_and_lead(&rule.pattern).unwrap_or_default()
            } else {
                (Vec::new(), None)
            };
            let anchors: Vec<String> = anchors.iter().map(|a| format!("{a:?}")).collect();
            format!("(&[{}], {lead:?})", anchors.join(", "))
        },
    )
}

mod tests {
    use super::*;

    /// The anchors [`derive_anchors_and_lead`] derives.
    fn derive_anchors(pattern: &str) -> Option<Vec<String>> {
        derive_anchors_and_lead(pattern).map(|(anchors, _)| anchors)
    }

    #[test]
    fn anchor_table_is_current() {
        crate::redact::tests::assert_generated_is_current(
            "src/redact/rules/anchors.rs",
            &anchor_table_source(),
            "REDACT_WRITE_ANCHORS",
            "anchor_table_is_current",
        );
    }

    #[test]
    fn anchors_come_from_prefixes_or_suffixes() {
        let mut got = derive_anchors(r"(?:ghp|gho)_[A-Za-z0-9]{36}").unwrap();
        got.sort();
        assert_eq!(got, vec!["gho_", "ghp_"]);
        assert_eq!(
            derive_anchors(r"[a-f0-9]{32}-us[0-9]").is_none(),
            derive_anchors(r"[a-f0-9]{32}-us").is_none()
        );
        assert!(derive_anchors(r"[a-z]+").is_none());
    }

    #[test]
    fn prefix_anchors_tell_how_far_before_them_a_match_starts() {
        let lead = |pattern| derive_anchors_and_lead(pattern).unwrap().1;
        assert_eq!(lead(r"(?:ghp|gho)_[A-Za-z0-9]{36}"), Some(0));
        assert_eq!(lead(r"(?:(?-u:\b)|\\[nrt])ghp_[A-Za-z0-9]{36}"), Some(2));
        assert_eq!(lead(r"[a-f0-9]{32}-us[0-9]x"), None, "suffixes");
    }
}
