#!/usr/bin/env python3
"""Builds the scanner corpus (`scanners.jsonl` beside this script) from the test strings that
gitleaks, trufflehog and detect-secrets ship with their rules, read from local git snapshots of
the repositories. Nothing of theirs is run or built: their Go and Python test files are read as
text (Python through `ast`), and only the string values the tests feed to the rules (and the
values they expect back) are kept.

Usage: extract.py [--gitleaks DIR] [--trufflehog DIR] [--detect-secrets DIR] [--out FILE]

Each DIR is a clone or bare snapshot (`git --git-dir=DIR show HEAD:path` must work), at the
commit to record. A source not given keeps its rows and its meta line from the existing output,
so one source can be added or refreshed alone. The output is one JSON object a line:
    {"src": "gitleaks"|"trufflehog"|"detect-secrets", "family": rule id, detector or plugin,
     "path": file, "case": test case name or index, "kind": "tp"|"fp", "secrets": [...],
     "text": "..."}
`secrets` lists the values the scanner reports for a positive (empty when the test does not
say); the first lines (`"meta"`) record each repository, commit and paths.

How values are evaluated: for Go, string literals (interpreted and raw), `+`, `fmt.Sprintf`,
`strings.Repeat`/`ToUpper`/`ToLower`, named strings of the file, `append`, and the sample
builders of gitleaks' rule tests, whose templates and character-class helpers are read from
the gitleaks snapshot itself (`cmd/generate/config/utils/`). gitleaks' random secrets
(`secrets.NewSecret(regex)`) are drawn here from the regex with a seeded generator, so the
output is the same on every run. For detect-secrets, the rows of each
`pytest.mark.parametrize`: literals, names bound to literals in the module or class, `+`, `*`,
`%`, slices and `str.format`; `should_flag`, `should_be_caught`, `num_results` and
`expected_secret` say whether a row is a positive, and a test of one `line`/`payload` asserts a
finding. A case whose value cannot be evaluated this way is skipped and counted on stderr.
"""

import json
import random
import re
import subprocess
import sys
try:
    import re._parser as sre_parse  # Python >= 3.11
    from re import _constants as sre_c
except ImportError:  # pragma: no cover
    import sre_parse
    import sre_constants as sre_c


def git(git_dir, *args):
    return subprocess.run(["git", "--git-dir", git_dir, *args], check=True,
                          capture_output=True).stdout.decode("utf-8", "replace")


# ---- a tokenizer for Go source --------------------------------------------------------------

TOKEN = re.compile(r"""
    (?P<ws>\s+)
  | (?P<lcomment>//[^\n]*)
  | (?P<bcomment>/\*.*?\*/)
  | (?P<raw>`[^`]*`)
  | (?P<str>"(?:[^"\\\n]|\\.)*")
  | (?P<rune>'(?:[^'\\\n]|\\[^\n][^']*)')
  | (?P<num>[0-9][0-9a-fA-FxX_.]*)
  | (?P<ident>[^\W\d]\w*)
  | (?P<op>:=|\.\.\.|&&|\|\||==|!=|<=|>=|\+=|[-+*/%&|^<>=!(){}\[\],;:.])
""", re.S | re.X)

ESC = {"n": "\n", "t": "\t", "r": "\r", "\\": "\\", '"': '"', "'": "'", "a": "\a",
       "b": "\b", "f": "\f", "v": "\v"}


def go_unquote(lit):
    body, out, i = lit[1:-1], [], 0
    raw = bytearray()

    def flush():
        if raw:
            out.append(raw.decode("utf-8", "replace"))
            raw.clear()
    while i < len(body):
        c = body[i]
        if c != "\\":
            flush()
            out.append(c)
            i += 1
            continue
        n = body[i + 1]
        if n in ESC:
            flush()
            out.append(ESC[n])
            i += 2
        elif n == "x":
            raw.append(int(body[i + 2:i + 4], 16))
            i += 4
        elif n in "uU":
            flush()
            width = 4 if n == "u" else 8
            out.append(chr(int(body[i + 2:i + 2 + width], 16)))
            i += 2 + width
        elif n in "01234567":
            raw.append(int(body[i + 1:i + 4], 8))
            i += 4
        else:
            flush()
            out.append(n)
            i += 2
    flush()
    return "".join(out)


def tokens(src):
    out = []
    for m in TOKEN.finditer(src):
        kind = m.lastgroup
        if kind in ("ws", "lcomment", "bcomment"):
            continue
        text = m.group()
        if kind == "raw":
            out.append(("str", text[1:-1].replace("\r", "")))
        elif kind == "str":
            out.append(("str", go_unquote(text)))
        elif kind == "rune":
            out.append(("rune", go_unquote('"' + text[1:-1] + '"')))
        else:
            out.append((kind, text))
    return out


class Unknown(Exception):
    """A value this evaluator cannot compute."""


# ---- random strings from a regex (gitleaks' `secrets.NewSecret`) ---------------------------

def generate(pattern, rng):
    try:
        tree = sre_parse.parse(pattern)
    except Exception as e:  # noqa: BLE001 - a pattern Python's parser refuses
        raise Unknown(f"regex {pattern!r}: {e}")
    return "".join(gen_seq(tree, rng))


def gen_seq(seq, rng):
    out = []
    for op, av in seq:
        out.extend(gen_one(op, av, rng))
    return out


CATEGORIES = {
    sre_c.CATEGORY_DIGIT: "0123456789",
    sre_c.CATEGORY_WORD: "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_",
    sre_c.CATEGORY_SPACE: " ",
}
PRINTABLE = [chr(c) for c in range(0x21, 0x7f)]


def class_chars(items):
    chars, negate = [], False
    for op, av in items:
        if op == sre_c.NEGATE:
            negate = True
        elif op == sre_c.LITERAL:
            chars.append(chr(av))
        elif op == sre_c.RANGE:
            chars.extend(chr(c) for c in range(av[0], av[1] + 1))
        elif op == sre_c.CATEGORY:
            chars.extend(CATEGORIES.get(av, "a"))
    if negate:
        chars = [c for c in PRINTABLE if c not in chars]
    return chars


def gen_one(op, av, rng):
    if op == sre_c.LITERAL:
        return [chr(av)]
    if op == sre_c.NOT_LITERAL:
        return [rng.choice([c for c in PRINTABLE if ord(c) != av])]
    if op == sre_c.IN:
        return [rng.choice(class_chars(av))]
    if op == sre_c.ANY:
        return [rng.choice("abcdefghijklmnopqrstuvwxyz0123456789")]
    if op in (sre_c.MAX_REPEAT, sre_c.MIN_REPEAT, getattr(sre_c, "POSSESSIVE_REPEAT", None)):
        lo, hi, sub = av
        hi = lo + 8 if hi == sre_c.MAXREPEAT else hi
        return [c for _ in range(rng.randint(lo, hi)) for c in gen_seq(sub, rng)]
    if op == sre_c.SUBPATTERN:
        return gen_seq(av[-1], rng)
    if op == sre_c.BRANCH:
        return gen_seq(rng.choice(av[1]), rng)
    if op in (sre_c.AT, sre_c.ASSERT, sre_c.ASSERT_NOT):
        return []
    if op == sre_c.CATEGORY:
        return [rng.choice(CATEGORIES.get(av, "a"))]
    raise Unknown(f"regex op {op}")


# ---- an evaluator for the Go expressions the tests use ---------------------------------------

def sprintf(fmt, args):
    out, i, arg = [], 0, iter(args)
    while i < len(fmt):
        c = fmt[i]
        if c != "%":
            out.append(c)
            i += 1
            continue
        m = re.match(r"%([-+# 0]*)([0-9]*)(?:\.([0-9]+))?([a-zA-Z%])", fmt[i:])
        if not m:
            raise Unknown("format")
        verb = m.group(4)
        i += m.end()
        if verb == "%":
            out.append("%")
            continue
        try:
            v = next(arg)
        except StopIteration:
            raise Unknown("format args")
        if verb in "sv":
            out.append(v if isinstance(v, str) else str(v))
        elif verb == "q":
            out.append(json.dumps(v))
        elif verb == "d":
            out.append(str(int(v)))
        elif verb == "x":
            out.append(v.encode().hex() if isinstance(v, str) else format(int(v), "x"))
        else:
            raise Unknown(f"verb {verb}")
    return "".join(out)


class Evaluator:
    def __init__(self, toks, env, builders):
        self.t, self.i, self.env, self.b = toks, 0, env, builders

    def peek(self, k=0):
        j = self.i + k
        return self.t[j] if j < len(self.t) else ("eof", "")

    def take(self, text=None):
        tok = self.peek()
        if text is not None and tok[1] != text:
            raise Unknown(f"expected {text} got {tok[1]}")
        self.i += 1
        return tok

    def expr(self):
        v = self.primary()
        while self.peek()[1] == "+":
            self.take()
            w = self.primary()
            if isinstance(v, str) != isinstance(w, str):
                raise Unknown("mixed +")
            v = v + w
        return v

    def args(self):
        self.take("(")
        out = []
        while self.peek()[1] != ")":
            v = self.expr()
            if self.peek()[1] == "...":
                self.take()
                out.extend(v)
            else:
                out.append(v)
            if self.peek()[1] == ",":
                self.take()
        self.take(")")
        return out

    def composite(self):
        self.take("{")
        out = []
        while self.peek()[1] != "}":
            out.append(self.expr())
            if self.peek()[1] == ",":
                self.take()
        self.take("}")
        return out

    def primary(self):
        kind, text = self.peek()
        if kind == "str":
            self.take()
            return text
        if kind == "num":
            self.take()
            return int(text, 0)
        if text == "(":
            self.take()
            v = self.expr()
            self.take(")")
            return v
        if text == "[":
            self.take("[")
            self.take("]")
            elem = self.take()[1]
            if elem == "]":
                raise Unknown("nested slice")
            if self.peek()[1] == "(":  # []byte("x")
                return self.args()[0]
            if elem != "string":
                raise Unknown(f"slice of {elem}")
            return self.composite()
        if kind != "ident":
            raise Unknown(f"token {text}")
        self.take()
        name = text
        while self.peek()[1] == "." and self.peek(1)[0] == "ident":
            self.take()
            name += "." + self.take()[1]
        if self.peek()[1] == "(":
            return self.call(name, self.args())
        if name == "nil":
            return []
        if name in self.env:
            return self.env[name]
        raise Unknown(f"name {name}")

    def call(self, name, args):
        short = name.split(".")[-1]
        if name == "fmt.Sprintf":
            return sprintf(args[0], args[1:])
        if name == "strings.Repeat":
            return args[0] * int(args[1])
        if name == "strings.ToUpper":
            return args[0].upper()
        if name == "strings.ToLower":
            return args[0].lower()
        if name == "strings.Join":
            return args[1].join(args[0])
        if name in ("string", "strconv.Itoa"):
            return str(args[0])
        if name == "append":
            return list(args[0]) + list(args[1:])
        if name == "secrets.NewSecret":
            return generate(args[0], self.b.rng)
        if name.startswith("utils.") and short in self.b.classes:
            return self.b.classes[short].replace("%s", str(args[0]))
        if name == "utils.GenerateSampleSecrets":
            samples = [sprintf_template(t, args[0], args[1]) for t in self.b.samples]
            self.b.secret_of.update((sample, args[1]) for sample in samples)
            return samples
        if name == "utils.GenerateSampleSecret":
            sample = self.b.sample.replace("%s", args[0], 1).replace("%s", args[1], 1)
            self.b.secret_of[sample] = args[1]
            return sample
        raise Unknown(f"call {name}")


def sprintf_template(template, identifier, secret):
    return (template.replace("{i}", identifier).replace("{I}", identifier.upper())
            .replace("{s}", secret))


def balanced_end(toks, start):
    """Index of the token closing the bracket at `start`."""
    pairs = {"{": "}", "(": ")", "[": "]"}
    stack = []
    for j in range(start, len(toks)):
        t = toks[j][1] if toks[j][0] == "op" else None
        if t in pairs:
            stack.append(pairs[t])
        elif t in (")", "}", "]"):
            stack.pop()
            if not stack:
                return j
    return len(toks) - 1


def assignments(toks, env, builders, skipped):
    """Evaluates every `name = expr` / `name := expr` it can, in order, into `env`."""
    for j in range(1, len(toks) - 1):
        if toks[j][0] == "ident" and toks[j + 1][1] in ("=", ":=") and toks[j - 1][1] != ".":
            ev = Evaluator(toks, env, builders)
            ev.i = j + 2
            try:
                env[toks[j][1]] = ev.expr()
            except (Unknown, IndexError, ValueError, TypeError, AttributeError, KeyError) as e:
                skipped.append(f"{toks[j][1]}: {e}")


# ---- gitleaks -------------------------------------------------------------------------------

class Builders:
    def __init__(self, git_dir):
        utils = "cmd/generate/config/utils/"
        patterns = git(git_dir, "show", f"HEAD:{utils}patterns.go")
        self.classes = {
            m.group(1): m.group(2) for m in re.finditer(
                r"func (\w+)\(size string\) string \{\s*return fmt\.Sprintf\(`([^`]*)`, size\)",
                patterns)
        }
        for m in re.finditer(r"func (\w+)\(\) string \{\s*return `([^`]*)`", patterns):
            self.classes[m.group(1)] = m.group(2)
        generate_go = git(git_dir, "show", f"HEAD:{utils}generate.go")
        body = generate_go[generate_go.index("func GenerateSampleSecrets"):]
        body = body[:body.index("\n}\n")]
        # The live (not commented-out) entries of its template map, in file order.
        self.samples = []
        for line in body.splitlines():
            if line.strip().startswith("//"):
                continue
            m = re.match(r'\s*"[^"]*":\s*(".*"|`.*`),\s*$', line)
            if m:
                self.samples.append(tokens(m.group(1))[0][1])
        one = generate_go[generate_go.index("func GenerateSampleSecret("):]
        self.sample = tokens(re.search(r"fmt\.Sprintf\((\"(?:[^\"\\]|\\.)*\")", one).group(1))[0][1]
        self.rng = random.Random(0)
        # The secret each generated sample carries.
        self.secret_of = {}


def gitleaks(git_dir, out, stats):
    builders = Builders(git_dir)
    rules_dir = "cmd/generate/config/rules/"
    paths = [p for p in git(git_dir, "ls-tree", "-r", "--name-only", "HEAD", rules_dir).split()
             if p.endswith(".go") and not p.endswith("_test.go")]
    for path in sorted(paths):
        toks = tokens(git(git_dir, "show", f"HEAD:{path}"))
        # One function per rule: split at `func`.
        starts = [j for j, t in enumerate(toks) if t == ("ident", "func")] + [len(toks)]
        for a, b in zip(starts, starts[1:]):
            body = toks[a:b]
            rule_id = next((body[j + 2][1] for j in range(len(body) - 2)
                            if body[j] == ("ident", "RuleID") and body[j + 2][0] == "str"), None)
            if rule_id is None:
                continue
            builders.rng.seed(f"{path}:{rule_id}")
            env, skipped = {}, []
            values = {"tps": [], "fps": []}
            for j in range(len(body) - 1):
                name = body[j][1]
                if name in values and body[j + 1][1] in ("=", ":=") and body[j - 1][1] != ".":
                    ev = Evaluator(body, env, builders)
                    ev.i = j + 2
                    try:
                        env[name] = ev.expr()
                        values[name] = env[name]
                    except (Unknown, IndexError, ValueError, TypeError, AttributeError, KeyError) as e:
                        skipped.append(f"{name}: {e}")
                elif body[j][0] == "ident" and body[j + 1][1] in ("=", ":=") and body[j - 1][1] != ".":
                    ev = Evaluator(body, env, builders)
                    ev.i = j + 2
                    try:
                        env[name] = ev.expr()
                    except (Unknown, IndexError, ValueError, TypeError, AttributeError, KeyError):
                        pass
            stats["skipped"] += len(skipped)
            for kind in ("tps", "fps"):
                for n, text in enumerate(values[kind]):
                    if not isinstance(text, str):
                        continue
                    out.append({"src": "gitleaks", "family": rule_id, "path": path, "case": n,
                                "kind": kind[:2], "text": text,
                                "secrets": [builders.secret_of[text]] if text in builders.secret_of else []})


# ---- trufflehog -----------------------------------------------------------------------------

def struct_fields(toks, start, end):
    """`key: expr` items at the top level of the braces `start..end`, as token ranges."""
    fields, j = {}, start + 1
    while j < end:
        if toks[j][0] == "ident" and toks[j + 1][1] == ":":
            key, k, depth = toks[j][1], j + 2, 0
            while k < end:
                t = toks[k][1] if toks[k][0] == "op" else None
                if t in ("(", "{", "["):
                    depth += 1
                elif t in (")", "}", "]"):
                    depth -= 1
                elif t == "," and depth == 0:
                    break
                k += 1
            fields[key] = (j + 2, k)
            j = k + 1
        else:
            return {}
    return fields


def trufflehog(git_dir, out, stats):
    paths = [p for p in git(git_dir, "ls-tree", "-r", "--name-only", "HEAD", "pkg/detectors").split()
             if p.endswith("_test.go") and "integration" not in p]
    for path in sorted(paths):
        family = path.split("/")[2]
        toks = tokens(git(git_dir, "show", f"HEAD:{path}"))
        env, skipped = {}, []
        assignments(toks, env, None, skipped)
        for j, tok in enumerate(toks):
            if tok != ("op", "{"):
                continue
            end = balanced_end(toks, j)
            fields = struct_fields(toks, j, end)
            if "input" not in fields or "want" not in fields:
                continue
            values = {}
            try:
                for key in ("name", "input", "want"):
                    if key in fields:
                        a, b = fields[key]
                        ev = Evaluator(toks[:b], env, None)
                        ev.i = a
                        values[key] = ev.expr()
                        if ev.i != b:
                            raise Unknown(f"{key}: trailing tokens")
            except (Unknown, IndexError, ValueError, TypeError, AttributeError, KeyError) as e:
                stats["skipped"] += 1
                continue
            text, want = values["input"], values["want"]
            if not isinstance(text, str) or not isinstance(want, list):
                stats["skipped"] += 1
                continue
            out.append({"src": "trufflehog", "family": family, "path": path,
                        "case": values.get("name", str(j)), "kind": "tp" if want else "fp",
                        "secrets": [w for w in want if isinstance(w, str)], "text": text})


# ---- detect-secrets ------------------------------------------------------------------------

class PyUnknown(Exception):
    """A Python expression this evaluator cannot compute."""


def py_eval(node, env):
    """Evaluates the literal Python the plugin tests use: strings, numbers, booleans, None,
    tuples and lists, names bound to such values, `+`, `*`, `%`, slices and `str.format`."""
    import ast
    if isinstance(node, ast.Constant):
        return node.value
    if isinstance(node, (ast.Tuple, ast.List)):
        return [py_eval(e, env) for e in node.elts]
    if isinstance(node, ast.Name):
        if node.id in env:
            return env[node.id]
        raise PyUnknown(node.id)
    if isinstance(node, ast.BinOp):
        a, b = py_eval(node.left, env), py_eval(node.right, env)
        if isinstance(node.op, ast.Add):
            return a + b
        if isinstance(node.op, ast.Mult):
            return a * b
        if isinstance(node.op, ast.Mod) and isinstance(a, str):
            return a % (tuple(b) if isinstance(b, list) else b)
        raise PyUnknown("operator")
    if isinstance(node, ast.Subscript):
        value = py_eval(node.value, env)
        if isinstance(node.slice, ast.Slice):
            lo = py_eval(node.slice.lower, env) if node.slice.lower else None
            hi = py_eval(node.slice.upper, env) if node.slice.upper else None
            return value[lo:hi]
        return value[py_eval(node.slice, env)]
    if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute):
        receiver = py_eval(node.func.value, env)
        if isinstance(receiver, str) and node.func.attr == "format":
            args = [py_eval(a, env) for a in node.args]
            kwargs = {k.arg: py_eval(k.value, env) for k in node.keywords}
            return receiver.format(*args, **kwargs)
    if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) \
            and node.func.attr == "dedent":
        import textwrap
        return textwrap.dedent(py_eval(node.args[0], env))
    raise PyUnknown(type(node).__name__)


def py_bindings(body, env):
    """Binds every `NAME = literal` of a module or class body that evaluates."""
    import ast
    for stmt in body:
        if isinstance(stmt, ast.Assign) and len(stmt.targets) == 1 \
                and isinstance(stmt.targets[0], ast.Name):
            if isinstance(stmt.value, ast.List):
                # A list of cases keeps those that evaluate (`LONG_LINE`, drawn at random, not).
                env[stmt.targets[0].id] = [v for v in (py_try(e, env) for e in stmt.value.elts)
                                           if v is not None]
                continue
            value = py_try(stmt.value, env)
            if value is not None:
                env[stmt.targets[0].id] = value


def py_try(node, env):
    """`py_eval`, or None when the expression is not one it can compute."""
    try:
        return py_eval(node, env)
    except (PyUnknown, IndexError, KeyError, TypeError, ValueError):
        return None


class Named(dict):
    """An environment where an unbound name evaluates to itself."""

    def __contains__(self, key):
        return True

    def __missing__(self, key):
        return key


def parametrize(func, env):
    """The `@pytest.mark.parametrize(names, rows)` of `func`: (names, rows), evaluated."""
    import ast
    for deco in func.decorator_list:
        if isinstance(deco, ast.Call) and isinstance(deco.func, ast.Attribute) \
                and deco.func.attr == "parametrize":
            names = [n.strip() for n in py_eval(deco.args[0], env).split(",")]
            # A row may name a plugin class (`HexHighEntropyString`): its name stands for it.
            env = Named(env)
            rows, given = [], deco.args[1]
            if isinstance(given, ast.Call) and isinstance(given.func, ast.Name) \
                    and given.func.id == "parse_test_cases":
                # keyword_test.py's `parse_test_cases([(extension, cases), ...])`: one row
                # `(extension, line, expected)` per case of each list.
                return names, [[ext, *case] for ext, cases in py_eval(given.args[0], env)
                               for case in cases]
            for row in given.elts:
                try:
                    value = py_eval(row, env)
                except (PyUnknown, IndexError, KeyError, TypeError, ValueError):
                    rows.append(None)
                    continue
                rows.append(value if len(names) > 1 else [value])
            return names, rows
    return None


# What a test's parameters say of a row: the text scanned and whether the plugin must report it.
TEXT_PARAMS = ("payload", "line", "file_content")


def ds_cases(names, row):
    """(text, positive, secret) of one parametrize row of a detection test, or None."""
    p = dict(zip(names, row))
    text = next((p[n] for n in TEXT_PARAMS if n in p), None)
    if not isinstance(text, str):
        return None
    if "should_flag" in p:
        return text, bool(p["should_flag"]), None
    if "expected_secret" in p:
        return text, p["expected_secret"] is not None, p["expected_secret"]
    if len(p) == 1:  # the test asserts one finding per row
        return text, True, None
    return None


def detect_secrets(git_dir, out, stats):
    import ast
    paths = [p for p in git(git_dir, "ls-tree", "-r", "--name-only", "HEAD", "tests/plugins").split()
             if p.endswith("_test.py")]
    for path in sorted(paths):
        family = path.rsplit("/", 1)[1][:-len("_test.py")]
        tree = ast.parse(git(git_dir, "show", f"HEAD:{path}"))
        env = {}
        py_bindings(tree.body, env)

        def functions(body, env, outer):
            for node in body:
                if isinstance(node, ast.ClassDef):
                    inner = dict(env)
                    py_bindings(node.body, inner)
                    found = parametrize(node, inner)
                    yield from functions(node.body, inner, found)
                elif isinstance(node, ast.FunctionDef):
                    found = parametrize(node, env)
                    if found:
                        yield node.name, found, outer

        for name, (names, rows), outer in functions(tree.body, env, None):
            for n, row in enumerate(rows):
                if row is None:
                    stats["skipped"] += 1
                    continue
                if outer and "format" in names:
                    # A line template (`'"{secret}"'`) filled with each row of the class's
                    # parametrize (high-entropy strings); `should_be_caught` / `num_results`.
                    p = dict(zip(names, row))
                    flag = p.get("should_be_caught", p.get("num_results"))
                    for m, outer_row in enumerate(outer[1]):
                        values = dict(zip(outer[0], outer_row or []))
                        if not isinstance(p["format"], str) or flag is None or outer_row is None:
                            stats["skipped"] += 1
                            continue
                        text = p["format"].format(**values)
                        out.append({"src": "detect-secrets", "family": family, "path": path,
                                    "case": f"{name}:{n}:{m}", "kind": "tp" if flag else "fp",
                                    "secrets": [], "text": text})
                    continue
                case = ds_cases(names, row)
                if case is None:
                    continue
                text, positive, secret = case
                label = f"{name}:{n}"
                if "file_extension" in names:
                    label += f":{dict(zip(names, row))['file_extension']}"
                out.append({"src": "detect-secrets", "family": family, "path": path,
                            "case": label, "kind": "tp" if positive else "fp",
                            "secrets": [secret] if secret else [], "text": text})


SOURCES = {
    "gitleaks": (gitleaks, "https://github.com/gitleaks/gitleaks", "cmd/generate/config/rules/*.go"),
    "trufflehog": (trufflehog, "https://github.com/trufflesecurity/trufflehog",
                   "pkg/detectors/*/*_test.go"),
    "detect-secrets": (detect_secrets, "https://github.com/Yelp/detect-secrets",
                       "tests/plugins/*_test.py"),
}


def main():
    args = sys.argv[1:]
    target = __file__.rsplit("/", 1)[0] + "/scanners.jsonl"
    given = {}
    while args:
        flag = args.pop(0)
        if flag == "--out" and args:
            target = args.pop(0)
        elif flag.startswith("--") and flag[2:] in SOURCES and args:
            given[flag[2:]] = args.pop(0)
        else:
            sys.exit(__doc__)
    if not given:
        sys.exit(__doc__)
    # Sources not given keep their rows (and their meta line) from the existing output.
    kept_meta, kept = {}, []
    try:
        with open(target, encoding="utf-8") as f:
            for line in f:
                row = json.loads(line)
                if "meta" in row and row["meta"] not in given:
                    kept_meta[row["meta"]] = row
                elif "meta" not in row and row["src"] not in given:
                    kept.append(row)
    except FileNotFoundError:
        pass
    meta, rows = dict(kept_meta), list(kept)
    for src in SOURCES:
        if src not in given:
            continue
        extract, repository, paths = SOURCES[src]
        out, stats = [], {"skipped": 0}
        extract(given[src], out, stats)
        meta[src] = {"meta": src, "repository": repository,
                     "commit": git(given[src], "rev-parse", "HEAD").strip(), "paths": paths}
        rows.extend(out)
        print(f"{src}: {len(out)} cases; skipped {stats['skipped']} values", file=sys.stderr)
    # One case per (source, family, kind, text): tests repeat inputs.
    seen, unique = set(), []
    for row in rows:
        key = (row["src"], row["family"], row["kind"], row["text"])
        if key not in seen and row["text"]:
            seen.add(key)
            unique.append(row)
    order = {src: n for n, src in enumerate(SOURCES)}
    unique.sort(key=lambda row: order[row["src"]])
    with open(target, "w", encoding="utf-8") as f:
        for row in [meta[src] for src in SOURCES if src in meta] + unique:
            f.write(json.dumps(row, ensure_ascii=False, sort_keys=True) + "\n")
    by = {}
    for row in unique:
        by[(row["src"], row["kind"])] = by.get((row["src"], row["kind"]), 0) + 1
    print(f"wrote {target}: {by}", file=sys.stderr)


if __name__ == "__main__":
    main()
