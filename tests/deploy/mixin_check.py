#!/usr/bin/env python3
"""The monitoring mixin (mixin/, jsonnet) renders the shipped files and honours its _config.

    python3 tests/deploy/mixin_check.py

1. with the defaults, the rendered rules equal deploy/prometheus/denials-exporter.rules.yml and the
   rendered dashboards equal dashboards/*.json byte for byte (mixin/render.py --check);
2. each _config setting reaches what it should: jobSelector every series a rule reads and every
   dashboard variable that lists exporter values; showMultiCluster and clusterLabel every `by`/`on`
   of the rules and the dashboards' cluster variable (hidden without it) and selectors;
   spendBudgetUSDPerHour the spend alert; denialLoopStep and classifierUnavailablePer10m the loop
   and failing-closed alerts; notDangerousRisks the dangerous-denial alert and the
   dashboards' Dangerous denials panels alike (both read the risk counter only); alerts the
   severity and `for` of every alert (kube-prometheus' defaults for DenialsExporterDown; a
   DangerousDenial `for` not under dangerousDenialWindow refused); runbookURLBase and runbookURLPattern every runbook_url; dashboardTags the tags and dashboard links;
   lokiDatasourceUID and auditStreamSelector the drill-down links; exporterURL the fallback link's
   default;
3. promtool accepts the rules rendered with a multi-cluster _config (when promtool is installed).
Prints one line per check; exit 1 if any failed. Needs python3 with `_jsonnet` (PyPI jsonnet), PyYAML.
"""
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile

sys.dont_write_bytecode = True
ROOT = os.path.normpath(os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", ".."))
sys.path.insert(0, os.path.join(ROOT, "mixin"))
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import render  # noqa: E402
import dashboards_check  # noqa: E402

results = []


def check(name, ok, detail=""):
    results.append(bool(ok))
    print(f"{'ok  ' if ok else 'FAIL'} {name}{'' if ok or detail == '' else ': ' + str(detail)[:400]}")


def rules_of(rendered):
    return [r for g in rendered["groups"] for r in g["rules"]]


def exprs(rendered):
    return [r["expr"] for r in rules_of(rendered)]


def panel_targets(dashboards):
    for name, d in dashboards.items():
        for p in dashboards_check.iter_panels(d.get("panels") or []):
            for t in p.get("targets") or []:
                yield name, p, t


def variables(d):
    return {v["name"]: v for v in d["templating"]["list"]}


def selectors(expr):
    """[(metric, matchers)] of an expression (recording-rule names included)."""
    return dashboards_check.analyse(expr)[0]


def main():
    default_rules, default_dash = render.render()
    diffs = render.differences(default_rules, default_dash)
    check("defaults render the shipped rule file and dashboards", not diffs, diffs)

    records = {r["record"] for r in rules_of(default_rules) if "record" in r}

    # jobSelector
    rules, dash = render.render({"jobSelector": 'job="agents/exporter"'})
    bad = [(m, ms) for e in exprs(rules) for m, ms in selectors(e)
           if m not in records and ("job", "=", "agents/exporter") not in ms]
    check("jobSelector selects every series every rule reads", not bad, bad[:3])
    check("jobSelector leaves nothing of the default selector", not any(".*denials-exporter.*" in e for e in exprs(rules)))
    bad = [(n, v["name"]) for n, d in dash.items() for v in d["templating"]["list"]
           if v.get("type") == "query" and v["name"] in ("cluster", "job", "namespace", "pod")
           and 'job="agents/exporter"' not in v["definition"]]
    check("jobSelector restricts the cluster/job/namespace/pod variables to the exporter's jobs", not bad, bad)

    # multi-cluster
    for label in ("cluster", "k8s_cluster"):
        rules, dash = render.render({"showMultiCluster": True, "clusterLabel": label})
        lists = [m.group(2) for e in exprs(rules) for m in re.finditer(r"\b(by|on)\s*\(([^)]*)\)", e)]
        check(f"showMultiCluster: every by/on list of the rules keeps {label} ({len(lists)} lists)",
              lists and all(label in [x.strip() for x in lst.split(",")] for lst in lists),
              [lst for lst in lists if label not in lst][:3])
        hidden = {n: variables(d)["cluster"].get("hide") for n, d in dash.items()}
        check(f"showMultiCluster: the cluster variable is shown, reading {label}",
              set(hidden.values()) == {0} and all(f", {label})" in variables(d)["cluster"]["definition"] for d in dash.values()),
              hidden)
        bad = [(n, p.get("title")) for n, p, t in panel_targets(dash)
               if f'{label}=~"$cluster"' not in t.get("expr", "")]
        check(f"showMultiCluster: every panel target selects {label}=~\"$cluster\"", not bad, bad[:3])
        if label == "cluster" and shutil.which("promtool"):
            with tempfile.TemporaryDirectory() as tmp:
                subprocess.run([sys.executable, os.path.join(ROOT, "mixin", "render.py"), "--out", tmp,
                                "--config", json.dumps({"showMultiCluster": True})], check=True, capture_output=True)
                p = subprocess.run(["promtool", "check", "rules", os.path.join(tmp, "denials-exporter.rules.yml")],
                                   capture_output=True, text=True)
                check("promtool check rules accepts the multi-cluster rendering", p.returncode == 0, p.stdout + p.stderr)
    hidden = {n: variables(d)["cluster"].get("hide") for n, d in default_dash.items()}
    check("single cluster (default): the cluster variable is hidden", set(hidden.values()) == {2}, hidden)
    lists = [m.group(2) for e in exprs(default_rules) for m in re.finditer(r"\b(by|on)\s*\(([^)]*)\)", e)]
    check("single cluster (default): no rule groups by cluster", not any("cluster" in lst for lst in lists))

    # spend budget
    rules, _ = render.render({"spendBudgetUSDPerHour": 100})
    spend = [r for r in rules_of(rules) if r.get("alert") == "DenialsExporterSpendSpike"][0]
    check("spendBudgetUSDPerHour sets the spend alert's threshold and its description",
          spend["expr"].rstrip().endswith("> 100") and "budget of 100 USD per hour" in spend["annotations"]["description"],
          spend)

    # loops and the classifier failing closed
    rules, _ = render.render({"denialLoopStep": 10, "classifierUnavailablePer10m": 7})
    loop = [r for r in rules_of(rules) if r.get("alert") == "DenialsExporterDenialLoop"][0]
    loop_sels = selectors(loop["expr"])
    check("denialLoopStep picks the loop counter's step in every selector and the description",
          loop_sels and all(m == "permission_denial_loops_total" and ("at", "=", "10") in ms for m, ms in loop_sels)
          and "reached 10 " in loop["annotations"]["description"], loop)
    closed = [r for r in rules_of(rules) if r.get("alert") == "DenialsExporterClassifierFailingClosed"][0]
    check("classifierUnavailablePer10m sets the failing-closed threshold",
          closed["expr"].count(">= 7") == 2 and ">= 3" not in closed["expr"], closed)

    # "dangerous": one risk-class set for the alert and the dashboards
    rules, dash = render.render({"notDangerousRisks": ["none", "unknown", "network_read"]})
    dangerous = [r for r in rules_of(rules) if r.get("alert") == "DenialsExporterDangerousDenial"][0]
    sels = selectors(dangerous["expr"])
    check("the dangerous-denial alert reads only the risk counter, whatever the tool and reason",
          sels and all(m == "permission_denial_risks_total" and not any(lab in ("tool", "reason") for lab, _, _ in ms)
                       for m, ms in sels), sels)
    check("notDangerousRisks sets the alert's risk classes",
          all(("risk", "!~", "none|unknown|network_read") in ms for _, ms in sels), sels)
    panels = [(n, p["title"]) for n, p, t in panel_targets(dash) if "Dangerous" in p.get("title", "")]
    bad = [(n, p["title"], t["expr"]) for n, p, t in panel_targets(dash) if "Dangerous" in p.get("title", "")
           and ('risk!~"none|unknown|network_read"' not in t["expr"] or "permission_denial_risks_total" not in t["expr"]
                or "reason" in t["expr"])]
    check(f"the dashboards' Dangerous denials panels count the same risk classes as the alert ({len(panels)})",
          len(panels) >= 2 and not bad, bad)

    # severities and `for` of every alert, and the thresholds that come with them
    names = [r["alert"] for r in rules_of(default_rules) if "alert" in r]
    cfg = {"alerts": {n: {"severity": "info", "for": "1m"} for n in names},
           "downTargetsPercent": 50, "dangerousDenialWindow": "20m"}
    rules, _ = render.render(cfg)
    alerts = {r["alert"]: r for r in rules_of(rules) if "alert" in r}
    bad = [n for n in names if alerts[n]["labels"]["severity"] != "info" or alerts[n]["for"] != "1m"]
    check(f"_config.alerts sets the severity and `for` of every alert ({len(names)})", names and not bad, bad)
    rules, _ = render.render({"alerts": {"DenialsExporterDown": {"severity": "critical"}}})
    alerts = {r["alert"]: r for r in rules_of(rules) if "alert" in r}
    check("one alert's severity overridden alone keeps its `for` and the other alerts' settings",
          alerts["DenialsExporterDown"]["labels"]["severity"] == "critical" and alerts["DenialsExporterDown"]["for"] == "10m"
          and alerts["DenialsExporterAbsent"]["labels"]["severity"] == "warning", alerts["DenialsExporterDown"])
    defaults = {r["alert"]: r for r in rules_of(default_rules) if "alert" in r}
    check("by default, like kube-prometheus: DenialsExporterDown is a warning after 10m above 10% of a job's targets",
          defaults["DenialsExporterDown"]["labels"]["severity"] == "warning" and defaults["DenialsExporterDown"]["for"] == "10m"
          and defaults["DenialsExporterDown"]["expr"].rstrip().endswith("> 10") and "count by" in defaults["DenialsExporterDown"]["expr"],
          defaults["DenialsExporterDown"])
    check("by default DenialsExporterDangerousDenial is not critical on first sight",
          defaults["DenialsExporterDangerousDenial"]["labels"]["severity"] != "critical", defaults["DenialsExporterDangerousDenial"]["labels"])
    try:
        render.render({"alerts": {"DenialsExporterDangerousDenial": {"for": "5m"}}})
        refused = False
    except RuntimeError as e:
        refused = "dangerousDenialWindow" in str(e)
    check("a DangerousDenial `for` not shorter than its window is refused at render time", refused)

    # runbook URLs
    rules, _ = render.render({"runbookURLBase": "https://wiki.example.com/runbook.md"})
    alerts = [r for r in rules_of(rules) if "alert" in r]
    bad = [r["alert"] for r in alerts if r["annotations"]["runbook_url"] != "https://wiki.example.com/runbook.md#" + r["alert"].lower()]
    check(f"runbookURLBase sets every runbook_url ({len(alerts)} alerts)", alerts and not bad, bad)
    rules, _ = render.render()
    bad = [r["alert"] for r in rules_of(rules) if "alert" in r
           and not r["annotations"]["runbook_url"].startswith("https://runbook-url-not-set.invalid/")]
    check("the default runbook URL base is the unresolvable placeholder", not bad, bad)
    rules, _ = render.render({"runbookURLPattern": "https://wiki.example.com/runbooks/%s"})
    alerts = [r for r in rules_of(rules) if "alert" in r]
    bad = [r["alert"] for r in alerts if r["annotations"]["runbook_url"] != "https://wiki.example.com/runbooks/" + r["alert"].lower()]
    check(f"runbookURLPattern sets every runbook_url ({len(alerts)} alerts)", alerts and not bad, bad)

    # tags
    _, dash = render.render({"dashboardTags": ["agents", "security"]})
    bad = [n for n, d in dash.items() if d["tags"] != ["agents", "security"]
           or any(link.get("type") == "dashboards" and link.get("tags") != ["agents", "security"] for link in d.get("links") or [])]
    check("dashboardTags tag every dashboard and its dashboard links", not bad, bad)

    # drill-down
    _, dash = render.render({"lokiDatasourceUID": "logs-eu", "auditStreamSelector": '{app="denials"}'})
    loki = {n: variables(d).get("loki_datasource", {}).get("current", {}).get("value") for n, d in dash.items()}
    check("lokiDatasourceUID is the loki_datasource variable's default", set(loki.values()) == {"logs-eu"}, loki)
    urls = [link["url"] for d in dash.values() for p in dashboards_check.iter_panels(d.get("panels") or [])
            for _, link in ((None, lk) for lk in ((p.get("fieldConfig") or {}).get("defaults") or {}).get("links") or [])
            if "/explore" in link.get("url", "")]
    check(f"auditStreamSelector is the stream every Explore link queries ({len(urls)} links)",
          urls and all("%7Bapp%3D%5C%22denials%5C%22%7D" in u or '{app=\\"denials\\"}' in u for u in urls), urls[:1])

    # the exporter fallback
    _, dash = render.render({"exporterURL": "http://127.0.0.1:20403"})
    textboxes = [v for d in dash.values() for v in d["templating"]["list"] if v["name"] == "exporter"]
    check("exporterURL is the exporter variable's default",
          textboxes and all(v["query"] == v["current"]["value"] == "http://127.0.0.1:20403" for v in textboxes), textboxes)

    failed = results.count(False)
    print(f"mixin_check: {len(results) - failed} checks passed, {failed} failed")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
