#!/usr/bin/env python3
"""Chaos soak: a hostile production day for one exporter, seeded (python3 stdlib, node, logrotate).

    chaos_soak.py BINARY [--seconds 90] [--seed N] [--rate 1500] [--work DIR] [--keep]
    chaos_soak.py BINARY --long           (420 s, three times the rate, the issue's fault counts)

One exporter (`run`, a state file, an audit log) follows three real writers at once:

* pino-roll: tests/e2e/writer.mjs through the real pino-roll transport (size rolls, old rolls
  deleted, a `current.log` symlink), `--path roll/*.log`;
* pino.destination() with the real logrotate every 1-2 s (`create`, `compress`,
  `delaycompress`, a postrotate that sends SIGUSR2 and waits for the reopen),
  `--path rot/app.log` (the rolls out of the glob);
* a kubelet-style CRI writer (tests/deploy/kubelet_logs.py: CRI framing, the kubelet's renames and
  gzip, old rolls deleted), three pods, `--path 'pods/*_*_*/*/0.log*'`; every denial it writes
  plants a GitHub token in its reason.

Faults at seeded random moments: `kill -9` and a restart, SIGTERM and a restart, SIGHUP, SIGSTOP
for 3-5 s and SIGCONT, bursts of half the rolls the kubelet keeps (50,000 lines at most), storms
of 200 concurrent scrapes, 100 slow clients holding half-sent requests, and the state directory
made unusable for 2-4 s (a file where it was: every write fails, for root too).

At the end, each must hold or the script exits 1:
* `permission_denials_total`, label set by label set, equals what the three writers recorded;
* `denials_exporter_lines_total`, summed over its outcomes, equals the lines the three writers
  wrote (every line, denial or not, read once: the kubelet's late lines in a renamed roll too);
* no restart claimed a lost file (`denials_exporter_lost_files_total`, summed over every start
  from the exporter's own log): the history kept outlasts every fault, so a claim is false;
* a 10 Hz sampler of /metrics never saw a series go down (across every restart);
* no planted secret appears in /metrics, the landing page, the state file, the audit log or the
  exporter's own log.
A failed run (or `--keep`) keeps its work directory: the exporter's own log, its state and audit
log, the files left, and what each writer wrote (roll.expected.json, rot.expected.json,
cri.expected.json: each pod's files by their rolled names, with their lines and the first and last
sequence number); a CRI shortfall names the rolls whose denials the audit log lacks. The seed
replays the faults and their moments (the load decides the rest).
Printed (one JSON object): the faults, lines written, the state's bytes written per second (each
successful write's count times the state file's size then), the state's size and its size per
execution kept, peak and last RSS, the self-metrics of rolls recovered and files lost.
"""

import argparse
import json
import os
import random
import re
import shutil
import signal
import socket
import string
import subprocess
import sys
import tempfile
import threading
import time
import urllib.request

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
sys.path.insert(0, os.path.join(ROOT, "tests", "deploy"))
from kubelet_logs import ContainerLog  # noqa: E402

E2E = os.path.join(ROOT, "tests", "e2e")
DENIAL = (
    '{"level":40,"time":%d,"event":"agent.permission.denied","executionId":"%s",'
    '"toolUseId":"toolu_%s","toolName":"Bash","workflow":"%s","decisionReasonType":"hook",'
    '"decisionReason":"PreToolUse hook denied: curl -H \'Authorization: Bearer %s\' '
    'https://api.github.com","msg":"agent permission denied"}'
)
NOISE = '{"level":30,"time":%d,"executionId":"%s","workflow":"%s","msg":"tool call","n":%d}'


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def fetch(url, timeout=3):
    with urllib.request.urlopen(url, timeout=timeout) as r:
        return r.read().decode()


def labels_key(name, labels):
    """`name{a="x",b="y"}` with the labels sorted: one key whatever order they come in."""
    return "%s{%s}" % (name, ",".join('%s="%s"' % kv for kv in sorted(labels.items())))


def series(text, name):
    out = {}
    for line in text.splitlines():
        if not (line.startswith(name + "{") or line.startswith(name + " ")):
            continue
        key, _, value = line.rpartition(" ")
        labels = {}
        if "{" in key:
            for part in key[key.index("{") + 1:key.rindex("}")].split('",'):
                k, _, v = part.partition('="')
                labels[k] = v.rstrip('"')
        out[labels_key(name, labels)] = float(value)
    return out


def status_kib(pid, key):
    try:
        with open("/proc/%d/status" % pid) as f:
            for line in f:
                if line.startswith(key + ":"):
                    return int(line.split()[1])
    except OSError:
        pass
    return 0


class Exporter:
    """The exporter under test: started, signalled, restarted."""

    def __init__(self, binary, work):
        self.port = free_port()
        self.url = "http://127.0.0.1:%d" % self.port
        self.state_dir = os.path.join(work, "state")
        os.makedirs(self.state_dir, exist_ok=True)
        self.state = os.path.join(self.state_dir, "state.json")
        self.audit = os.path.join(work, "audit.jsonl")
        self.argv = [binary, "run",
                     "--path", os.path.join(work, "roll", "*.log"),
                     "--path", os.path.join(work, "rot", "app.log"),
                     "--path", os.path.join(work, "pods", "*_*_*", "*", "0.log*"),
                     "--state-file", self.state, "--audit-log", self.audit,
                     "--web.listen-address", "127.0.0.1:%d" % self.port]
        self.log = open(os.path.join(work, "exporter.log"), "ab")
        self.proc = None
        self.starts = 0

    def start(self):
        self.proc = subprocess.Popen(self.argv, stdout=self.log, stderr=self.log)
        self.starts += 1
        for _ in range(600):
            try:
                fetch(self.url + "/-/ready", 1)
                return
            except Exception:
                time.sleep(0.05)
        raise SystemExit("the exporter did not get ready")

    def signal(self, sig):
        if self.proc and self.proc.poll() is None:
            os.kill(self.proc.pid, sig)

    def stop(self, sig):
        self.signal(sig)
        try:
            self.proc.wait(20)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            self.proc.wait()


class Sampler(threading.Thread):
    """Scrapes /metrics at 10 Hz: no denials series may go down; counts the state's bytes
    written; samples RSS."""

    def __init__(self, exporter):
        super().__init__(daemon=True)
        self.exporter, self.stop = exporter, threading.Event()
        self.seen, self.decreases = {}, []
        self.state_bytes, self.writes_ok, self.writes_failed = 0, None, 0
        self.rss_peak = 0
        self.scrapes = 0

    def run(self):
        while not self.stop.is_set():
            try:
                text = fetch(self.exporter.url + "/metrics", 2)
            except Exception:
                time.sleep(0.1)
                continue
            self.scrapes += 1
            for key, value in series(text, "permission_denials_total").items():
                if value < self.seen.get(key, 0):
                    self.decreases.append((key, self.seen[key], value))
                self.seen[key] = max(value, self.seen.get(key, 0))
            ok = series(text, "denials_exporter_state_writes_total").get(
                labels_key("denials_exporter_state_writes_total", {"result": "ok"}), 0)
            try:
                size = os.path.getsize(self.exporter.state)
            except OSError:
                size = 0
            # A restart starts the counter again: its value is then the writes since.
            new = ok if self.writes_ok is None or ok < self.writes_ok else ok - self.writes_ok
            self.state_bytes += new * size
            self.writes_ok = ok
            if self.exporter.proc:
                self.rss_peak = max(self.rss_peak, status_kib(self.exporter.proc.pid, "VmRSS"))
            time.sleep(0.1)


class CriWriter(threading.Thread):
    """Three kubelet-style pods: `rate` lines/s, one in 25 a denial with a planted token."""

    def __init__(self, root, rate, rng, roll_kib):
        super().__init__(daemon=True)
        self.pods = [ContainerLog(root, "ns%d" % i, "pod%d" % i, "executor",
                                  max_size=roll_kib << 10, workflow="cri%d" % i)
                     for i in range(3)]
        self.rate, self.rng = rate, rng
        self.stop, self.lock = threading.Event(), threading.Lock()
        self.expected, self.secrets, self.lines, self.seq = {}, [], 0, 0
        self.denial_seqs = {pod.workflow: [] for pod in self.pods}

    def line(self, pod):
        self.seq += 1
        if self.seq % 25:
            text = NOISE % (1781251200000 + self.seq, pod.execution, pod.workflow, self.seq)
        else:
            secret = "ghp_" + "".join(self.rng.choice(string.ascii_letters + string.digits)
                                      for _ in range(36))
            self.secrets.append(secret)
            text = DENIAL % (1781251200000 + self.seq, pod.execution, self.seq, pod.workflow,
                             secret)
            key = labels_key("permission_denials_total",
                             {"tool": "Bash", "workflow": pod.workflow, "reason": "hook"})
            self.expected[key] = self.expected.get(key, 0) + 1
            self.denial_seqs[pod.workflow].append(self.seq)
        pod.write_line(text, self.seq)
        self.lines += 1

    def record(self, path):
        """Writes what went where (`--keep`'s cri.expected.json): the lines, the denials by label
        set, and each pod's files with their lines and the first and last sequence number."""
        with open(path, "w") as f:
            json.dump({"lines": sum(pod.lines for pod in self.pods), "expected": self.expected,
                       "pods": [{"dir": pod.dir, "workflow": pod.workflow, "lines": pod.lines,
                                 "files": pod.files()} for pod in self.pods]}, f, indent=1)

    def unaudited(self, audit):
        """The denials written that the audit log does not hold once, by the file they were
        written to: what names the roll a reader lost (or read twice), though it is deleted."""
        audited = {}
        with open(audit, errors="replace") as f:
            for line in f:
                m = re.search(r'"tool_use_id":"toolu_(\d+)"', line)
                if m and '"workflow":"cri' in line:
                    audited[int(m.group(1))] = audited.get(int(m.group(1)), 0) + 1
        out = []
        for pod in self.pods:
            for file in pod.files():
                if file["first"] is None:
                    continue
                seqs = [n for n in self.denial_seqs[pod.workflow]
                        if file["first"] <= n <= file["last"]]
                missing = sum(1 for n in seqs if n not in audited)
                twice = sum(1 for n in seqs if audited.get(n, 0) > 1)
                if missing or twice:
                    out.append("%s/%s (lines %d, seq %d-%d): %d of %d denials missing, %d counted "
                               "twice" % (pod.pod, file["name"], file["lines"], file["first"],
                                          file["last"], missing, len(seqs), twice))
        return out

    def burst(self, n):
        with self.lock:
            for i in range(n):
                self.line(self.pods[i % 3])

    def run(self):
        tick = 0.01
        while not self.stop.is_set():
            with self.lock:
                for i in range(max(1, int(self.rate * tick))):
                    self.line(self.pods[i % 3])
            time.sleep(tick)


def logrotate_conf(work, logs):
    conf = os.path.join(work, "logrotate.conf")
    with open(conf, "w") as f:
        f.write("""%s/app.log {
    rotate 8
    create
    compress
    delaycompress
    missingok
    postrotate
        kill -USR2 $(cat %s/writer.pid) 2>/dev/null || exit 0
        for i in $(seq 500); do [ -s %s/app.log ] && exit 0; sleep 0.01; done
    endscript
}
""" % (logs, work, logs))
    return conf


def storm(url, n=200):
    def one():
        try:
            fetch(url + "/metrics", 10)
        except Exception:
            pass
    threads = [threading.Thread(target=one) for _ in range(n)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()


def slow_clients(port, n=100, hold=5.0):
    socks = []
    for _ in range(n):
        try:
            s = socket.create_connection(("127.0.0.1", port), timeout=2)
            s.sendall(b"GET /metrics HTTP/1.1\r\nHost: x\r\n")  # never finished
            socks.append(s)
        except OSError:
            break
    time.sleep(hold)
    for s in socks:
        s.close()


def lost_claimed(log):
    """The lost files every start of the exporter claimed (its counter starts again at each):
    the `files=N` of its warnings."""
    claimed = 0
    with open(log, errors="replace") as f:
        for line in f:
            if "files deleted before they were read to their end" in line:
                m = re.search(r"\bfiles=(\d+)", line)
                claimed += int(m.group(1)) if m else 1
    return claimed


def expected_pino(path):
    with open(path) as f:
        doc = json.load(f)
    return {labels_key("permission_denials_total", {k: s[k] for k in ("tool", "workflow", "reason")}):
            s["value"] for s in doc["series"]}, doc


def schedule(rng, seconds, long_run):
    """The faults and their moments (seconds after the writers start)."""
    counts = ({"kill9": 15, "sigterm": 5, "sighup": 3, "sigstop": 3, "burst": 2, "storm": 1,
               "slow": 1, "unwritable": 2} if long_run else
              {"kill9": 2, "sigterm": 1, "sighup": 1, "sigstop": 1, "burst": 1, "storm": 1,
               "slow": 1, "unwritable": 1})
    faults = [(rng.uniform(3, seconds - 6), kind) for kind, n in counts.items() for _ in range(n)]
    return sorted(faults)


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("binary")
    ap.add_argument("--seconds", type=float, default=None)
    ap.add_argument("--rate", type=int, default=None, help="lines/s per writer")
    ap.add_argument("--seed", type=int, default=None)
    ap.add_argument("--long", action="store_true")
    ap.add_argument("--work")
    ap.add_argument("--keep", action="store_true")
    a = ap.parse_args()
    seconds = a.seconds or (420 if a.long else 90)
    rate = a.rate or (4000 if a.long else 1500)
    seed = a.seed if a.seed is not None else random.randrange(1 << 30)
    rng = random.Random(seed)
    logrotate = shutil.which("logrotate") or "/usr/sbin/logrotate"
    if not os.path.isdir(os.path.join(E2E, "node_modules", "pino-roll")):
        raise SystemExit("chaos soak: run (cd tests/e2e && npm ci) first")
    work = a.work or tempfile.mkdtemp(prefix="denials-chaos.")
    binary = os.path.abspath(a.binary)
    print("chaos soak: seed %d (--seed %d replays the faults), %d s, %d lines/s per writer, in %s"
          % (seed, seed, seconds, rate, work), file=sys.stderr)
    for name in ("roll", "rot", "pods"):
        os.makedirs(os.path.join(work, name), exist_ok=True)
    exporter = Exporter(binary, work)
    exporter.start()
    sampler = Sampler(exporter)
    sampler.start()

    def node_writer(name, extra, wseed):
        return subprocess.Popen(
            ["node", os.path.join(E2E, "writer.mjs"), "--dir", os.path.join(work, name),
             "--expected", os.path.join(work, name + ".expected.json"), "--rate", str(rate),
             "--duration", str(seconds), "--seed", str(wseed), "--concurrency", "16"] + extra,
            stdout=subprocess.DEVNULL, stderr=open(os.path.join(work, name + ".err"), "w"))

    # Rolls sized to the rate: the history kept (pino-roll's 30 rolls, the kubelet's 4) outlasts
    # the longest fault (SIGSTOP for 5 s, a restart after a kill), so exact is the bar.
    roll_kib = 256 * max(1, rate // 1000)
    roll = node_writer("roll", ["--size", "%dk" % roll_kib, "--count", "30"], seed % 1000 + 1)
    rot = node_writer("rot", ["--file", "app.log"], seed % 1000 + 2)
    with open(os.path.join(work, "writer.pid"), "w") as f:
        f.write(str(rot.pid))
    conf = logrotate_conf(work, os.path.join(work, "rot"))
    status = os.path.join(work, "logrotate.status")
    rotations = [0]
    # The rotator's own generator: drawing from the faults' in its thread raced the schedule, so
    # a seed did not replay its faults. Seeded with what its first draw took then (two words,
    # as one uniform()), the schedule is the one a failed run got when the thread drew first.
    rotator_rng = random.Random(rng.getrandbits(64))

    def rotate():
        subprocess.run([logrotate, "-f", "-s", status, conf], stderr=subprocess.DEVNULL)
        rotations[0] += 1

    def rotator():
        while rot.poll() is None:
            time.sleep(rotator_rng.uniform(1, 2))
            rotate()
    threading.Thread(target=rotator, daemon=True).start()
    cri = CriWriter(os.path.join(work, "pods"), rate, random.Random(seed + 3), roll_kib)
    # A burst fills half of what the kubelet keeps of each pod's log (5 files of `roll_kib`, lines
    # of about 160 bytes): a burst larger than the rolls kept deletes its own start before a reader
    # stopped for a moment can see it, which is the documented limit, not a fault to survive.
    burst_lines = min(50000, 3 * 5 * (roll_kib << 10) // 2 // 160)
    cri.start()

    done = {}
    began = time.monotonic()
    for at, kind in schedule(rng, seconds, a.long):
        time.sleep(max(0, began + at - time.monotonic()))
        done[kind] = done.get(kind, 0) + 1
        if kind == "kill9":
            exporter.stop(signal.SIGKILL)
            time.sleep(rng.uniform(0.5, 1.5))
            exporter.start()
        elif kind == "sigterm":
            exporter.stop(signal.SIGTERM)
            time.sleep(rng.uniform(0.2, 1.0))
            exporter.start()
        elif kind == "sighup":
            exporter.signal(signal.SIGHUP)
        elif kind == "sigstop":
            exporter.signal(signal.SIGSTOP)
            time.sleep(rng.uniform(3, 5))
            exporter.signal(signal.SIGCONT)
        elif kind == "burst":
            threading.Thread(target=cri.burst, args=(burst_lines,), daemon=True).start()
        elif kind == "storm":
            threading.Thread(target=storm, args=(exporter.url,), daemon=True).start()
        elif kind == "slow":
            threading.Thread(target=slow_clients, args=(exporter.port,), daemon=True).start()
        elif kind == "unwritable":
            away = exporter.state_dir + ".away"
            os.rename(exporter.state_dir, away)
            with open(exporter.state_dir, "w") as f:
                f.write("not a directory")
            time.sleep(rng.uniform(2, 4))
            os.remove(exporter.state_dir)
            os.rename(away, exporter.state_dir)

    failures = []
    for w in (roll, rot):
        if w.wait() != 0:
            failures.append("a writer failed")
    cri.stop.set()
    cri.join()
    with cri.lock:
        for pod in cri.pods:
            pod.file.flush()
    rotate()  # one more, after the last line
    expected = dict(cri.expected)
    cri.record(os.path.join(work, "cri.expected.json"))
    lines = sum(pod.lines for pod in cri.pods)  # the late lines after each rename too
    for name in ("roll", "rot"):
        got, doc = expected_pino(os.path.join(work, name + ".expected.json"))
        lines += doc.get("lines", 0)
        for key, value in got.items():
            expected[key] = expected.get(key, 0) + value
    total = sum(expected.values())
    # Settle: the sum equals the expected total and stays there for 3 s.
    deadline, stable_since = time.monotonic() + 180, None
    while time.monotonic() < deadline:
        got = series(fetch(exporter.url + "/metrics"), "permission_denials_total")
        if sum(got.values()) == total:
            stable_since = stable_since or time.monotonic()
            if time.monotonic() - stable_since >= 3:
                break
        else:
            stable_since = None
        time.sleep(0.2)
    sampler.stop.set()
    sampler.join()
    text = fetch(exporter.url + "/metrics")
    got = series(text, "permission_denials_total")
    wrong = {k: (got.get(k, 0), expected.get(k, 0)) for k in set(got) | set(expected)
             if got.get(k, 0) != expected.get(k, 0)}
    cri_wrong = any('workflow="cri' in k for k in wrong)
    if wrong:
        by_writer = {}
        for key, (g, e) in wrong.items():
            writer = "cri" if 'workflow="cri' in key else "pino"
            by_writer[writer] = by_writer.get(writer, 0) + g - e
        failures.append("%d label sets differ (got - expected by writer: %s), e.g. %s"
                        % (len(wrong), by_writer, dict(list(wrong.items())[:3])))
    if sampler.decreases:
        failures.append("a counter went down: %s" % sampler.decreases[:3])
    outputs = [text, fetch(exporter.url + "/")]
    exporter.stop(signal.SIGTERM)
    if cri_wrong:  # the audit log whole, after the exporter stopped
        failures.extend(cri.unaudited(exporter.audit))
    for path in (exporter.state, exporter.audit, os.path.join(work, "exporter.log")):
        try:
            with open(path, errors="replace") as f:
                outputs.append(f.read())
        except OSError:
            pass
    # Every token-shaped string in the outputs, against the tokens planted.
    found = set(re.findall(r"ghp_[A-Za-z0-9]{36}", "\n".join(outputs)))
    leaked = sorted(found & set(cri.secrets))
    if leaked:
        failures.append("%d planted secrets leaked, e.g. %s" % (len(leaked), leaked[0][:8]))
    lines_read = sum(series(text, "denials_exporter_lines_total").values())
    if lines_read != lines:
        failures.append("%d lines read, %d written" % (lines_read, lines))
    lost_files = lost_claimed(os.path.join(work, "exporter.log"))
    if lost_files:
        failures.append("%d lost files claimed at restarts, with %d of %d lines read"
                        % (lost_files, lines_read, lines))
    kept = series(text, "denials_exporter_executions_tracked")
    kept = sum(kept.values()) or 1
    state_size = os.path.getsize(exporter.state)
    report = {
        "seed": seed, "seconds": seconds, "rate_per_writer": rate, "faults": done,
        "exporter_starts": exporter.starts, "logrotate_runs": rotations[0],
        "lines_written": lines, "denials_expected": total, "denials_counted": sum(got.values()),
        "scrapes_sampled": sampler.scrapes, "decreases_seen": len(sampler.decreases),
        "secrets_planted": len(cri.secrets), "secrets_leaked": len(leaked),
        "state_bytes_per_second": round(sampler.state_bytes / seconds),
        "state_bytes": state_size, "executions_kept": int(kept),
        "state_bytes_per_execution": round(state_size / kept),
        "rss_peak_mib": round(sampler.rss_peak / 1024, 1),
        "rolls_recovered": sum(series(text, "denials_exporter_rolls_recovered_total").values()),
        "lines_read": lines_read,
        "lost_files": lost_files,
        "failures": failures,
    }
    print(json.dumps(report))
    if not failures and not a.keep and not a.work:
        shutil.rmtree(work, ignore_errors=True)
    else:
        print("chaos soak: work directory kept: %s" % work, file=sys.stderr)
    sys.exit(1 if failures else 0)


if __name__ == "__main__":
    main()
