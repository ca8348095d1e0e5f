//! The environment variables around the flags: names from before every variable was named after
//! its flag, still read, and `DENIALS_EXPORTER_*` variables that no flag reads (a typo, or a
//! name from another version), reported once at start.
//!
//! The known names come from the command definition itself (every `env = …` of every
//! subcommand), so a new flag needs nothing here. Cold: runs once, before the flags are parsed.
//!
//! **Not here:** the flags and their variables ([`crate::cli`]); writing the warning (the
//! caller, once logging is set up).

use std::collections::BTreeSet;
use std::ffi::OsString;

use clap::CommandFactory;

use super::Cli;

/// Every variable starts with this.
pub const PREFIX: &str = "DENIALS_EXPORTER_";

/// Old name → the flag's variable. The new name wins when both are set.
pub const RENAMED: &[(&str, &str)] = &[
    (
        "DENIALS_EXPORTER_LISTEN_ADDRESS",
        "DENIALS_EXPORTER_WEB_LISTEN_ADDRESS",
    ),
    (
        "DENIALS_EXPORTER_TELEMETRY_PATH",
        "DENIALS_EXPORTER_WEB_TELEMETRY_PATH",
    ),
    (
        "DENIALS_EXPORTER_REASON_RULES",
        "DENIALS_EXPORTER_REASON_RULE",
    ),
];

/// Read by `build.rs` at build time, not by a flag; not worth a warning when left set.
const BUILD_TIME: &[&str] = &["DENIALS_EXPORTER_REVISION"];

/// What the environment needs before the flags are parsed.
#[derive(Debug, Default, PartialEq, Eq)]
pub struct Plan {
    /// `(new name, value)` to set: an old name is set and its new name is not.
    pub copies: Vec<(String, OsString)>,
    /// Old names that are set, for a note that they are renamed.
    pub renamed: Vec<&'static str>,
    /// `DENIALS_EXPORTER_*` names no flag reads, sorted.
    pub unknown: Vec<String>,
}

/// Every variable a flag of any subcommand reads.
pub fn known() -> BTreeSet<String> {
    fn walk(command: &clap::Command, names: &mut BTreeSet<String>) {
        for arg in command.get_arguments() {
            if let Some(env) = arg.get_env() {
                names.insert(env.to_string_lossy().into_owned());
            }
        }
        for sub in command.get_subcommands() {
            walk(sub, names);
        }
    }
    let mut names = BTreeSet::new();
    walk(&Cli::command(), &mut names);
    names
}

/// Plans the environment `vars` (as [`std::env::vars_os`] gives them).
pub fn plan(vars: impl IntoIterator<Item = (OsString, OsString)>) -> Plan {
    let known = known();
    let vars: Vec<(String, OsString)> = vars
        .into_iter()
        .filter_map(|(name, value)| Some((name.into_string().ok()?, value)))
        .filter(|(name, _)| name.starts_with(PREFIX))
        .collect();
    let is_set = |name: &str| vars.iter().any(|(n, _)| n == name);
    let mut plan = Plan::default();
    for (name, value) in &vars {
        if let Some((old, new)) = RENAMED.iter().find(|(old, _)| old == name) {
            plan.renamed.push(old);
            if !is_set(new) {
                plan.copies.push((new.to_string(), value.clone()));
            }
        } else if !known.contains(name) && !BUILD_TIME.contains(&name.as_str()) {
            plan.unknown.push(name.clone());
        }
    }
    plan.unknown.sort();
    plan.renamed.sort();
    plan
}

/// Plans this process's environment and sets the new names of old ones; call before parsing
/// the flags, while the process has one thread.
pub fn apply() -> Plan {
    let plan = plan(std::env::vars_os());
    for (name, value) in &plan.copies {
        std::env::set_var(name, value);
    }
    plan
}

impl Plan {
    /// Logs the unknown variables (one warning) and the old names in use (one note).
    pub fn report(&self) {
        if !self.unknown.is_empty() {
            tracing::warn!(
                variables = %self.unknown.join(","),
                "environment variables that no flag reads are ignored; see --help for the names"
            );
        }
        if !self.renamed.is_empty() {
            let renames: Vec<String> = RENAMED
                .iter()
                .filter(|(old, _)| self.renamed.contains(old))
                .map(|(old, new)| format!("{old} is now {new}"))
                .collect();
            tracing::info!(renamed = %renames.join(", "), "old environment variable names are still read");
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn vars(pairs: &[(&str, &str)]) -> Vec<(OsString, OsString)> {
        pairs
            .iter()
            .map(|(n, v)| (OsString::from(n), OsString::from(v)))
            .collect()
    }

    #[test]
    fn old_names_are_copied_unless_the_new_one_is_set() {
        let plan = plan(vars(&[
            ("DENIALS_EXPORTER_LISTEN_ADDRESS", ":9000"),
            ("DENIALS_EXPORTER_TELEMETRY_PATH", "/old"),
            ("DENIALS_EXPORTER_WEB_TELEMETRY_PATH", "/new"),
            ("HOME", "/root"),
        ]));
        assert_eq!(
            plan.copies,
            vec![(
                "DENIALS_EXPORTER_WEB_LISTEN_ADDRESS".to_string(),
                OsString::from(":9000")
            )]
        );
        assert_eq!(
            plan.renamed,
            vec![
                "DENIALS_EXPORTER_LISTEN_ADDRESS",
                "DENIALS_EXPORTER_TELEMETRY_PATH"
            ]
        );
        assert!(plan.unknown.is_empty(), "{:?}", plan.unknown);
    }

    #[test]
    fn unknown_names_are_listed_and_flag_names_are_known() {
        let plan = plan(vars(&[
            ("DENIALS_EXPORTER_STATE_INTERVAL", "5s"),
            ("DENIALS_EXPORTER_LOG_FORMAT", "logfmt"),
            ("DENIALS_EXPORTER_WEB_LISTEN_ADDRES", ":1"),
            ("DENIALS_EXPORTER_BOGUS", "1"),
            ("DENIALS_EXPORTER_REVISION", "abc"),
        ]));
        assert_eq!(
            plan.unknown,
            vec![
                "DENIALS_EXPORTER_BOGUS",
                "DENIALS_EXPORTER_WEB_LISTEN_ADDRES"
            ]
        );
        let known = known();
        for (old, new) in RENAMED {
            assert!(known.contains(*new), "{new} is no flag's variable");
            assert!(!known.contains(*old), "{old} is still a flag's variable");
        }
    }
}
