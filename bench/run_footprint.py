#!/usr/bin/env python3
"""Peak RSS of `denials-exporter run` while it follows, redacts and serves (python3 stdlib only).

    run_footprint.py BINARY LOG [--rate LINES_PER_S] [--piece-lines N] [--scrape-ms MS] [--runs N]
                     [--wrap 'COMMAND ARGS']

Starts `BINARY run` on an empty directory (recent-denials ring on, its default), then appends LOG
to a file there in pieces of N whole lines, paced at LINES_PER_S, while a second thread GETs
/metrics, / and /api/v1/denials every MS milliseconds. When the exporter has read every byte, its
VmHWM and VmRSS (from /proc/PID/status) are the figures. Each run is a fresh process and a fresh
directory; prints one JSON object per run and a last one with the medians.

With --wrap, the exporter runs under that command, e.g. --wrap 'valgrind --tool=massif
--massif-out-file=run.massif' to see what its heap holds at the peak (massif writes the file when
the exporter exits); the RSS figures are then the wrapper's.

With DUMP_SMAPS=1 in the environment, the largest mappings (by RSS) of each run go to stderr:
the binary, libc, the heap and each malloc arena, to see where a peak comes from.

bench/redact.sh runs it for its third budget: run peak RSS <= 12 MiB.
"""

import argparse
import http.client
import json
import os
import shlex
import shutil
import socket
import statistics
import subprocess
import sys
import tempfile
import threading
import time


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def get(port, path):
    conn = http.client.HTTPConnection("127.0.0.1", port, timeout=5)
    try:
        conn.request("GET", path)
        res = conn.getresponse()
        return res.status, res.read()
    finally:
        conn.close()


def read_bytes(body):
    for line in body.split(b"\n"):
        if line.startswith(b"denials_exporter_read_bytes_total "):
            return int(float(line.split()[1]))
    return 0


def status(pid):
    out = {}
    with open(f"/proc/{pid}/status") as f:
        for line in f:
            key, _, value = line.partition(":")
            if key in ("VmRSS", "VmHWM", "RssAnon", "RssFile", "Threads"):
                out[key] = int(value.split()[0])
    return out


def one_run(args, data):
    work = tempfile.mkdtemp(prefix="denials-run-footprint.")
    logs = os.path.join(work, "logs")
    os.mkdir(logs)
    port = free_port()
    err = open(os.path.join(work, "exporter.log"), "w")
    proc = subprocess.Popen(
        shlex.split(args.wrap) + [args.binary, "run", "--path", os.path.join(logs, "*.log"),
         "--web.listen-address", f"127.0.0.1:{port}"],
        stdout=subprocess.DEVNULL, stderr=err)
    try:
        deadline = time.monotonic() + 30
        while True:
            if proc.poll() is not None:
                raise SystemExit(f"exporter exited with {proc.returncode}")
            try:
                if get(port, "/-/ready")[0] == 200:
                    break
            except OSError:
                pass
            if time.monotonic() > deadline:
                raise SystemExit("exporter not ready within 30 s")
            time.sleep(0.05)
        stop = threading.Event()
        scrapes = [0]

        def scrape():
            while not stop.is_set():
                for path in ("/metrics", "/", "/api/v1/denials"):
                    try:
                        get(port, path)
                        scrapes[0] += 1
                    except OSError:
                        pass
                stop.wait(args.scrape_ms / 1000)

        scraper = threading.Thread(target=scrape, daemon=True)
        scraper.start()
        start = time.monotonic()
        written = lines = 0
        with open(os.path.join(logs, "executor.log"), "ab", buffering=0) as out:
            while written < len(data):
                end = written
                for _ in range(args.piece_lines):
                    nl = data.find(b"\n", end)
                    end = len(data) if nl < 0 else nl + 1
                    if end == len(data):
                        break
                out.write(data[written:end])
                lines += data.count(b"\n", written, end)
                written = end
                ahead = start + lines / args.rate - time.monotonic()
                if ahead > 0:
                    time.sleep(ahead)
        write_s = time.monotonic() - start
        deadline = time.monotonic() + 120
        while read_bytes(get(port, "/metrics")[1]) < len(data):
            if time.monotonic() > deadline:
                raise SystemExit("exporter did not catch up within 120 s")
            time.sleep(0.05)
        stop.set()
        scraper.join()
        figures = status(proc.pid)
        if os.environ.get("DUMP_SMAPS"):
            rows, cur = [], None
            with open(f"/proc/{proc.pid}/smaps") as f:
                for line in f:
                    parts = line.split()
                    if "-" in parts[0] and not parts[0].endswith(":"):
                        cur = (parts[0], parts[5] if len(parts) > 5 else "[anon]")
                    elif parts[0] == "Rss:":
                        rows.append((int(parts[1]), cur))
            for rss, where in sorted(rows, reverse=True)[:14]:
                print(rss, where, file=sys.stderr)
        figures.update(write_s=round(write_s, 2), scrapes=scrapes[0],
                       lines_per_s=round(lines / write_s))
        return figures
    finally:
        proc.terminate()
        try:
            proc.wait(60 if args.wrap else 10)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()
        err.close()
        shutil.rmtree(work, ignore_errors=True)


def main():
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("binary")
    p.add_argument("log")
    p.add_argument("--rate", type=float, default=100_000)
    p.add_argument("--piece-lines", type=int, default=1000)
    p.add_argument("--scrape-ms", type=float, default=100)
    p.add_argument("--runs", type=int, default=3)
    p.add_argument("--wrap", default="", help="a command to run the exporter under")
    args = p.parse_args()
    with open(args.log, "rb") as f:
        data = f.read()
    runs = []
    for _ in range(args.runs):
        figures = one_run(args, data)
        runs.append(figures)
        print(json.dumps(figures), flush=True)
    print(json.dumps({
        "median_VmHWM_kib": statistics.median(r["VmHWM"] for r in runs),
        "max_VmHWM_kib": max(r["VmHWM"] for r in runs),
        "runs": len(runs),
        "rate": args.rate,
    }))


if __name__ == "__main__":
    sys.exit(main())
