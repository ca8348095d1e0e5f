#!/usr/bin/env python3
"""Lines of code of the given source rooms, counted as tests/layout.rs counts them.

A line counts when it is neither blank nor a `//` comment and comes before the file's unit tests
(`#[cfg(test)]` followed by `mod tests {`). Files of test-only modules (declared under
`#[cfg(test)]`, and their children) are left out.

    python3 bench/loc.py src/redact src/risk src/matcher   # per room, then the total
"""
import os
import sys

SRC = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "src")


def module_of(path):
    rel = os.path.relpath(path, SRC)[:-3].split(os.sep)
    if rel[-1] in ("mod", "lib", "main"):
        rel.pop()
    return tuple(rel)


def code_lines(path):
    lines = open(path, encoding="utf-8").read().split("\n")
    if lines and lines[-1] == "":
        lines.pop()
    for i, line in enumerate(lines):
        if line.strip() == "#[cfg(test)]" and i + 1 < len(lines) and lines[i + 1].strip() == "mod tests {":
            return lines[:i]
    return lines


def all_sources():
    out = []
    for root, _, files in os.walk(SRC):
        for f in files:
            if f.endswith(".rs"):
                out.append(os.path.join(root, f))
    return sorted(out)


def test_only(sources):
    """Modules declared under `#[cfg(test)]` (a `#[path]` between the two is followed)."""
    mods = set()
    for path in sources:
        code = code_lines(path)
        for i, line in enumerate(code):
            t = line.strip()
            if not (t.startswith("mod ") and t.endswith(";")):
                continue
            above = [c.strip() for c in code[max(0, i - 2) : i]]
            if "#[cfg(test)]" not in above:
                continue
            named = [a for a in above if a.startswith("#[path")]
            if named:
                file = named[0].split('"')[1][:-3]
                mods.add(module_of(path)[:-1] + (file,) if not path.endswith(("mod.rs", "lib.rs")) else module_of(path) + (file,))
            else:
                mods.add(module_of(path) + (t[4:-1],))
    return mods


def count(path):
    return sum(1 for l in code_lines(path) if l.strip() and not l.lstrip().startswith("//"))


def main(rooms):
    sources = all_sources()
    tests = test_only(sources)
    kept = [p for p in sources if not any(module_of(p)[: len(t)] == t for t in tests)]
    total = 0
    for room in rooms:
        room = os.path.normpath(room)
        stem = room[:-3] if room.endswith(".rs") else room
        files = [p for p in kept if os.path.relpath(p).startswith(stem + os.sep) or os.path.relpath(p) == stem + ".rs"]
        n = sum(count(p) for p in files)
        print(f"{stem}: {n} lines of code in {len(files)} files")
        total += n
    print(f"total: {total}")


if __name__ == "__main__":
    os.chdir(os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
    main(sys.argv[1:] or ["src/redact", "src/risk", "src/matcher"])
