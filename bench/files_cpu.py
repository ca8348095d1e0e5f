#!/usr/bin/env python3
"""CPU of `denials-exporter run` against the number of files in its directory (python3 stdlib only).

    files_cpu.py BINARY [--base BINARY] [--rate LINES_PER_S] [--seconds S] [--beside N] [--idle N]
                 [--repeat R] [--smoke RATIO] [--idle-bound CORE]
    files_cpu.py BINARY [--base BINARY] --soak MINUTES [--rate LINES_PER_S] [--roll-bytes B]

Three cases, each a fresh process on a fresh directory matched by `*.log`:

  alone   one file appended at LINES_PER_S (default 30,000) lines/s, nothing beside it;
  beside  the same writer with N (default 1,100) finished 2 KiB rolls beside the written file;
  idle    N (default 10,000) files of one denial each, nothing written.

The exporter starts, reads what is there (it is ready, and has counted every idle file's
denial), then its CPU (utime + stime from /proc/PID/stat) is taken over S seconds (default 10)
of writing (or idling), split into user and system time. Each case runs R times (default 1),
the rounds interleaved (alone, beside, idle, each binary, then again); the medians are printed
with every run's CPU (the spread), one JSON object per case, then `beside / alone` with the
spread of that ratio within each round. With --base, the same cases run on a second binary
(today's main, say) interleaved with the first, and the ratios to it are printed too. CPU is
counted in 10 ms ticks: at 1% of a core, give S = 20 or more and R = 5 or more. The figure
that matters: the cost of a write is flat in the number of files (`beside / alone` near 1) and
idling costs little.

--soak MINUTES: a pino-roll-like writer appends LINES_PER_S lines/s to `app.N.log`, starting a
new roll every B bytes (default 2 MB, no roll ever deleted), for MINUTES minutes; printed per
minute: the exporter's CPU, its RSS and the number of rolls; then the last minute's CPU over the
first's (flat: near 1) and whether every denial written was counted.

With --smoke RATIO it exits 1 when `beside / alone` exceeds RATIO, or (with --idle-bound) when
idle CPU exceeds CORE (loose bounds for CI on a shared machine, not a measurement); use a short
--seconds and smaller --idle there.
"""

import argparse
import json
import os
import shutil
import socket
import statistics
import subprocess
import sys
import tempfile
import time
import urllib.request

LINE = (
    '{"level":30,"time":1700000000000,"msg":"tool call","executionId":"e-%d",'
    '"workflow":"bench","tool":"Read","durationMs":12}\n'
)
DENIAL = (
    '{"level":40,"time":1700000000000,"event":"agent.permission.denied","executionId":"idle-%d",'
    '"toolUseId":"t-%d","toolName":"Bash","workflow":"idle","reason":"policy"}\n'
)


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def cpu_split(pid):
    """(user, system) CPU seconds of `pid` so far."""
    with open(f"/proc/{pid}/stat") as f:
        fields = f.read().rsplit(")", 1)[1].split()
    tck = os.sysconf("SC_CLK_TCK")
    return int(fields[11]) / tck, int(fields[12]) / tck


def cpu_seconds(pid):
    return sum(cpu_split(pid))


def rss_mib(pid):
    with open(f"/proc/{pid}/status") as f:
        for line in f:
            if line.startswith("VmRSS:"):
                return int(line.split()[1]) / 1024
    return 0.0


def wait_ready(port, proc, timeout=60):
    deadline = time.time() + timeout
    while time.time() < deadline:
        if proc.poll() is not None:
            sys.exit(f"exporter exited with {proc.returncode}")
        try:
            with urllib.request.urlopen(f"http://127.0.0.1:{port}/-/ready", timeout=2) as r:
                if r.status == 200:
                    return
        except OSError:
            pass
        time.sleep(0.1)
    sys.exit("exporter not ready")


def launch(binary, d):
    """`run` on `d/*.log` with a state file, once it is ready: (port, process)."""
    port = free_port()
    proc = subprocess.Popen(
        [binary, "run", "--path", os.path.join(d, "*.log"),
         "--web.listen-address", f"127.0.0.1:{port}",
         "--state-file", os.path.join(d, "state.json")],
        stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    wait_ready(port, proc)
    return port, proc


def denials(port):
    """permission_denials_total summed over its series."""
    try:
        with urllib.request.urlopen(f"http://127.0.0.1:{port}/metrics", timeout=5) as r:
            text = r.read().decode()
    except OSError:
        return -1
    return sum(float(line.rsplit(" ", 1)[1]) for line in text.splitlines()
               if line.startswith("permission_denials_total{"))


def wait_counted(port, want, timeout):
    deadline = time.time() + timeout
    while time.time() < deadline and denials(port) < want:
        time.sleep(0.2)


def run_case(binary, name, beside, idle, rate, seconds):
    d = tempfile.mkdtemp(prefix=f"files-cpu-{name}-")
    try:
        roll = LINE * 16  # about 2 KiB
        for i in range(beside):
            with open(os.path.join(d, f"app.{i + 1}.log"), "w") as f:
                f.write(roll)
        for i in range(idle):
            with open(os.path.join(d, f"idle-{i}.log"), "w") as f:
                f.write(DENIAL % (i, i))
        port, proc = launch(binary, d)
        try:
            wait_counted(port, idle, 120)
            time.sleep(2)  # the start-up read of what is there is not the figure
            written = os.path.join(d, f"app.{beside + 1}.log")
            (start_user, start_sys), start = cpu_split(proc.pid), time.time()
            lines = 0
            # Idling creates no file: a new file is a scan and a state write, not idling.
            with open(written if rate else os.devnull, "a") as w:
                while time.time() - start < seconds:
                    if rate:
                        due = int((time.time() - start) * rate)
                        if due > lines:
                            w.write(LINE * (due - lines))
                            w.flush()
                            lines = due
                    time.sleep(0.01)
            elapsed = time.time() - start
            user, system = cpu_split(proc.pid)
            user, system = (user - start_user) / elapsed, (system - start_sys) / elapsed
            return {"case": name, "files": beside + idle + (1 if rate else 0),
                    "lines_per_s": round(lines / elapsed), "cpu_core": round(user + system, 4),
                    "user": round(user, 4), "sys": round(system, 4),
                    "rss_mib": round(rss_mib(proc.pid), 1)}
        finally:
            proc.terminate()
            proc.wait(10)
    finally:
        shutil.rmtree(d, ignore_errors=True)


def soak_line(k):
    """The soak writer's kth line: one in a hundred a denial."""
    return DENIAL % (k, k) if k % 100 == 0 else LINE % k


def soak(binary, minutes, rate, roll_bytes):
    """The pino-roll-like writer for `minutes`; per-minute CPU, RSS and rolls."""
    d = tempfile.mkdtemp(prefix="files-cpu-soak-")
    try:
        port, proc = launch(binary, d)
        try:
            rows, written, roll, size, lines = [], 0, 1, 0, 0
            w = open(os.path.join(d, f"app.{roll}.log"), "a")
            start = time.time()
            for minute in range(int(minutes * 60) // 60 or 1):
                m_cpu, m_start = cpu_seconds(proc.pid), time.time()
                while time.time() - m_start < 60 * min(1, minutes):
                    due = int((time.time() - start) * rate)
                    if due > lines:
                        chunk = "".join(soak_line(k) for k in range(lines, due))
                        written += sum(1 for k in range(lines, due) if k % 100 == 0)
                        w.write(chunk)
                        w.flush()
                        size += len(chunk)
                        lines = due
                        if size >= roll_bytes:
                            w.close()
                            roll, size = roll + 1, 0
                            w = open(os.path.join(d, f"app.{roll}.log"), "a")
                    time.sleep(0.01)
                elapsed = time.time() - m_start
                row = {"minute": minute + 1, "rolls": roll,
                       "cpu_core": round((cpu_seconds(proc.pid) - m_cpu) / elapsed, 3),
                       "rss_mib": round(rss_mib(proc.pid), 1)}
                rows.append(row)
                print(json.dumps(row), flush=True)
            w.close()
            wait_counted(port, written, 60)
            counted = denials(port)
            return rows, written, counted
        finally:
            proc.terminate()
            proc.wait(10)
    finally:
        shutil.rmtree(d, ignore_errors=True)


def summary(runs):
    """One case's runs: the medians, and every run's CPU (the spread)."""
    out = dict(runs[0])
    for key in ("cpu_core", "user", "sys", "rss_mib"):
        out[key] = statistics.median(r[key] for r in runs)
    out["runs"] = [r["cpu_core"] for r in runs]
    return out


def main():
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("binary")
    p.add_argument("--base", default=None)
    p.add_argument("--rate", type=int, default=30_000)
    p.add_argument("--seconds", type=float, default=10)
    p.add_argument("--beside", type=int, default=1_100)
    p.add_argument("--idle", type=int, default=10_000)
    p.add_argument("--repeat", type=int, default=1)
    p.add_argument("--smoke", type=float, default=None)
    p.add_argument("--idle-bound", type=float, default=None)
    p.add_argument("--soak", type=float, default=None)
    p.add_argument("--roll-bytes", type=int, default=2_000_000)
    a = p.parse_args()
    binaries = [("new", a.binary)] + ([("base", a.base)] if a.base else [])
    if a.soak:
        for label, binary in binaries:
            rows, written, counted = soak(binary, a.soak, a.rate, a.roll_bytes)
            last_first = rows[-1]["cpu_core"] / max(rows[0]["cpu_core"], 0.001)
            print(json.dumps({"binary": label, "last_over_first": round(last_first, 2),
                              "rss_first": rows[0]["rss_mib"], "rss_last": rows[-1]["rss_mib"],
                              "denials_written": written, "denials_counted": counted}),
                  flush=True)
        return
    cases = [("alone", 0, 0, a.rate), ("beside", a.beside, 0, a.rate), ("idle", 0, a.idle, 0)]
    cases = [c for c in cases if c[0] != "idle" or a.idle]
    # Repeats interleaved (each case and binary once per round): a load that comes and goes on
    # a shared machine falls on every case alike instead of on one case's runs.
    runs = {}
    for _ in range(a.repeat):
        for name, beside, idle, rate in cases:
            for label, binary in binaries:
                r = run_case(binary, name, beside, idle, rate, a.seconds)
                runs.setdefault((label, name), []).append(r)
    results = {}
    for name, *_ in cases:
        for label, _ in binaries:
            r = summary(runs[(label, name)])
            r["binary"] = label
            results[(label, name)] = r
            print(json.dumps(r), flush=True)
    for label, _ in binaries:
        beside, alone = runs[(label, "beside")], runs[(label, "alone")]
        ratio = results[(label, "beside")]["cpu_core"] / max(results[(label, "alone")]["cpu_core"], 0.005)
        # The same ratio within each round (alone and beside ran back to back): its spread.
        rounds = sorted(b["cpu_core"] / max(s["cpu_core"], 0.005) for b, s in zip(beside, alone))
        print(f"{label}: beside / alone = {ratio:.2f} (per round {rounds[0]:.2f} .. {rounds[-1]:.2f})")
    if a.base:
        for name in ["alone", "beside", "idle"]:
            if ("new", name) in results:
                ratio = results[("new", name)]["cpu_core"] / max(results[("base", name)]["cpu_core"], 0.001)
                print(f"{name}: new / base = {ratio:.2f}")
    ratio = results[("new", "beside")]["cpu_core"] / max(results[("new", "alone")]["cpu_core"], 0.005)
    if a.smoke is not None and ratio > a.smoke:
        print(f"the cost of a write grows with the files beside it: {ratio:.2f} > {a.smoke}")
        sys.exit(1)
    idle = results.get(("new", "idle"))
    if a.idle_bound is not None and idle and idle["cpu_core"] > a.idle_bound:
        print(f"idling with {a.idle} files costs {idle['cpu_core']} of a core > {a.idle_bound}")
        sys.exit(1)


if __name__ == "__main__":
    main()
