#!/usr/bin/env python3
"""Exemplars end to end: a real Prometheus, started with --enable-feature=exemplar-storage,
scrapes the exporter (OpenMetrics by content negotiation), and /api/v1/query_exemplars must
return the execution ids that were written: on permission_denials_total the latest denial of
each label set, on agent_cost_usd_total the latest execution that spent.

Usage: tests/deploy/exemplars.py [BINARY]   (default target/release/denials-exporter)
Needs: prometheus on PATH (Debian package `prometheus`). Loopback only; stops what it starts;
exits 0 when every check holds. Prints `exemplars: N passed, N failed`.
"""

import json
import os
import shutil
import socket
import subprocess
import sys
import tempfile
import time
import urllib.parse
import urllib.request

BIN = sys.argv[1] if len(sys.argv) > 1 else "target/release/denials-exporter"
DEADLINE = time.monotonic() + 90


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def get_json(url):
    with urllib.request.urlopen(url, timeout=5) as r:
        return json.load(r)


def line(obj):
    return json.dumps(obj, separators=(",", ":")) + "\n"


def log_lines(now_ms):
    """Three executions, each denied a different tool; the third also completes with a cost."""
    out = []
    for i, tool in enumerate(["Bash", "Edit", "Read"], start=1):
        out.append(line({"level": 40, "time": now_ms + i, "executionId": f"exec_ex_{i}", "workflow": "ex",
                         "event": "agent.permission.denied", "toolName": tool, "toolUseId": f"toolu_ex_{i}",
                         "decisionReasonType": "hook", "msg": "agent permission denied"}))
    out.append(line({"level": 30, "time": now_ms + 10, "executionId": "exec_ex_3", "workflow": "ex",
                     "sdkMsgType": "result", "subtype": "success", "costUsd": 0.25, "numTurns": 2,
                     "modelUsage": {"claude-sonnet-4-5": {"inputTokens": 10, "outputTokens": 5, "costUSD": 0.25}},
                     "permissionDenials": [{"toolName": "Read", "toolUseId": "toolu_ex_3"}],
                     "msg": "Claude Agent SDK execution completed"}))
    return "".join(out)


def main():
    prometheus = shutil.which("prometheus") or "/usr/bin/prometheus"
    work = tempfile.mkdtemp(prefix="denials-exemplars.")
    procs = []
    passed = failed = 0

    def check(name, ok, detail):
        nonlocal passed, failed
        print(f"{'ok  ' if ok else 'FAIL'} {name}: {detail}")
        passed, failed = passed + ok, failed + (not ok)

    try:
        logs = os.path.join(work, "logs")
        os.makedirs(logs)
        exporter_port, prom_port = free_port(), free_port()
        with open(os.path.join(logs, "app.log"), "w") as f:
            f.write(log_lines(int(time.time() * 1000)))
        procs.append(subprocess.Popen(
            [BIN, "run", "--path", os.path.join(logs, "*.log"),
             "--web.listen-address", f"127.0.0.1:{exporter_port}"],
            stdout=subprocess.DEVNULL, stderr=open(os.path.join(work, "exporter.log"), "w")))
        with open(os.path.join(work, "prometheus.yml"), "w") as f:
            f.write("global:\n  scrape_interval: 1s\n  scrape_timeout: 1s\nscrape_configs:\n"
                    f"  - job_name: denials\n    static_configs:\n      - targets: ['127.0.0.1:{exporter_port}']\n")
        procs.append(subprocess.Popen(
            [prometheus, f"--config.file={work}/prometheus.yml", f"--storage.tsdb.path={work}/tsdb",
             f"--web.listen-address=127.0.0.1:{prom_port}", "--enable-feature=exemplar-storage",
             "--log.level=warn"],
            stdout=subprocess.DEVNULL, stderr=open(os.path.join(work, "prometheus.log"), "w")))
        prom = f"http://127.0.0.1:{prom_port}"
        start = time.time() - 60

        def exemplars(query):
            q = urllib.parse.urlencode({"query": query, "start": start, "end": time.time() + 60})
            try:
                data = get_json(f"{prom}/api/v1/query_exemplars?{q}")["data"]
            except OSError:
                return {}
            return {tuple(sorted(s["seriesLabels"].items())): [e["labels"] for e in s["exemplars"]]
                    for s in data}

        want_denials = {"Bash": "exec_ex_1", "Edit": "exec_ex_2", "Read": "exec_ex_3"}
        got = {}
        while time.monotonic() < DEADLINE:
            got = exemplars('permission_denials_total{workflow="ex"}')
            cost = exemplars('agent_cost_usd_total{workflow="ex"}')
            if len(got) == 3 and cost:
                break
            time.sleep(0.5)
        by_tool = {dict(k)["tool"]: [e.get("execution_id") for e in v] for k, v in got.items()}
        check("query_exemplars returns each denial series' execution id",
              all(want_denials[t] in ids for t, ids in by_tool.items()) and set(by_tool) == set(want_denials),
              f"{by_tool}")
        tool_use = {dict(k)["tool"]: [e.get("tool_use_id") for e in v] for k, v in got.items()}
        check("the denial exemplars carry the tool use id",
              tool_use.get("Bash") and "toolu_ex_1" in tool_use["Bash"], f"{tool_use}")
        cost_ids = [e.get("execution_id") for v in exemplars('agent_cost_usd_total{workflow="ex"}').values() for e in v]
        check("query_exemplars returns the execution that spent, on agent_cost_usd_total",
              "exec_ex_3" in cost_ids, f"{cost_ids}")
        # Prometheus asks for OpenMetrics and gzip: the HTTP self-metrics must come along.
        q = urllib.parse.urlencode({"query": "denials_exporter_http_connections_open"})
        try:
            result = get_json(f"{prom}/api/v1/query?{q}")["data"]["result"]
        except OSError as e:
            result = str(e)
        check("the OpenMetrics scrape carries the HTTP self-metrics",
              isinstance(result, list) and len(result) == 1 and float(result[0]["value"][1]) >= 1,
              f"{result}")
    finally:
        for p in procs:
            p.terminate()
        for p in procs:
            try:
                p.wait(timeout=10)
            except subprocess.TimeoutExpired:
                p.kill()
        if failed:
            for name in ("exporter.log", "prometheus.log"):
                path = os.path.join(work, name)
                if os.path.exists(path):
                    print(f"--- {name}\n" + open(path).read()[-2000:])
        shutil.rmtree(work, ignore_errors=True)
    print(f"exemplars: {passed} passed, {failed} failed")
    return 0 if failed == 0 else 1


if __name__ == "__main__":
    sys.exit(main())
