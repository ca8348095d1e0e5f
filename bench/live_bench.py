#!/usr/bin/env python3
"""Live benchmarks of `denials-exporter run` (driven by bench/live.sh; python3 stdlib only).

    live_bench.py latency BINARY [--poll] [--samples N] [--spacing-ms MS] [--jitter-ms MS]
        Appends one denial line to a followed file, then GETs /metrics in a tight loop until
        sum(permission_denials_total) went up; the time from before the write() to the answer
        that shows it is one sample. Reports p50/p90/p99/max in ms. With --poll, a random pause
        of up to 1 s between samples keeps them from locking onto the stat period.
    live_bench.py freshness BINARY [--samples N] [--period-ms MS]
        Appends one denial line every MS ms (a fixed period, whatever the exporter does) while
        another loop GETs /metrics back to back; a denial's sample is the time from before its
        write() to the first answer whose sum(permission_denials_total) counts it. Reports
        p50/p90/p99/max in ms, and the scrapes per denial.
    live_bench.py ingest BINARY --writer tests/e2e/writer.mjs [--seconds S] [--rate N]
        The pino + pino-roll writer (size-based rolling, old files deleted) at N lines/s (0: as
        fast as it goes) while the exporter follows; then waits until the exporter caught up and
        checks every permission_denials_total series and the line count against the writer's.
    live_bench.py idle BINARY [--files N] [--seconds S] [--file-kib K] [--poll]
        N files of K KiB each, followed and read to their end, then no writes for S seconds:
        the exporter's CPU time in that window (/proc/PID/stat utime+stime) and its memory
        (VmRSS, VmHWM from /proc/PID/status).

Each prints one JSON object on stdout (and progress on stderr); live.sh makes the table.
"""

import argparse
import threading
import http.client
import json
import os
import random
import shutil
import socket
import statistics
import subprocess
import sys
import tempfile
import time

CLK_TCK = os.sysconf("SC_CLK_TCK")
METRIC = "permission_denials_total"


def log(*parts):
    print("live_bench:", *parts, file=sys.stderr, flush=True)


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


class Exporter:
    """One `denials-exporter run` process, and a keep-alive HTTP connection to it."""

    def __init__(self, binary, glob, workdir, extra=()):
        self.port = free_port()
        self.stderr = open(os.path.join(workdir, f"exporter.{self.port}.log"), "w")
        args = [binary, "run", "--path", glob, "--web.listen-address", f"127.0.0.1:{self.port}", *extra]
        self.command = " ".join(args)
        self.proc = subprocess.Popen(args, stdout=subprocess.DEVNULL, stderr=self.stderr)
        self.conn = None
        deadline = time.monotonic() + 30
        while time.monotonic() < deadline:
            if self.proc.poll() is not None:
                raise SystemExit(f"exporter exited with {self.proc.returncode}; see {self.stderr.name}")
            try:
                if self.get("/-/ready")[0] == 200:
                    return
            except OSError:
                self.conn = None
            time.sleep(0.05)
        raise SystemExit("exporter not ready within 30 s")

    @classmethod
    def attach(cls, port):
        """A second client of a running exporter (its own connection), for another thread."""
        other = cls.__new__(cls)
        other.port, other.conn = port, None
        return other

    def get(self, path, retry=True):
        if self.conn is None:
            self.conn = http.client.HTTPConnection("127.0.0.1", self.port, timeout=5)
        try:
            self.conn.request("GET", path)
            res = self.conn.getresponse()
            return res.status, res.read()
        except (OSError, http.client.HTTPException):
            self.conn.close()
            self.conn = None
            if retry:  # the server closes idle keep-alive connections after a few seconds
                return self.get(path, retry=False)
            raise

    def metrics(self):
        return self.get("/metrics")[1]

    def cpu_seconds(self):
        with open(f"/proc/{self.proc.pid}/stat") as f:
            fields = f.read().rsplit(")", 1)[1].split()
        return (int(fields[11]) + int(fields[12])) / CLK_TCK  # utime, stime

    def memory_kib(self):
        out = {}
        with open(f"/proc/{self.proc.pid}/status") as f:
            for line in f:
                key, _, value = line.partition(":")
                if key in ("VmRSS", "VmHWM"):
                    out[key] = int(value.split()[0])
        return out

    def stop(self):
        if self.conn:
            self.conn.close()
        self.proc.terminate()
        try:
            self.proc.wait(10)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            self.proc.wait()
        self.stderr.close()


def denials(body):
    """permission_denials_total series → value, from the text exposition."""
    series = {}
    for line in body.split(b"\n"):
        if line.startswith(b"permission_denials_total{"):
            labels, _, value = line.rpartition(b" ")
            series[labels.decode()] = float(value)
    return series


def metric_sum(body, name):
    total = 0.0
    prefix = name.encode()
    for line in body.split(b"\n"):
        if line.startswith(prefix) and line[len(prefix) : len(prefix) + 1] in (b"{", b" "):
            total += float(line.rpartition(b" ")[2])
    return total


def percentile(sorted_values, p):
    if not sorted_values:
        return float("nan")
    k = (len(sorted_values) - 1) * p / 100
    lo = int(k)
    hi = min(lo + 1, len(sorted_values) - 1)
    return sorted_values[lo] + (sorted_values[hi] - sorted_values[lo]) * (k - lo)


def spread(samples):
    """p50/p90/p99/max/mean of samples in ms, as the result's fields."""
    s = sorted(samples)
    return {
        "samples": len(s),
        "p50_ms": round(percentile(s, 50), 2),
        "p90_ms": round(percentile(s, 90), 2),
        "p99_ms": round(percentile(s, 99), 2),
        "max_ms": round(s[-1], 2),
        "mean_ms": round(statistics.fmean(s), 2),
    }


def denial_line(i, execution):
    return (
        '{"level":40,"time":%d,"pid":4242,"hostname":"executor-7d9f6c5b8-x2x9q","component":"executor",'
        '"executionId":"%s","jobId":"job_%s","workflow":"review","installationId":10792956,"repo":"acme/web",'
        '"event":"agent.permission.denied","toolName":"Bash","toolUseId":"toolu_01lat%08d",'
        '"decisionReasonType":"hook","decisionReason":"PreToolUse hook block-destructive-bash denied: git push --force",'
        '"message":"Permission to use Bash has been denied.","msg":"agent permission denied"}\n'
        % (time.time() * 1000, execution, execution, i)
    ).encode()


def cmd_latency(args):
    work = tempfile.mkdtemp(prefix="denials-live-latency.")
    path = os.path.join(work, "executor.log")
    with open(path, "w") as f:
        f.write('{"level":30,"time":1,"pid":1,"hostname":"h","msg":"executor started"}\n')
    extra = ["--poll"] if args.poll else []
    exporter = Exporter(args.binary, os.path.join(work, "*.log"), work, extra)
    try:
        fd = os.open(path, os.O_WRONLY | os.O_APPEND)
        base = sum(denials(exporter.metrics()).values())
        samples = []
        polls = 0
        for i in range(args.samples):
            line = denial_line(i, "exec_lat_%d" % (i // 50))
            t0 = time.perf_counter()
            os.write(fd, line)
            while True:
                polls += 1
                if sum(denials(exporter.metrics()).values()) > base:
                    break
                if time.perf_counter() - t0 > 10:
                    raise SystemExit(f"sample {i}: the denial did not show within 10 s")
            samples.append((time.perf_counter() - t0) * 1000)
            base += 1
            # A random part keeps the appends from locking onto the exporter's stat period.
            time.sleep((args.spacing_ms + random.uniform(0, args.jitter_ms)) / 1000)
        os.close(fd)
    finally:
        exporter.stop()
        shutil.rmtree(work, ignore_errors=True)
    result = {
        "bench": "latency",
        "mode": "poll (stat every 1 s)" if args.poll else "inotify",
        **spread(samples),
        "scrapes_per_sample": round(polls / len(samples), 1),
        "spacing_ms": f"{args.spacing_ms:g}" + (f" + U(0, {args.jitter_ms:g})" if args.jitter_ms else ""),
        "exporter": exporter.command,
    }
    print(json.dumps(result), flush=True)


def cmd_freshness(args):
    work = tempfile.mkdtemp(prefix="denials-live-freshness.")
    path = os.path.join(work, "executor.log")
    with open(path, "w") as f:
        f.write('{"level":30,"time":1,"pid":1,"hostname":"h","msg":"executor started"}\n')
    exporter = Exporter(args.binary, os.path.join(work, "*.log"), work)
    try:
        fd = os.open(path, os.O_WRONLY | os.O_APPEND)
        base = sum(denials(exporter.metrics()).values())
        written, seen = [], []
        period = args.period_ms / 1000

        def write():
            next_at = time.perf_counter() + period
            for i in range(args.samples):
                time.sleep(max(0.0, next_at - time.perf_counter()))
                written.append(time.perf_counter())
                os.write(fd, denial_line(i, "exec_fresh_%d" % (i // 50)))
                next_at += period

        writer = threading.Thread(target=write, daemon=True)
        writer.start()
        scrapes = 0
        deadline = time.monotonic() + args.samples * period + 30
        while len(seen) < args.samples and time.monotonic() < deadline:
            counted = int(sum(denials(exporter.metrics()).values()) - base)
            now = time.perf_counter()
            scrapes += 1
            while len(seen) < min(counted, len(written)):
                seen.append(now)
        writer.join()
        os.close(fd)
        if len(seen) < args.samples:
            raise SystemExit(f"only {len(seen)} of {args.samples} denials showed")
    finally:
        exporter.stop()
        shutil.rmtree(work, ignore_errors=True)
    result = {
        "bench": "freshness",
        "period_ms": args.period_ms,
        **spread([(t - w) * 1000 for w, t in zip(written, seen)]),
        "scrapes_per_denial": round(scrapes / args.samples, 1),
        "exporter": exporter.command,
    }
    print(json.dumps(result), flush=True)


def cmd_ingest(args):
    work = tempfile.mkdtemp(prefix="denials-live-ingest.")
    logs = os.path.join(work, "logs")
    os.makedirs(logs)
    expected_path = os.path.join(work, "expected.json")
    exporter = Exporter(args.binary, os.path.join(logs, "*.log"), work,
                        ["--state-file", os.path.join(work, "state.json")])
    try:
        cpu0 = exporter.cpu_seconds()
        scrapes, stop_scraping = [], threading.Event()
        if args.scrape_ms:
            # A scraper of its own (its own connection), timing every /metrics while the writer writes.
            scraper = Exporter.attach(exporter.port)

            def scrape():
                while not stop_scraping.is_set():
                    t = time.perf_counter()
                    status, _ = scraper.get("/metrics")
                    if status == 200:
                        scrapes.append((time.perf_counter() - t) * 1000)
                    stop_scraping.wait(args.scrape_ms / 1000)

            scrape_thread = threading.Thread(target=scrape, daemon=True)
            scrape_thread.start()
        writer_cmd = ["node", args.writer, "--dir", logs, "--expected", expected_path, "--rate", str(args.rate),
                      "--duration", str(args.seconds), "--size", args.size, "--count", str(args.count)]
        log("writer:", " ".join(writer_cmd))
        t0 = time.monotonic()
        writer = subprocess.run(writer_cmd, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True)
        t_written = time.monotonic()
        stop_scraping.set()
        if writer.returncode != 0:
            raise SystemExit(f"writer failed: {writer.stdout}")
        expected = json.load(open(expected_path))
        want = {'{tool="%s",workflow="%s",reason="%s"}' % (s["tool"], s["workflow"], s["reason"]): s["value"]
                for s in expected["series"]}
        # Caught up: the line count and the denial sum are the writer's, or they stopped moving.
        deadline = time.monotonic() + 120
        last, since = None, time.monotonic()
        while time.monotonic() < deadline:
            body = exporter.metrics()
            lines = metric_sum(body, "denials_exporter_lines_total")
            total = sum(denials(body).values())
            if (lines, total) != last:
                last, since = (lines, total), time.monotonic()
            if lines >= expected["lines"] and total >= expected["total"]:
                break
            if time.monotonic() - since > 5:
                break
            time.sleep(0.01)
        t_caught = time.monotonic()
        cpu = exporter.cpu_seconds() - cpu0
        mem = exporter.memory_kib()
        body = exporter.metrics()
        got = {}
        for labels, value in denials(body).items():
            parts = dict(p.split("=", 1) for p in labels[len(METRIC) + 1 : -1].split(","))
            got['{tool=%s,workflow=%s,reason=%s}' % (parts["tool"], parts["workflow"], parts["reason"])] = value
        wrong = sorted(k for k in set(want) | set(got) if want.get(k) != got.get(k))
        files = len([n for n in os.listdir(logs) if n.endswith(".log")])
        read_bytes = metric_sum(body, "denials_exporter_read_bytes_total")
        lines = metric_sum(body, "denials_exporter_lines_total")
        result = {
            "bench": "ingest",
            "writer_lines": expected["lines"],
            "writer_seconds": expected["seconds"],
            "writer_lines_per_s": expected["linesPerSecond"],
            "exporter_lines": int(lines),
            "read_mb": round(read_bytes / 1e6, 1),
            "mb_per_s": round(read_bytes / 1e6 / expected["seconds"], 1),
            "expected_denials": expected["total"],
            "counted_denials": int(sum(got.values())),
            "series": len(want),
            "series_wrong": len(wrong),
            "wrong_examples": [f"{k}: exporter {got.get(k)}, writer {want.get(k)}" for k in wrong[:5]],
            "caught_up_after_writer_s": round(t_caught - t_written, 3),
            "exporter_cpu_s": round(cpu, 2),
            "exporter_cpu_pct_of_core": round(100 * cpu / (t_caught - t0), 1),
            "exporter_vmhwm_mib": round(mem.get("VmHWM", 0) / 1024, 1),
            "files_left": files,
            "rotations": int(metric_sum(body, "denials_exporter_rotations_total")),
            "malformed": int(metric_sum_labels(body, "denials_exporter_lines_total", 'outcome="malformed"')),
            "exporter": exporter.command,
            "writer": " ".join(writer_cmd[:2] + ["--dir", "DIR", "--expected", "FILE"] + writer_cmd[6:]),
        }
        if scrapes:
            scrapes.sort()
            result["scrape"] = {"samples": len(scrapes), "interval_ms": args.scrape_ms,
                                "p50_ms": round(percentile(scrapes, 50), 2), "p99_ms": round(percentile(scrapes, 99), 2),
                                "max_ms": round(scrapes[-1], 2)}
        result["ok"] = not wrong and result["exporter_lines"] == result["writer_lines"]
        print(json.dumps(result), flush=True)
    finally:
        exporter.stop()
        shutil.rmtree(work, ignore_errors=True)


def metric_sum_labels(body, name, label):
    total = 0.0
    for line in body.split(b"\n"):
        if line.startswith(name.encode() + b"{") and label.encode() in line:
            total += float(line.rpartition(b" ")[2])
    return total


def cmd_idle(args):
    work = tempfile.mkdtemp(prefix="denials-live-idle.")
    logs = os.path.join(work, "logs")
    os.makedirs(logs)
    filler = (
        '{"level":30,"time":1781251200139,"pid":4242,"hostname":"executor-7d9f6c5b8-x2x9q","component":"executor",'
        '"executionId":"exec_%d","jobId":"job_1","workflow":"review","installationId":10792956,"repo":"acme/web",'
        '"sdkMsgType":"assistant","outputTokens":417,"msg":"SDK message"}\n'
    )
    for n in range(args.files):
        line = (filler % n).encode()
        with open(os.path.join(logs, f"pod-{n:03d}.log"), "wb") as f:
            f.write(line * max(1, args.file_kib * 1024 // len(line)))
        with open(os.path.join(logs, f"pod-{n:03d}.log"), "ab") as f:
            f.write(denial_line(n, "exec_%d" % n))
    extra = ["--poll"] if args.poll else []
    exporter = Exporter(args.binary, os.path.join(logs, "*.log"), work, extra)
    try:
        deadline = time.monotonic() + 60
        while time.monotonic() < deadline:
            body = exporter.metrics()
            if sum(denials(body).values()) >= args.files:
                break
            time.sleep(0.1)
        followed = int(metric_sum(body, "denials_exporter_files_followed"))
        exporter.conn.close()  # no HTTP traffic in the window
        exporter.conn = None
        time.sleep(2)
        cpu0 = exporter.cpu_seconds()
        t0 = time.monotonic()
        time.sleep(args.seconds)
        cpu = exporter.cpu_seconds() - cpu0
        window = time.monotonic() - t0
        mem = exporter.memory_kib()
        result = {
            "bench": "idle",
            "mode": "poll (stat every 1 s)" if args.poll else "inotify",
            "files": args.files,
            "file_kib": args.file_kib,
            "files_followed": followed,
            "window_s": round(window, 1),
            "cpu_ms": round(cpu * 1000),
            "cpu_resolution_ms": round(1000 / CLK_TCK),
            "vmrss_mib": round(mem["VmRSS"] / 1024, 1),
            "vmhwm_mib": round(mem["VmHWM"] / 1024, 1),
            "exporter": exporter.command,
        }
        print(json.dumps(result), flush=True)
    finally:
        exporter.stop()
        shutil.rmtree(work, ignore_errors=True)


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    sub = parser.add_subparsers(dest="cmd", required=True)
    p = sub.add_parser("latency")
    p.add_argument("binary")
    p.add_argument("--poll", action="store_true")
    p.add_argument("--samples", type=int, default=500)
    p.add_argument("--spacing-ms", type=float, default=20)
    p.add_argument("--jitter-ms", type=float, default=None,
                   help="plus a uniform random pause of up to this (default: 1000 with --poll, else 0)")
    p = sub.add_parser("freshness")
    p.add_argument("binary")
    p.add_argument("--samples", type=int, default=500)
    p.add_argument("--period-ms", type=float, default=20)
    p = sub.add_parser("ingest")
    p.add_argument("binary")
    p.add_argument("--writer", required=True)
    p.add_argument("--seconds", type=float, default=15)
    p.add_argument("--rate", type=int, default=0)
    p.add_argument("--size", default="1m")
    p.add_argument("--count", type=int, default=100)
    p.add_argument("--scrape-ms", type=float, default=0,
                   help="also time GET /metrics every N ms while the writer writes (0: no scraping)")
    p = sub.add_parser("idle")
    p.add_argument("binary")
    p.add_argument("--files", type=int, default=100)
    p.add_argument("--seconds", type=float, default=10)
    p.add_argument("--file-kib", type=int, default=1024)
    p.add_argument("--poll", action="store_true")
    args = parser.parse_args()
    if args.cmd == "latency" and args.jitter_ms is None:
        args.jitter_ms = 1000.0 if args.poll else 0.0
    commands = {"latency": cmd_latency, "freshness": cmd_freshness, "ingest": cmd_ingest, "idle": cmd_idle}
    commands[args.cmd](args)


if __name__ == "__main__":
    main()
