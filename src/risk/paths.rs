//! The built-in patterns for the path of a file write: persistence and privilege files, then
//! system and home locations, as byte regexes over the folded path, anchored like the text
//! rules (see `rules`).
//!
//! Owns [`write_path_rules`]. **Not here:** compiling and running them (`engine`), which tools
//! write files and which field is a path (`scan`).
//!
//! Cold: read once, when `engine` compiles the rules.

use super::rules::{Anchors, Effect, Rule, SYSTEM_DIRS};
use super::Risk;

/// Paths a file write must not touch, by class: persistence and privilege files, then system
/// and home locations. Anchored like the text rules.
#[rustfmt::skip]
pub(super) fn write_path_rules() -> Vec<Rule> {
    let privilege: [(Anchors, &str); 5] = [
        (&[".ssh/authorized_keys"], r"(?:^|/)\.ssh/authorized_keys2?$"),
        (&["/etc/"], r"^/etc/(?:sudoers|passwd|shadow|g?shadow|group|crontab|cron\.|ld\.so\.preload|pam\.d/|systemd/|profile|bash\.bashrc|environment|rc\.local|init\.d/)"),
        (&[r"/.bashrc\b", r"/.bash_profile\b", r"/.bash_login\b", r"/.profile\b", r"/.zshrc\b", r"/.zprofile\b", r"/.zshenv\b", r"/.config/fish/config.fish\b"], r"/(?:\.bashrc|\.bash_profile|\.bash_login|\.profile|\.zshrc|\.zprofile|\.zshenv|\.config/fish/config\.fish)$"),
        (&["/var/spool/cron/", "/library/launchagents/", "/library/launchdaemons/", "/.config/autostart/", "/.config/systemd/user/"], r"/(?:var/spool/cron|Library/Launch(?:Agents|Daemons)|\.config/autostart|\.config/systemd/user)/"),
        (&[".claude/settings", ".claude.json", ".git/hooks/"], r"(?:^|/)\.claude/settings(?:\.local)?\.json$|(?:^|/)\.claude\.json$|(?:^|/)\.git/hooks/"),
    ];
    let destruction: [(Anchors, String); 3] = [
        (&["/etc/", "/usr/", "/bin/", "/sbin/", "/boot/", "/lib/", "/lib32/", "/lib64/", "/libx32/", "/dev/", "/sys/", "/proc/", "/system/", "/library/", "/applications/", "/var/"], format!(r"^/{SYSTEM_DIRS}/")),
        (&["~/.", "$home/.", "/home/", "/users/", "/root/."], r"^(?:~|\$HOME|/home/[^/]+|/Users/[^/]+|/root)/\.[^/]".to_string()),
        (&["windows"], r"(?i)^[a-z]:[\\/]windows[\\/]".to_string()),
    ];
    let rule = |risk, (anchors, source): (Anchors, String)| Rule {
        effect: Effect::Class(risk),
        anchors,
        source,
    };
    privilege
        .into_iter()
        .map(|(anchors, source)| rule(Risk::PrivilegeEscalation, (anchors, source.to_string())))
        .chain(destruction.into_iter().map(|anchored| rule(Risk::DataDestruction, anchored)))
        .collect()
}
