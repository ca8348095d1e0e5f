#!/usr/bin/env python3
"""The rules of grafana/dashboard-linter, applied to dashboards/*.json (used by dashboards_check.py).

The linter is a Go program (it cannot be installed where these tests run), so its rule families are
implemented here from its sources, by its rule names, with its `.lint` exception file: a YAML file
beside the dashboards,

    exclusions:
      <rule name>:
        reason: why the rule does not apply
        entries:                      # optional: without entries the rule is off for every dashboard
          - dashboard: <title>
            panel: <title>            # optional
            targetIdx: "<n>"          # optional, 0-based
            reason: why this one

A violation an entry matches is not reported; an entry that matches no violation is reported (a
stale exception hides the next real one). Rules:

  template-datasource-rule      one data-source variable: `datasource`, labelled "Data source" (or
                                `<type>_datasource`, "<Type> data source"); several: each
                                `<type>_datasource`, labelled "<Type> data source"
  template-job-rule             a `job` query variable on the Prometheus data-source variable,
  template-instance-rule        labelled "Job" / "Instance", multi-select, allValue ".+"
  template-label-promql-rule    query variables are label_values(<selector>, <label>)
  template-on-time-change-reload-rule   query variables refresh on time-range change (refresh 2)
  uneditable-dashboard          "editable": false
  panel-datasource-rule         panels use a data-source variable
  panel-title-description-rule  panels have a title and a description
  panel-units-rule              panels have a unit Grafana knows (value-mapped panels excepted)
  panel-no-targets-rule         panels have targets
  target-rate-interval-rule     rate() and irate() over $__rate_interval
  target-job-rule               every selector has job=~"$job"
  target-instance-rule          every selector has instance=~"$instance"
  target-counter-agg-rule       every *_total selector sits in rate(), irate() or increase()
"""
import re

# grafana/dashboard-linter lint/rule_panel_units.go, validUnits.
VALID_UNITS = {
    'none', 'string', 'short', 'percent', 'percentunit', 'humidity', 'dB', 'hex0x', 'hex', 'sci',
    'locale', 'pixel', 'accMS2', 'accFS2', 'accG', 'degree', 'radian', 'grad', 'arcmin', 'arcsec',
    'areaM2', 'areaF2', 'areaMI2', 'flops', 'mflops', 'gflops', 'tflops', 'pflops', 'eflops',
    'zflops', 'yflops', 'ppm', 'conppb', 'conngm3', 'conngNm3', 'conμgm3', 'conμgNm3', 'conmgm3',
    'conmgNm3', 'congm3', 'congNm3', 'conmgdL', 'conmmolL', 'currencyUSD', 'currencyGBP',
    'currencyEUR', 'currencyJPY', 'currencyRUB', 'currencyUAH', 'currencyBRL', 'currencyDKK',
    'currencyISK', 'currencyNOK', 'currencySEK', 'currencyCZK', 'currencyCHF', 'currencyPLN',
    'currencyBTC', 'currencymBTC', 'currencyμBTC', 'currencyZAR', 'currencyINR', 'currencyKRW',
    'currencyIDR', 'currencyPHP', 'currencyVND', 'bytes', 'decbytes', 'bits', 'decbits', 'kbytes',
    'deckbytes', 'mbytes', 'decmbytes', 'gbytes', 'decgbytes', 'tbytes', 'dectbytes', 'pbytes',
    'decpbytes', 'pps', 'binBps', 'Bps', 'binbps', 'bps', 'KiBs', 'Kibits', 'KBs', 'Kbits', 'MiBs',
    'Mibits', 'MBs', 'Mbits', 'GiBs', 'Gibits', 'GBs', 'Gbits', 'TiBs', 'Tibits', 'TBs', 'Tbits',
    'PiBs', 'Pibits', 'PBs', 'Pbits', 'dateTimeAsIso', 'dateTimeAsIsoNoDateIfToday',
    'dateTimeAsUS', 'dateTimeAsUSNoDateIfToday', 'dateTimeAsLocal', 'dateTimeAsLocalNoDateIfToday',
    'dateTimeAsSystem', 'dateTimeFromNow', 'watt', 'kwatt', 'megwatt', 'gwatt', 'mwatt', 'Wm2',
    'voltamp', 'kvoltamp', 'voltampreact', 'kvoltampreact', 'watth', 'watthperkg', 'kwatth',
    'kwattm', 'amph', 'kamph', 'mamph', 'joule', 'ev', 'amp', 'kamp', 'mamp', 'volt', 'kvolt',
    'mvolt', 'dBm', 'ohm', 'kohm', 'Mohm', 'farad', 'µfarad', 'nfarad', 'pfarad', 'ffarad',
    'henry', 'mhenry', 'µhenry', 'lumens', 'flowgpm', 'flowcms', 'flowcfs', 'flowcfm', 'litreh',
    'flowlpm', 'flowmlpm', 'lux', 'forceNm', 'forcekNm', 'forceN', 'forcekN', 'Hs', 'KHs', 'MHs',
    'GHs', 'THs', 'PHs', 'EHs', 'massmg', 'massg', 'masslb', 'masskg', 'masst', 'lengthmm',
    'lengthin', 'lengthft', 'lengthm', 'lengthkm', 'lengthmi', 'pressurembar', 'pressurebar',
    'pressurekbar', 'pressurepa', 'pressurehpa', 'pressurekpa', 'pressurehg', 'pressurepsi',
    'radbq', 'radci', 'radgy', 'radrad', 'radsv', 'radmsv', 'radusv', 'radrem', 'radexpckg',
    'radr', 'radsvh', 'radmsvh', 'radusvh', 'rotrpm', 'rothz', 'rotrads', 'rotdegs', 'celsius',
    'fahrenheit', 'kelvin', 'hertz', 'ns', 'µs', 'ms', 's', 'm', 'h', 'd', 'dtdurationms',
    'dtdurations', 'dthms', 'dtdhms', 'timeticks', 'clockms', 'clocks', 'cps', 'ops', 'reqps',
    'rps', 'wps', 'iops', 'cpm', 'opm', 'rpm', 'wpm', 'mps', 'mpm', 'velocityms', 'velocitykmh',
    'velocitymph', 'velocityknot', 'mlitre', 'litre', 'm3', 'Nm3', 'dm3', 'gallons', 'bool',
    'bool_yes_no', 'bool_on_off',
}
QUERY_PANELS = {"stat", "singlestat", "graph", "table", "timeseries", "gauge"}
DATASOURCE_PANELS = {"singlestat", "graph", "table", "timeseries"}
PROMETHEUS_DS_UIDS = {"$datasource", "${datasource}", "$prometheus_datasource", "${prometheus_datasource}"}


def selectors(expr, parse):
    """[(metric or None, [(label, op, value)])] of a PromQL expression, by dashboards_check.analyse."""
    return parse(expr)[0]


def counter_violations(expr):
    """*_total selectors not directly inside rate(), irate() or increase() over a range."""
    bad = []
    for m in re.finditer(r'\b([A-Za-z_:][A-Za-z0-9_:]*_total)\b(\s*\{(?:[^{}"]|"(?:[^"\\]|\\.)*")*\})?', expr):
        before, after = expr[:m.start()], expr[m.end():]
        if re.search(r'\b(by|without|on|ignoring|group_left|group_right)\s*\([^()]*$', before):
            continue  # a label list, not a selector
        ranged = re.match(r'\s*\[[^\]]+\]', after)
        wrapped = re.search(r'\b(rate|irate|increase)\s*\(\s*$', before)
        if not (ranged and wrapped):
            bad.append(m.group(1))
    return bad


def title_case(s):
    return s[:1].upper() + s[1:].lower()


def violations(d, parse):
    """[(rule, panel title or None, target index or None, message)] of one dashboard."""
    out = []

    def add(rule, msg, panel=None, idx=None):
        out.append((rule, panel, idx, msg))

    variables = (d.get("templating") or {}).get("list") or []
    ds_vars = [v for v in variables if v.get("type") == "datasource"]
    if not ds_vars:
        add("template-datasource-rule", "does not have a templated data source")
    for v in ds_vars:
        q = str(v.get("query"))
        names = {f"{q.lower()}_datasource"} | ({"datasource"} if len(ds_vars) == 1 else set())
        labels = {f"{title_case(q)} data source"} | ({"Data source"} if len(ds_vars) == 1 else set())
        if v.get("name") not in names:
            add("template-datasource-rule", f"data-source variable named {v.get('name')!r}, should be one of {sorted(names)}")
        if v.get("label") not in labels:
            add("template-datasource-rule", f"data-source variable labelled {v.get('label')!r}, should be one of {sorted(labels)}")
    prometheus = bool(ds_vars) and ds_vars[0].get("query") == "prometheus"
    by_name = {v.get("name"): v for v in variables}
    if prometheus:
        for name in ("job", "instance"):
            rule = f"template-{name}-rule"
            v = by_name.get(name)
            if v is None:
                add(rule, f"is missing the {name} template")
                continue
            uid = (v.get("datasource") or {}).get("uid") if isinstance(v.get("datasource"), dict) else v.get("datasource")
            if uid not in PROMETHEUS_DS_UIDS:
                add(rule, f"{name} template should use datasource '$datasource', is currently {uid!r}")
            if v.get("type") != "query":
                add(rule, f"{name} template should be a Prometheus query, is currently {v.get('type')!r}")
            if v.get("label") != title_case(name):
                add(rule, f"{name} template should be labelled {title_case(name)!r}, is {v.get('label')!r}")
            if not v.get("multi"):
                add(rule, f"{name} template should be a multi select")
            if v.get("allValue") != ".+":
                add(rule, f"{name} template allValue should be '.+', is {v.get('allValue')!r}")
        for v in variables:
            if v.get("type") != "query":
                continue
            q = v.get("query")
            q = q.get("query", "") if isinstance(q, dict) else (q or "")
            m = re.fullmatch(r"\s*label_values\((.+),\s*([A-Za-z_][A-Za-z0-9_]*)\s*\)\s*", q)
            try:
                ok = bool(m) and bool(selectors(m.group(1), parse))
            except Exception as e:  # noqa: BLE001  (any parse error is the finding)
                ok = False
                q = f"{q} ({e})"
            if not ok:
                add("template-label-promql-rule", f"template {v.get('name')!r} invalid templated label {q!r}")
    for v in variables:
        if v.get("type") == "query" and v.get("refresh") != 2:
            add("template-on-time-change-reload-rule", f"variable {v.get('name')!r} should refresh on time-range change (2)")
    if d.get("editable") is not False:
        add("uneditable-dashboard", "is editable, it should be set to 'editable: false'")

    ds_uids = {f"${v.get('name')}" for v in ds_vars} | {f"${{{v.get('name')}}}" for v in ds_vars}

    def panels(ps):
        for p in ps or []:
            yield p
            yield from panels(p.get("panels"))
    for p in panels(d.get("panels")):
        title, ptype = p.get("title"), p.get("type")
        if ptype == "row":
            continue
        if ptype in DATASOURCE_PANELS and (p.get("datasource") or {}).get("uid") not in ds_uids:
            add("panel-datasource-rule", f"does not use a templated datasource, uses {p.get('datasource')!r}", title)
        if ptype in QUERY_PANELS:
            if not p.get("title") or not p.get("description"):
                add("panel-title-description-rule", "has missing title or description", title)
            defaults = (p.get("fieldConfig") or {}).get("defaults") or {}
            if not defaults.get("mappings") and defaults.get("unit") not in VALID_UNITS:
                add("panel-units-rule", f"has no or invalid units defined: {defaults.get('unit')!r}", title)
            if p.get("targets") is None:
                add("panel-no-targets-rule", "has no targets", title)
        if not prometheus or ptype not in QUERY_PANELS | {"bargauge", "heatmap"}:
            continue
        for idx, t in enumerate(p.get("targets") or []):
            expr = t.get("expr") or ""
            for fn, window in re.findall(r"\b(i?rate)\s*\((?:[^()\[]|\([^()]*\))*\[([^\]]+)\]", expr):
                if window != "$__rate_interval":
                    add("target-rate-interval-rule", f"{fn}() over [{window}]: should use $__rate_interval", title, idx)
            for metric, matchers in selectors(expr, parse):
                for label in ("job", "instance"):
                    if (label, "=~", f"${label}") not in matchers:
                        add(f"target-{label}-rule", f"{metric or 'selector'}: {label} selector not found ({label}=~\"${label}\")", title, idx)
            for metric in counter_violations(expr):
                add("target-counter-agg-rule", f"counter metric {metric!r} is not aggregated with rate, irate, or increase", title, idx)
    return out


def matches(entry, dashboard_title, panel, idx):
    if entry.get("dashboard") and entry["dashboard"] != dashboard_title:
        return False
    if entry.get("panel") and panel is not None and entry["panel"] != panel:
        return False
    if entry.get("targetIdx") not in (None, "") and idx is not None and str(entry["targetIdx"]) != str(idx):
        return False
    return True


def lint(dashboards, config, parse):
    """Violations left after `config` (the parsed .lint), and the entries that excused nothing.
    `dashboards` is [(file name, dashboard)]."""
    exclusions = (config or {}).get("exclusions") or {}
    used = set()
    left = []
    for name, d in dashboards:
        for rule, panel, idx, msg in violations(d, parse):
            ex = exclusions.get(rule)
            entries = (ex or {}).get("entries") or []
            hit = [i for i, e in enumerate(entries) if matches(e, d.get("title"), panel, idx)]
            if ex is not None and (not entries or hit):
                used |= {(rule, i) for i in hit} | ({(rule, None)} if not entries else set())
                continue
            where = f"{name}" + (f" panel {panel!r}" if panel else "") + (f" target {idx}" if idx is not None else "")
            left.append(f"{where}: {rule}: {msg}")
    stale = []
    for rule, ex in exclusions.items():
        if not (ex or {}).get("reason"):
            stale.append(f"{rule}: an exclusion needs a reason")
        entries = (ex or {}).get("entries") or []
        if not entries and (rule, None) not in used:
            stale.append(f"{rule}: excluded, but no dashboard breaks it")
        for i, e in enumerate(entries):
            if not e.get("reason") and not (ex or {}).get("reason"):
                stale.append(f"{rule} entry {e}: no reason")
            if (rule, i) not in used:
                stale.append(f"{rule} entry {e}: matches no violation (stale)")
    return left, stale
