//! A rule's gate: bytes every match of its pattern must contain, checked in one pass over a text
//! before the rule's regex is compiled or run. Random ids, words and prose that hold an anchor by
//! chance (`sk` in `toolu_01…Pskj…`, `pw` in `…PW…`, `secret` in a hook named `protect-secrets`)
//! rarely hold what the pattern needs around it (an `=` or `:` after a key name, an uppercase
//! `SK`, a space before a flag), so they cost neither a compile nor a search.
//!
//! Owns the derivation from a pattern's syntax tree: a literal requires each of its bytes, a class
//! requires one of its bytes, a concatenation requires what each part requires, a repetition what
//! its body requires when it must occur at least once, an alternation one byte of the most
//! selective requirement of each branch (their union). Look-arounds and optional parts require
//! nothing. The gate is sound by construction (a text it refuses has no match); it keeps at most
//! [`MAX_SETS`] of the most selective requirements.
//!
//! Not here: anchors (the `prefilter`, which picks the candidate rules first), compiling or running
//! rules (`engine`).
//!
//! Cost: none to build: the requirements of the default rules are derived ahead of time
//! (`rules::GATES`, checked against the patterns by a test), so a gate is 257 bytes made on a
//! rule's first candidacy, and a check is one table lookup per byte of the text.

#[cfg(test)]
use regex_syntax::hir::{Class, Hir, HirKind};

/// Requirements kept per gate (one bit each in the table).
const MAX_SETS: usize = 8;
/// A requirement with more bytes than this is met by almost any text: not worth a bit.
#[cfg(test)]
const MAX_SET_BYTES: u32 = 128;

// The derivation below runs in tests only: it writes `rules::GATES` and checks it is current.

/// A set of bytes.
#[cfg(test)]
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
struct ByteSet([u64; 4]);

#[cfg(test)]
impl ByteSet {
    const EMPTY: ByteSet = ByteSet([0; 4]);

    fn insert(&mut self, b: u8) {
        self.0[usize::from(b / 64)] |= 1 << (b % 64);
    }

    fn insert_range(&mut self, start: u8, end: u8) {
        for b in start..=end {
            self.insert(b);
        }
    }

    fn contains(&self, b: u8) -> bool {
        self.0[usize::from(b / 64)] & (1 << (b % 64)) != 0
    }

    fn len(&self) -> u32 {
        self.0.iter().map(|w| w.count_ones()).sum()
    }

    fn union(&self, other: &ByteSet) -> ByteSet {
        let mut out = *self;
        for (a, b) in out.0.iter_mut().zip(other.0) {
            *a |= b;
        }
        out
    }

    fn is_subset(&self, other: &ByteSet) -> bool {
        self.0.iter().zip(other.0).all(|(a, b)| a & !b == 0)
    }
}

/// The gate of one rule.
pub(super) struct Gate {
    /// For each byte, the requirements it meets (bit `i`: requirement `i`).
    table: [u8; 256],
    /// All requirement bits.
    all: u8,
}

impl Gate {
    /// The gate that checks `sets` (each a list of bytes, of which a text must hold one).
    pub fn new(sets: &[&[u8]]) -> Gate {
        assert!(sets.len() <= MAX_SETS, "at most {MAX_SETS} requirements");
        let mut table = [0u8; 256];
        for (bit, set) in sets.iter().enumerate() {
            for &b in *set {
                table[usize::from(b)] |= 1 << bit;
            }
        }
        let all = u8::try_from((1u16 << sets.len()) - 1).expect("at most 8 requirements");
        Gate { table, all }
    }

    /// Whether `text` holds every byte requirement, that is, whether the rule may match in it.
    pub fn admits(&self, text: &[u8]) -> bool {
        let mut met = 0u8;
        for &b in text {
            met |= self.table[usize::from(b)];
            if met == self.all {
                return true;
            }
        }
        met == self.all
    }
}

/// The requirements a gate checks for a pattern's syntax tree: at most [`MAX_SETS`] of the
/// most selective byte sets every match hits, each as its sorted bytes. (`rules::GATES` holds
/// them for the default rules, so that no pattern is parsed until its rule is compiled.)
#[cfg(test)]
pub(super) fn requirements(hir: &Hir) -> Vec<Vec<u8>> {
    let mut sets = required(hir);
    sets.retain(|s| s.len() <= MAX_SET_BYTES);
    sets.sort_by_key(ByteSet::len);
    sets.dedup();
    // A set that contains another is met whenever the other is.
    let mut kept: Vec<ByteSet> = Vec::new();
    for set in sets {
        if !kept.iter().any(|k| k.is_subset(&set)) {
            kept.push(set);
        }
    }
    kept.truncate(MAX_SETS);
    kept.iter()
        .map(|set| (0..=255u8).filter(|&b| set.contains(b)).collect())
        .collect()
}

/// Byte sets that every match of `hir` hits, each at least once.
#[cfg(test)]
fn required(hir: &Hir) -> Vec<ByteSet> {
    match hir.kind() {
        HirKind::Empty | HirKind::Look(_) => Vec::new(),
        HirKind::Literal(literal) => literal
            .0
            .iter()
            .map(|&b| {
                let mut set = ByteSet::EMPTY;
                set.insert(b);
                set
            })
            .collect(),
        HirKind::Class(class) => class_set(class).into_iter().collect(),
        HirKind::Repetition(repetition) if repetition.min == 0 => Vec::new(),
        HirKind::Repetition(repetition) => required(&repetition.sub),
        HirKind::Capture(capture) => required(&capture.sub),
        HirKind::Concat(parts) => parts.iter().flat_map(required).collect(),
        HirKind::Alternation(branches) => {
            let mut union = ByteSet::EMPTY;
            for branch in branches {
                let Some(best) = required(branch).into_iter().min_by_key(ByteSet::len) else {
                    return Vec::new(); // a branch that requires nothing
                };
                union = union.union(&best);
            }
            vec![union]
        }
    }
}

/// The bytes a class matches, or `None` when it is not expressible as bytes (a Unicode class
/// beyond ASCII: it requires nothing).
#[cfg(test)]
fn class_set(class: &Class) -> Option<ByteSet> {
    let mut set = ByteSet::EMPTY;
    match class {
        Class::Bytes(bytes) => {
            for range in bytes.iter() {
                set.insert_range(range.start(), range.end());
            }
        }
        Class::Unicode(unicode) => {
            for range in unicode.iter() {
                let (start, end) = (u32::from(range.start()), u32::from(range.end()));
                if end > 0x7F {
                    return None;
                }
                set.insert_range(start as u8, end as u8);
            }
        }
    }
    Some(set)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// `rules::GATES` as [`requirements`] derives it from the default rules, as Rust source.
    fn gate_table_source() -> String {
        crate::redact::tests::rule_table_source(
            concat!(
                "//! Generated: the gate of each default rule, in `super::default_rules()` order: the byte\n",
                "//! sets every match of its pattern hits, as `gate::requirements` derives them. Do not edit:\n",
                "//! `gate_table_is_current` checks it against the patterns, and\n",
                "//! `REDACT_WRITE_GATES=1 cargo test --lib gate_table_is_current` writes it again.\n",
                "\n",
                "/// The byte sets of each rule's gate, by rule index.\n",
                "#[rustfmt::skip]\n",
                "pub(in crate::redact) const GATES: &[&[&[u8]]] = &[\n",
            ),
            |rule| {
                let hir = crate::redact::compile::parse(&rule.pattern);
                let sets: Vec<String> = requirements(&hir)
                    .iter()
                    .map(|set| format!("b\"{}\"", set.escape_ascii()))
                    .collect();
                format!("&[{}]", sets.join(", "))
            },
        )
    }

    #[test]
    fn gate_table_is_current() {
        crate::redact::tests::assert_generated_is_current(
            "src/redact/rules/gates.rs",
            &gate_table_source(),
            "REDACT_WRITE_GATES",
            "gate_table_is_current",
        );
    }

    fn gate(pattern: &str) -> Gate {
        let hir = regex_syntax::ParserBuilder::new()
            .unicode(false)
            .utf8(false)
            .build()
            .parse(pattern)
            .unwrap();
        let sets = requirements(&hir);
        Gate::new(&sets.iter().map(Vec::as_slice).collect::<Vec<_>>())
    }

    fn requirement_count(pattern: &str) -> u32 {
        gate(pattern).all.count_ones()
    }

    #[test]
    fn a_case_sensitive_prefix_needs_its_case() {
        let g = gate(r"\bSK[0-9a-fA-F]{32}\b");
        assert!(!g.admits(b"ask the task runner to check the disk"));
        assert!(
            !g.admits(b"toolu_01tLfz8xt7sbcPAXKM5YTfii"),
            "no uppercase S"
        );
        assert!(g.admits(b"key SK0123456789abcdef0123456789abcdef"));
    }

    #[test]
    fn an_assignment_needs_its_operator() {
        let g = gate(
            r"(?i-u)(?:lob)[0-9a-z_.\t -]{0,20}(?:=|>|:{1,3}=|\|\||:|=>|\?=|,)\s*([a-z0-9]{35})",
        );
        assert!(!g.admits(b"toolu_01LoBMpDQal7HDzPLs3NTl1p"));
        assert!(g.admits(b"LOB_KEY=abc"));
    }

    #[test]
    fn optional_parts_and_look_arounds_require_nothing() {
        assert_eq!(requirement_count(r"(?:^|\s)(?:x)?y*\b"), 0);
        assert!(gate(r"(?:^|\s)(?:x)?y*\b").admits(b""));
    }

    #[test]
    fn an_alternation_requires_one_byte_of_each_branch() {
        let g = gate(r"ab|cd");
        assert!(g.admits(b"a"), "a is the first branch's requirement");
        assert!(g.admits(b"c"));
        assert!(!g.admits(b"bd"), "neither a nor c");
        assert_eq!(
            requirement_count(r"ab|c?"),
            0,
            "a branch that requires nothing"
        );
    }
}
