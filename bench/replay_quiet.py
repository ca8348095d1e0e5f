#!/usr/bin/env python3
"""Replay of the 1 GiB log against ripgrep and another build, timed only in quiet rounds.

On a shared machine a wall time means little unless nothing else ran: each round waits until
every core was at least IDLE_PCT idle over the last second (/proc/stat), then runs ripgrep
(`rg -c agent.permission.denied`), the base build's replay and the new build's replay, in a
rotating order, and is kept only if the cores were still that idle over the second after it.
Prints each kept round and the medians: wall seconds, and the same-round ratios new/base and
new/ripgrep (the budget is replay within 1.5x of ripgrep).

Usage: bench/replay_quiet.py BASE NEW [--rounds 7] [--log FILE] [--idle-pct 95] [--give-up-s 900]
"""
import argparse
import os
import statistics
import subprocess
import sys
import time


def cpu_times():
    """Per-core (idle, total) jiffies."""
    out = []
    with open("/proc/stat") as f:
        for line in f:
            if line.startswith("cpu") and line[3].isdigit():
                v = [int(x) for x in line.split()[1:]]
                out.append((v[3] + v[4], sum(v)))
    return out


def idle_pct(seconds=1.0):
    """The least idle core's idle share over the next `seconds`, in percent."""
    a = cpu_times()
    time.sleep(seconds)
    b = cpu_times()
    return min(100.0 * (bi - ai) / max(1, bt - at) for (ai, at), (bi, bt) in zip(a, b))


def wall(cmd):
    start = time.perf_counter()
    subprocess.run(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, check=True)
    return time.perf_counter() - start


def main():
    p = argparse.ArgumentParser()
    p.add_argument("base")
    p.add_argument("new")
    p.add_argument("--rounds", type=int, default=7)
    p.add_argument("--log", default="/tmp/denials-bench/executor-1G-seed1.log")
    p.add_argument("--idle-pct", type=float, default=95.0)
    p.add_argument("--give-up-s", type=float, default=900.0)
    a = p.parse_args()
    cmds = {
        "rg": ["rg", "-c", "agent.permission.denied", a.log],
        "base": [a.base, "replay", a.log],
        "new": [a.new, "replay", a.log],
    }
    for cmd in cmds.values():  # warm the page cache and the binaries
        wall(cmd)
    kept, tried, deadline = [], 0, time.time() + a.give_up_s
    while len(kept) < a.rounds and time.time() < deadline:
        if idle_pct() < a.idle_pct:
            continue
        names = list(cmds)
        names = names[tried % 3:] + names[:tried % 3]
        tried += 1
        t = {n: wall(cmds[n]) for n in names}
        after = idle_pct()
        ok = after >= a.idle_pct
        print(f"round {tried}: " + " ".join(f"{n}={t[n]:.3f}" for n in cmds)
              + f" new/base={t['new'] / t['base']:.3f} new/rg={t['new'] / t['rg']:.2f}"
              + ("" if ok else f" (dropped: {after:.0f}% idle after)"), flush=True)
        if ok:
            kept.append(t)
    if not kept:
        sys.exit("no quiet round")
    med = {n: statistics.median(k[n] for k in kept) for n in cmds}
    print(f"kept {len(kept)} of {tried} rounds; medians: "
          + " ".join(f"{n}={med[n]:.3f}s" for n in cmds))
    for num, den in (("new", "base"), ("new", "rg"), ("base", "rg")):
        ratios = sorted(k[num] / k[den] for k in kept)
        print(f"{num}/{den} same-round: median {statistics.median(ratios):.3f}, "
              f"range {ratios[0]:.3f}-{ratios[-1]:.3f}")


if __name__ == "__main__":
    main()
