#!/usr/bin/env python3
"""Every PromQL expression of the dashboards and rules, evaluated by a real Prometheus scraping a
real exporter.

    python3 tests/deploy/promql_e2e.py --exporter target/release/denials-exporter \\
        --fixture examples/executor.log --fixture tests/deploy/data/enforcement.log

1. copies the fixtures (one after the other: --fixture may be repeated) into one log in a temporary
   directory and starts
   `<exporter> run --path '<tmp>/logs/*.log' --read-from beginning --web.listen-address
   127.0.0.1:<port> --state-file <tmp>/state.json`, then waits for /-/ready;
2. starts Prometheus (scrape and rule evaluation every second, job `denials-exporter`, static labels
   `namespace: demo`, `pod: demo-executor-0`, `cluster: demo`, rule_files = deploy/prometheus/denials-exporter.rules.yml) and waits until `up`
   is 1, then lets it scrape for --settle seconds, appending fresh copies of the fixture (new
   execution and tool-use ids) twice so that rate() and increase() see counters move;
3. evaluates through /api/v1/query every target of every dashboard panel (template variables
   replaced: $cluster, $job, $namespace, $pod, $workflow, $tool -> .*, $__rate_interval -> 1m, $__range -> 5m,
   $__interval -> 15s) and every recording and alerting rule, and checks that
   - each expression parses (status success);
   - each dashboard panel returns data (a panel on ALERTS only may be empty: nothing fires);
   - each metric an expression names is one Prometheus has (/api/v1/label/__name__/values): the
     exporter exports it, or it is a recording rule that has been evaluated; ALERTS is exempt;
   - every rule evaluates without error (/api/v1/rules health);
   - the memory limit line gives the exporter container's limit for its pod, from a kube-state-metrics
     stand-in (a loopback server Prometheus scrapes as job kube-state-metrics with honor_labels).
Prints one line per expression, stops both processes on every exit path, and exits 1 if anything
failed (2 if the setup itself failed). Python 3 standard library only.
"""

import argparse
import atexit
import http.server
import json
import os
import re
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import threading
import time
import urllib.error
import urllib.parse
import urllib.request

sys.dont_write_bytecode = True  # no __pycache__ in the repository
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import dashboards_check  # noqa: E402  (same directory: the PromQL reader and the rules loader)

ROOT = dashboards_check.ROOT
RULES = os.path.join(ROOT, dashboards_check.RULES_FILE)
SUBSTITUTIONS = {"__rate_interval": "1m", "__range": "5m", "__interval": "15s"}
# Prometheus-made series an expression may name without the exporter exporting them.
NOT_EXPORTED_OK = {"ALERTS"}
# What kube-state-metrics serves for the exporter container of the demo pod: the dashboards' memory
# limit line reads it (a stand-in on loopback, scraped as its own job with honor_labels, as
# kube-prometheus scrapes kube-state-metrics).
KSM_MEMORY_LIMIT = 64 * 1024 * 1024
KSM_EXPOSITION = ("# HELP kube_pod_container_resource_limits The number of requested limit resource by a container.\n"
                  "# TYPE kube_pod_container_resource_limits gauge\n"
                  'kube_pod_container_resource_limits{namespace="demo",pod="demo-executor-0",uid="0f3c",'
                  'container="denials-exporter",node="node-1",resource="memory",unit="byte"} %d\n'
                  'kube_pod_container_resource_limits{namespace="demo",pod="demo-executor-0",uid="0f3c",'
                  'container="executor",node="node-1",resource="memory",unit="byte"} %d\n'
                  % (KSM_MEMORY_LIMIT, 4 * KSM_MEMORY_LIMIT))


def serve_kube_state_metrics():
    """A loopback HTTP server answering /metrics with KSM_EXPOSITION; returns its port."""
    class Handler(http.server.BaseHTTPRequestHandler):
        def do_GET(self):  # noqa: N802  (the stdlib's name)
            body = KSM_EXPOSITION.encode()
            self.send_response(200 if self.path == "/metrics" else 404)
            self.send_header("Content-Type", "text/plain; version=0.0.4")
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)

        def log_message(self, *args):
            pass
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    atexit.register(server.shutdown)
    return server.server_address[1]


class SetupError(Exception):
    pass


# ------------------------------------------------------------------------------------------------
# Processes

class Processes:
    """Children started by this script; all are stopped at exit, whatever the exit path."""

    def __init__(self):
        self.children = []
        atexit.register(self.stop_all)
        for sig in (signal.SIGTERM, signal.SIGINT, signal.SIGHUP):
            signal.signal(sig, self._on_signal)

    def _on_signal(self, signum, _frame):
        self.stop_all()
        sys.exit(128 + signum)

    def start(self, name, argv, log_path):
        log = open(log_path, "wb")
        try:
            proc = subprocess.Popen(argv, stdout=log, stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL)
        except OSError as e:
            log.close()
            raise SetupError(f"cannot start {name} ({argv[0]}): {e}") from e
        self.children.append((name, proc, log, log_path))
        return proc

    def stop_all(self):
        while self.children:
            name, proc, log, _ = self.children.pop()
            if proc.poll() is None:
                proc.terminate()
                try:
                    proc.wait(timeout=10)
                except subprocess.TimeoutExpired:
                    proc.kill()
                    proc.wait()
            log.close()

    def log_tail(self, name, lines=30):
        for child_name, _, log, path in self.children:
            if child_name == name:
                log.flush()
                with open(path, "rb") as f:
                    return "\n".join(f.read().decode("utf-8", "replace").splitlines()[-lines:])
        return ""


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def http_get(url, timeout=5):
    """Return (status, body); status 0 when the connection failed."""
    try:
        with urllib.request.urlopen(url, timeout=timeout) as r:
            return r.status, r.read().decode("utf-8", "replace")
    except urllib.error.HTTPError as e:
        return e.code, e.read().decode("utf-8", "replace")
    except (urllib.error.URLError, OSError):
        return 0, ""


def wait_for(what, check, proc, procs, name, timeout):
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if proc.poll() is not None:
            raise SetupError(f"{name} exited with {proc.returncode} while waiting for {what}:\n"
                             f"{procs.log_tail(name)}")
        if check():
            return
        time.sleep(0.25)
    raise SetupError(f"timed out after {timeout}s waiting for {what}:\n{procs.log_tail(name)}")


# ------------------------------------------------------------------------------------------------
# Fixture

_ID_KEY = re.compile(r"(?i)(^|_)(id|uuid)$|[a-z]Id$")


def fresh_copy(lines, suffix):
    """The fixture's lines with every string id (executionId, toolUseId, session_id, uuid, ...)
    suffixed, so the exporter counts them as new executions and denials, not duplicates."""
    def walk(value, key=""):
        if isinstance(value, dict):
            return {k: walk(v, k) for k, v in value.items()}
        if isinstance(value, list):
            return [walk(v, key) for v in value]
        if isinstance(value, str) and _ID_KEY.search(key):
            return value + suffix
        return value

    out = []
    for line in lines:
        try:
            out.append(json.dumps(walk(json.loads(line)), separators=(",", ":")))
        except ValueError:
            out.append(line)
    return "\n".join(out) + "\n"


# ------------------------------------------------------------------------------------------------
# Expressions

def substitute(expr, variables):
    def repl(m):
        name = m.group(1) or m.group(2)
        if name in SUBSTITUTIONS:
            return SUBSTITUTIONS[name]
        if name in variables:
            return ".*"
        return m.group(0)
    return re.sub(r"\$\{([A-Za-z_][A-Za-z0-9_]*)(?::[a-z]+)?\}|\$([A-Za-z_][A-Za-z0-9_]*)", repl, expr)


def collect_panels():
    """[(where, expr, may be empty, panel key)] of every dashboard panel target, variables replaced;
    a target that selects only ALERTS may be empty (nothing fires)."""
    out = []
    for name, dashboard in dashboards_check.load_dashboards(ROOT):
        variables = {v.get("name") for v in (dashboard.get("templating") or {}).get("list") or []}
        for panel, target in dashboards_check.dashboard_targets(dashboard):
            expr = substitute(target.get("expr", ""), variables)
            where = f"{name} panel {panel.get('id')} {panel.get('title')!r}"
            try:
                may_be_empty = dashboards_check.metric_names(expr) <= NOT_EXPORTED_OK
            except dashboards_check.PromQLError:
                may_be_empty = False  # reported when the expression is evaluated
            out.append((f"{where} {target.get('refId')}", expr, may_be_empty, where))
    return out


def collect_variables():
    """[(where, label, selector)] of every label_values() variable, variables replaced."""
    out = []
    for name, dashboard in dashboards_check.load_dashboards(ROOT):
        variables = (dashboard.get("templating") or {}).get("list") or []
        names = {v.get("name") for v in variables}
        for var in variables:
            lv = dashboards_check.label_values_query(var) if var.get("type") == "query" else None
            if lv:
                out.append((f"{name} variable {var.get('name')}", lv[1], substitute(lv[0], names)))
    return out


def query(prom, expr, samples=False):
    """(ok, error, number of series), or with samples=True (ok, error, the result list)."""
    url = f"{prom}/api/v1/query?" + urllib.parse.urlencode({"query": expr})
    status, body = http_get(url, timeout=15)
    try:
        answer = json.loads(body)
    except ValueError:
        return False, f"HTTP {status}: {body[:200]!r}", None if samples else 0
    if answer.get("status") != "success":
        return False, f"{answer.get('errorType')}: {answer.get('error')}", None if samples else 0
    data = answer["data"]
    if samples:
        return True, "", data["result"] if data["resultType"] == "vector" else None
    n = len(data["result"]) if data["resultType"] in ("vector", "matrix") else 1
    return True, "", n


# ------------------------------------------------------------------------------------------------

def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0],
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--exporter", required=True, help="the denials-exporter binary")
    ap.add_argument("--fixture", required=True, action="append",
                    help="an executor log to feed it (repeatable: the logs are concatenated)")
    ap.add_argument("--prometheus", default=shutil.which("prometheus") or "/usr/bin/prometheus",
                    help="the Prometheus server binary (default: %(default)s)")
    ap.add_argument("--settle", type=float, default=20.0,
                    help="seconds of scraping after up == 1, before evaluating (default: %(default)s)")
    ap.add_argument("--keep", action="store_true", help="keep the temporary directory (logs, TSDB)")
    args = ap.parse_args(argv)

    exporter = os.path.abspath(args.exporter)
    fixture_lines = []
    for path in args.fixture:
        with open(path, encoding="utf-8", errors="replace") as f:
            fixture_lines += f.read().splitlines()

    tmp = tempfile.mkdtemp(prefix="promql-e2e-")
    if not args.keep:
        atexit.register(shutil.rmtree, tmp, True)
    procs = Processes()  # registered after rmtree: atexit runs it first, so children stop first
    try:
        return run(args, exporter, fixture_lines, tmp, procs)
    except SetupError as e:
        print(f"SETUP FAILED: {e}", file=sys.stderr)
        return 2
    finally:
        procs.stop_all()
        if args.keep:
            print(f"kept {tmp}")


def run(args, exporter, fixture_lines, tmp, procs):
    log_file = os.path.join(tmp, "logs", "executor.log")
    os.makedirs(os.path.dirname(log_file))
    with open(log_file, "w", encoding="utf-8") as f:
        f.write("\n".join(fixture_lines) + "\n")
    exporter_proc, exporter_port = start_exporter(exporter, tmp, procs)
    prom = start_prometheus(args.prometheus, exporter_port, tmp, procs)
    print(f"prometheus on {prom} scrapes the exporter; settling {args.settle:.0f}s")

    # Move the counters twice while Prometheus watches, so rates over the window are not all 0.
    for i, fraction in enumerate((0.25, 0.35, 0.4)):
        time.sleep(args.settle * fraction)
        if i < 2:
            with open(log_file, "a", encoding="utf-8") as f:
                f.write(fresh_copy(fixture_lines, f"-e2e{i + 1}"))
    if exporter_proc.poll() is not None:
        raise SetupError(f"the exporter exited with {exporter_proc.returncode}:\n{procs.log_tail('exporter')}")

    failures = check_all(prom)
    print()
    if failures:
        print(f"{len(failures)} failure(s):")
        for f in failures:
            print(f"  {f}")
        print("\nexporter log (tail):\n" + procs.log_tail("exporter", 15))
        return 1
    print("all expressions parse, all panels and variables have data, all metric names exist")
    return 0


def start_exporter(exporter, tmp, procs):
    port = free_port()
    url = f"http://127.0.0.1:{port}"
    proc = procs.start("exporter", [exporter, "run", "--path", os.path.join(tmp, "logs", "*.log"),
                                    "--read-from", "beginning",
                                    "--web.listen-address", f"127.0.0.1:{port}",
                                    "--state-file", os.path.join(tmp, "state.json")],
                       os.path.join(tmp, "exporter.log"))
    wait_for("the exporter's /-/ready", lambda: http_get(url + "/-/ready")[0] == 200,
             proc, procs, "exporter", 60)
    print(f"exporter ready on {url}")
    return proc, port


def start_prometheus(binary, exporter_port, tmp, procs):
    """Start Prometheus on the exporter and the rules; return its URL once it has scraped up == 1."""
    port = free_port()
    url = f"http://127.0.0.1:{port}"
    config = os.path.join(tmp, "prometheus.yml")
    with open(config, "w", encoding="utf-8") as f:
        f.write("global:\n"
                "  scrape_interval: 1s\n"
                "  scrape_timeout: 1s\n"
                "  evaluation_interval: 1s\n"
                f"rule_files:\n  - {json.dumps(RULES)}\n"
                "scrape_configs:\n"
                "  - job_name: denials-exporter\n"
                "    static_configs:\n"
                f"      - targets: [\"127.0.0.1:{exporter_port}\"]\n"
                "        labels:\n"
                # The target labels of a PodMonitor in a multi-cluster store: the dashboards'
                # cluster, namespace and pod variables must each list a value.
                "          namespace: demo\n"
                "          pod: demo-executor-0\n"
                "          cluster: demo\n"
                "  - job_name: kube-state-metrics\n"
                "    honor_labels: true\n"
                "    static_configs:\n"
                f"      - targets: [\"127.0.0.1:{serve_kube_state_metrics()}\"]\n"
                "        labels:\n"
                "          cluster: demo\n")
    proc = procs.start("prometheus", [binary, f"--config.file={config}",
                                      f"--storage.tsdb.path={os.path.join(tmp, 'tsdb')}",
                                      f"--web.listen-address=127.0.0.1:{port}",
                                      "--storage.tsdb.retention.time=1d"],
                       os.path.join(tmp, "prometheus.log"))
    wait_for("Prometheus's /-/ready", lambda: http_get(url + "/-/ready")[0] == 200,
             proc, procs, "prometheus", 60)

    def exporter_up():
        ok, _, n = query(url, 'up{job="denials-exporter"} == 1')
        return ok and n > 0
    wait_for("up == 1", exporter_up, proc, procs, "prometheus", 30)
    return url


def check_all(prom):
    """Evaluate everything; print one line each; return the failures."""
    status, body = http_get(prom + "/api/v1/label/__name__/values")
    if status != 200:
        raise SetupError(f"/api/v1/label/__name__/values answered {status}")
    known = set(json.loads(body)["data"])
    rules = dashboards_check.load_rules(RULES)
    records = {r["record"] for _, r in rules if "record" in r}
    failures = []

    def fail(line):
        failures.append(line)
        print(f"FAIL {line}")

    def evaluate(kind, where, expr):
        """Query one expression and print its line; return how many series it gave."""
        problems = []
        try:
            names = dashboards_check.metric_names(expr)
        except dashboards_check.PromQLError as e:
            names, problems = set(), [f"unreadable: {e}"]
        for name in sorted(names - NOT_EXPORTED_OK - known):
            problems.append(f"{name} " + ("was never recorded" if name in records
                                          else "is not exported by the exporter"))
        ok, error, n = query(prom, expr)
        if not ok:
            problems.append(error)
        if problems:
            fail(f"{kind} {where}: {n} series -- {'; '.join(problems)}")
        else:
            print(f"ok   {kind} {where}: {n} series")
        return n

    panels = {}  # panel -> [some target returned data, every target may be empty]
    for where, expr, may_be_empty, panel in collect_panels():
        entry = panels.setdefault(panel, [False, True])
        entry[0] |= evaluate("panel", where, expr) > 0
        entry[1] &= may_be_empty
    for panel, (has_data, may_be_empty) in panels.items():
        if not has_data and not may_be_empty:
            fail(f"panel {panel}: no target returned data")

    for group, rule in rules:
        kind = "record" if "record" in rule else "alert"
        evaluate(kind, f"{group} {rule.get('record') or rule.get('alert')}", rule["expr"])
    for name in sorted(records - known):
        fail(f"record {name}: no series recorded")

    # The memory limit line is the exporter container's own limit, per pod, from kube-state-metrics.
    limit = [(where, expr) for where, expr, _, _ in collect_panels() if "kube_pod_container_resource_limits" in expr]
    for where, expr in limit:
        ok, _, result = query(prom, expr, samples=True)
        got = [(r["metric"], float(r["value"][1])) for r in result or []]
        if ok and got == [({"pod": "demo-executor-0"}, float(KSM_MEMORY_LIMIT))]:
            print(f"ok   panel {where}: the exporter container's limit, {KSM_MEMORY_LIMIT} bytes, for its pod")
        else:
            fail(f"panel {where}: want the exporter container's limit {KSM_MEMORY_LIMIT} for pod demo-executor-0, got {got}")
    if not limit:
        fail("no dashboard target reads kube_pod_container_resource_limits (the memory limit line)")

    for where, label, selector in collect_variables():
        url = f"{prom}/api/v1/label/{label}/values?" + urllib.parse.urlencode({"match[]": selector})
        status, body = http_get(url, timeout=15)
        values = json.loads(body).get("data") if status == 200 else None
        if values:
            print(f"ok   variable {where}: {len(values)} value(s)")
        else:
            fail(f"variable {where}: label_values({selector}, {label}) "
                 + ("is empty" if status == 200 else f"answered HTTP {status}"))

    status, body = http_get(prom + "/api/v1/rules")
    if status != 200:
        fail(f"/api/v1/rules answered HTTP {status}")
    for group in json.loads(body)["data"]["groups"] if status == 200 else []:
        for rule in group["rules"]:
            if rule.get("health") != "ok":
                fail(f"rule {group['name']} {rule['name']}: health {rule.get('health')}: {rule.get('lastError')}")
    return failures


if __name__ == "__main__":
    sys.exit(main())
