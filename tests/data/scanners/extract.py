#!/usr/bin/env python3
"""Builds the scanner corpus (`scanners.jsonl` beside this script) from the test strings that
gitleaks and trufflehog ship with their rules, read from local git snapshots of the two
repositories. Nothing of theirs is run or built: their Go test files are read as text, and only
the string values the tests feed to the rules (and the values they expect back) are kept.

Usage: extract.py GITLEAKS_GIT_DIR TRUFFLEHOG_GIT_DIR [OUT]

Each GIT_DIR is a clone or bare snapshot (`git --git-dir=DIR show HEAD:path` must work). The
output is one JSON object a line:
    {"src": "gitleaks"|"trufflehog", "family": rule id or detector, "path": file,
     "case": test case name or index, "kind": "tp"|"fp", "secrets": [...], "text": "..."}
`secrets` lists the values the scanner reports for a positive (empty when the test does not
say); the first lines (`"meta"`) record each repository's commit.

How values are evaluated: string literals (interpreted and raw), `+`, `fmt.Sprintf`,
`strings.Repeat`/`ToUpper`/`ToLower`, named strings of the file, `append`, and the sample
builders of gitleaks' rule tests, whose templates and character-class helpers are read from
the gitleaks snapshot itself (`cmd/generate/config/utils/`). gitleaks' random secrets
(`secrets.NewSecret(regex)`) are drawn here from the regex with a seeded generator, so the
output is the same on every run. A case whose value cannot be evaluated this way is skipped
and counted on stderr.
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


def main():
    if len(sys.argv) not in (3, 4):
        sys.exit(__doc__)
    gl, th = sys.argv[1], sys.argv[2]
    target = sys.argv[3] if len(sys.argv) == 4 else __file__.rsplit("/", 1)[0] + "/scanners.jsonl"
    out, stats = [], {"skipped": 0}
    gitleaks(gl, out, stats)
    skipped_gl = stats["skipped"]
    trufflehog(th, out, stats)
    # One case per (source, family, kind, text): tests repeat inputs.
    seen, unique = set(), []
    for row in out:
        key = (row["src"], row["family"], row["kind"], row["text"])
        if key not in seen and row["text"]:
            seen.add(key)
            unique.append(row)
    meta = [
        {"meta": "gitleaks", "repository": "https://github.com/gitleaks/gitleaks",
         "commit": git(gl, "rev-parse", "HEAD").strip(), "paths": "cmd/generate/config/rules/*.go"},
        {"meta": "trufflehog", "repository": "https://github.com/trufflesecurity/trufflehog",
         "commit": git(th, "rev-parse", "HEAD").strip(), "paths": "pkg/detectors/*/*_test.go"},
    ]
    with open(target, "w", encoding="utf-8") as f:
        for row in meta + unique:
            f.write(json.dumps(row, ensure_ascii=False, sort_keys=True) + "\n")
    by = {}
    for row in unique:
        by[(row["src"], row["kind"])] = by.get((row["src"], row["kind"]), 0) + 1
    print(f"wrote {target}: {by}; skipped {skipped_gl} gitleaks values, "
          f"{stats['skipped'] - skipped_gl} trufflehog cases", file=sys.stderr)


if __name__ == "__main__":
    main()
