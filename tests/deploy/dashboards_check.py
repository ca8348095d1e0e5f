#!/usr/bin/env python3
"""Static checks of the monitoring content: Grafana dashboards and Prometheus rules.

    python3 tests/deploy/dashboards_check.py                   # dashboards + rule metric names
    python3 tests/deploy/dashboards_check.py --alert-contract  # alert labels, annotations, runbook
                                                               # anchors, unit-test coverage

Default mode checks every dashboards/*.json against grafana/dashboard-linter's rules
(dashboard_lint.py; exceptions with their reasons in dashboards/.lint) and the conventions (fixed
unique uid, "id": null, a `prometheus_datasource` variable used by every panel and target and a
`loki_datasource` one for the drill-down, no __inputs / ${DS_...}, cluster / job /
namespace / pod / instance variables listing denials_exporter_build_info's values (All = ".*",
but ".+" for job and instance), workflow / tool variables from label_values() with
All = ".*", every selector filtered by them (ALERTS by cluster and namespace),
$__rate_interval in every rate/irate/increase ($__range in instant targets), title + description +
unit on every panel, allowed panel types, schemaVersion >= 39, every data-link template resolving
against the JSON model: ${__field.labels.X} and ${__data.fields.X} name a label of every query of
that panel, a plain ${name} is a dashboard variable or a Grafana built-in), and that every metric named in a
dashboard or rule expression is documented in docs/metrics.md (histograms as _bucket/_sum/_count),
is a recording rule of deploy/prometheus/denials-exporter.rules.yml, or is `up` / `ALERTS`, and that
every series a rule reads is selected by job.

--alert-contract checks what tests/deploy/rules_test.sh needs beyond promtool: alert names,
`severity`, a static `summary`, a `description` templated with $labels, $value or
$externalLabels, a `runbook_url` whose anchor is a heading
of docs/runbook.md, recording-rule names, and that deploy/prometheus/tests/ makes each alert fire
and stay quiet at least once and checks each recording rule's value.

Python 3 standard library only; promql_e2e.py imports the PromQL and YAML readers from here.
Exit status: 0 when clean, 1 with one line per violation otherwise, 2 on a usage error.
"""

import argparse
import glob
import json
import os
import re
import sys

sys.dont_write_bytecode = True  # no __pycache__ in the repository
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import dashboard_lint  # noqa: E402  (same directory)

ROOT = os.path.normpath(os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", ".."))
RULES_FILE = "deploy/prometheus/denials-exporter.rules.yml"
RULE_TESTS_GLOB = "deploy/prometheus/tests/*.yml"
METRICS_DOC = "docs/metrics.md"
RUNBOOK = "docs/runbook.md"
RUNBOOK_URL_BASE = "https://runbook-url-not-set.invalid/docs/runbook.md#"  # the mixin's placeholder runbookURLBase

DATASOURCE_REF = {"type": "prometheus", "uid": "${prometheus_datasource}"}
PANEL_TYPES = {"timeseries", "stat", "bargauge", "table", "heatmap"}
MIN_SCHEMA_VERSION = 39
# Series Prometheus itself makes, allowed beside the documented ones.
PROMETHEUS_SERIES = {"up", "ALERTS"}
# kube-state-metrics' series a dashboard may read (its own job and instance, so filtered by cluster,
# namespace and pod only; dashboards/.lint records the job and instance exceptions), with the
# labels kube-state-metrics gives them.
FOREIGN_SERIES = {"kube_pod_container_resource_limits": {"namespace", "pod", "container", "node", "resource", "unit", "uid"}}
FOREIGN_VARS = ("cluster", "namespace", "pod")
# Labels Prometheus attaches to every scraped series (static config or PodMonitor).
TARGET_LABELS = {"namespace", "job", "instance", "pod", "container", "service", "endpoint", "cluster"}
# Variables every dashboard needs, and those needed when a selected metric carries the label.
# `job` is one of them but lists the scraped jobs only (All is that list, never ".*").
ALWAYS_VARS = ("cluster", "namespace", "pod")
SCOPE_VARS = ALWAYS_VARS + ("job", "instance")
# ALERTS carry the alert's labels: no pod, and no job on DenialsExporterAbsent.
ALERTS_VARS = ("cluster", "namespace")
LABEL_VARS = ("workflow", "tool")
GRAFANA_BUILTINS = {"__rate_interval", "__range", "__interval", "__range_s", "__range_ms",
                    "__interval_ms", "__rate_interval_ms"}
RANGE_FUNCTIONS = {"rate", "irate", "increase"}
# What a data link may use besides the dashboard's variables and the panel's labels.
LINK_BUILTINS = {"__from", "__to", "__url_time_range", "__timezone", "__all_variables", "__org",
                 "__user", "__dashboard", "__value", "__series", "__field", "__data"}
_LINK_TEMPLATE = re.compile(r"\$\{([^}:]+)(?::[^}]*)?\}|\$([A-Za-z_][A-Za-z0-9_]*)|\[\[([^\]:]+)(?::[^\]]*)?\]\]")
# Aggregations that keep their input's labels (they select series, they do not group them).
_SELECTING_AGGREGATORS = {"topk", "bottomk"}
SEVERITIES = {"critical", "warning", "info"}
ALERT_NAME_RE = re.compile(r"^DenialsExporter[A-Z][A-Za-z0-9]*$")
RECORD_NAME_RE = re.compile(r"^[a-z][a-z0-9_]*:[a-z][a-z0-9_]*:[a-z0-9_]+$")
UID_RE = re.compile(r"^[A-Za-z0-9_-]{1,40}$")


# ------------------------------------------------------------------------------------------------
# docs/metrics.md

def load_metrics_doc(path):
    """Return {metric name: (type, [labels])} from the tables of docs/metrics.md."""
    row = re.compile(r"^\|\s*`([a-zA-Z_:][a-zA-Z0-9_:]*)`\s*\|\s*(counter|gauge|histogram|summary)\s*\|([^|]*)\|")
    metrics = {}
    with open(path, encoding="utf-8") as f:
        for line in f:
            m = row.match(line)
            if m:
                metrics[m.group(1)] = (m.group(2), re.findall(r"`([a-zA-Z_][a-zA-Z0-9_]*)`", m.group(3)))
    return metrics


def documented_series(metrics):
    """Return {series name: set of its own labels} for every name a scrape can contain."""
    series = {}
    for name, (kind, labels) in metrics.items():
        if kind in ("histogram", "summary"):
            series[name + ("_bucket" if kind == "histogram" else "")] = set(labels) | (
                {"le"} if kind == "histogram" else {"quantile"})
            series[name + "_sum"] = set(labels)
            series[name + "_count"] = set(labels)
        else:
            series[name] = set(labels)
    return series


# ------------------------------------------------------------------------------------------------
# PromQL: enough of a lexer to find selectors, their matchers and range windows.

_TOKEN = re.compile(r"""
    (?P<ws>\s+)
  | (?P<str>"(?:[^"\\]|\\.)*"|'(?:[^'\\]|\\.)*'|`[^`]*`)
  | (?P<range>\[[^\]]*\])
  | (?P<var>\$\{[^}]*\}|\$[A-Za-z_][A-Za-z0-9_]*)
  | (?P<num>\.?[0-9][A-Za-z0-9_.]*)
  | (?P<ident>[A-Za-z_:][A-Za-z0-9_:]*)
  | (?P<op>=~|!~|!=|==|<=|>=|[-+*/%^<>=(){},@])
""", re.X)
_KEYWORDS = {"and", "or", "unless", "by", "without", "on", "ignoring", "group_left", "group_right",
             "offset", "bool", "inf", "nan", "atan2"}
_GROUPING = {"by", "without", "on", "ignoring", "group_left", "group_right"}
_AGGREGATORS = {"sum", "min", "max", "avg", "group", "stddev", "stdvar", "count", "count_values",
                "bottomk", "topk", "quantile"}


class PromQLError(ValueError):
    pass


def _lex(expr):
    tokens, pos = [], 0
    while pos < len(expr):
        m = _TOKEN.match(expr, pos)
        if not m:
            raise PromQLError(f"cannot read PromQL at {expr[pos:pos + 20]!r}")
        pos = m.end()
        if m.lastgroup != "ws":
            tokens.append((m.lastgroup, m.group()))
    return tokens


def _unquote(s):
    return re.sub(r"\\(.)", r"\1", s[1:-1]) if s[0] != "`" else s[1:-1]


def _skip_grouping(tokens, i):
    """From a grouping keyword at tokens[i], return the index after it and its label list."""
    i += 1
    if i < len(tokens) and tokens[i][1] == "(":
        while i < len(tokens) and tokens[i][1] != ")":
            i += 1
        i += 1
    return i


def _matchers(tokens, i):
    """Parse `label op "value", ...}` from tokens[i]; return ([(label, op, value)], index after })."""
    found = []
    while i < len(tokens) and tokens[i][1] != "}":
        if tokens[i][1] == ",":
            i += 1
            continue
        if (i + 2 >= len(tokens) or tokens[i][0] != "ident" or tokens[i + 1][1] not in ("=", "!=", "=~", "!~")
                or tokens[i + 2][0] != "str"):
            raise PromQLError("malformed label matcher near " + " ".join(t for _, t in tokens[i:i + 3]))
        found.append((tokens[i][1], tokens[i + 1][1], _unquote(tokens[i + 2][1])))
        i += 3
    if i >= len(tokens):
        raise PromQLError("unclosed {")
    return found, i + 1


def analyse(expr):
    """Return (selectors, windows, variables) of a PromQL expression.

    selectors: [(metric name or None, [(label, op, value)])]
    windows:   [(innermost enclosing function or None, text between the brackets)]
    variables: names of the Grafana variables used ($name, ${name}), anywhere in the text.
    """
    tokens = _lex(expr)
    selectors, windows, calls = [], [], []
    i = 0
    while i < len(tokens):
        kind, text = tokens[i]
        nxt = tokens[i + 1][1] if i + 1 < len(tokens) else None
        if kind == "ident" and text.lower() in _GROUPING:
            i = _skip_grouping(tokens, i)
        elif kind == "ident" and text.lower() in _AGGREGATORS and nxt in ("by", "without"):
            i = _skip_grouping(tokens, i + 1)
            if i >= len(tokens) or tokens[i][1] != "(":
                raise PromQLError(f"{text} {nxt} (...) must be followed by (")
            calls.append(text)
            i += 1
        elif kind == "ident" and text.lower() in _KEYWORDS:
            i += 1
        elif kind == "ident" and nxt == "(":
            calls.append(text)
            i += 2
        elif kind == "ident":
            matchers = []
            i += 1
            if nxt == "{":
                matchers, i = _matchers(tokens, i + 1)
            selectors.append((text, matchers))
        elif text == "{":
            matchers, i = _matchers(tokens, i + 1)
            names = [v for label, op, v in matchers if label == "__name__" and op == "="]
            selectors.append((names[0] if names else None, matchers))
        else:
            if text == "(":
                calls.append(None)
            elif text == ")":
                if not calls:
                    raise PromQLError("unbalanced )")
                calls.pop()
            elif kind == "range":
                windows.append((calls[-1] if calls else None, text[1:-1].strip()))
            i += 1
    if calls:
        raise PromQLError("unbalanced (")
    variables = set(re.findall(r"\$\{?([A-Za-z_][A-Za-z0-9_]*)", expr))
    return selectors, windows, variables


def output_labels(expr, series):
    """The labels of an expression's result series: the grouping of its outermost aggregation
    (`by (...)`; `without (...)`: the selected metrics' labels less those), none for an aggregation
    without grouping, else the selected metrics' own labels and the target labels. None when a
    selected metric is not documented (its labels are unknown)."""
    tokens = _lex(expr)

    def label_list(i):  # tokens[i] is "(": the identifiers up to ")"
        out = []
        while i < len(tokens) and tokens[i][1] != ")":
            if tokens[i][0] == "ident":
                out.append(tokens[i][1])
            i += 1
        return out

    def selected():
        labels = set(TARGET_LABELS)
        for name, _ in analyse(expr)[0]:
            if name not in series:
                return None
            labels |= series[name]
        return labels

    for i, (kind, text) in enumerate(tokens):
        if kind != "ident" or text.lower() not in _AGGREGATORS:
            continue
        nxt = tokens[i + 1][1] if i + 1 < len(tokens) else None
        grouping = None
        if nxt in ("by", "without"):
            grouping = (nxt, label_list(i + 2))
        elif nxt == "(":
            depth, j = 0, i + 1
            while j < len(tokens):
                depth += {"(": 1, ")": -1}.get(tokens[j][1], 0)
                if depth == 0:
                    break
                j += 1
            if j + 1 < len(tokens) and tokens[j + 1][1] in ("by", "without"):
                grouping = (tokens[j + 1][1], label_list(j + 2))
        if text.lower() in _SELECTING_AGGREGATORS:
            continue
        if grouping is None:
            return set()
        if grouping[0] == "by":
            return set(grouping[1])
        own = selected()
        return None if own is None else own - set(grouping[1])
    return selected()


def panel_links(panel):
    """Every data link and panel link of a panel: [(where in the panel, url)]."""
    out = [("links", link.get("url", "")) for link in panel.get("links") or []]
    fc = panel.get("fieldConfig") or {}
    out += [("fieldConfig.defaults.links", link.get("url", ""))
            for link in (fc.get("defaults") or {}).get("links") or []]
    for override in fc.get("overrides") or []:
        for prop in override.get("properties") or []:
            if prop.get("id") == "links":
                out += [("fieldConfig.overrides links", link.get("url", "")) for link in prop.get("value") or []]
    return out


def metric_names(expr):
    """The metric names an expression selects (functions, keywords and labels left out)."""
    return {name for name, _ in analyse(expr)[0] if name}


# ------------------------------------------------------------------------------------------------
# YAML: the subset the rules and their unit tests use (block mappings and sequences, plain and
# quoted scalars, | and > block scalars, {} and []). Anything else is reported, not guessed.

class YAMLError(ValueError):
    pass


class _YAMLReader:
    _KEY = re.compile(r"""^("(?:[^"\\]|\\.)*"|'(?:[^']|'')*'|[^\s#'"\-{}\[\]][^:#]*?|-[^\s:][^:#]*?)\s*:(?:\s+|$)(.*)$""")

    def __init__(self, text, name):
        self.lines = text.replace("\t", "    ").split("\n")
        self.name = name
        self.i = 0

    def fail(self, msg):
        raise YAMLError(f"{self.name}:{self.i + 1}: {msg}")

    def skip(self):
        while self.i < len(self.lines):
            s = self.lines[self.i].strip()
            if s and not s.startswith("#") and s != "---":
                return True
            self.i += 1
        return False

    def indent(self):
        line = self.lines[self.i]
        return len(line) - len(line.lstrip(" "))

    def node(self, indent):
        if not self.skip() or self.indent() < indent:
            return None
        ind = self.indent()
        stripped = self.lines[self.i].strip()
        return self.seq(ind) if stripped == "-" or stripped.startswith("- ") else self.mapping(ind)

    def seq(self, ind):
        items = []
        while self.skip() and self.indent() == ind:
            line = self.lines[self.i]
            body = line[ind:]
            if not (body == "-" or body.startswith("- ")):
                break
            rest = body[1:]
            content = rest.strip()
            if not content or content.startswith("#"):
                self.i += 1
                items.append(self.node(ind + 1))
            elif self._KEY.match(content):
                col = ind + 1 + len(rest) - len(rest.lstrip(" "))
                self.lines[self.i] = " " * col + content
                items.append(self.mapping(col))
            else:
                self.i += 1
                items.append(self.scalar(content))
        return items

    def mapping(self, ind):
        result = {}
        while self.skip():
            cur = self.indent()
            if cur < ind:
                break
            if cur > ind:
                self.fail("unexpected indentation")
            content = self.lines[self.i].strip()
            if content.startswith("- "):
                break
            m = self._KEY.match(content)
            if not m:
                self.fail(f"expected 'key: value', got {content!r}")
            key = self.scalar(m.group(1))
            rest = m.group(2).strip()
            self.i += 1
            if key in result:
                self.fail(f"duplicate key {key!r}")
            if re.match(r"^[|>][-+]?\s*(#.*)?$", rest):
                result[key] = self.block(ind, rest.split("#")[0].strip())
            elif rest == "" or rest.startswith("#"):
                if self.skip() and self.indent() > ind:
                    result[key] = self.node(self.indent())
                elif self.skip() and self.indent() == ind and self.lines[self.i].strip().startswith("- "):
                    result[key] = self.seq(ind)
                else:
                    result[key] = None
            else:
                result[key] = self.scalar(rest)
        return result

    def block(self, ind, style):
        raw = []
        while self.i < len(self.lines):
            line = self.lines[self.i]
            if line.strip() and len(line) - len(line.lstrip(" ")) <= ind:
                break
            raw.append(line)
            self.i += 1
        while raw and not raw[-1].strip():
            raw.pop()
        body = [ln for ln in raw if ln.strip()]
        cut = min((len(ln) - len(ln.lstrip(" ")) for ln in body), default=0)
        lines = [ln[cut:] for ln in raw]
        if style.startswith(">"):
            paragraphs, cur = [], []
            for ln in lines:
                if ln.strip():
                    cur.append(ln.strip())
                else:
                    paragraphs.append(" ".join(cur))
                    cur = []
            paragraphs.append(" ".join(cur))
            text = "\n".join(paragraphs)
        else:
            text = "\n".join(lines)
        return text if style.endswith("-") else text + "\n"

    def scalar(self, s):
        s = s.strip()
        if s[:1] == '"':
            m = re.match(r'^"((?:[^"\\]|\\.)*)"\s*(#.*)?$', s)
            if not m:
                self.fail(f"unterminated or trailing text after {s!r}")
            return json.loads('"' + m.group(1) + '"')
        if s[:1] == "'":
            m = re.match(r"^'((?:[^']|'')*)'\s*(#.*)?$", s)
            if not m:
                self.fail(f"unterminated or trailing text after {s!r}")
            return m.group(1).replace("''", "'")
        s = re.split(r"\s+#", s, maxsplit=1)[0].rstrip()
        if s in ("{}", "[]"):
            return {} if s == "{}" else []
        if s[:1] in "{[&*!|>%@`":
            self.fail(f"unsupported YAML {s!r} (flow collections, anchors and tags are not read here)")
        return s


def load_yaml(path):
    with open(path, encoding="utf-8") as f:
        reader = _YAMLReader(f.read(), os.path.relpath(path, ROOT))
    doc = reader.node(0)
    if reader.skip():
        reader.fail("unexpected content")
    return doc


def load_rules(path):
    """Return [(group name, rule dict)] of a Prometheus rules file."""
    doc = load_yaml(path)
    if not isinstance(doc, dict) or not isinstance(doc.get("groups"), list):
        raise YAMLError(f"{path}: no groups")
    return [(g.get("name"), r) for g in doc["groups"] for r in (g.get("rules") or [])]


# ------------------------------------------------------------------------------------------------
# Dashboards

def iter_panels(panels):
    for p in panels or []:
        yield p
        yield from iter_panels(p.get("panels"))


def variable_query(var):
    q = var.get("query")
    return q.get("query", "") if isinstance(q, dict) else (q or "")


def label_values_query(var):
    """(selector, label) of a `label_values(<selector>, <label>)` variable query, else None."""
    m = re.match(r"^\s*label_values\((.+),\s*([A-Za-z_][A-Za-z0-9_]*)\s*\)\s*$", variable_query(var))
    return (m.group(1), m.group(2)) if m else None


def sel_name_is_not(parsed, metric):
    """True when a parsed label_values() selector does not read `metric`."""
    return not parsed or [n for n, _ in parsed[0]] != [metric]


def load_dashboards(root):
    """Yield (file name, parsed dashboard) for dashboards/*.json, sorted."""
    for path in sorted(glob.glob(os.path.join(root, "dashboards", "*.json"))):
        with open(path, encoding="utf-8") as f:
            yield os.path.basename(path), json.load(f)


def dashboard_targets(dashboard):
    """Yield (panel, target) for every panel target of a dashboard."""
    for p in iter_panels(dashboard.get("panels")):
        for t in p.get("targets") or []:
            yield p, t


class Checker:
    def __init__(self, root):
        self.root = root
        self.errors = []
        self.series = documented_series(load_metrics_doc(os.path.join(root, METRICS_DOC)))
        self.rules = load_rules(os.path.join(root, RULES_FILE))
        self.records = {r["record"] for _, r in self.rules if "record" in r}

    def error(self, where, msg):
        self.errors.append(f"{where}: {msg}")

    # A selector's metric must exist; its matchers may only name labels the series can have.
    def check_selector(self, where, name, matchers):
        if name is None:
            self.error(where, "a selector without a metric name")
            return None
        if name in self.records or name == "ALERTS":
            return None
        if name == "up":
            own = set()
        elif name in FOREIGN_SERIES:
            own = FOREIGN_SERIES[name]
        elif name in self.series:
            own = self.series[name]
        else:
            hint = " (histograms are read as _bucket, _sum, _count)" if name + "_bucket" in self.series else ""
            self.error(where, f"metric {name!r} is not documented in {METRICS_DOC}{hint}")
            return None
        for label, _, _ in matchers:
            if label not in own | TARGET_LABELS | {"__name__"}:
                self.error(where, f"{name} has no label {label!r}")
        return own

    def check_expr(self, where, expr):
        try:
            return analyse(expr)
        except PromQLError as e:
            self.error(where, str(e))
            return None

    def check_dashboard(self, path, uids):
        where = os.path.relpath(path, self.root)
        with open(path, encoding="utf-8") as f:
            raw = f.read()
        try:
            d = json.loads(raw)
        except json.JSONDecodeError as e:
            self.error(where, f"not JSON: {e}")
            return
        uid = d.get("uid")
        if not isinstance(uid, str) or not UID_RE.match(uid):
            self.error(where, f"uid must be a fixed string of 1-40 [A-Za-z0-9_-], got {uid!r}")
        elif uid in uids:
            self.error(where, f"uid {uid!r} is also used by {uids[uid]}")
        else:
            uids[uid] = where
        if "id" not in d or d["id"] is not None:
            self.error(where, '"id" must be null')
        if "__inputs" in d:
            self.error(where, "__inputs present: export for sharing externally is off, provisioning needs none")
        if "${DS_" in raw:
            self.error(where, "${DS_...} datasource input used; use the data-source variable ${prometheus_datasource}")
        if not isinstance(d.get("schemaVersion"), int) or d["schemaVersion"] < MIN_SCHEMA_VERSION:
            self.error(where, f"schemaVersion must be >= {MIN_SCHEMA_VERSION}, got {d.get('schemaVersion')!r}")
        if not d.get("title"):
            self.error(where, "no title")

        variables = {v.get("name"): v for v in (d.get("templating") or {}).get("list") or []}
        for ds_name, query in (("prometheus_datasource", "prometheus"), ("loki_datasource", "loki")):
            ds = variables.get(ds_name)
            if not ds or ds.get("type") != "datasource" or ds.get("query") != query:
                self.error(where, f'needs a variable "{ds_name}" of type datasource with query "{query}"')

        # Panels and targets first: which labels the dashboard's metrics carry decides the variables.
        used_labels, used_vars, panel_ids = set(), set(), set()
        for p in iter_panels(d.get("panels")):
            pw = f"{where}: panel {p.get('id')} {p.get('title')!r}"
            if p.get("id") in panel_ids:
                self.error(pw, "duplicate panel id")
            panel_ids.add(p.get("id"))
            if p.get("type") not in PANEL_TYPES:
                self.error(pw, f"panel type {p.get('type')!r} not in {sorted(PANEL_TYPES)}")
            for field in ("title", "description"):
                if not isinstance(p.get(field), str) or not p[field].strip():
                    self.error(pw, f"no {field}")
            if not ((p.get("fieldConfig") or {}).get("defaults") or {}).get("unit"):
                self.error(pw, "no unit (fieldConfig.defaults.unit)")
            if p.get("datasource") != DATASOURCE_REF:
                self.error(pw, f"panel datasource must be {json.dumps(DATASOURCE_REF)}")
            if not isinstance(p.get("gridPos"), dict):
                self.error(pw, "no gridPos")
            targets = p.get("targets") or []
            if not targets:
                self.error(pw, "no targets")
            for t in targets:
                tw = f"{pw} target {t.get('refId')}"
                if t.get("datasource") != DATASOURCE_REF:
                    self.error(tw, f"target datasource must be {json.dumps(DATASOURCE_REF)}")
                expr = t.get("expr")
                if not isinstance(expr, str) or not expr.strip():
                    self.error(tw, "no expr")
                    continue
                parsed = self.check_expr(tw, expr)
                if parsed is None:
                    continue
                # Grouped by a target label, the panel's series are picked with that label's variable.
                for group in re.findall(r"\bby\s*\(([^)]*)\)", expr):
                    for label in (x.strip() for x in group.split(",")):
                        if label in TARGET_LABELS and label not in variables:
                            self.error(tw, f"grouped by {label!r}, which no variable of the dashboard selects")
                selectors, windows, var_names = parsed
                used_vars |= var_names
                instant = bool(t.get("instant")) and not t.get("range")
                for fn, window in windows:
                    if fn in RANGE_FUNCTIONS and window != "$__rate_interval" and not (
                            instant and window == "$__range"):
                        allowed = "$__rate_interval" + (" or $__range" if instant else "")
                        self.error(tw, f"{fn}() over [{window}]: use {allowed}")
                for name, matchers in selectors:
                    own = self.check_selector(tw, name, matchers)
                    if own is not None:
                        used_labels |= own
                    self.check_filters(tw, name, matchers, own, variables)

            self.check_links(pw, p, variables)

        for var_name in sorted(used_vars - GRAFANA_BUILTINS - set(variables)):
            self.error(where, f"expression uses ${var_name}, which is not a variable of the dashboard")
        required = list(SCOPE_VARS) + [label for label in LABEL_VARS if label in used_labels]
        for name in required:
            if name not in variables:
                self.error(where, f"needs a {name!r} variable")
        for name, v in variables.items():
            vw = f"{where}: variable {name!r}"
            if v.get("type") != "query":
                continue
            if v.get("datasource") != DATASOURCE_REF:
                self.error(vw, f"datasource must be {json.dumps(DATASOURCE_REF)}")
            lv = label_values_query(v)
            if not lv:
                self.error(vw, f"query must be label_values(<metric selector>, <label>), got {variable_query(v)!r}")
                continue
            selector, label = lv
            if label != name and name in SCOPE_VARS + LABEL_VARS:
                self.error(vw, f"label_values() reads label {label!r}, not {name!r}")
            parsed = self.check_expr(vw, selector)
            if parsed:
                for sel_name, matchers in parsed[0]:
                    self.check_selector(vw, sel_name, matchers)
            if name in ALWAYS_VARS + LABEL_VARS and not (v.get("includeAll") and v.get("allValue") == ".*"):
                self.error(vw, 'needs includeAll with allValue ".*" (it must match series without the label)')
            if name in ("job", "instance") and not (v.get("includeAll") and v.get("allValue") == ".+"):
                self.error(vw, 'needs includeAll with allValue ".+" (every series has the label; the linter wants it)')
            if name in SCOPE_VARS and sel_name_is_not(parsed, "denials_exporter_build_info"):
                self.error(vw, "must list the values of denials_exporter_build_info (the exporter's own series)")

    def check_links(self, where, panel, variables):
        """Every template in a panel's links resolves: ${__field.labels.X} and ${__data.fields.X}
        against the labels of every query of the panel, other names against the dashboard's
        variables and Grafana's built-ins."""
        links = panel_links(panel)
        if not links:
            return
        per_target = []
        for t in panel.get("targets") or []:
            try:
                per_target.append(output_labels(t.get("expr") or "", self.series))
            except PromQLError:
                return  # reported with the target
        known = [labels for labels in per_target if labels is not None]
        renamed = set()
        for tr in panel.get("transformations") or []:
            renamed |= set(((tr.get("options") or {}).get("renameByName") or {}).values())
        for place, url in links:
            lw = f"{where} {place} {url!r}"
            for m in _LINK_TEMPLATE.finditer(url):
                name = next(g for g in m.groups() if g)
                for prefix, extra in (("__field.labels.", set()), ("__data.fields.", {"Value", "Time"} | renamed)):
                    if name.startswith(prefix):
                        label = name[len(prefix):]
                        if not per_target:
                            self.error(lw, f"${{{name}}}: the panel has no query")
                        for labels in known:
                            if label not in labels | extra:
                                self.error(lw, f"${{{name}}}: the panel's query has no label {label!r} "
                                               f"(its result labels: {sorted(labels) or 'none'})")
                        break
                else:
                    root = name.split(".")[0]
                    if root not in variables and root not in LINK_BUILTINS | GRAFANA_BUILTINS:
                        self.error(lw, f"${{{name}}} is not a variable of the dashboard nor a Grafana built-in")

    def check_filters(self, where, name, matchers, own, variables):
        """Selectors honour the dashboard's variables: cluster, job, namespace and pod always (ALERTS:
        cluster and namespace), workflow and tool where the series carries the label."""
        if name is None:
            return
        wanted = list(ALERTS_VARS) if name == "ALERTS" else list(FOREIGN_VARS) if name in FOREIGN_SERIES else list(SCOPE_VARS)
        wanted += [label for label in LABEL_VARS if own and label in own and label in variables]
        for label in wanted:
            if (label, "=~", f"${label}") not in matchers:
                self.error(where, f'{name} must be filtered with {label}=~"${label}"')

    def check_dashboards(self):
        paths = sorted(glob.glob(os.path.join(self.root, "dashboards", "*.json")))
        if not paths:
            self.error("dashboards", "no dashboards/*.json")
        uids = {}
        for path in paths:
            self.check_dashboard(path, uids)
        self.check_linter_rules(paths)

    def check_linter_rules(self, paths):
        """grafana/dashboard-linter's rules (dashboard_lint.py), with dashboards/.lint's exceptions."""
        lint_file = os.path.join(self.root, "dashboards", ".lint")
        config = load_yaml(lint_file) if os.path.exists(lint_file) else {}
        dashboards = []
        for path in paths:
            with open(path, encoding="utf-8") as f:
                dashboards.append((os.path.relpath(path, self.root), json.load(f)))
        left, stale = dashboard_lint.lint(dashboards, config, analyse)
        for line in left:
            self.error(line, "dashboard-linter rule broken, and no exception in dashboards/.lint")
        for line in stale:
            self.error("dashboards/.lint", line)

    def check_rule_metrics(self):
        for group, rule in self.rules:
            name = rule.get("record") or rule.get("alert")
            where = f"{RULES_FILE}: group {group!r} rule {name!r}"
            expr = rule.get("expr")
            if not isinstance(expr, str) or not expr.strip():
                self.error(where, "no expr")
                continue
            parsed = self.check_expr(where, expr)
            if parsed:
                for sel_name, matchers in parsed[0]:
                    self.check_selector(where, sel_name, matchers)
                    # Every series a rule reads is the exporter's: selected by job (recording
                    # rules' outputs inherit it from their inputs).
                    if sel_name not in self.records and not any(m[0] == "job" for m in matchers):
                        self.error(where, f"{sel_name} must be selected by job (the mixin's jobSelector)")

    # --------------------------------------------------------------------------------------------
    # --alert-contract

    def runbook_anchors(self):
        anchors = {}
        with open(os.path.join(self.root, RUNBOOK), encoding="utf-8") as f:
            for line in f:
                m = re.match(r"^#{1,6}\s+(.*?)\s*#*\s*$", line)
                if m:
                    slug = re.sub(r"[^\w\- ]", "", m.group(1).strip().lower()).replace(" ", "-")
                    anchors[slug] = m.group(1)
        return anchors

    def check_alert_contract(self):
        anchors = self.runbook_anchors()
        alerts, records = {}, set()
        for group, rule in self.rules:
            if "record" in rule:
                where = f"{RULES_FILE}: record {rule['record']!r}"
                if not RECORD_NAME_RE.match(rule["record"]):
                    self.error(where, "recording rule names are level:metric:operations")
                if rule["record"] in records:
                    self.error(where, "recorded twice")
                records.add(rule["record"])
                continue
            name = rule.get("alert")
            where = f"{RULES_FILE}: alert {name!r}"
            if not isinstance(name, str) or not ALERT_NAME_RE.match(name):
                self.error(where, "alert names are CamelCase with the prefix DenialsExporter")
                continue
            if name in alerts:
                self.error(where, "defined twice")
            alerts[name] = rule
            if "for" not in rule:
                self.error(where, "no explicit for: (write for: 0m to fire at once)")
            labels = rule.get("labels") or {}
            if labels.get("severity") not in SEVERITIES:
                self.error(where, f"label severity must be one of {sorted(SEVERITIES)}, got {labels.get('severity')!r}")
            ann = rule.get("annotations") or {}
            summary, description, url = ann.get("summary"), ann.get("description"), ann.get("runbook_url")
            if not summary:
                self.error(where, "no summary annotation")
            elif "{{" in summary or "$" in summary:
                self.error(where, "summary must be static (templates go in description)")
            if not description:
                self.error(where, "no description annotation")
            elif "{{" not in description or not re.search(r"\$(labels|value|externalLabels)\b", description):
                self.error(where, "description must be templated with $labels, $value or $externalLabels")
            expected = RUNBOOK_URL_BASE + name.lower()
            if url != expected:
                self.error(where, f"runbook_url must be {expected}, got {url!r}")
            if name.lower() not in anchors:
                self.error(where, f"{RUNBOOK} has no section '## {name}' (anchor #{name.lower()})")
        for slug, heading in anchors.items():
            if slug.startswith("denialsexporter") and heading not in alerts:
                self.error(RUNBOOK, f"section {heading!r} describes no alert of {RULES_FILE}")
        self.check_rule_tests(alerts, records)

    def check_rule_tests(self, alerts, records):
        fires, quiet, checked = set(), set(), set()
        paths = sorted(glob.glob(os.path.join(self.root, RULE_TESTS_GLOB)))
        if not paths:
            self.error(RULE_TESTS_GLOB, "no promtool unit tests")
        for path in paths:
            try:
                doc = load_yaml(path)
            except YAMLError as e:
                self.error(os.path.relpath(path, self.root), str(e))
                continue
            for test in (doc or {}).get("tests") or []:
                for case in test.get("alert_rule_test") or []:
                    (fires if case.get("exp_alerts") else quiet).add(case.get("alertname"))
                for case in test.get("promql_expr_test") or []:
                    checked |= metric_names(case.get("expr", ""))
        for name in sorted(alerts):
            if name not in fires:
                self.error(RULE_TESTS_GLOB, f"no test makes {name} fire")
            if name not in quiet:
                self.error(RULE_TESTS_GLOB, f"no test checks that {name} stays quiet")
        for name in sorted(records - checked):
            self.error(RULE_TESTS_GLOB, f"no promql_expr_test checks the value of {name}")


# The exemplar labels the exporter writes (src/vocab/counters.rs Exemplar), and the panels that
# must show them: every rate of a counter that carries exemplars.
EXEMPLAR_LABELS = {"execution_id", "tool_use_id"}
EXEMPLAR_METRICS = ("permission_denials_total", "agent_cost_usd_total")


def _check_exemplar_links(checker):
    """Denial and cost rate panels ask for exemplars, and the provisioned datasource links an
    exemplar's execution id to that execution's audit records in Explore and to its denials in the
    exporter's API (tests/deploy/drilldown_check.py follows the links)."""
    for path, dashboard in load_dashboards(checker.root):
        for panel in iter_panels(dashboard.get("panels") or []):
            if panel.get("type") != "timeseries":
                continue
            for t in panel.get("targets") or []:
                expr = t.get("expr") or ""
                if any(m in expr for m in EXEMPLAR_METRICS) and ("rate(" in expr or "increase(" in expr):
                    if t.get("exemplar") is not True:
                        checker.error(f"{path} panel {panel.get('title')!r}", "a rate of a counter with exemplars must set \"exemplar\": true")
    ds_path = os.path.join(checker.root, "deploy", "grafana", "datasource.yaml")
    text = open(ds_path).read()
    names = re.findall(r"-\s*name:\s*(\S+)\n\s*url:\s*(\S+)", text)
    if not names:
        checker.error(ds_path, "no exemplarTraceIdDestinations")
    kinds = set()
    for name, url in names:
        if name not in EXEMPLAR_LABELS:
            checker.error(ds_path, f"exemplar destination {name!r} is not a label the exporter writes {sorted(EXEMPLAR_LABELS)}")
        # $$ keeps the link's own template from Grafana's environment-variable expansion.
        if "/api/v1/denials?" in url and f"{name}=$${{__value.raw}}" in url:
            kinds.add("exporter")
        elif url.startswith("/explore?") and f"{name}%3D%5C%22$${{__value.raw}}%5C%22" in url:
            kinds.add("explore")
        else:
            checker.error(ds_path, f"exemplar link {url!r} must open the audit records (Explore) or /api/v1/denials "
                                   f"filtered by {name}=$${{__value.raw}}")
    if kinds != {"exporter", "explore"}:
        checker.error(ds_path, f"exemplar links must open both the audit records in Explore and the exporter's API, got {sorted(kinds)}")


Checker.check_exemplar_links = _check_exemplar_links


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--root", default=ROOT, help="repository root (default: %(default)s)")
    ap.add_argument("--alert-contract", action="store_true",
                    help="check alert labels/annotations, runbook anchors and unit-test coverage instead")
    args = ap.parse_args(argv)
    try:
        checker = Checker(args.root)
        if args.alert_contract:
            checker.check_alert_contract()
        else:
            checker.check_dashboards()
            checker.check_rule_metrics()
            checker.check_exemplar_links()
    except (OSError, YAMLError) as e:
        print(f"error: {e}", file=sys.stderr)
        return 1
    for line in checker.errors:
        print(f"FAIL {line}")
    what = "alert contract" if args.alert_contract else "dashboards and rule metric names"
    if checker.errors:
        print(f"{len(checker.errors)} violation(s) in the {what}", file=sys.stderr)
        return 1
    print(f"ok: {what}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
