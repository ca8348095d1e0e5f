#!/usr/bin/env python3
"""The drill-down, followed end to end: from an exemplar or a dashboard series to the redacted audit
records of the real exporter.

    python3 tests/deploy/drilldown_check.py [--exporter target/release/denials-exporter]

1. Runs the exporter as the Kubernetes manifests do (`run --audit-log=- --log.format=json`, its
   stdout and stderr into one stream, as a container log is), over examples/executor.log and
   tests/deploy/data/enforcement.log, and reads
   the exemplars of permission_denials_total from /metrics (OpenMetrics).
2. deploy/grafana/datasource.yaml, with Grafana's provisioning expansion applied ($$ -> $, ${ENV}
   from the environment): each execution_id destination, its ${__value.raw} replaced by a real
   exemplar's execution id, is an Explore link on the provisioned Loki data source (and equal to the
   mixin's exemplarURL) or the exporter's /api/v1/denials?execution_id=<id>.
3. The Explore link's LogQL, evaluated over that stream (a small evaluator of the subset the links
   use: the stream selector, `| json`, `| key="value"` and `| key=~"regex"`), selects exactly the
   audit records of that execution, at least one, and none of the exporter's own log lines.
4. Every Explore data link of the dashboards: on the `${loki_datasource}` variable over the dashboard's time
   range, its templates named after the labels of the panel's queries; filled with the values of a
   real audit record it selects that record and only records with those values.
Prints one line per check; exit 1 if any failed (2 if the exporter could not be run).
"""
import argparse
import json
import os
import re
import socket
import subprocess
import sys
import tempfile
import time
import urllib.parse
import urllib.request

import yaml

sys.dont_write_bytecode = True
ROOT = os.path.normpath(os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", ".."))
sys.path.insert(0, os.path.join(ROOT, "mixin"))
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import render  # noqa: E402
import dashboards_check  # noqa: E402
import _jsonnet  # noqa: E402

ENV = {"PROMETHEUS_URL": "http://prometheus:9090", "LOKI_URL": "http://loki:3100",
       "LOKI_DATASOURCE_UID": "loki", "DENIALS_EXPORTER_URL": "http://localhost:10403"}
results = []


def check(name, ok, detail=""):
    results.append(bool(ok))
    print(f"{'ok  ' if ok else 'FAIL'} {name}{'' if ok or detail == '' else ': ' + str(detail)[:500]}")
    return bool(ok)


# ---- the real exporter -------------------------------------------------------------------------

def run_exporter(exporter, tmp):
    """The exporter's container stream (stdout and stderr, one line each) and its exemplar ids."""
    os.makedirs(os.path.join(tmp, "logs"))
    # The example log, then denials that ran anyway and loops (tests/deploy/data/enforcement.log),
    # so that every panel's link has a real record to follow.
    with open(os.path.join(tmp, "logs", "executor.log"), "wb") as dst:
        for part in (("examples", "executor.log"), ("tests", "deploy", "data", "enforcement.log")):
            with open(os.path.join(ROOT, *part), "rb") as src:
                dst.write(src.read())
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    stream = open(os.path.join(tmp, "container.log"), "wb")
    proc = subprocess.Popen([exporter, "run", f"--path={tmp}/logs/*.log", "--read-from=beginning",
                             f"--state-file={tmp}/state.json", "--audit-log=-", "--log.format=json",
                             f"--web.listen-address=127.0.0.1:{port}"], stdout=stream, stderr=stream)
    exemplars = set()
    try:
        for _ in range(100):
            try:
                req = urllib.request.Request(f"http://127.0.0.1:{port}/metrics",
                                             headers={"Accept": "application/openmetrics-text; version=1.0.0"})
                text = urllib.request.urlopen(req, timeout=2).read().decode()
                exemplars = set(re.findall(r'^permission_denials_total\{.*# \{[^}]*execution_id="([^"]+)"', text, re.M))
                if len(exemplars) >= 2:
                    break
            except OSError:
                pass
            time.sleep(0.1)
    finally:
        proc.terminate()
        proc.wait(timeout=10)
        stream.close()
    with open(os.path.join(tmp, "container.log"), encoding="utf-8") as fh:
        return fh.read().splitlines(), sorted(exemplars)


# ---- Grafana ------------------------------------------------------------------------------------

def provision(value):
    """Grafana's expansion of a provisioning value: split on $$, expand ${NAME}/$NAME, join with $."""
    def expand(part):
        return re.sub(r"\$\{([^}]*)\}|\$([A-Za-z_][A-Za-z0-9_]*)", lambda m: ENV.get(m.group(1) or m.group(2), ""), part)
    return "$".join(expand(p) for p in value.split("$$"))


def explore_pane(url):
    """(datasource uid, expr, range) of a Grafana Explore URL (schemaVersion 1, panes)."""
    parsed = urllib.parse.urlsplit(url)
    query = urllib.parse.parse_qs(parsed.query)
    panes = json.loads(query["panes"][0])
    pane = panes["a"]
    q = pane["queries"][0]
    return pane["datasource"], q["datasource"]["uid"], q["expr"], pane["range"]


# ---- LogQL: the subset the links use ------------------------------------------------------------

LOGQL = re.compile(r'\s*\|\s*(json)\s*|\s*\|\s*([A-Za-z_][A-Za-z0-9_]*)\s*(=~|!=|!~|=)\s*"((?:[^"\\]|\\.)*)"\s*')


def logql_filter(expr, stream_labels):
    """A predicate over log lines for `{selector} | json | k="v" ...`; raises on anything else."""
    m = re.match(r'\{([^}]*)\}', expr)
    if not m:
        raise ValueError(f"no stream selector in {expr!r}")
    for matcher in filter(None, (x.strip() for x in m.group(1).split(","))):
        k, v = re.fullmatch(r'([A-Za-z_][A-Za-z0-9_]*)="([^"]*)"', matcher).groups()
        if stream_labels.get(k) != v:
            return lambda line: False
    stages, rest = [], expr[m.end():]
    while rest.strip():
        s = LOGQL.match(rest)
        if not s:
            raise ValueError(f"unsupported LogQL at {rest!r}")
        stages.append(("json",) if s.group(1) else (s.group(2), s.group(3), json.loads('"' + s.group(4) + '"')))
        rest = rest[s.end():]

    def keep(line):
        labels = {}
        for st in stages:
            if st == ("json",):
                try:
                    obj = json.loads(line)
                except ValueError:
                    labels["__error__"] = "JSONParserErr"
                    continue
                if isinstance(obj, dict):
                    labels.update({k: ("" if v is None else v if isinstance(v, str) else json.dumps(v))
                                   for k, v in obj.items() if not isinstance(v, (dict, list))})
            else:
                k, op, v = st
                got = labels.get(k, "")
                ok = {"=": got == v, "!=": got != v, "=~": re.fullmatch(v, got) is not None,
                      "!~": re.fullmatch(v, got) is None}[op]
                if not ok:
                    return False
        return True
    return keep


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--exporter", default=os.path.join(ROOT, "target", "release", "denials-exporter"))
    args = ap.parse_args()
    if not os.access(args.exporter, os.X_OK):
        print(f"drilldown_check: no exporter at {args.exporter}")
        return 2
    config = json.loads(_jsonnet.evaluate_snippet("c", "(import 'config.libsonnet')._config", jpathdir=[os.path.join(ROOT, "mixin")]))
    container = re.fullmatch(r'\{container="([^"]+)"\}', config["auditStreamSelector"]).group(1)
    stream_labels = {"container": container, "namespace": "agent-executor", "pod": "agent-executor-0"}

    with tempfile.TemporaryDirectory() as tmp:
        lines, exemplars = run_exporter(args.exporter, tmp)
    audit = [json.loads(line) for line in lines if line.startswith("{") and '"execution_id"' in line
             and '"tool"' in line and '"origin"' in line]
    own = [line for line in lines if '"timestamp"' in line and '"target"' in line]
    check("the exporter wrote audit records and log lines of its own to the container stream",
          len(audit) >= 3 and len(own) >= 1, (len(audit), len(own)))
    check("the exporter's /metrics carries execution_id exemplars", len(exemplars) >= 1, exemplars)
    # Three kinds of audit line: a counted denial, the class decided later for one that was
    # counted before its input was known (`risk_decided`, same keys), and the mark of a denied call
    # that ran anyway (`denial_unenforced`, same keys).
    kinds = [json.loads(line) for line in lines if line.startswith('{"audit":"')]
    records = [r for r in kinds if r["audit"] == "permission_denial"]
    check('every audit line starts with "audit": a permission_denial, a risk_decided or a denial_unenforced',
          records and len(kinds) == len(audit) and all(next(iter(r)) == "audit" for r in kinds)
          and {r["audit"] for r in kinds} == {"permission_denial", "risk_decided", "denial_unenforced"})
    check("no log line of the exporter's own carries the discriminator",
          not any('"audit"' in line for line in lines if '"target"' in line))

    # docs/formats.md shows an audit record: the keys the exporter writes, in its order.
    with open(os.path.join(ROOT, "docs", "formats.md"), encoding="utf-8") as fh:
        shown = [json.loads(line) for line in fh if line.startswith('{"audit":"permission_denial"')]
    check("docs/formats.md's audit record has the real records' keys, in order",
          len(shown) == 1 and records and list(shown[0]) == list(records[0]), (shown, records[:1]))

    # The exemplar links of the provisioned data source.
    with open(os.path.join(ROOT, "deploy", "grafana", "datasource.yaml"), encoding="utf-8") as fh:
        ds = yaml.safe_load(fh)
    prom = [d for d in ds["datasources"] if d["type"] == "prometheus"][0]
    loki = [d for d in ds["datasources"] if d["type"] == "loki"]
    loki_uid = provision(loki[0]["uid"]) if loki else None
    check("datasource.yaml provisions a Loki data source beside Prometheus", bool(loki_uid), loki)
    dests = prom["jsonData"]["exemplarTraceIdDestinations"]
    exec_id = exemplars[0] if exemplars else "exec_none"
    explore, api = [], []
    for d in dests:
        url = provision(d["url"])
        check(f"exemplar link {d['urlDisplayLabel']!r} keeps ${{__value.raw}} through provisioning",
              "${__value.raw}" in url, url)
        url = url.replace("${__value.raw}", exec_id)
        (explore if url.startswith("/explore?") else api).append(url)
    check("an exemplar opens the exporter's denials of its execution",
          api == [f"{ENV['DENIALS_EXPORTER_URL']}/api/v1/denials?execution_id={exec_id}"], api)
    if check("an exemplar opens its execution's audit records in Explore", len(explore) == 1, explore):
        ds_uid, q_uid, expr, rng = explore_pane(explore[0])
        check("the Explore link queries the provisioned Loki data source", ds_uid == q_uid == loki_uid, (ds_uid, q_uid, loki_uid))
        mixin_url = json.loads(_jsonnet.evaluate_snippet(
            "x", "local d = import 'lib/drilldown.libsonnet'; local c = (import 'config.libsonnet')._config; "
                 f"d.exemplarURL(c, {json.dumps(loki_uid)})", jpathdir=[os.path.join(ROOT, "mixin")]))
        check("datasource.yaml's Explore link is the mixin's exemplarURL",
              mixin_url.replace("${__value.raw}", exec_id) == explore[0])
        keep = logql_filter(expr, stream_labels)
        got = [line for line in lines if keep(line)]
        want = [line for line in lines if line.startswith('{"audit":"permission_denial"')
                and json.loads(line)["execution_id"] == exec_id]
        check(f"the exemplar's LogQL selects exactly the audit records of {exec_id} ({len(want)})",
              want and got == want, expr)
        others = [line for line in lines if keep(line) and not line.startswith('{"audit"')]
        check("the exemplar's LogQL selects none of the exporter's own log lines", not others, others[:2])
        check("the exemplar's Explore range is relative (it opens wherever the exemplar is)",
              rng == {"from": "now-7d", "to": "now"}, rng)

    # The dashboards' data links.
    _, dashboards = render.render()
    n_links = 0
    for name, dash in sorted(dashboards.items()):
        variables = {v["name"] for v in dash["templating"]["list"]}
        for panel in dashboards_check.iter_panels(dash.get("panels") or []):
            for _, url in dashboards_check.panel_links(panel):
                if not url.startswith("/explore?"):
                    continue
                n_links += 1
                where = f"{name} panel {panel['title']!r}"
                ds_uid, q_uid, expr, rng = explore_pane(url.replace("${", "TEMPLATE{"))
                check(f"{where}: Explore on the loki variable over the dashboard's range",
                      ds_uid == q_uid == "TEMPLATE{loki_datasource}" and "loki_datasource" in variables
                      and rng == {"from": "TEMPLATE{__from}", "to": "TEMPLATE{__to}"}, (ds_uid, rng))
                # Fill each template with the record's value of the key it filters.
                filters = re.findall(r'\| ([a-z_]+)(=~|=)"([^"]*)"', urllib.parse.unquote(url).replace('\\"', '"'))
                ok = True
                for key, _, value in filters:
                    m = re.fullmatch(r"\$\{(__field\.labels|__data\.fields)\.([a-z_]+):percentencode\}", value)
                    if value.startswith("${"):
                        ok &= bool(m) and m.group(2) == key
                check(f"{where}: each template fills the key of its own label ({[f[0] for f in filters]})", ok, filters)
                static = {k: v for k, op, v in filters if not v.startswith("${")}
                candidates = [r for r in kinds if all(re.fullmatch(v, str(r.get(k))) for k, v in static.items())]
                if not candidates:
                    check(f"{where}: a real audit record to follow the link with", False, static)
                    continue
                record_for_link = candidates[0]
                filled = url
                for key, _, value in filters:
                    if value.startswith("${"):
                        filled = filled.replace(value, urllib.parse.quote(str(record_for_link.get(key, "")), safe=""))
                _, _, expr, _ = explore_pane(filled)
                keep = logql_filter(expr, stream_labels)
                got = [json.loads(line) for line in lines if keep(line)]
                dyn = {k: record_for_link.get(k) for k, _, v in filters if v.startswith("${")}
                check(f"{where}: filled from a real record, the LogQL selects it and only records like it ({len(got)})",
                      record_for_link in got and all(all(r.get(k) == v for k, v in dyn.items()) for r in got)
                      and len(got) == len([r for r in candidates if all(r.get(k) == v for k, v in dyn.items())]), expr)
    check("the dashboards have Explore data links", n_links >= 5, n_links)

    failed = results.count(False)
    print(f"drilldown_check: {len(results) - failed} checks passed, {failed} failed")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
