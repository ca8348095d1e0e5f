//! Folds a field of a tool input into the plain text the rules match, within the attempt's
//! byte budget.
//!
//! Owns the folding: quote characters (`'`, `"`) are dropped, so `git push "--force"` and
//! `'g''it' push -f` read as written without them; a backtick becomes ` $(` (the same command
//! substitution, which also starts a new command); a backslash is dropped (`g\it`, line continuations);
//! `$IFS` and `${IFS}` become a space; tabs and carriage returns become spaces, newlines stay
//! (they separate commands). **Not here:** any parsing of the shell grammar.
//!
//! Cost: one pass over at most the remaining budget (a table lookup a byte, plain runs copied
//! whole), into a buffer reused from one field and one attempt to the next.

/// The byte budget of one attempt: what is left to examine.
#[derive(Debug)]
pub(super) struct Budget {
    left: usize,
}

impl Budget {
    pub(super) fn new(bytes: usize) -> Budget {
        Budget { left: bytes }
    }

    /// The longest prefix of `text` the budget admits, cut at a character boundary, and charged.
    pub(super) fn take<'t>(&mut self, text: &'t str) -> &'t str {
        let mut end = text.len().min(self.left);
        while !text.is_char_boundary(end) {
            end -= 1;
        }
        self.left -= end;
        &text[..end]
    }
}

/// The bytes [`fold`] may rewrite; every other byte is copied as it is, in runs.
const REWRITTEN: [bool; 256] = {
    let mut table = [false; 256];
    let bytes = *b"'\"\\`\t\r$";
    let mut i = 0;
    while i < bytes.len() {
        table[bytes[i] as usize] = true;
        i += 1;
    }
    table
};

/// Writes `text` folded into `out` (cleared first).
pub(super) fn fold(text: &str, out: &mut String) {
    out.clear();
    let mut rest = text;
    while let Some(at) = rest.bytes().position(|b| REWRITTEN[usize::from(b)]) {
        out.push_str(&rest[..at]);
        let from = &rest[at..];
        let (with, len) = match from.as_bytes()[0] {
            b'\'' | b'"' | b'\\' => ("", 1),
            b'`' => (" $(", 1),
            b'\t' | b'\r' => (" ", 1),
            b'$' if from.starts_with("${IFS}") => (" ", 6),
            b'$' if from.starts_with("$IFS") => (" ", 4),
            _ => ("$", 1),
        };
        out.push_str(with);
        rest = &from[len..];
    }
    out.push_str(rest);
}

#[cfg(test)]
mod tests {
    use super::*;

    fn folded(text: &str) -> String {
        let mut out = String::new();
        fold(text, &mut out);
        out
    }

    #[test]
    fn quotes_backslashes_and_ifs_fold_away() {
        assert_eq!(folded(r#"git push "--force""#), "git push --force");
        assert_eq!(folded("'g''it' push -f"), "git push -f");
        assert_eq!(folded(r"g\it push -f"), "git push -f");
        assert_eq!(folded("git${IFS}push$IFS-f"), "git push -f");
        assert_eq!(folded("a\tb`c`"), "a b $(c $(");
        assert_eq!(folded("héllo \"wörld\""), "héllo wörld");
    }

    #[test]
    fn the_budget_cuts_at_a_character_boundary_and_runs_out() {
        let mut budget = Budget::new(3);
        assert_eq!(budget.take("aéb"), "aé");
        let mut budget = Budget::new(2);
        assert_eq!(budget.take("aé b"), "a");
        assert_eq!(budget.take("xyz"), "x");
        assert_eq!(budget.take("more"), "");
    }
}
