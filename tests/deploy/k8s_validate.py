#!/usr/bin/env python3
"""Schema-validate rendered Kubernetes manifests (used by tests/deploy/k8s_check.sh).

Built-in kinds are validated strictly (unknown fields rejected) by kubernetes-validate against each
requested Kubernetes version; a kind it has no schema for is a failure, not a warning. The
Prometheus Operator kinds (PodMonitor, PrometheusRule) are CRDs that kubernetes-validate has no
schemas for: they are checked here structurally instead (known fields, required fields, duration
and name formats), and a note says so.

    k8s_validate.py -k 1.37.0 [-k 1.29.0 ...] rendered.yaml [...]
    k8s_validate.py --expect-failure -k 1.27.0 rendered.yaml   # must NOT validate (a canary)

Exit 0 when everything validates (or, with --expect-failure, when something does not).
"""
import argparse
import re
import sys

import yaml

try:
    import kubernetes_validate
    import kubernetes_validate.utils as kv
except ImportError:  # pragma: no cover
    sys.exit("k8s_validate.py: kubernetes-validate is not installed (pip install kubernetes-validate)")

CRD_KINDS = {
    ("monitoring.coreos.com/v1", "PodMonitor"),
    ("monitoring.coreos.com/v1", "PrometheusRule"),
}

DURATION = re.compile(r"^(0|(([0-9]+)y)?(([0-9]+)w)?(([0-9]+)d)?(([0-9]+)h)?(([0-9]+)m)?(([0-9]+)s)?(([0-9]+)ms)?)$")
METRIC_NAME = re.compile(r"^[a-zA-Z_:][a-zA-Z0-9_:]*$")
LABEL_NAME = re.compile(r"^[a-zA-Z_][a-zA-Z0-9_]*$")
DNS_SUBDOMAIN = re.compile(r"^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$")

ENDPOINT_FIELDS = {
    "port", "portNumber", "targetPort", "path", "scheme", "params", "interval", "scrapeTimeout",
    "honorLabels", "honorTimestamps", "trackTimestampsStaleness", "relabelings", "metricRelabelings",
    "basicAuth", "bearerTokenSecret", "authorization", "oauth2", "tlsConfig", "followRedirects",
    "enableHttp2", "filterRunning", "proxyUrl", "noProxy", "proxyFromEnvironment",
    "proxyConnectHeader",
}
PODMONITOR_SPEC_FIELDS = {
    "selector", "namespaceSelector", "podMetricsEndpoints", "jobLabel", "podTargetLabels",
    "sampleLimit", "targetLimit", "labelLimit", "labelNameLengthLimit", "labelValueLengthLimit",
    "keepDroppedTargets", "attachMetadata", "scrapeProtocols", "scrapeClass",
    "fallbackScrapeProtocol", "scrapeClassicHistograms", "nativeHistogramBucketLimit",
    "nativeHistogramMinBucketFactor", "convertClassicHistogramsToNHCB", "selectorMechanism",
    "bodySizeLimit",
}
# PodMonitor endpoints take a SafeTLSConfig (references to Secrets/ConfigMaps, no file paths: those
# are for ServiceMonitor and scrape classes) and a BasicAuth of two Secret references.
SAFE_TLS_FIELDS = {"ca", "cert", "keySecret", "serverName", "insecureSkipVerify", "minVersion", "maxVersion"}
BASIC_AUTH_FIELDS = {"username", "password"}
SELECTOR_FIELDS = {"name", "key", "optional"}
RELABEL_FIELDS = {"action", "sourceLabels", "separator", "targetLabel", "regex", "modulus", "replacement"}
RELABEL_ACTIONS = {"replace", "keep", "drop", "hashmod", "labelmap", "labeldrop", "labelkeep",
                   "lowercase", "uppercase", "keepequal", "dropequal"}
GROUP_FIELDS = {"name", "interval", "rules", "limit", "partial_response_strategy", "query_offset", "labels"}
RULE_FIELDS = {"record", "alert", "expr", "for", "keep_firing_for", "labels", "annotations"}


def unknown_fields(where, obj, allowed, errors, hint=""):
    extra = set(obj) - allowed
    if extra:
        errors.append(f"{where} has unknown fields {sorted(extra)}{hint}")


def check_metadata(doc, errors):
    meta = doc.get("metadata") or {}
    name = meta.get("name")
    if not isinstance(name, str) or not DNS_SUBDOMAIN.match(name) or len(name) > 253:
        errors.append(f"metadata.name {name!r} is not a DNS-1123 subdomain")
    for key in ("labels", "annotations"):
        for k, v in (meta.get(key) or {}).items():
            if not isinstance(v, str):
                errors.append(f"metadata.{key}.{k} must be a string, got {type(v).__name__}")


def check_relabelings(where, items, errors):
    if not isinstance(items, list):
        errors.append(f"{where} must be a list")
        return
    for i, r in enumerate(items):
        unknown_fields(f"{where}[{i}]", r, RELABEL_FIELDS, errors)
        action = str(r.get("action", "replace")).lower()
        if action not in RELABEL_ACTIONS:
            errors.append(f"{where}[{i}].action {r.get('action')!r} is not a relabel action")
        if action == "replace" and "targetLabel" not in r:
            errors.append(f"{where}[{i}] (replace) needs targetLabel")
        for lbl in r.get("sourceLabels", []):
            if not LABEL_NAME.match(str(lbl)):
                errors.append(f"{where}[{i}].sourceLabels has invalid label name {lbl!r}")


def check_key_selector(where, ref, errors):
    if not isinstance(ref, dict):
        errors.append(f"{where} must be a mapping with name and key")
        return
    unknown_fields(where, ref, SELECTOR_FIELDS, errors)
    for k in ("name", "key"):
        if not isinstance(ref.get(k), str) or not ref[k]:
            errors.append(f"{where}.{k} missing")


def check_tls_and_auth(where, ep, errors):
    tls = ep.get("tlsConfig")
    if tls is not None:
        if not isinstance(tls, dict):
            errors.append(f"{where}.tlsConfig must be a mapping")
            tls = {}
        unknown_fields(f"{where}.tlsConfig", tls, SAFE_TLS_FIELDS, errors, hint=" (a PodMonitor takes no file paths)")
        for k in ("ca", "cert"):
            if k in tls:
                src = tls[k] if isinstance(tls[k], dict) else {}
                if len(set(src) & {"secret", "configMap"}) != 1 or set(src) - {"secret", "configMap"}:
                    errors.append(f"{where}.tlsConfig.{k} needs exactly one of secret/configMap")
                for kind in ("secret", "configMap"):
                    if kind in src:
                        check_key_selector(f"{where}.tlsConfig.{k}.{kind}", src[kind], errors)
        if "keySecret" in tls:
            check_key_selector(f"{where}.tlsConfig.keySecret", tls["keySecret"], errors)
        if ("cert" in tls) != ("keySecret" in tls):
            errors.append(f"{where}.tlsConfig: cert and keySecret go together")
        if ep.get("scheme", "http") != "https":
            errors.append(f"{where}: tlsConfig without scheme https is never used")
    auth = ep.get("basicAuth")
    if auth is not None:
        if not isinstance(auth, dict) or set(auth) != BASIC_AUTH_FIELDS:
            errors.append(f"{where}.basicAuth needs exactly username and password")
        else:
            for k in sorted(BASIC_AUTH_FIELDS):
                check_key_selector(f"{where}.basicAuth.{k}", auth[k], errors)


def check_podmonitor(doc):
    errors = []
    check_metadata(doc, errors)
    spec = doc.get("spec")
    if not isinstance(spec, dict):
        return ["spec missing"]
    unknown_fields("spec", spec, PODMONITOR_SPEC_FIELDS, errors)
    sel = spec.get("selector")
    if not isinstance(sel, dict) or not (sel.get("matchLabels") or sel.get("matchExpressions")):
        errors.append("spec.selector must select something (an empty selector scrapes every pod)")
    eps = spec.get("podMetricsEndpoints")
    if not isinstance(eps, list) or not eps:
        errors.append("spec.podMetricsEndpoints must be a non-empty list")
        eps = []
    for i, ep in enumerate(eps):
        where = f"spec.podMetricsEndpoints[{i}]"
        unknown_fields(where, ep, ENDPOINT_FIELDS, errors)
        if not any(k in ep for k in ("port", "portNumber", "targetPort")):
            errors.append(f"{where} names no port")
        for d in ("interval", "scrapeTimeout"):
            if d in ep and not DURATION.match(str(ep[d])):
                errors.append(f"{where}.{d} {ep[d]!r} is not a Prometheus duration")
        if ep.get("scheme", "http") not in ("http", "https"):
            errors.append(f"{where}.scheme must be http or https")
        for key in ("relabelings", "metricRelabelings"):
            if key in ep:
                check_relabelings(f"{where}.{key}", ep[key], errors)
        check_tls_and_auth(where, ep, errors)
    return errors


def check_prometheusrule(doc):
    errors = []
    check_metadata(doc, errors)
    spec = doc.get("spec")
    if not isinstance(spec, dict) or set(spec) != {"groups"}:
        return ["spec must hold exactly `groups`"]
    groups = spec["groups"]
    if not isinstance(groups, list) or not groups:
        return ["spec.groups must be a non-empty list"]
    names = set()
    for gi, g in enumerate(groups):
        where = f"spec.groups[{gi}]"
        if not isinstance(g, dict):
            errors.append(f"{where} must be a mapping")
            continue
        unknown_fields(where, g, GROUP_FIELDS, errors)
        name = g.get("name")
        if not isinstance(name, str) or not name:
            errors.append(f"{where}.name missing")
        elif name in names:
            errors.append(f"{where}.name {name!r} is not unique")
        names.add(name)
        if "interval" in g and not DURATION.match(str(g["interval"])):
            errors.append(f"{where}.interval {g['interval']!r} is not a duration")
        rules = g.get("rules")
        if not isinstance(rules, list) or not rules:
            errors.append(f"{where}.rules must be a non-empty list")
            continue
        for ri, r in enumerate(rules):
            rw = f"{where}.rules[{ri}]"
            if not isinstance(r, dict):
                errors.append(f"{rw} must be a mapping")
                continue
            unknown_fields(rw, r, RULE_FIELDS, errors)
            if ("record" in r) == ("alert" in r):
                errors.append(f"{rw} needs exactly one of record/alert")
            if "record" in r:
                if not METRIC_NAME.match(str(r["record"])):
                    errors.append(f"{rw}.record {r['record']!r} is not a metric name")
                for k in ("for", "keep_firing_for", "annotations"):
                    if k in r:
                        errors.append(f"{rw}: a recording rule cannot have {k}")
            if "alert" in r and not str(r["alert"]).strip():
                errors.append(f"{rw}.alert is empty")
            if not isinstance(r.get("expr"), (str, int, float)) or str(r.get("expr")).strip() == "":
                errors.append(f"{rw}.expr missing")
            for d in ("for", "keep_firing_for"):
                if d in r and not DURATION.match(str(r[d])):
                    errors.append(f"{rw}.{d} {r[d]!r} is not a duration")
            for k in ("labels", "annotations"):
                for lk, lv in (r.get(k) or {}).items():
                    if not LABEL_NAME.match(str(lk)):
                        errors.append(f"{rw}.{k} has invalid name {lk!r}")
                    if not isinstance(lv, str):
                        errors.append(f"{rw}.{k}.{lk} must be a string")
    return errors


CRD_CHECKS = {"PodMonitor": check_podmonitor, "PrometheusRule": check_prometheusrule}


def kind_name(doc):
    meta = doc.get("metadata") or {}
    ns = meta.get("namespace")
    return f"{doc.get('kind')}/{(ns + '/') if ns else ''}{meta.get('name')}"


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("-k", "--kubernetes-version", action="append", required=True)
    ap.add_argument("--expect-failure", action="store_true",
                    help="succeed only if some built-in object fails validation")
    ap.add_argument("files", nargs="+")
    args = ap.parse_args()

    failures = 0
    rejected = 0  # built-in objects kubernetes-validate rejected (what --expect-failure wants)
    for path in args.files:
        with open(path, encoding="utf-8") as fh:
            docs = [d for d in yaml.safe_load_all(fh) if d]
        if not docs:
            print(f"FAIL {path}: no objects")
            failures += 1
            continue
        for version in args.kubernetes_version:
            for doc in docs:
                key = (doc.get("apiVersion"), doc.get("kind"))
                if key in CRD_KINDS:
                    errs = CRD_CHECKS[doc["kind"]](doc)
                    if errs:
                        failures += 1
                        for e in errs:
                            print(f"FAIL {path}: {kind_name(doc)} (CRD, structural check): {e}")
                    elif not args.expect_failure:
                        print(f"note {path}: {kind_name(doc)}: {key[0]} is a CRD without a schema in "
                              f"kubernetes-validate; checked structurally instead")
                    continue
                try:
                    got = kv.validate(doc, version, strict=True)
                    if not args.expect_failure:
                        print(f"ok   {path}: {kind_name(doc)} valid (strict) against Kubernetes {got}")
                except kv.ValidationError as e:
                    failures += 1
                    rejected += 1
                    where = ".".join(str(p) for p in e.path)
                    print(f"{'xfail' if args.expect_failure else 'FAIL'} {path}: {kind_name(doc)} "
                          f"against Kubernetes {e.version}: {where}: {e.message}")
                except kv.SchemaNotFoundError as e:
                    failures += 1
                    print(f"FAIL {path}: {kind_name(doc)}: no schema ({e.message}); "
                          f"a built-in kind with a wrong apiVersion?")
                except kv.VersionNotSupportedError:
                    print(f"FAIL kubernetes-validate {kubernetes_validate.__version__} "
                          f"does not know Kubernetes {version}")
                    return 2
    if args.expect_failure:
        if rejected:
            print(f"ok   expected failure seen ({rejected} object(s) rejected)")
            return 0
        print("FAIL expected validation to fail, but everything validated")
        return 1
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
