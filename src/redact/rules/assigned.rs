//! Values given to a credential-named key in any syntax an agent touches, found by the key's
//! name alone: the name holds a word of the credential vocabulary at a word boundary
//! (`password`, `passwd`, `pwd`, `pass`, `secret`, `token`, `api_key`, `private_key`,
//! `credentials`, …, with any prefix or suffix: `db_pass_secure`, `apikey_myservice`; the
//! vetting reads the name), and the value follows by `=`, `:`, `:=`, `=>`, `==`/`!=`/`===`,
//! a space (`password "x";`, `API2CART key is x`), a setter's one argument
//! (`setPassword("x")`, `with_token("x")`), or precedes a comparison (`"x" == password`).
//! Covers shell and env files, YAML, JSON, TOML, INI, XML attributes, Python, JS/TS, Go
//! (`:=`, `a, b := "x", "y"`), Rust, PHP `=>`, Ruby, Java, C (`char secret[25] = "x"`,
//! Objective-C `@"x"`), and connection strings (`Pwd=x;`); a value one level down
//! (`"adminPassword": {"value": "x"}`) and a getter's literal.
//!
//! Not here: what the vetting accepts (`vet`: references, empty values, booleans, numbers and
//! code stay), a tool's own password flag (`flags`).

use super::*;
use crate::redact::vet::Check;

/// The credential vocabulary (case-insensitive): every name these rules take holds one, and
/// the vetting asks that it start a word of the name (`mypass` is not `pass`); `key`, `auth`,
/// `session`, `api` (`apiBilling`) and `bearer` take only random-looking values (`vet::names`).
const VOCAB: &str = concat!(
    r"password|passwd|passphrase|pwd|pass|secrete?|token|api[_.-]?key|private[_.-]?key",
    r"|access[_.-]?key|credentials?|creds?|key|auth|session|api|bearer|psk|mnemonic|rootpw|bindpw",
);
/// The same words as anchors.
const ANCHORS: &str =
    "password|passwd|passphrase|pwd|pass|secret|token|key|cred|auth|session|api|bearer|psk|mnemonic|rootpw|bindpw";
/// Quoted values: JSON-escaped, double, single, backtick; `@"…"` (Objective-C) too.
const ANY_QUOTED: &str =
    r#"\\+"([^"\\\n]+)\\+"|@?"((?:[^"\\\n]|\\[^\n])+)"|'([^'\n]+)'|\x60([^\x60\n]+)\x60"#;
/// A quoted value, not captured (the other value of a multi-assignment).
const OTHER_QUOTED: &str =
    r#"(?:\\+"[^"\\\n]*\\+"|"(?:[^"\\\n]|\\[^\n])*"|'[^'\n]*'|\x60[^\x60\n]*\x60)"#;
/// An assignment or declaration (Ruby's `||=`, JS's `??=`, make's `?=` too); Java and C# may
/// break the line before `=`; a YAML block scalar (`password: |`) puts the value on the next
/// line.
const OPERATOR: &str = r"(?:[ \t]*\r?\n[ \t]*=|[ \t]*:[ \t]*[|>][+-]?[ \t]*\r?\n[ \t]*|[ \t]*(?::=|=>|\|\|=|\?\??=|=|:))[ \t]*";
/// A comparison, R's `<-`, or Go's typed declaration (`var password string = "x"`): only a
/// quoted value is a literal after it (`password == confirm` is code, and so is Haskell's
/// `password <- getLine`).
const QUOTED_ONLY: &str = r"[ \t]*(?:===?|!==?|<-|[ \t]+(?:string|\[\]byte)[ \t]*=)[ \t]*";
/// A credential's value one level down, in an indented block: ARM's `"adminPassword":
/// {"value": "x"}` or `defaultValue`, a YAML `value:` or HCL `value =` under the name, a
/// list's first item (`"token": ["x"]`; not `creds["user"]`, an index).
const NESTED: &str = r#"(?:[ \t]*[:=][ \t]*\[[ \t]*|(?:[ \t]*[:=]?[ \t]*\{|[ \t]*[:=][ \t]*(?:\r?\n|\\n))(?:[^{}\n\\]|\\[^n]|(?:\r?\n|\\n)[ \t])*?\b(?i-u:[a-z]*value|default)\\?["']?[ \t]*[:=][ \t]*)"#;
/// A getter's parameters and return type, up to its body's literal (`return` may lead it).
const GETTER: &str = r"[ \t]*\([^()\n]*\)[^{}\n;=]*?[{:][ \t]*(?:return[ \t]+)?";
/// Left edge of a name: as [`LEFT`], and not after `:` (`arn:aws:…:secret:db` names a type).
const LEFT_EDGE: &str = r#"(?:^|\\[nrt]|[^A-Za-z0-9_./\\:-])"#;
/// A bare value: BARE's characters, may start with `{`, `(` or `[` (a password may).
#[rustfmt::skip]
const BARE_ANY: &str = concat!(r#"([^\s"'\x60;&|<>\\,:=](?:[^\s"'\x60;&|<>\\]|"#, amp_in_value!(), r#"|\\[^nrtu"'\\\s])*)"#);

/// Values given to a credential-named key, in every syntax.
#[rustfmt::skip]
pub(super) fn assigned_values() -> Vec<Rule> {
    // A name holding a vocabulary word, with any prefix and suffix of name characters.
    let name = &format!(r"(?P<k>[A-Za-z0-9_.-]*(?i-u:{VOCAB})[A-Za-z0-9_.-]*)");
    let (quoted, other, op, bare) = (ANY_QUOTED, OTHER_QUOTED, OPERATOR, BARE_ANY);
    let assigned = [
        // `name = value`, `"name": "value"`, `name[] = "value"`, `name == "value"`,
        // `name <- "value"`; a getter returning a literal (`Password() string { return "x" }`,
        // `def api_key(self): return "x"`); first, the value one level down ([`NESTED`]). One
        // regex, not three: each compiled rule holds its own matching state.
        (ANCHORS, format!(r"{LEFT_EDGE}{name}{CLOSE}(?:\[[0-9]*\]|\*\*)?(?:{NESTED}(?:{quoted}|{bare})|{op}(?:{quoted}|{bare})|{QUOTED_ONLY}(?:{quoted})|{GETTER}(?:{quoted}))")),
        // A YAML plain scalar alone on the line below its key (`password:\n  x`).
        (ANCHORS, format!(r"{LEFT_EDGE}{name}{CLOSE}[ \t]*:[ \t]*\r?\n[ \t]+(?:{quoted}|{bare})[ \t]*(?:\r?\n|$)")),
        // A setter given one literal: `conn.setPassword("x")`, `builder.with_api_key("x")`.
        (ANCHORS, format!(r"(?i-u:\b(?:set|with|use)_?)(?P<k>(?i-u:{VOCAB}))[ \t]*\([ \t]*(?:{quoted})[ \t]*\)")),
        // A call given a credential's name and its literal: `define('DB_PASSWORD', 'x')`,
        // `os.Setenv("API_KEY", "x")`, ConfigParser's `set('auth', 'password', 'x')`.
        (ANCHORS, format!(r#"\b[A-Za-z_][A-Za-z0-9_.]*\([ \t]*(?:{other}[ \t]*,[ \t]*){{0,2}}["']{name}["'][ \t]*,[ \t]*(?:{quoted})"#)),
        // A Terraform variable named for a credential and its default:
        // `variable "db_password" { default = "x" }`.
        ("default", format!(r#"\bvariable[ \t]+"{name}"[ \t]*\{{[^}}]*?\bdefault[ \t]*=[ \t]*(?:{quoted})"#)),
        // A credential's default later on its line: Helm's `{{ .Values.password | default
        // "x" }}`, `os.getenv("DB_PASSWORD", default="x")`, `add_argument('--token', default='x')`.
        ("default", format!(r#"{LEFT_EDGE}{name}[^\n]*?[(,| \t]default[ \t]*=?[ \t]*(?:{quoted})"#)),
        // `"value" == password`, `"value" !== secret`.
        (ANCHORS, format!(r#"(?:{quoted})[ \t]*[!=]==?[ \t]*{name}"#)),
        // Go and Python multi-assignment, the name first or second of two or more, the other
        // values literals or names: `password, err := "x", nil`, `user, pwd, n = "y", "x", 3`.
        (ANCHORS, format!(r"{LEFT_EDGE}{name}(?:[ \t]*,[ \t]*[A-Za-z_][A-Za-z0-9_]*)+[ \t]*:?=[ \t]*(?:{quoted})[ \t]*,[ \t]*(?:{other}|[A-Za-z0-9_.]+)")),
        (ANCHORS, format!(r"{LEFT_EDGE}[A-Za-z_][A-Za-z0-9_]*[ \t]*,[ \t]*{name}(?:[ \t]*,[ \t]*[A-Za-z_][A-Za-z0-9_]*)*[ \t]*:?=[ \t]*(?:{other}|[A-Za-z0-9_.]+)[ \t]*,[ \t]*(?:{quoted})")),
        // A config directive: a line (or a JSON string, or what `echo` writes to a file) that
        // is a credential's name and one value, which has a digit or a sign (`  password
        // hunter2`, a `.properties` `db.password x9`, a Dockerfile's `ENV DB_PASSWORD x9`,
        // Windows' `setx API_TOKEN x9`, `echo 'requirepass x9' >> redis.conf`); `password
        // required` is prose.
        (ANCHORS, format!(r#"(?:(?m:^)|\\n|\{{"[^"\n]*":"|\b(?:echo|printf)[ \t]+(?:-[neE]+[ \t]+)?\\?['"])[ \t]*(?:(?:ENV|setx?)[ \t]+)?{name}[ \t]+(?:{quoted}|([^\s"'\x60;&|<>\\]*[0-9!@#$%^&*+=?~.,:/_-][^\s"'\x60;&|<>\\]*))[ \t]*;?[ \t]*(?:(?m:$)|\\[nr]|\\?['"])"#)),
        // A .NET setting's value element: `<setting name="ClientSecret" …><value>x</value>`.
        ("<value>", format!(r#"(?i-u:\bname)=\\?["']{name}\\?["'](?:[ \t][^<>\n]*)?>[ \t]*(?:\r?\n[ \t]*)?<value>{bare}"#)),
    ];
    // A label and its value after a space, in prose, logs and config blocks:
    // `password "x";`, `Your API key is x`, `token test-token-6 x`, `secret  x`,
    // `password for the admin account: x`, `password was set to x`, Cisco's `secret 0 x`.
    let labelled = rule("named_secret", &format!(r"{LEFT_EDGE}{name}(?:\*\*:?)?[ \t]+(?:is[ \t]+|(?:[|-]|->|—)[ \t]*|[0-9][ \t]+|for[ \t][^:\n]+?:[ \t]*|(?:was[ \t]+)?(?:(?:set|changed|reset)[ \t]+)?to[ \t]+)?(?:{quoted}|{bare})")).check(Check::Labelled).anchors(ANCHORS);
    let assigned = assigned.iter().map(|(anchors, pattern)| rule("named_secret", pattern).check(Check::Assigned).anchors(anchors));
    assigned.chain([labelled]).collect()
}
