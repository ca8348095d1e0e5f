#!/usr/bin/env python3
"""CPU of `denials-exporter run` against the number of files in its directory (python3 stdlib only).

    files_cpu.py BINARY [--rate LINES_PER_S] [--seconds S] [--beside N] [--idle N] [--smoke RATIO]

Three cases, each a fresh process on a fresh directory matched by `*.log`:

  alone   one file appended at LINES_PER_S (default 30,000) lines/s, nothing beside it;
  beside  the same writer with N (default 1,100) finished 2 KiB rolls beside the written file;
  idle    N (default 10,000) files of one denial each, nothing written.

The exporter starts, reads what is there, then its CPU (utime + stime from /proc/PID/stat) is
taken over S seconds (default 10) of writing (or idling). Prints one JSON object per case and a
last line with `beside / alone`. The figure that matters: the cost of a write is flat in the
number of files (the ratio near 1) and idling costs little.

With --smoke RATIO it exits 1 when `beside / alone` exceeds RATIO (a loose bound for CI on a
shared machine, not a measurement); use a short --seconds there.
"""

import argparse
import json
import os
import shutil
import socket
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


def cpu_seconds(pid):
    with open(f"/proc/{pid}/stat") as f:
        fields = f.read().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


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
        port = free_port()
        proc = subprocess.Popen(
            [binary, "run", "--path", os.path.join(d, "*.log"),
             "--web.listen-address", f"127.0.0.1:{port}",
             "--state-file", os.path.join(d, "state.json")],
            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        try:
            wait_ready(port, proc)
            time.sleep(2)  # the start-up read of what is there is not the figure
            written = os.path.join(d, f"app.{beside + 1}.log")
            start_cpu, start = cpu_seconds(proc.pid), time.time()
            lines = 0
            with open(written, "a") as w:
                while time.time() - start < seconds:
                    if rate:
                        due = int((time.time() - start) * rate)
                        if due > lines:
                            w.write(LINE * (due - lines))
                            w.flush()
                            lines = due
                    time.sleep(0.01)
            elapsed = time.time() - start
            cpu = (cpu_seconds(proc.pid) - start_cpu) / elapsed
            return {"case": name, "files": beside + idle + (1 if rate else 0),
                    "lines_per_s": round(lines / elapsed), "cpu_core": round(cpu, 3),
                    "rss_mib": round(rss_mib(proc.pid), 1)}
        finally:
            proc.terminate()
            proc.wait(10)
    finally:
        shutil.rmtree(d, ignore_errors=True)


def main():
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("binary")
    p.add_argument("--rate", type=int, default=30_000)
    p.add_argument("--seconds", type=float, default=10)
    p.add_argument("--beside", type=int, default=1_100)
    p.add_argument("--idle", type=int, default=10_000)
    p.add_argument("--smoke", type=float, default=None)
    a = p.parse_args()
    alone = run_case(a.binary, "alone", 0, 0, a.rate, a.seconds)
    print(json.dumps(alone), flush=True)
    beside = run_case(a.binary, "beside", a.beside, 0, a.rate, a.seconds)
    print(json.dumps(beside), flush=True)
    if a.idle:
        print(json.dumps(run_case(a.binary, "idle", 0, a.idle, 0, a.seconds)), flush=True)
    ratio = beside["cpu_core"] / max(alone["cpu_core"], 0.005)
    print(f"beside / alone = {ratio:.2f}")
    if a.smoke is not None and ratio > a.smoke:
        print(f"the cost of a write grows with the files beside it: {ratio:.2f} > {a.smoke}")
        sys.exit(1)


if __name__ == "__main__":
    main()
