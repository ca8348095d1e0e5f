#!/usr/bin/env python3
"""The node agent's cost and exactness with many executor pods on a node (python3 stdlib only).

    node_agent.py BINARY [--pods 200] [--compare 20] [--rate 1000] [--seconds 30] [--repeat 3]
    node_agent.py BINARY --exact [--pods 200] [--rate 4000] [--seconds 16]

BINARY runs as the node agent's DaemonSet runs it (deploy/kubernetes/overlays/node-agent): `run`
on `<root>/*_*_*/executor/0.log*` with `--labels-from-path` taking `namespace` and `pod`, and a
state file. The pods' logs are written by kubelet-style writers (tests/deploy/kubelet_logs.py:
CRI framing, the kubelet's rotation and its default 10 MiB and 5 files), one line in a hundred a
denial, the lines spread evenly over the pods, each pod's lines written when due (every 10 ms).

Cost (default): for --compare pods and for --pods pods, each round a fresh agent on fresh
directories, the same total --rate lines/s; after a 3 s warm-up, its CPU (utime + stime from
/proc/PID/stat) over --seconds, its RSS at the end and its peak RSS (VmHWM). Rounds interleave
the two pod counts --repeat times; printed: one JSON object per run, the medians, CPU per line
(microseconds), and CPU per line at --pods over CPU per line at --compare, per round (flat in the
number of pods: near 1).

--exact: --pods pods written at --rate lines/s for --seconds; every 2 s the kubelet rotates them
all at once (renamed, the previous roll gzipped, the oldest beyond 5 deleted); the agent is
killed with SIGKILL halfway and started again 1 s later. Then each pod's
`permission_denials_total{namespace,pod}` must equal what its executor wrote; exits 1 if not.
"""

import argparse
import json
import os
import shutil
import signal
import socket
import statistics
import subprocess
import sys
import tempfile
import time
import urllib.request

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "tests",
                                "deploy"))
from kubelet_logs import ContainerLog  # noqa: E402
from node_agent_check import by_pod, scrape  # noqa: E402

LABELS = r"^%s/(?P<namespace>[^_/]+)_(?P<pod>[^_/]+)_[^/]+/"


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def cpu_seconds(pid):
    with open("/proc/%d/stat" % pid) as f:
        fields = f.read().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def status_mib(pid, key):
    with open("/proc/%d/status" % pid) as f:
        for line in f:
            if line.startswith(key + ":"):
                return int(line.split()[1]) / 1024
    return 0.0


class Agent:
    def __init__(self, binary, work):
        self.root = os.path.join(work, "pods")
        os.makedirs(self.root, exist_ok=True)
        self.port = free_port()
        self.argv = [binary, "run", "--path", self.root + "/*_*_*/executor/0.log*",
                     "--labels-from-path", LABELS % self.root,
                     "--state-file", os.path.join(work, "state.json"),
                     "--state-reset-on-error", "--read-from=beginning",
                     "--web.listen-address", "127.0.0.1:%d" % self.port]
        self.log = open(os.path.join(work, "agent.log"), "ab")
        self.proc = None

    def start(self):
        self.proc = subprocess.Popen(self.argv, stdout=subprocess.DEVNULL, stderr=self.log)
        deadline = time.time() + 60
        while time.time() < deadline:
            if self.proc.poll() is not None:
                sys.exit("agent exited with %d" % self.proc.returncode)
            try:
                with urllib.request.urlopen("http://127.0.0.1:%d/-/ready" % self.port,
                                            timeout=2):
                    return
            except OSError:
                time.sleep(0.05)
        sys.exit("agent not ready")

    def stop(self, sig=signal.SIGTERM):
        self.proc.send_signal(sig)
        self.proc.wait(30)


def pods(root, n):
    return [ContainerLog(root, "ns-%d" % (i % 10), "executor-%03d" % i, "executor")
            for i in range(n)]


def write_for(writers, rate, seconds, every=None, at=None):
    """Writes `rate` lines/s spread over `writers` for `seconds`; calls `at(t)` each tick, and
    rotates every writer at once each `every` seconds. Returns the lines written."""
    start, lines, rotated = time.time(), 0, 0
    per_denial = 100
    while True:
        t = time.time() - start
        if t >= seconds:
            return lines
        due = int(t * rate) // per_denial
        while lines // per_denial < due:
            writer = writers[(lines // per_denial) % len(writers)]
            writer.write_denials(1, filler=per_denial - 1)
            lines += per_denial
        if every and t >= (rotated + 1) * every:
            rotated += 1
            for writer in writers:
                writer.rotate()
        if at:
            at(t)
        time.sleep(0.01)


def cost_run(binary, n, rate, seconds):
    work = tempfile.mkdtemp(prefix="node-agent-bench.")
    try:
        agent = Agent(binary, work)
        writers = pods(agent.root, n)
        for writer in writers:
            writer.write_filler(1)
        agent.start()
        write_for(writers, rate, 3)
        cpu0 = cpu_seconds(agent.proc.pid)
        lines = write_for(writers, rate, seconds)
        cpu = cpu_seconds(agent.proc.pid) - cpu0
        row = {"pods": n, "lines_per_s": round(lines / seconds),
               "cpu_core": round(cpu / seconds, 4),
               "cpu_us_per_line": round(cpu / lines * 1e6, 2) if lines else None,
               "rss_mib": round(status_mib(agent.proc.pid, "VmRSS"), 1),
               "peak_rss_mib": round(status_mib(agent.proc.pid, "VmHWM"), 1)}
        want = sum(w.denials for w in writers)
        deadline = time.time() + 30
        while time.time() < deadline:
            if sum(by_pod(scrape(agent.port), "permission_denials_total").values()) >= want:
                break
            time.sleep(0.2)
        row["counted_all"] = sum(by_pod(scrape(agent.port), "permission_denials_total").values()) == want
        agent.stop()
        return row
    finally:
        shutil.rmtree(work, ignore_errors=True)


def exact(binary, n, rate, seconds):
    work = tempfile.mkdtemp(prefix="node-agent-exact.")
    try:
        agent = Agent(binary, work)
        writers = pods(agent.root, n)
        agent.start()
        killed = []

        def kill_once(t):
            if not killed and t >= seconds / 2:
                agent.stop(signal.SIGKILL)
                killed.append(time.time())
            elif len(killed) == 1 and time.time() - killed[0] >= 1:
                agent.start()
                killed.append(time.time())

        write_for(writers, rate, seconds, every=2, at=kill_once)
        if len(killed) == 1:
            time.sleep(1)
            agent.start()
        want = {(w.namespace, w.pod): w.denials for w in writers}
        got = {}
        deadline = time.time() + 60
        while time.time() < deadline:
            got = by_pod(scrape(agent.port), "permission_denials_total")
            if got == want:
                break
            time.sleep(0.5)
        agent.stop()
        wrong = {k: (v, got.get(k)) for k, v in want.items() if got.get(k) != v}
        print(json.dumps({"pods": n, "rotations_each": writers[0].rotations,
                          "denials": sum(want.values()), "counted": sum(got.values()),
                          "pods_exact": n - len(wrong)}))
        if wrong:
            print("wrong (written, counted):", dict(list(wrong.items())[:10]))
            print("kept for a look:", work)
            return 1
        shutil.rmtree(work, ignore_errors=True)
        return 0
    except BaseException:
        shutil.rmtree(work, ignore_errors=True)
        raise


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("binary")
    ap.add_argument("--pods", type=int, default=200)
    ap.add_argument("--compare", type=int, default=20)
    ap.add_argument("--rate", type=int, default=None)
    ap.add_argument("--seconds", type=float, default=None)
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument("--exact", action="store_true")
    args = ap.parse_args()
    binary = os.path.abspath(args.binary)
    if args.exact:
        return exact(binary, args.pods, args.rate or 4000, args.seconds or 16)
    rate, seconds = args.rate or 1000, args.seconds or 30
    runs = {args.compare: [], args.pods: []}
    for _ in range(args.repeat):
        for n in (args.compare, args.pods):
            row = cost_run(binary, n, rate, seconds)
            print(json.dumps(row), flush=True)
            runs[n].append(row)
    for n, rows in runs.items():
        print(json.dumps({"pods": n, "median_cpu_core": statistics.median(r["cpu_core"] for r in rows),
                          "median_cpu_us_per_line": statistics.median(r["cpu_us_per_line"] for r in rows),
                          "median_rss_mib": statistics.median(r["rss_mib"] for r in rows),
                          "max_peak_rss_mib": max(r["peak_rss_mib"] for r in rows),
                          "all_counted": all(r["counted_all"] for r in rows)}))
    ratios = [b["cpu_us_per_line"] / a["cpu_us_per_line"]
              for a, b in zip(runs[args.compare], runs[args.pods])]
    print(json.dumps({"cpu_per_line_%d_over_%d" % (args.pods, args.compare):
                      [round(r, 2) for r in ratios],
                      "median": round(statistics.median(ratios), 2)}))
    return 0


if __name__ == "__main__":
    sys.exit(main())
