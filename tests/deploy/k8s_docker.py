#!/usr/bin/env python3
"""Static checks of the Dockerfile and .dockerignore (used by tests/deploy/k8s_check.sh).

There is no Docker engine where this runs, so the image is never built here; this checks what can
be checked without building it:
  * every FROM is pinned by tag (not latest) or digest, the final stage is distroless static or scratch;
  * the final stage runs as a numeric non-root USER uid:gid >= 10000 that matches the Kubernetes
    manifest, EXPOSEs the exporter's port and has an exec-form ENTRYPOINT;
  * the builder makes a static musl binary with `cargo build --release --locked`;
  * .dockerignore leaves out target/ and .git/, but nothing the build needs: files the code embeds
    (include_str!/include_bytes!/include!) and target paths declared in Cargo.toml.

    k8s_docker.py --root REPO [--native rendered-native.yaml]
"""
import argparse
import glob
import os
import re
import sys
import tomllib

import yaml

results = []


def check(name, ok, detail=""):
    results.append(bool(ok))
    print(f"{'ok  ' if ok else 'FAIL'} {name}{'' if ok or not detail else ': ' + str(detail)}")
    return bool(ok)


def dockerfile_instructions(text):
    """(INSTRUCTION, arguments) pairs, with continuations joined and comment lines dropped."""
    out, cur = [], ""
    for line in text.splitlines():
        s = line.strip()
        if not cur and (not s or s.startswith("#")):
            continue
        if cur and s.startswith("#"):
            continue  # comment inside a continuation
        if s.endswith("\\"):
            cur += s[:-1] + " "
            continue
        cur += s
        if cur.strip():
            word, _, rest = cur.strip().partition(" ")
            out.append((word.upper(), rest.strip()))
        cur = ""
    return out


def glob_to_regex(pattern):
    """Docker's .dockerignore globs (Go filepath.Match plus **) as a regex."""
    rx, i = "", 0
    while i < len(pattern):
        if pattern.startswith("**/", i):
            rx, i = rx + "(?:.*/)?", i + 3
        elif pattern.startswith("**", i):
            rx, i = rx + ".*", i + 2
        elif pattern[i] == "*":
            rx, i = rx + "[^/]*", i + 1
        elif pattern[i] == "?":
            rx, i = rx + "[^/]", i + 1
        else:
            rx, i = rx + re.escape(pattern[i]), i + 1
    return rx


def dockerignore_patterns(path):
    pats = []
    if os.path.isfile(path):
        with open(path, encoding="utf-8") as fh:
            for line in fh:
                s = line.strip()
                if not s or s.startswith("#"):
                    continue
                neg = s.startswith("!")
                s = s[1:] if neg else s
                s = s.strip("/")
                s = os.path.normpath(s) if s else s
                pats.append((re.compile("^" + glob_to_regex(s) + "$"), neg, line.strip()))
    return pats


def ignored(relpath, pats):
    """Whether Docker leaves relpath out of the build context (a path is out if it or a parent matches)."""
    parts = relpath.split("/")
    prefixes = ["/".join(parts[:i]) for i in range(1, len(parts) + 1)]
    state = False
    for rx, neg, _ in pats:
        if any(rx.match(p) for p in prefixes):
            state = not neg
    return state


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--root", required=True)
    ap.add_argument("--native", help="rendered native-sidecar manifest, to compare the runtime user")
    args = ap.parse_args()
    root = args.root

    with open(os.path.join(root, "Dockerfile"), encoding="utf-8") as fh:
        instrs = dockerfile_instructions(fh.read())

    # ARG defaults (global scope, before the first FROM) to resolve ${VAR} in FROM lines.
    argdefs = {}
    for word, rest in instrs:
        if word == "FROM":
            break
        if word == "ARG" and "=" in rest:
            k, v = rest.split("=", 1)
            argdefs[k.strip()] = v.strip().strip('"')

    def expand(s):
        return re.sub(r"\$\{?([A-Za-z_][A-Za-z0-9_]*)\}?", lambda m: argdefs.get(m.group(1), m.group(0)), s)

    stages = []  # [(image, alias, [instructions])]
    for word, rest in instrs:
        if word == "FROM":
            toks = [t for t in rest.split() if not t.startswith("--")]
            image = expand(toks[0])
            alias = toks[2] if len(toks) >= 3 and toks[1].upper() == "AS" else None
            stages.append((image, alias, []))
        elif stages:
            stages[-1][2].append((word, rest))
    if not check("Dockerfile has a builder and a final stage", len(stages) >= 2, [s[0] for s in stages]):
        return 1
    aliases = {s[1] for s in stages if s[1]}
    for image, alias, _ in stages:
        if image in aliases or image == "scratch":
            continue
        last = image.rsplit("/", 1)[-1]
        pinned = "@sha256:" in image or (":" in last and not last.endswith(":latest") and "$" not in last)
        check(f"FROM {image} pinned by tag (not latest) or digest", pinned)

    final_image, _, final = stages[-1]
    check("final stage is distroless static or scratch",
          final_image == "scratch" or final_image.startswith("gcr.io/distroless/static"), final_image)
    users = [rest for w, rest in final if w == "USER"]
    user = users[-1] if users else ""
    m = re.fullmatch(r"(\d+):(\d+)", user)
    check("final stage USER is numeric uid:gid", m is not None, user)
    uid, gid = (int(m.group(1)), int(m.group(2))) if m else (None, None)
    check("final stage USER uid and gid >= 10000", m is not None and uid >= 10000 and gid >= 10000, user)
    check("final stage EXPOSEs 10403", any(w == "EXPOSE" and "10403" in rest.split() for w, rest in final))
    check("final stage ENTRYPOINT in exec form",
          any(w == "ENTRYPOINT" and rest.startswith("[") for w, rest in final))
    builder_text = "\n".join(f"{w} {r}" for _, _, ins in stages[:-1] for w, r in ins)
    check("builder installs musl-tools", "musl-tools" in builder_text)
    check("builder adds the musl target", re.search(r"rustup target add", builder_text)
          and "unknown-linux-musl" in builder_text)
    check("builder runs cargo build --release --locked",
          re.search(r"cargo build[^&;]*--release", builder_text) and "--locked" in builder_text)

    if args.native and m:
        with open(args.native, encoding="utf-8") as fh:
            docs = [d for d in yaml.safe_load_all(fh) if d]
        dep = [d for d in docs if d["kind"] == "Deployment"][0]
        pod = dep["spec"]["template"]["spec"]
        exp = [c for c in pod.get("initContainers", []) + pod["containers"] if c["name"] == "denials-exporter"][0]
        sc = exp.get("securityContext") or {}
        check("Kubernetes runs the exporter as the image's USER",
              (sc.get("runAsUser"), sc.get("runAsGroup")) == (uid, gid), (sc.get("runAsUser"), sc.get("runAsGroup")))

    # .dockerignore
    pats = dockerignore_patterns(os.path.join(root, ".dockerignore"))
    check(".dockerignore exists", bool(pats))
    for p in ("target", ".git"):
        check(f".dockerignore leaves out {p}/", ignored(p, pats))
    for p in ("Cargo.toml", "Cargo.lock", "src/main.rs"):
        check(f".dockerignore keeps {p}", not ignored(p, pats))

    needed = set()
    inc = re.compile(r'\binclude(?:_str|_bytes)?!\s*\(\s*(?:concat!\s*\(\s*env!\s*\(\s*"CARGO_MANIFEST_DIR"\s*\)\s*,\s*)?"([^"]+)"')
    for rs in glob.glob(os.path.join(root, "src", "**", "*.rs"), recursive=True):
        with open(rs, encoding="utf-8", errors="replace") as fh:
            for lit in inc.findall(fh.read()):
                base = root if lit.startswith("/") else os.path.dirname(rs)
                target = os.path.normpath(os.path.join(base, lit.lstrip("/")))
                needed.add(os.path.relpath(target, root))
    try:
        with open(os.path.join(root, "Cargo.toml"), "rb") as fh:
            manifest = tomllib.load(fh)
    except (OSError, tomllib.TOMLDecodeError) as e:
        check("Cargo.toml readable", False, e)
        manifest = {}
    pkg = manifest.get("package", {})
    if isinstance(pkg.get("build"), str):
        needed.add(os.path.normpath(pkg["build"]))
    elif os.path.isfile(os.path.join(root, "build.rs")) and pkg.get("build") is not False:
        needed.add("build.rs")
    for section in ("bin", "example", "test", "bench"):
        for t in manifest.get(section, []):
            if "path" in t:
                needed.add(os.path.normpath(t["path"]))
    if "lib" in manifest and "path" in manifest["lib"]:
        needed.add(os.path.normpath(manifest["lib"]["path"]))
    bad = sorted(p for p in needed if p.startswith("..") or ignored(p, pats))
    check(f".dockerignore keeps the {len(needed)} file(s) the build refers to (embedded files, Cargo targets)",
          not bad, bad)

    failed = results.count(False)
    print(f"k8s_docker: {len(results) - failed} checks passed, {failed} failed")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
