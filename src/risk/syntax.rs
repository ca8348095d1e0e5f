//! Reads a built-in rule's pattern straight into the syntax tree (`Hir`) the regex compiler
//! takes, for the small part of the regex syntax the rule tables use, without the general
//! parser's intermediate tree of spans, comments and positions.
//!
//! Owns that reading and nothing else. It must give exactly the tree `regex_syntax` gives for the
//! same pattern with Unicode off and invalid UTF-8 allowed (the configuration `engine` compiles
//! with), built through the same `Hir` constructors, which simplify the same way; anything
//! outside its subset (a capture group, a flag other than `i`, a nested class, a hex escape, a
//! non-ASCII byte, a syntax error) is `None`, and the caller parses with `regex_syntax`. A unit
//! test holds every built-in pattern to `regex_syntax`'s tree and to the fast path.
//!
//! Cost: compiling is most of what a short replay spends on classification, and the general
//! parser was two thirds of compiling a rule (about 150,000 instructions of a rule's 225,000 on
//! the generator's log); this reads a pattern in a small fraction of that.

use regex_syntax::hir::{Class, ClassBytes, ClassBytesRange, Dot, Hir, Look, Repetition};

/// The tree of `pattern`, or `None` when it uses syntax this reader leaves to `regex_syntax`.
pub(super) fn parse(pattern: &str) -> Option<Hir> {
    let mut reader = Reader {
        bytes: pattern.as_bytes(),
        at: 0,
        fold: false,
    };
    let hir = reader.alternation()?;
    (reader.at == reader.bytes.len()).then_some(hir)
}

/// What one step of a concatenation reads.
enum Item {
    /// A literal byte that case folding leaves alone.
    Byte(u8),
    Hir(Hir),
    /// A flag directive (`(?i)`): no item.
    Flag,
}

/// Ends a run of literal bytes: one literal item.
fn flush(run: &mut Vec<u8>, items: &mut Vec<Hir>) {
    if !run.is_empty() {
        items.push(Hir::literal(std::mem::take(run)));
    }
}

struct Reader<'p> {
    bytes: &'p [u8],
    at: usize,
    /// The `i` flag: ASCII letters match either case.
    fold: bool,
}

/// The bytes `\s` matches without Unicode: tab, newline, vertical tab, form feed, carriage
/// return, space.
fn space() -> ClassBytes {
    ClassBytes::new([
        ClassBytesRange::new(b'\t', b'\r'),
        ClassBytesRange::new(b' ', b' '),
    ])
}

fn digit() -> ClassBytes {
    ClassBytes::new([ClassBytesRange::new(b'0', b'9')])
}

fn word() -> ClassBytes {
    ClassBytes::new([
        ClassBytesRange::new(b'0', b'9'),
        ClassBytesRange::new(b'A', b'Z'),
        ClassBytesRange::new(b'_', b'_'),
        ClassBytesRange::new(b'a', b'z'),
    ])
}

/// A Perl class escape's class (`\s`, `\S`, `\d`, `\D`, `\w`, `\W`).
fn perl(escape: u8) -> Option<ClassBytes> {
    let mut class = match escape.to_ascii_lowercase() {
        b's' => space(),
        b'd' => digit(),
        b'w' => word(),
        _ => return None,
    };
    if escape.is_ascii_uppercase() {
        class.negate();
    }
    Some(class)
}

/// The byte an escape stands for when it is a literal: a meta character, or `\n`, `\t`, `\r`.
fn escaped_literal(escape: u8) -> Option<u8> {
    match escape {
        b'n' => Some(b'\n'),
        b't' => Some(b'\t'),
        b'r' => Some(b'\r'),
        b'\\' | b'.' | b'+' | b'*' | b'?' | b'(' | b')' | b'|' | b'[' | b']' | b'{' | b'}'
        | b'^' | b'$' | b'#' | b'&' | b'-' | b'~' => Some(escape),
        _ => None,
    }
}

impl Reader<'_> {
    fn peek(&self) -> Option<u8> {
        self.bytes.get(self.at).copied()
    }

    fn eat(&mut self, byte: u8) -> bool {
        let hit = self.peek() == Some(byte);
        self.at += usize::from(hit);
        hit
    }

    fn next(&mut self) -> Option<u8> {
        let byte = self.peek()?;
        self.at += 1;
        Some(byte)
    }

    /// Branches separated by `|`, up to a `)` or the end. Flags set in one branch hold until
    /// the end of the group, as in `regex_syntax`.
    fn alternation(&mut self) -> Option<Hir> {
        let mut branches = vec![self.concat()?];
        while self.eat(b'|') {
            branches.push(self.concat()?);
        }
        Some(if branches.len() == 1 {
            branches.pop().expect("one branch")
        } else {
            Hir::alternation(branches)
        })
    }

    /// Items up to a `|`, a `)` or the end. A run of literal bytes becomes one literal, as
    /// `Hir::concat` would merge them: one node where a node a byte cost an allocation each.
    fn concat(&mut self) -> Option<Hir> {
        let mut items = Vec::new();
        let mut run = Vec::new();
        while let Some(byte) = self.peek() {
            if byte == b'|' || byte == b')' {
                break;
            }
            match self.item()? {
                Item::Byte(byte) if !self.repetition_follows() => run.push(byte),
                Item::Byte(byte) => {
                    flush(&mut run, &mut items);
                    let literal = self.literal(byte);
                    items.push(self.repeated(literal)?);
                }
                Item::Hir(hir) => {
                    flush(&mut run, &mut items);
                    items.push(self.repeated(hir)?);
                }
                Item::Flag => {}
            }
        }
        flush(&mut run, &mut items);
        Some(Hir::concat(items))
    }

    fn repetition_follows(&self) -> bool {
        matches!(self.peek(), Some(b'*' | b'+' | b'?' | b'{'))
    }

    /// One item: a literal byte that needs no case folding, any other tree, or nothing for a
    /// flag directive (`(?i)`).
    fn item(&mut self) -> Option<Item> {
        let byte = self.next()?;
        let hir = match byte {
            b'(' => return self.group(),
            b'[' => self.class()?,
            b'\\' => {
                let escape = self.next()?;
                match escape {
                    b'b' => Hir::look(Look::WordAscii),
                    b'B' => Hir::look(Look::WordAsciiNegate),
                    _ => match perl(escape) {
                        Some(class) => Hir::class(Class::Bytes(class)),
                        None => return Some(self.byte(escaped_literal(escape)?)),
                    },
                }
            }
            b'^' => Hir::look(Look::Start),
            b'$' => Hir::look(Look::End),
            b'.' => Hir::dot(Dot::AnyByteExcept(b'\n')),
            b'*' | b'+' | b'?' | b'{' | b'}' | b']' => return None,
            _ if byte.is_ascii() => return Some(self.byte(byte)),
            _ => return None,
        };
        Some(Item::Hir(hir))
    }

    /// A literal byte as an item: a class of both cases for a letter under the `i` flag.
    fn byte(&self, byte: u8) -> Item {
        if self.fold && byte.is_ascii_alphabetic() {
            Item::Hir(self.literal(byte))
        } else {
            Item::Byte(byte)
        }
    }

    /// A literal byte: with the `i` flag, a class of both cases (one byte when it has none).
    fn literal(&self, byte: u8) -> Hir {
        if !self.fold {
            return Hir::literal([byte]);
        }
        let mut class = ClassBytes::new([ClassBytesRange::new(byte, byte)]);
        class.case_fold_simple();
        Hir::class(Class::Bytes(class))
    }

    /// After `(`: a non-capturing group, optionally with the `i` flag (`(?:…)`, `(?i:…)`), or
    /// the `i` flag for the rest of the enclosing group (`(?i)`).
    fn group(&mut self) -> Option<Item> {
        if !self.eat(b'?') {
            return None; // a capture group
        }
        let fold = self.eat(b'i');
        if fold && self.eat(b')') {
            self.fold = true;
            return Some(Item::Flag);
        }
        if !self.eat(b':') {
            return None;
        }
        let outer = self.fold;
        self.fold |= fold;
        let inner = self.alternation()?;
        self.fold = outer;
        self.eat(b')').then_some(Item::Hir(inner))
    }

    /// The repetition operators after an item, if any (one: `regex_syntax` refuses `a**`).
    fn repeated(&mut self, item: Hir) -> Option<Hir> {
        let (min, max) = match self.peek() {
            Some(b'*') => (0, None),
            Some(b'+') => (1, None),
            Some(b'?') => (0, Some(1)),
            Some(b'{') => {
                self.at += 1;
                let min = self.number()?;
                let max = if self.eat(b',') {
                    if self.peek() == Some(b'}') {
                        None
                    } else {
                        Some(self.number()?)
                    }
                } else {
                    Some(min)
                };
                if self.peek() != Some(b'}') || max.is_some_and(|max| max < min) {
                    return None;
                }
                (min, max)
            }
            _ => return Some(item),
        };
        self.at += 1;
        let greedy = !self.eat(b'?');
        if matches!(self.peek(), Some(b'*' | b'+' | b'?' | b'{')) {
            return None;
        }
        Some(Hir::repetition(Repetition {
            min,
            max,
            greedy,
            sub: Box::new(item),
        }))
    }

    fn number(&mut self) -> Option<u32> {
        let start = self.at;
        while self.peek().is_some_and(|b| b.is_ascii_digit()) {
            self.at += 1;
        }
        let digits = std::str::from_utf8(&self.bytes[start..self.at]).ok()?;
        // Large counts are left to regex_syntax, which limits them.
        digits.parse().ok().filter(|&n| n <= 1000)
    }

    /// After `[`: a bracketed class of bytes, ranges and Perl classes, folded with the `i`
    /// flag, then negated with a leading `^`. Nested classes, set operations and POSIX classes
    /// are left to `regex_syntax`.
    fn class(&mut self) -> Option<Hir> {
        let negated = self.eat(b'^');
        let mut class = ClassBytes::empty();
        let mut first = true;
        loop {
            let byte = self.next()?;
            if byte == b']' && !first {
                break;
            }
            first = false;
            let start = match byte {
                b'[' => return None,
                b'\\' => {
                    let escape = self.next()?;
                    if let Some(perl) = perl(escape) {
                        class.union(&perl);
                        continue;
                    }
                    escaped_literal(escape)?
                }
                b'&' | b'~' | b'-' if self.peek() == Some(byte) => return None,
                _ if byte.is_ascii() => byte,
                _ => return None,
            };
            let mut end = start;
            if self.peek() == Some(b'-') && self.bytes.get(self.at + 1) != Some(&b']') {
                self.at += 1;
                end = match self.next()? {
                    b'\\' => escaped_literal(self.next()?)?,
                    b'[' | b'-' => return None,
                    other if other.is_ascii() => other,
                    _ => return None,
                };
                if end < start {
                    return None;
                }
            }
            class.push(ClassBytesRange::new(start, end));
        }
        if self.fold {
            class.case_fold_simple();
        }
        if negated {
            class.negate();
        }
        Some(Hir::class(Class::Bytes(class)))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::risk::paths::write_path_rules;
    use crate::risk::rules::text_rules;

    fn general(pattern: &str) -> Hir {
        regex_syntax::ParserBuilder::new()
            .unicode(false)
            .utf8(false)
            .build()
            .parse(pattern)
            .expect("a valid pattern")
    }

    #[test]
    fn every_builtin_pattern_reads_into_the_tree_regex_syntax_gives() {
        for rule in text_rules().into_iter().chain(write_path_rules()) {
            let fast = parse(&rule.source)
                .unwrap_or_else(|| panic!("{} is left to regex_syntax", rule.source));
            assert_eq!(fast, general(&rule.source), "{}", rule.source);
        }
    }

    #[test]
    fn the_subset_reads_like_regex_syntax_and_the_rest_is_left_to_it() {
        for pattern in [
            r"a|b|",
            r"(?:)",
            r"x(?i)ab(?:c|D)",
            r"(?i:q)Q",
            r"(?:a(?i)b|c)d",
            r"[]a-c\s-]",
            r"(?i)[^x\S]",
            r"[a\-z.]",
            r"a{2}b{3,}c{1,4}?d*?e+?f??",
            r"^\b\B.$",
            r"\.\$\(\)\|\n\t\\",
            r"(?i)7_-",
            r"[-a]",
            r"\W\D\w\d",
            r"abc*d\.e{2}f",
            r"(?i)ab+c-?d",
        ] {
            assert_eq!(parse(pattern), Some(general(pattern)), "{pattern}");
        }
        for pattern in [
            "(a)",
            "(?s:.)",
            "(?x)a",
            "[[:alpha:]]",
            "[a&&b]",
            "[a--b]",
            "[b-a]",
            r"\x41",
            "é",
            "a**",
            "*",
            "(?:a",
            "a)",
            "[a",
            "a{2",
            "a{3,2}",
        ] {
            assert_eq!(parse(pattern), None, "{pattern}");
        }
    }
}
