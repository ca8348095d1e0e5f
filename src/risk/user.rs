//! Turns the user's `--risk-rule CLASS=REGEX` and `--risk-allow-host HOST` values into checked
//! rules: a regex set over the same folded text the built-in rules see, and allowlist entries.
//!
//! Owns the bounds that keep the `risk` label closed: a class is a built-in dangerous class or a
//! new name of 1 to 32 lowercase letters, digits and underscores, at most [`MAX_USER_CLASSES`]
//! of them; at most [`MAX_USER_RULES`] rules, each at most [`MAX_RULE_REGEX_BYTES`] compiled,
//! none matching empty text. User rules only add: `none` and `unknown` take no rules, and
//! nothing a built-in rule flags can be unflagged.
//! **Not here:** the flags themselves (the CLI), matching order (`scan`).
//!
//! Cold: runs once at start-up.

use regex::{RegexBuilder, RegexSet, RegexSetBuilder};
use thiserror::Error;

use super::hosts::Allowlist;
use super::Risk;

/// User classes beyond the built-in ones, at most.
pub const MAX_USER_CLASSES: usize = 8;
/// `--risk-rule` values, at most.
pub const MAX_USER_RULES: usize = 64;
/// `--risk-allow-host` values, at most.
pub const MAX_ALLOW_HOSTS: usize = 256;
/// Compiled size of one user regex, at most.
pub const MAX_RULE_REGEX_BYTES: usize = 1 << 20;
const MAX_CLASS_NAME_CHARS: usize = 32;

/// Why a `--risk-rule` or `--risk-allow-host` value was refused.
#[derive(Debug, Error, PartialEq, Eq)]
#[non_exhaustive]
pub enum RiskRuleError {
    #[error("risk rule {value:?} is not CLASS=REGEX")]
    NotClassEqualsRegex { value: String },
    #[error("risk class {class:?} is not a valid name: use 1 to 32 lowercase letters, digits and underscores, starting with a letter")]
    BadClassName { class: String },
    #[error("risk class {class} takes no rules: it is what an attempt gets when no rule matches")]
    ReservedClass { class: String },
    #[error("risk class {class} is one too many: at most {max} user classes")]
    TooManyClasses { class: String, max: usize },
    #[error("more than {max} risk rules")]
    TooManyRules { max: usize },
    #[error("risk rule for {class} has an invalid regex {regex:?}: {error}")]
    BadRegex {
        class: String,
        regex: String,
        error: String,
    },
    #[error("risk rule for {class} has a regex {regex:?} that matches empty text, so it would match every attempt")]
    MatchesEmpty { class: String, regex: String },
    #[error("risk allow host {host:?} is not a host name such as example.com")]
    BadHost { host: String },
    #[error("more than {max} risk allow hosts")]
    TooManyHosts { max: usize },
}

/// The user's part of [`super::RiskRules`].
#[derive(Debug, Clone, Default)]
pub(super) struct UserRules {
    /// User class names, in the order first named; `Risk::User(i)` is `classes[i]`.
    pub(super) classes: Vec<String>,
    /// The user regexes; `None` when there are none.
    pub(super) set: Option<RegexSet>,
    /// The class of each regex in `set`, by index.
    pub(super) class_of: Vec<Risk>,
    pub(super) allow: Allowlist,
}

impl UserRules {
    pub(super) fn parse(
        rules: impl IntoIterator<Item = impl AsRef<str>>,
        hosts: impl IntoIterator<Item = impl AsRef<str>>,
    ) -> Result<UserRules, RiskRuleError> {
        let mut out = UserRules::default();
        let mut sources = Vec::new();
        for value in rules {
            let value = value.as_ref();
            if sources.len() == MAX_USER_RULES {
                return Err(RiskRuleError::TooManyRules {
                    max: MAX_USER_RULES,
                });
            }
            let (class, regex) =
                value
                    .split_once('=')
                    .ok_or_else(|| RiskRuleError::NotClassEqualsRegex {
                        value: value.to_string(),
                    })?;
            let risk = out.class(class.trim())?;
            check_regex(class.trim(), regex)?;
            sources.push(regex.to_string());
            out.class_of.push(risk);
        }
        if !sources.is_empty() {
            let set = RegexSetBuilder::new(&sources)
                .size_limit(MAX_RULE_REGEX_BYTES * sources.len())
                .build()
                .map_err(|e| RiskRuleError::BadRegex {
                    class: "the rule set".to_string(),
                    regex: sources.join(" | "),
                    error: e.to_string(),
                })?;
            out.set = Some(set);
        }
        for host in hosts {
            if out.allow.extra.len() == MAX_ALLOW_HOSTS {
                return Err(RiskRuleError::TooManyHosts {
                    max: MAX_ALLOW_HOSTS,
                });
            }
            out.allow.extra.push(check_host(host.as_ref())?);
        }
        Ok(out)
    }

    /// The class `name` names: a built-in dangerous class, a user class already named, or a new
    /// user class.
    fn class(&mut self, name: &str) -> Result<Risk, RiskRuleError> {
        match Risk::from_builtin_name(name) {
            Some(Risk::None | Risk::Unknown) => {
                return Err(RiskRuleError::ReservedClass {
                    class: name.to_string(),
                })
            }
            Some(risk) => return Ok(risk),
            None => {}
        }
        let valid = name.len() <= MAX_CLASS_NAME_CHARS
            && name.bytes().next().is_some_and(|b| b.is_ascii_lowercase())
            && name
                .bytes()
                .all(|b| b.is_ascii_lowercase() || b.is_ascii_digit() || b == b'_');
        if !valid {
            return Err(RiskRuleError::BadClassName {
                class: name.to_string(),
            });
        }
        let i = match self.classes.iter().position(|c| c == name) {
            Some(i) => i,
            None if self.classes.len() == MAX_USER_CLASSES => {
                return Err(RiskRuleError::TooManyClasses {
                    class: name.to_string(),
                    max: MAX_USER_CLASSES,
                })
            }
            None => {
                self.classes.push(name.to_string());
                self.classes.len() - 1
            }
        };
        Ok(Risk::User(u8::try_from(i).expect("at most 8 user classes")))
    }
}

fn check_regex(class: &str, regex: &str) -> Result<(), RiskRuleError> {
    let compiled = RegexBuilder::new(regex)
        .size_limit(MAX_RULE_REGEX_BYTES)
        .build()
        .map_err(|e| RiskRuleError::BadRegex {
            class: class.to_string(),
            regex: regex.to_string(),
            error: e
                .to_string()
                .lines()
                .last()
                .unwrap_or_default()
                .trim()
                .to_string(),
        })?;
    if compiled.is_match("") {
        return Err(RiskRuleError::MatchesEmpty {
            class: class.to_string(),
            regex: regex.to_string(),
        });
    }
    Ok(())
}

/// `host` lowercased, without a trailing dot, if it is a host name or an IP address.
fn check_host(host: &str) -> Result<String, RiskRuleError> {
    let lowered = host.trim().trim_end_matches('.').to_ascii_lowercase();
    let valid = !lowered.is_empty()
        && lowered.len() <= 253
        && lowered
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || matches!(b, b'.' | b'-' | b':'))
        && !lowered.starts_with(['.', '-'])
        && !lowered.contains("..");
    if valid {
        Ok(lowered)
    } else {
        Err(RiskRuleError::BadHost {
            host: host.to_string(),
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn parse(rules: &[&str], hosts: &[&str]) -> Result<UserRules, RiskRuleError> {
        UserRules::parse(rules, hosts)
    }

    #[test]
    fn rules_name_builtin_or_new_classes() {
        let rules = parse(
            &[
                "history_rewrite=^hg\\s+strip",
                "db_migration=\\bmigrate\\s+reset\\b",
                "db_migration=\\bflyway\\s+clean\\b",
                "secrets_tool=\\bsops\\s+-d\\b",
            ],
            &["Hooks.Corp.Example."],
        )
        .unwrap();
        assert_eq!(rules.classes, ["db_migration", "secrets_tool"]);
        assert_eq!(
            rules.class_of,
            [
                Risk::HistoryRewrite,
                Risk::User(0),
                Risk::User(0),
                Risk::User(1)
            ]
        );
        assert_eq!(rules.allow.extra, ["hooks.corp.example"]);
    }

    #[test]
    fn invalid_values_are_refused_with_a_message_naming_them() {
        let err = |rules: &[&str], hosts: &[&str]| parse(rules, hosts).unwrap_err().to_string();
        assert_eq!(
            err(&["nope"], &[]),
            r#"risk rule "nope" is not CLASS=REGEX"#
        );
        assert!(
            err(&["Bad-Name=x"], &[]).starts_with(r#"risk class "Bad-Name" is not a valid name"#)
        );
        assert_eq!(
            err(&["none=x"], &[]),
            "risk class none takes no rules: it is what an attempt gets when no rule matches"
        );
        assert!(err(&["mine=("], &[]).starts_with(r#"risk rule for mine has an invalid regex "(""#));
        assert!(err(&["mine=a*"], &[]).contains("matches empty text"));
        assert_eq!(
            err(&[], &["https://x.example/"]),
            r#"risk allow host "https://x.example/" is not a host name such as example.com"#
        );
        let nine: Vec<String> = (0..9).map(|i| format!("c{i}=x{i}")).collect();
        let nine: Vec<&str> = nine.iter().map(String::as_str).collect();
        assert_eq!(
            err(&nine, &[]),
            "risk class c8 is one too many: at most 8 user classes"
        );
        let many = vec!["history_rewrite=x"; MAX_USER_RULES + 1];
        assert_eq!(err(&many, &[]), "more than 64 risk rules");
        for e in [err(&["x"], &[]), err(&[], &["a b"])] {
            assert!(
                !e.ends_with('.') && e.starts_with(char::is_lowercase),
                "{e}"
            );
        }
    }
}
