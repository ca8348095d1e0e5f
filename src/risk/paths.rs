//! The built-in patterns for the path of a file write: persistence and privilege files, then
//! system and home locations, as byte regexes over the folded path, anchored like the text
//! rules (see `rules`).
//!
//! Owns [`write_path_rules`]. **Not here:** compiling and running them (`engine`), which tools
//! write files and which field is a path (`scan`).
//!
//! Cold: read once, when `engine` compiles the rules.

use super::rules::{classed_rules, Anchored, Rule, SYSTEM_DIRS};
use super::Risk;

/// Paths a file write must not touch, by class: persistence and privilege files, then system
/// and home locations. Anchored like the text rules.
#[rustfmt::skip]
pub(super) fn write_path_rules() -> Vec<Rule> {
    let privilege: Vec<Anchored> = vec![
        (&[".ssh/authorized_keys"], r"(?:^|/)\.ssh/authorized_keys2?$".to_string()),
        (&["/etc/"], r"^/etc/(?:sudoers|passwd|shadow|g?shadow|group|crontab|cron\.|ld\.so\.preload|pam\.d/|systemd/|profile|bash\.bashrc|environment|rc\.local|init\.d/)".to_string()),
        (&[r"/.bashrc\b", r"/.bash_profile\b", r"/.bash_login\b", r"/.profile\b", r"/.zshrc\b", r"/.zprofile\b", r"/.zshenv\b", r"/.config/fish/config.fish\b"], r"/(?:\.bashrc|\.bash_profile|\.bash_login|\.profile|\.zshrc|\.zprofile|\.zshenv|\.config/fish/config\.fish)$".to_string()),
        (&["/var/spool/cron/", "/library/launchagents/", "/library/launchdaemons/", "/.config/autostart/", "/.config/systemd/user/"], r"/(?:var/spool/cron|Library/Launch(?:Agents|Daemons)|\.config/autostart|\.config/systemd/user)/".to_string()),
        (&[".claude/settings", ".claude.json", ".git/hooks/"], r"(?:^|/)\.claude/settings(?:\.local)?\.json$|(?:^|/)\.claude\.json$|(?:^|/)\.git/hooks/".to_string()),
    ];
    let destruction: Vec<Anchored> = vec![
        (&["/etc/", "/usr/", "/bin/", "/sbin/", "/boot/", "/lib/", "/lib32/", "/lib64/", "/libx32/", "/dev/", "/sys/", "/proc/", "/system/", "/library/", "/applications/", "/var/"], format!(r"^/{SYSTEM_DIRS}/")),
        (&["~/.", "$home/.", "/home/", "/users/", "/root/."], r"^(?:~|\$HOME|/home/[^/]+|/Users/[^/]+|/root)/\.[^/]".to_string()),
        (&["windows"], r"(?i)^[a-z]:[\\/]windows[\\/]".to_string()),
    ];
    classed_rules(Risk::PrivilegeEscalation, privilege)
        .chain(classed_rules(Risk::DataDestruction, destruction))
        .collect()
}
