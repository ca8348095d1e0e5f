//! Values given to a credential-named key in any syntax an agent touches, found by the key's
//! name alone: the name holds a word of the credential vocabulary at a word boundary
//! (`password`, `passwd`, `pwd`, `pass`, `secret`, `token`, `api_key`, `private_key`,
//! `credentials`, …, with any prefix or suffix: `db_pass_secure`, `apikey_myservice`; the
//! vetting reads the name), and the value follows by `=`, `:`, `:=`, `=>`, `==`/`!=`/`===`,
//! a space (`password "x";`, `API2CART key is x`), a setter's or a builder's one argument
//! (`setPassword("x")`, `with_token("x")`, `.apiKey("x")`), or precedes a comparison (`"x" ==
//! password`); a literal may have a prefix or a wrapper (`b"x"`, `"""x"""`, `[]byte("x")`);
//! a random value may be joined to its name by `-` or `_` (`prospect-token-ba98…`, `key_8c5a…`).
//! Covers shell and env files, YAML, JSON, TOML, INI, XML attributes, Python, JS/TS, Go
//! (`:=`, `a, b := "x", "y"`), Rust, PHP `=>`, Ruby, Java, C (`char secret[25] = "x"`,
//! Objective-C `@"x"`), and connection strings (`Pwd=x;`); a value one level down
//! (`"adminPassword": {"value": "x"}`) and a getter's literal.
//!
//! Not here: what the vetting accepts (`vet`: references, empty values, booleans, numbers and
//! code stay), a tool's own password flag (`flags`).

use super::*;
use crate::redact::vet::{Check, VOCAB};

/// Quoted values: JSON-escaped, double, single, backtick; `@"…"` (Objective-C) too.
const ANY_QUOTED: &str =
    r#"\\+"([^"\\\n]+)\\+"|@?"((?:[^"\\\n]|\\[^\n])+)"|'([^'\n]+)'|\x60([^\x60\n]+)\x60"#;
/// Another value, not captured: quoted, a name or a number (a multi-assignment's other values,
/// a call's arguments before a credential's name).
const OTHER_VALUE: &str =
    r#"(?:\\+"[^"\\\n]*\\+"|"(?:[^"\\\n]|\\[^\n])*"|'[^'\n]*'|\x60[^\x60\n]*\x60|[A-Za-z0-9_.]+)"#;
/// An assignment or declaration (Ruby's `||=`, JS's `??=`, make's `?=` too); Java and C# may
/// break the line before `=`; a YAML block scalar (`password: |`) puts the value on the next
/// line; a YAML tag may lead the value (`yaml_tag!`).
#[rustfmt::skip]
const OPERATOR: &str = concat!(r"(?:[ \t]*\r?\n[ \t]*=|[ \t]*:[ \t]*[|>][+-]?[ \t]*\r?\n[ \t]*|[ \t]*(?::=|=>|\|\|=|\?\??=|=|:))[ \t]*", yaml_tag!());
/// A comparison, R's `<-`, or Go's typed declaration (`var password string = "x"`): only a
/// quoted value is a literal after it (`password == confirm` is code, and so is Haskell's
/// `password <- getLine`).
const QUOTED_ONLY: &str = r"[ \t]*(?:===?|!==?|<-|[ \t]+(?:string|\[\]byte)[ \t]*=)[ \t]*";
/// A credential's value one level down, in an indented block: ARM's `"adminPassword":
/// {"value": "x"}` or `defaultValue`, a YAML `value:` or HCL `value =` under the name, a
/// list's first item (`"token": ["x"]`; not `creds["user"]`, an index), DynamoDB's typed
/// string (`"password": {"S": "x"}`).
const NESTED: &str = r#"(?:[ \t]*[:=][ \t]*\[(?:\s|\\[nrt])*|(?:[ \t]*[:=]?[ \t]*\{|[ \t]*[:=][ \t]*(?:\r?\n|\\n))(?:[^{}\n\\]|\\[^n]|(?:\r?\n|\\n)[ \t])*?\b(?:(?i-u:[a-z]*value|default)|S)\\?["']?[ \t]*[:=][ \t]*)"#;
/// A getter's parameters and return type, up to its body's literal (`return` may lead it).
const GETTER: &str = r"[ \t]*\([^()\n]*\)[^{}\n;=]*?[{:][ \t]*(?:return[ \t]+)?";
/// What may lead a quoted literal: a conversion wrapping it (Go's `[]byte("x")`, Rust's
/// `String::from("x")`, `Some("x")` and the secrecy crate's `SecretString::from("x")`, Node's
/// `Buffer.from("x")`, pydantic's `SecretStr("x")`), a literal's prefix (Python's `b"x"`,
/// `r'x'`, C++'s `L"x"`; not an f-string's template) or a tripled quote's first two (`"""x"""`).
const WRAPPED: &str = r#"(?:(?:\[\]byte|String::from|Buffer\.from|SecretStr|Secret(?:String)?::(?:new|from)|Some)\(|[bBrRuUL]{1,2}|u8|""|'')"#;
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
    let (quoted, other, op, bare) = (ANY_QUOTED, OTHER_VALUE, OPERATOR, BARE_ANY);
    let many = r"(?:[ \t]+(?:string|\[\]byte))?[ \t]*(?::?=|[)\]][ \t]*(?:=|(?i-u:values))[ \t]*[(\[])[ \t]*";
    let assigned = [
        // `name = value`, `"name": "value"`, `name[] = "value"`, `name == "value"`,
        // `name <- "value"`; a getter returning a literal (`Password() string { return "x" }`,
        // `def api_key(self): return "x"`); first, the value one level down ([`NESTED`]). One
        // regex, not three: each compiled rule holds its own matching state.
        (VOCAB, format!(r"{LEFT_EDGE}{name}{CLOSE}(?:\[[0-9]*\]|\*\*)?(?:{NESTED}(?:{quoted}|{bare})|(?:{QUOTED_ONLY}|{GETTER}|{op}{WRAPPED})(?:{quoted})|{op}(?:{quoted}|{bare}))")),
        // A YAML plain scalar alone on the line below its key (`password:\n  x`), or a list's
        // first item there (`passwords:\n  - x`).
        (VOCAB, format!(r"{LEFT_EDGE}{name}{CLOSE}[ \t]*:[ \t]*\r?\n[ \t]+(?:-[ \t]+)?(?:{quoted}|{bare})[ \t]*(?:\r?\n|$)")),
        // A setter or a builder's method given one literal: `conn.setPassword("x")`,
        // `builder.with_api_key("x")`, `Client.builder().apiKey("x")`, `.auth_token("x")` (not
        // `.get_secret("name")`: `vet::names` reads the verb).
        (VOCAB, format!(r"(?:(?i-u:\b(?:set|with|use)_?)|\.)(?P<k>[A-Za-z0-9_]*?(?i-u:{VOCAB})[A-Za-z0-9_]*)[ \t]*\([ \t]*(?:{quoted})[ \t]*\)")),
        // A call given a credential's name and its literal: `define('DB_PASSWORD', 'x')`,
        // `os.Setenv("API_KEY", "x")`, ConfigParser's `set('auth', 'password', 'x')`.
        (VOCAB, format!(r#"\b[A-Za-z_][A-Za-z0-9_.]*\([ \t]*(?:{other}[ \t]*,[ \t]*){{0,2}}["']{name}["'][ \t]*,[ \t]*(?:{quoted})"#)),
        // A Terraform variable named for a credential and its default:
        // `variable "db_password" { default = "x" }`.
        ("default", format!(r#"\bvariable[ \t]+"{name}"[ \t]*\{{[^}}]*?\bdefault[ \t]*=[ \t]*(?:{quoted})"#)),
        // A credential's default later on its line: Helm's `{{ .Values.password | default
        // "x" }}`, `os.getenv("DB_PASSWORD", default="x")`, `add_argument('--token', default='x')`.
        ("default", format!(r#"{LEFT_EDGE}{name}[^\n]*?[(,| \t]default[ \t]*=?[ \t]*(?:{quoted})"#)),
        // `"value" == password`, `"value" !== secret`.
        (VOCAB, format!(r#"(?:{quoted})[ \t]*[!=]==?[ \t]*{name}"#)),
        // Go and Python multi-assignment, and SQL's `INSERT` with its columns, the name first
        // or second of two or more, the other values literals or names: `password, err := "x",
        // nil`, `const user, pw string = "y", "x"`, `user, pwd, n = "y", "x", 3`, `(name,
        // password) VALUES ('y', 'x')`, `(user, pw) = ("y", "x")`, `[user, pw] = ["y", "x"]`.
        (VOCAB, format!(r"{LEFT_EDGE}{name}(?:[ \t]*,[ \t]*[A-Za-z_][A-Za-z0-9_]*)+{many}(?:{quoted})[ \t]*,[ \t]*(?:{other})")),
        (VOCAB, format!(r"{LEFT_EDGE}[A-Za-z_][A-Za-z0-9_]*[ \t]*,[ \t]*{name}(?:[ \t]*,[ \t]*[A-Za-z_][A-Za-z0-9_]*)*{many}(?:{other})[ \t]*,[ \t]*(?:{quoted})")),
        // A config directive: a line (or a JSON string, or what `echo` writes to a file) that
        // is a credential's name and one value, which has a digit or a sign (`  password
        // hunter2`, a `.properties` `db.password x9`, a Dockerfile's `ENV DB_PASSWORD x9`,
        // Windows' `setx API_TOKEN x9`, `echo 'requirepass x9' >> redis.conf`); `password
        // required` is prose.
        (VOCAB, format!(r#"(?:(?m:^)|\\n|\{{"[^"\n]*":"|\b(?:echo|printf)[ \t]+(?:-[neE]+[ \t]+)?\\?['"])[ \t]*(?:(?:ENV|setx?)[ \t]+)?{name}[ \t]+(?:{quoted}|([^\s"'\x60;&|<>\\]*[0-9!@#$%^&*+=?~.,:/_-][^\s"'\x60;&|<>\\]*))[ \t]*;?[ \t]*(?:(?m:$)|\\[nr]|\\?['"])"#)),
        // A .NET setting's value element: `<setting name="ClientSecret" …><value>x</value>`.
        ("<value>", format!(r#"(?i-u:\bname)=\\?["']{name}\\?["'](?:[ \t][^<>\n]*)?>[ \t]*(?:\r?\n[ \t]*)?<value>{bare}"#)),
    ];
    // A label and its value after a space, in prose, logs and config blocks:
    // `password "x";`, `Your API key is x`, `token test-token-6 x`, `secret  x`,
    // `password for the admin account: x`, `password was set to x`, Cisco's `secret 0 x`;
    // or a random value joined to its credential's word by `-` or `_`, as vendors' samples
    // write a key after its name (`prospect-token-ba98…`, `codatoken-<uuid>`, `key_8c5a…`): a
    // UUID, or 16 or more letters and digits that end the word. One regex: the name's words
    // anchor both, and each compiled rule scans on its own.
    let labelled = rule("named_secret", &format!(r"{LEFT_EDGE}(?P<k>[A-Za-z0-9_.-]*(?i-u:{VOCAB})[A-Za-z0-9_.-]*?)(?:(?:\*\*:?)?[ \t]+(?:is[ \t]+|(?:[|-]|->|—)[ \t]*|[0-9][ \t]+|for[ \t][^:\n]+?:[ \t]*|(?:was[ \t]+)?(?:(?:set|changed|reset)[ \t]+)?to[ \t]+)?(?:{quoted}|{bare})|[-_]((?i-u:{UUID})|[A-Za-z0-9]{{16,}}=*)(?:$|[^A-Za-z0-9_.?-]))")).check(Check::Labelled).anchors(VOCAB);
    assigned.iter().map(|(anchors, pattern)| rule("named_secret", pattern).check(Check::Assigned).anchors(anchors)).chain([labelled]).collect()
}
