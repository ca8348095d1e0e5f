//! Passwords given to command-line tools as arguments: a grammar of (tool, flag, how the value
//! is attached) rows, plus the few tools whose password is positional or shares an argument
//! with the user name (`htpasswd -b f user PASS`, `smbclient -U user%PASS`, `sqlplus u/PASS@db`,
//! `poetry config http-basic.REPO user PASS`).
//!
//! Owns the table of tools and flags. Every row becomes one rule whose anchors are the tool
//! names, so a row runs only on texts that name its tool, and whose scope is the rest of the
//! simple command after the tool name (up to a newline, `|`, `;` or `&`): every flag in it is
//! read, so `snmpwalk -A X -X Y` gives up both. Values may be bare, `'single'`,
//! `"double"` or `\"JSON-escaped\"` quoted; a spaced value never starts with `-` (that is the
//! next flag: `mysql -p -h db` prompts).
//!
//! Not here: `--password=…`, `--token …` and `PGPASSWORD=…` style names (`named`, which reads
//! any flag or variable whose name says password or secret); `curl -u` (`places`).

use super::{rule, Rule};
use crate::redact::vet::Check;

/// A value after a space: quoted, or bare and not starting with `-` (with an
/// `amp_in_value!` `&`, as in a named value).
#[rustfmt::skip]
const SPACED: &str = concat!(r#"[ \t]+(?:"((?:[^"\\\n]|\\[^\n])+)"|'([^'\n]+)'|\\+"([^"\\\n]+)\\+"|([^\s"'\x60;&|<>\\-](?:[^\s"'\x60;&|<>\\]|"#, amp_in_value!(), r#")*))"#);
/// A value glued to its flag (`-pSECRET`, `-p'SECRET'`).
#[rustfmt::skip]
const GLUED: &str = concat!(r#"(?:"((?:[^"\\\n]|\\[^\n])+)"|'([^'\n]+)'|\\+"([^"\\\n]+)\\+"|([^\s"'\x60;&|<>\\](?:[^\s"'\x60;&|<>\\]|"#, amp_in_value!(), r#")*))"#);
/// The rest of the same simple command, lazily: no newline, pipe, `;` or `&`.
const SAME_COMMAND: &str = r#"(?:'[^'\n]*'|"(?:[^"\\\n]|\\.)*"|[^\n|;&'"])*?"#;
/// The rest of one command: up to a separator (`|`, `;`, `&`, a newline) outside quotes, so a
/// quoted password holding `&` or `;` stays inside the command it was given to (and so does a
/// bare one's `amp_in_value!` `&`).
#[rustfmt::skip]
const REST_OF_COMMAND: &str = concat!(r#"(?:'[^'\n]*'|"(?:[^"\\\n]|\\.)*"|[^\n|;&'"]|"#, amp_in_value!(), ")*");

/// How a row's value follows its flag.
#[derive(Clone, Copy)]
enum Attach {
    Spaced,
    Glued,
    Either,
}

/// (tools, words between tool and flag, flags, attach). Tools and flags are regex alternations.
#[rustfmt::skip]
const ROWS: &[(&str, &str, &str, Attach)] = &[
    ("mysql|mysqldump|mysqladmin|mysqlimport|mysqlshow|mysqlcheck|mysqlsh|mysqlbinlog|mysqlslap|mariadb|mariadb-dump", "", "-p", Attach::Glued),
    ("sshpass", "", "-p", Attach::Either),
    ("docker|podman|nerdctl|buildah|skopeo|helm|oras|crane|cosign|regctl|az|cf|oc|expo|eas|jf|jfrog|twilio", r"\blogin\b", "-p|--password", Attach::Spaced),
    // `AUTH [user] X`: the password given as the command; `CONFIG SET requirepass X` sets it.
    ("redis-cli|keydb-cli|redis-server|keydb-server", "", "-a|--pass|--askpass|--requirepass|--masterauth|AUTH(?:[ \t]+[A-Za-z0-9_.@-]+)?|(?i:CONFIG[ \t]+SET[ \t]+(?:requirepass|masterauth))", Attach::Spaced),
    ("mongo|mongosh|mongodump|mongorestore|mongoexport|mongoimport|mongostat|mongotop|mongofiles|psexec|PsExec|PSEXEC|psExec|psexec64|twine|useradd|usermod", "", "-p", Attach::Spaced),
    ("cqlsh|rdesktop", "", "-p", Attach::Spaced),
    ("sqlcmd|bcp|osql|isql|mssql-cli|mosquitto_pub|mosquitto_sub|mosquitto_rr|ipmitool", "", "-P", Attach::Spaced),
    ("openssl", "", "-k", Attach::Spaced),
    ("zip|unzip|zipcloak|funzip", "", "-P|--password", Attach::Spaced),
    ("7z|7za|7zr|rar|unrar", "", "-p", Attach::Glued),
    ("ssh-keygen", "", "-N|-P", Attach::Spaced),
    ("ldapsearch|ldapmodify|ldapadd|ldapdelete|ldappasswd|ldapwhoami|ldapcompare|ldapmodrdn|ldapexop", "", "-w", Attach::Spaced),
    ("influx", "", "-password", Attach::Spaced),
    ("pscp|plink|psftp|putty", "", "-pw", Attach::Spaced),
    // The community string too (`-c`, Cisco's `snmp-server community X RO`).
    ("snmpwalk|snmpget|snmpset|snmpbulkwalk|snmpbulkget|snmptrap|snmp-server", "", "-A|-X|-c|community", Attach::Spaced),
    ("xfreerdp|wlfreerdp|sdl-freerdp", "", "/p:", Attach::Glued),
    ("curl", "", "--oauth2-bearer", Attach::Spaced),
    ("az", r"\bkeyvault[ \t]+secret[ \t]+set\b", "--value", Attach::Spaced),
    ("vncpasswd|x11vnc", "", "-passwd|-storepasswd", Attach::Spaced),
];

fn row_rule(tools: &str, between: &str, flags: &str, attach: Attach) -> Rule {
    let value = match attach {
        Attach::Spaced => SPACED.to_string(),
        Attach::Glued => GLUED.to_string(),
        Attach::Either => format!("(?:{SPACED}|[ \t]*{GLUED})"),
    };
    let between = if between.is_empty() {
        String::new()
    } else {
        format!("{SAME_COMMAND}{between}")
    };
    rule("password", &format!(r"[ \t](?:{flags}){value}"))
        .scope(&format!(r"\b(?:{tools})\b{between}{REST_OF_COMMAND}"))
        .check(Check::Value)
        .anchors(tools)
}

/// Password arguments of common command-line tools.
#[rustfmt::skip]
pub(super) fn password_flags() -> Vec<Rule> {
    let mut rules: Vec<Rule> = ROWS
        .iter()
        .map(|&(tools, between, flags, attach)| row_rule(tools, between, flags, attach))
        .collect();
    let q = r#"['"]?"#;
    let special = [
        // `openssl … -passin pass:X`, `-passout pass:X`, `-pass pass:X`.
        ("pass:", format!(r"[ \t]-pass(?:in|out)?[ \t]+{q}pass:([^\s'\x60;&|<>\\]+)")),
        // `htpasswd -b[c] [file] user PASS` (`-nb user PASS` has no file).
        ("htpasswd", format!(r"\bhtpasswd\b{SAME_COMMAND}[ \t]-[A-Za-z]*b[A-Za-z]*(?:[ \t]+-[A-Za-z]+)*(?:[ \t]+[^\s-][^\s]*)?[ \t]+[^\s-][^\s]*{SPACED}")),
        // `poetry config http-basic.REPO user PASS`, `poetry config pypi-token.REPO TOKEN`.
        ("poetry", format!(r"\bpoetry[ \t]+config(?:[ \t]+-[^\s]+)*[ \t]+(?:http-basic\.[^\s]+[ \t]+[^\s-][^\s]*|pypi-token\.[^\s]+){SPACED}")),
        // `smbclient -U user%PASS`, `--user=user%PASS`.
        ("smbclient|rpcclient|smbmap|smbcacls|smbget", format!(r"\b(?:smbclient|rpcclient|smbmap|smbcacls|smbget)\b{SAME_COMMAND}[ \t](?:-U|--user(?:name)?)(?:=|[ \t]+){q}[^\s%'\x22]+%([^\s'\x22]+)")),
        // `lftp -u user,PASS host`.
        ("lftp", format!(r"\blftp\b{SAME_COMMAND}[ \t]-u[ \t]+{q}[^\s,'\x22]+,([^\s'\x22]+)")),
        // `sqlplus user/PASS@db`.
        ("sqlplus", format!(r"\bsqlplus\b{SAME_COMMAND}[ \t]{q}[A-Za-z0-9_$#]+/([^\s@'\x22/]+)(?:@|[ \t'\x22]|$)")),
        // `rabbitmqctl add_user USER PASS`, `change_password USER PASS`.
        ("rabbitmqctl", format!(r"\brabbitmqctl\b{SAME_COMMAND}[ \t](?:add_user|change_password)[ \t]+[^\s-][^\s]*{SPACED}")),
        // `echo X | docker login --password-stdin`, `| gh auth login --with-token`,
        // `| passwd [--stdin] user`, `| chpasswd`, `| sudo -S …`, `| gh secret set K`,
        // `| docker secret create K -`, `| kinit user@REALM`, `| smbpasswd -s -a user`: a
        // secret piped to a command that reads or stores it.
        ("password-stdin|with-token|stdin|passwd|passphrase-fd|sudo|kinit|secret set|secret put|secret create|secret add|secrets set|secrets put|secrets create|secrets add|secrets versions|env add", format!(r#"\b(?:echo|printf)(?:[ \t]+-[neE]+)*(?:[ \t]+["']%s(?:\\n)?["'])?{SPACED}[ \t]*\|{SAME_COMMAND}(?:--password-stdin|--with-token|--token-stdin|--stdin|\bsecrets?[ \t]+(?:set|put|create|add|versions[ \t]+add)\b|\benv[ \t]+add\b|=/dev/stdin\b|\bchpasswd\b|\bkinit\b|\bsmbpasswd[ \t]+-[A-Za-z]*s|[ \t]passwd(?:[ \t;&|\n]|$)|--passphrase-fd[ \t]+0|\bsudo(?:[ \t]+-[A-Za-z]+)*?[ \t]+-[A-Za-z]*S[A-Za-z]*\b)"#)),
        // `vault login TOKEN` with a digit (not `-method=… username=…`, nor `-`: stdin).
        ("vault", r#"\bvault[ \t]+login(?:[ \t]+-[^\s]+)*[ \t]+([^\s"'=\x60;&|<>\\-]*[0-9][^\s"'=\x60;&|<>\\]*)(?:[ \t;&|]|(?m:$))"#.to_string()),
        // `openssl passwd -6 PASS`, `mkpasswd -m sha-512 PASS`: the plain password to hash.
        ("passwd|mkpasswd", format!(r"\b(?:openssl[ \t]+passwd|mkpasswd)\b(?:[ \t]+-(?:salt|in|m|S|R)(?:[ \t]+|=)[^\s-][^\s]*|[ \t]+-[A-Za-z0-9-]+)*{SPACED}")),
        // A here-string to a command that reads a secret: `wrangler secret put K <<< X`,
        // `vercel env add K <<< X`, `chpasswd <<< 'user:X'`, `pass insert k <<< X`.
        ("<<<", r#"(?i-u:\b(?:chpasswd|passwd|su|secrets?|password-stdin|with-token|token-stdin|env[ \t]+add|(?:go)?pass[ \t]+insert|keyring[ \t]+set))\b[^\n|;&]*?<<<[ \t]*(?:"([^"\n]+)"|'([^'\n]+)'|([^\s"'\x60;&|<>\\$][^\s"'\x60;&|<>\\]*))"#.to_string()),
        // A literal written to a file named for a secret: `echo X > /run/secrets/db_password`.
        ("password|passwd|secret|token|api_key|api-key|apikey|cred", format!(r#"\b(?:echo|printf)(?:[ \t]+-[neE]+)*(?:[ \t]+["']%s(?:\\n)?["'])?{SPACED}[ \t]*>>?[ \t]*[^\s;&|<>]*(?i-u:password|passwd|secret|token|api[_-]?key|cred(?:ential)?s?)(?:[^A-Za-z\s/;&|<>][^\s/;&|<>]*)?(?:[ \t;&|\n]|$)"#)),
        // `wpa_passphrase SSID PASS`: the Wi-Fi passphrase after the network's name.
        ("wpa_passphrase", format!(r#"\bwpa_passphrase[ \t]+(?:"[^"\n]+"|'[^'\n]+'|[^\s'"]+){SPACED}"#)),
        // A heredoc's first line fed to a command that stores or reads a secret:
        // `cat <<EOF | docker secret create db -`, `cat <<EOF | chpasswd`.
        ("<<", r#"<<-?[ \t]*['"]?[A-Za-z_]+['"]?[^\n]*?(?i-u:\b(?:secrets?[ \t]+(?:set|put|create|add)|env[ \t]+add|chpasswd|password-stdin|with-token)\b)[^\n]*\n([^\n]+)"#.to_string()),
        // Windows `net user NAME PASS` (not `net user NAME /add`, not `*`, which prompts).
        ("net", r#"\bnet[ \t]+user[ \t]+(?:"[^"\n]+"|[^\s/"'-][^\s/]*)[ \t]+(?:"([^"\n]+)"|'([^'\n]+)'|([^\s"'/*\x60;&|<>\\-][^\s"'\x60;&|<>]*))"#.to_string()),
        // `net use \\host\share /user:DOMAIN\user PASS` (not `/persistent:no`), and the
        // password right after the share: `net use Z: \\host\share PASS /user:…` (not `*`).
        ("net", format!(r#"\bnet[ \t]+use\b{SAME_COMMAND}[ \t](?:/user:[^\s]+|\\\\[^\s]+)[ \t]+(?:"([^"\n]+)"|'([^'\n]+)'|([^\s"'/*\x60;&|<>\\-][^\s"'\x60;&|<>]*))"#)),
        // `ConvertTo-SecureString "X" -AsPlainText`.
        ("convertto-securestring", r#"(?i-u:\bConvertTo-SecureString[ \t]+(?:-String[ \t]+)?)(?:"([^"\n]+)"|'([^'\n]+)')"#.to_string()),
    ];
    rules.extend(special.into_iter().map(|(tools, pattern)| {
        rule("password", &pattern)
            .check(Check::Value)
            .anchors(tools)
    }));
    rules
}
