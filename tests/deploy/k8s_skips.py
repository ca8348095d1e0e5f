#!/usr/bin/env python3
"""Every checkov check skipped in deploy/kubernetes/.checkov.yaml must be justified in
deploy/kubernetes/checkov-skips.md, and every justification must be for a skipped check
(used by tests/deploy/k8s_check.sh).

    k8s_skips.py --config .checkov.yaml --doc checkov-skips.md [--known checkov-list.txt]

--known: the output of `checkov -l`, to reject skips of checks that do not exist (typos).
A justification is the last cell of the check's table row, at least five words long.
"""
import argparse
import re
import sys

import yaml

CHECK_ID = re.compile(r"^CKV2?_[A-Z0-9]+_\d+$")


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--config", required=True)
    ap.add_argument("--doc", required=True)
    ap.add_argument("--known")
    args = ap.parse_args()
    failed = 0

    def fail(msg):
        nonlocal failed
        failed += 1
        print(f"FAIL {msg}")

    with open(args.config, encoding="utf-8") as fh:
        cfg = yaml.safe_load(fh) or {}
    skips = cfg.get("skip-check") or []
    if isinstance(skips, str):
        skips = [s.strip() for s in skips.split(",") if s.strip()]
    skips = [str(s) for s in skips]
    for s in skips:
        if not CHECK_ID.match(s):
            fail(f"{args.config}: skip-check entry {s!r} is not a single check id (no wildcards)")
    if len(set(skips)) != len(skips):
        fail(f"{args.config}: skip-check lists a check twice")

    justified = {}
    with open(args.doc, encoding="utf-8") as fh:
        for line in fh:
            cells = [c.strip() for c in line.strip().strip("|").split("|")]
            if len(cells) >= 2:
                cid = cells[0].strip("` ")
                if CHECK_ID.match(cid):
                    if cid in justified:
                        fail(f"{args.doc}: {cid} has two rows")
                    justified[cid] = cells[-1]

    for s in skips:
        if s not in justified:
            fail(f"{s} is skipped in {args.config} but has no row in {args.doc}")
        elif len(justified[s].split()) < 5:
            fail(f"{s}: justification in {args.doc} is too short: {justified[s]!r}")
        else:
            print(f"ok   {s} skipped: {justified[s]}")
    for cid in justified:
        if cid not in skips:
            fail(f"{cid} is justified in {args.doc} but not skipped in {args.config} (stale row?)")

    if args.known:
        with open(args.known, encoding="utf-8") as fh:
            known = set(re.findall(r"\bCKV2?_[A-Z0-9]+_\d+\b", fh.read()))
        if not known:
            fail(f"{args.known}: no check ids found in checkov's list")
        for s in skips:
            if s not in known:
                fail(f"{s} is not a check checkov knows (typo?)")

    print(f"k8s_skips: {len(skips)} skip(s), {failed} problem(s)")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
