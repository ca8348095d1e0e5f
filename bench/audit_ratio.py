#!/usr/bin/env python3
"""What the audit stream costs a replay, for several builds in the same run (python3 stdlib only).

    audit_ratio.py LOG NAME=BINARY [NAME=BINARY ...] [--rounds N]

Each round runs every binary's `replay LOG` and `replay --audit-log FILE LOG` once, in turn, so
that load from other processes falls on every build alike. Prints, per build, the median wall
time of each mode, the audit throughput against plain (ratio of the medians, and the median of
each round's ratio), and the CPU time (user + system) the audit stream adds (median of each
round's audit minus plain). On a shared or virtual machine the wall ratio moves by several
points from one invocation to the next; the added CPU moves less. Figures for reading, not a
pass/fail check (bench/redact.sh checks the budgets).
"""

import argparse
import os
import resource
import statistics
import subprocess
import sys
import tempfile
import time


def once(binary, log, audit):
    args = [binary, "replay"]
    if audit:
        if os.path.exists(audit):
            os.unlink(audit)
        args += ["--audit-log", audit]
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    start = time.perf_counter()
    subprocess.run(args + [log], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, check=True)
    wall = time.perf_counter() - start
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    return wall, cpu


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("log")
    parser.add_argument("builds", nargs="+", metavar="NAME=BINARY")
    parser.add_argument("--rounds", type=int, default=31)
    opts = parser.parse_args()
    builds = []
    for spec in opts.builds:
        name, sep, binary = spec.partition("=")
        if not sep or not os.access(binary, os.X_OK):
            sys.exit(f"audit_ratio.py: {spec!r} is not NAME=BINARY with an executable BINARY")
        builds.append((name, binary))
    if not os.path.isfile(opts.log):
        sys.exit(f"audit_ratio.py: no log at {opts.log}")
    with tempfile.TemporaryDirectory() as scratch:
        audit = os.path.join(scratch, "audit.jsonl")
        runs = {(name, mode): [] for name, _ in builds for mode in ("plain", "audit")}
        for _ in range(opts.rounds):
            for name, binary in builds:
                runs[(name, "plain")].append(once(binary, opts.log, None))
                runs[(name, "audit")].append(once(binary, opts.log, audit))
    print(f"{opts.rounds} rounds, interleaved; medians")
    print("| build | plain ms | audit ms | audit throughput vs plain | per-round ratio | CPU added ms |")
    print("| --- | ---: | ---: | ---: | ---: | ---: |")
    for name, _ in builds:
        plain, audit_runs = runs[(name, "plain")], runs[(name, "audit")]
        plain_wall = statistics.median(w for w, _ in plain)
        audit_wall = statistics.median(w for w, _ in audit_runs)
        paired = statistics.median(p[0] / a[0] for p, a in zip(plain, audit_runs))
        added = statistics.median(a[1] - p[1] for p, a in zip(plain, audit_runs))
        print(
            f"| {name} | {plain_wall * 1000:.1f} | {audit_wall * 1000:.1f} | "
            f"{plain_wall / audit_wall:.1%} | {paired:.1%} | {added * 1000:.0f} |"
        )


if __name__ == "__main__":
    main()
