#!/usr/bin/env python3
"""Structural assertions on the rendered overlays (used by tests/deploy/k8s_check.sh).

    k8s_assert.py --root REPO --native native.yaml --classic classic.yaml \
        [--native-tls native-tls.yaml --classic-tls classic-tls.yaml]

Checks what schema validation and checkov cannot: that the native-sidecar render really runs the
exporter as a native sidecar with a read-only view of the logs and a state volume of its own, that
every container is hardened and sized, that the namespace is set on every namespaced object, that
the PodMonitor finds the pod, that the classic render differs only in where the exporter sits, and
that the PrometheusRule and dashboard ConfigMaps carry exactly what their sources say.
With the two overlays rendered again with components/web-tls: the same checks, plus that the
exporter gets --web.config.file exactly once, from a read-only projected mount of Secrets holding
the files the example config names, that the probes target the same port with the same timings
(TCP: every path is behind basic auth), that the PodMonitor scrapes https with a verified server,
a client certificate and basic auth from Secrets that docs/deploy.md tells how to create, and that
nothing else differs from the render without the component.
Prints one line per check; exit 1 if any failed.
"""
import argparse
import copy
import glob
import json
import os
import posixpath
import re
import sys

import yaml

NAMESPACE = "agent-executor"
EXPORTER = "denials-exporter"
EXECUTOR = "executor"
METRICS_PORT = 10403
EXPORTER_RESOURCES = {"requests": {"cpu": "10m", "memory": "32Mi"},
                      "limits": {"cpu": "200m", "memory": "64Mi"}}
CLUSTER_SCOPED = {"Namespace", "ClusterRole", "ClusterRoleBinding", "CustomResourceDefinition",
                  "PriorityClass", "StorageClass", "PersistentVolume", "IngressClass",
                  "ValidatingWebhookConfiguration", "MutatingWebhookConfiguration"}
REQUIRED_LABELS = ("app.kubernetes.io/name", "app.kubernetes.io/part-of")
CONFIGMAP_LIMIT = 1024 * 1024
CLIENT_SIDE_APPLY_LIMIT = 256 * 1024

results = []


def check(name, ok, detail=""):
    results.append(bool(ok))
    print(f"{'ok  ' if ok else 'FAIL'} {name}{'' if ok or not detail else ': ' + str(detail)}")
    return bool(ok)


def load(path):
    with open(path, encoding="utf-8") as fh:
        return [d for d in yaml.safe_load_all(fh) if d]


def one(docs, kind, name=None):
    found = [d for d in docs if d.get("kind") == kind and (name is None or d["metadata"]["name"] == name)]
    return found[0] if len(found) == 1 else None


def parse_quantity(q):
    """CPU in millicores or memory in bytes, enough for comparisons."""
    q = str(q)
    units = {"m": 1e-3, "Ki": 1024, "Mi": 1024 ** 2, "Gi": 1024 ** 3, "k": 1e3, "M": 1e6, "G": 1e9}
    m = re.fullmatch(r"([0-9.]+)([A-Za-z]*)", q)
    if not m:
        raise ValueError(q)
    return float(m.group(1)) * units.get(m.group(2), 1)


def image_pinned(image):
    if "@sha256:" in image:
        return True
    last = image.rsplit("/", 1)[-1]
    return ":" in last and not last.endswith(":latest")


def container_checks(render, c, pod_sc):
    n = f"[{render}] container {c['name']}"
    sc = c.get("securityContext") or {}
    check(f"{n}: runAsNonRoot", sc.get("runAsNonRoot") is True)
    check(f"{n}: runAsUser >= 10000", isinstance(sc.get("runAsUser"), int) and sc["runAsUser"] >= 10000,
          sc.get("runAsUser"))
    check(f"{n}: runAsGroup >= 10000", isinstance(sc.get("runAsGroup"), int) and sc["runAsGroup"] >= 10000,
          sc.get("runAsGroup"))
    check(f"{n}: readOnlyRootFilesystem", sc.get("readOnlyRootFilesystem") is True)
    check(f"{n}: allowPrivilegeEscalation false", sc.get("allowPrivilegeEscalation") is False)
    check(f"{n}: not privileged", sc.get("privileged") in (None, False))
    caps = sc.get("capabilities") or {}
    check(f"{n}: capabilities drop ALL, add none", caps.get("drop") == ["ALL"] and not caps.get("add"), caps)
    check(f"{n}: seccompProfile RuntimeDefault",
          (sc.get("seccompProfile") or {}).get("type") == "RuntimeDefault", sc.get("seccompProfile"))
    res = c.get("resources") or {}
    for kind in ("requests", "limits"):
        for r in ("cpu", "memory"):
            check(f"{n}: resources.{kind}.{r} set", r in (res.get(kind) or {}))
    try:
        for r in ("cpu", "memory"):
            check(f"{n}: {r} request <= limit",
                  parse_quantity(res["requests"][r]) <= parse_quantity(res["limits"][r]))
    except (KeyError, ValueError) as e:
        check(f"{n}: requests/limits comparable", False, e)
    check(f"{n}: image pinned by tag or digest (not latest)", image_pinned(c.get("image", "")), c.get("image"))
    if c["name"] == EXPORTER:
        # A readiness probe on a sidecar takes the whole pod out of its Services whenever the
        # exporter is behind or restarting: startup and liveness only.
        check(f"{n}: startup and liveness probes, no readiness probe",
              "startupProbe" in c and "livenessProbe" in c and "readinessProbe" not in c)
    else:
        check(f"{n}: liveness and readiness probes", "livenessProbe" in c and "readinessProbe" in c)


def deployment_checks(render, docs, native, tls=False):
    dep = one(docs, "Deployment", "agent-executor")
    if not check(f"[{render}] one Deployment agent-executor", dep is not None):
        return None
    pod = dep["spec"]["template"]["spec"]
    pod_labels = dep["spec"]["template"]["metadata"].get("labels") or {}
    check(f"[{render}] selector matches the pod template labels",
          all(pod_labels.get(k) == v for k, v in dep["spec"]["selector"]["matchLabels"].items()))
    check(f"[{render}] pod automountServiceAccountToken false", pod.get("automountServiceAccountToken") is False)
    sa_name = pod.get("serviceAccountName", "default")
    sa = one(docs, "ServiceAccount", sa_name)
    check(f"[{render}] ServiceAccount {sa_name} exists with automountServiceAccountToken false",
          sa is not None and sa.get("automountServiceAccountToken") is False)
    psc = pod.get("securityContext") or {}
    check(f"[{render}] pod securityContext runAsNonRoot", psc.get("runAsNonRoot") is True)
    check(f"[{render}] pod securityContext seccompProfile RuntimeDefault",
          (psc.get("seccompProfile") or {}).get("type") == "RuntimeDefault")
    check(f"[{render}] pod not on host namespaces",
          not any(pod.get(k) for k in ("hostNetwork", "hostPID", "hostIPC")))

    inits = pod.get("initContainers") or []
    mains = pod.get("containers") or []
    for c in inits + mains:
        container_checks(render, c, psc)

    in_init = [c for c in inits if c["name"] == EXPORTER]
    in_main = [c for c in mains if c["name"] == EXPORTER]
    if native:
        check(f"[{render}] exporter is in initContainers, not containers", len(in_init) == 1 and not in_main)
        exp = in_init[0] if in_init else None
        check(f"[{render}] exporter has restartPolicy Always (native sidecar)",
              exp is not None and exp.get("restartPolicy") == "Always")
        check(f"[{render}] exporter has a startupProbe", exp is not None and "startupProbe" in exp)
    else:
        check(f"[{render}] exporter is in containers, not initContainers", len(in_main) == 1 and not in_init)
        exp = in_main[0] if in_main else None
        check(f"[{render}] exporter has no restartPolicy (a classic container)",
              exp is not None and "restartPolicy" not in exp)
        check(f"[{render}] no init container left with restartPolicy",
              not any("restartPolicy" in c for c in inits))
    executor = [c for c in mains if c["name"] == EXECUTOR]
    check(f"[{render}] executor is a main container", len(executor) == 1)
    if exp is None or len(executor) != 1:
        return dep
    executor = executor[0]

    ports = [p for p in exp.get("ports", []) if p.get("name") == "metrics"]
    check(f"[{render}] exporter port metrics = {METRICS_PORT}/TCP",
          len(ports) == 1 and ports[0].get("containerPort") == METRICS_PORT
          and ports[0].get("protocol", "TCP") == "TCP", exp.get("ports"))

    if tls:
        # Behind basic auth and client certificates the kubelet cannot pass: TCP on the same port.
        for p in ("startupProbe", "livenessProbe"):
            probe = exp.get(p) or {}
            check(f"[{render}] exporter {p} is tcpSocket on port metrics (no httpGet, no exec)",
                  (probe.get("tcpSocket") or {}).get("port") == "metrics"
                  and not any(k in probe for k in ("httpGet", "exec", "grpc")), probe)
    else:
        def http_probe(p):
            return (exp.get(p) or {}).get("httpGet") or {}
        check(f"[{render}] exporter liveness probe GET /-/healthy on port metrics",
              http_probe("livenessProbe").get("path") == "/-/healthy" and http_probe("livenessProbe").get("port") == "metrics")
        check(f"[{render}] exporter startup probe GET /-/healthy on port metrics",
              http_probe("startupProbe").get("path") == "/-/healthy" and http_probe("startupProbe").get("port") == "metrics")
    check(f"[{render}] exporter resources are the documented {EXPORTER_RESOURCES}",
          exp.get("resources") == EXPORTER_RESOURCES, exp.get("resources"))

    volumes = {v["name"]: v for v in pod.get("volumes", [])}
    exp_mounts = {m["name"]: m for m in exp.get("volumeMounts", [])}
    ex_mounts = {m["name"]: m for m in executor.get("volumeMounts", [])}
    shared = [n for n in exp_mounts if n in ex_mounts]
    check(f"[{render}] exporter and executor share exactly one (log) volume", len(shared) == 1, shared)
    if len(shared) != 1:
        return dep
    logs = shared[0]
    check(f"[{render}] log volume '{logs}' is an emptyDir with a sizeLimit",
          "sizeLimit" in (volumes.get(logs, {}).get("emptyDir") or {}), volumes.get(logs))
    check(f"[{render}] log volume read-only for the exporter", exp_mounts[logs].get("readOnly") is True)
    check(f"[{render}] log volume writable for the executor", not ex_mounts[logs].get("readOnly", False))

    args = exp.get("args") or []

    def flag(name):
        vals = [a.split("=", 1)[1] for a in args if a.startswith(f"--{name}=")]
        return vals[0] if len(vals) == 1 else None
    state_file = flag("state-file")
    path_glob = flag("path")
    check(f"[{render}] exporter runs `run`", args[:1] == ["run"], args)
    check(f"[{render}] exporter --path under the log mount",
          path_glob is not None and posixpath.dirname(path_glob) == exp_mounts[logs]["mountPath"], path_glob)
    state_mounts = [m for m in exp_mounts.values() if state_file and posixpath.dirname(state_file) == m["mountPath"]]
    if check(f"[{render}] exporter --state-file on a mounted volume", len(state_mounts) == 1, state_file):
        sv = state_mounts[0]["name"]
        check(f"[{render}] state volume '{sv}' is not the log volume", sv != logs)
        check(f"[{render}] state volume writable for the exporter", not state_mounts[0].get("readOnly", False))
        check(f"[{render}] state volume is an emptyDir with a sizeLimit",
              "sizeLimit" in (volumes.get(sv, {}).get("emptyDir") or {}), volumes.get(sv))
        others = [c["name"] for c in inits + mains if c is not exp
                  and any(m["name"] == sv for m in c.get("volumeMounts", []))]
        check(f"[{render}] only the exporter mounts the state volume", not others, others)
    listen = flag("web.listen-address")
    check(f"[{render}] exporter listens on port {METRICS_PORT}",
          listen is None or listen.endswith(f":{METRICS_PORT}"), listen)
    check(f"[{render}] exporter listen address not pinned to IPv4 (an IPv6 pod IP must answer the probes)",
          listen is None or not listen.startswith("0.0.0.0"), listen)
    check(f"[{render}] exporter sets a bad state file aside (--state-reset-on-error) instead of exiting",
          "--state-reset-on-error" in args, args)
    check(f"[{render}] exporter writes its audit records to stdout (--audit-log=-)", flag("audit-log") == "-", args)
    if not tls:
        check(f"[{render}] no --web.config.file (TLS is opt-in, components/web-tls)",
              not any(a.startswith("--web.config.file") for a in args), args)
    return dep


def namespace_and_label_checks(render, docs):
    ns = one(docs, "Namespace", NAMESPACE)
    check(f"[{render}] Namespace {NAMESPACE} is part of the install", ns is not None)
    bad = [f"{d['kind']}/{d['metadata']['name']}" for d in docs
           if d["kind"] not in CLUSTER_SCOPED and d["metadata"].get("namespace") != NAMESPACE]
    check(f"[{render}] every namespaced object is in {NAMESPACE}", not bad, bad)
    bad = [f"{d['kind']}/{d['metadata']['name']}" for d in docs
           if d["kind"] in CLUSTER_SCOPED and "namespace" in d["metadata"]]
    check(f"[{render}] no cluster-scoped object carries a namespace", not bad, bad)
    bad = [f"{d['kind']}/{d['metadata']['name']}" for d in docs
           if not all(k in (d["metadata"].get("labels") or {}) for k in REQUIRED_LABELS)]
    check(f"[{render}] every object has labels {', '.join(REQUIRED_LABELS)}", not bad, bad)


def monitoring_checks(render, docs, dep, root):
    pm = one(docs, "PodMonitor")
    if not check(f"[{render}] one PodMonitor", pm is not None) or dep is None:
        return
    pod_labels = dep["spec"]["template"]["metadata"].get("labels") or {}
    sel = pm["spec"]["selector"].get("matchLabels") or {}
    check(f"[{render}] PodMonitor selector matches the pod",
          sel and all(pod_labels.get(k) == v for k, v in sel.items()), sel)
    check(f"[{render}] PodMonitor has no namespaceSelector (follows its own namespace)",
          "namespaceSelector" not in pm["spec"])
    eps = pm["spec"]["podMetricsEndpoints"]
    check(f"[{render}] PodMonitor scrapes port metrics at /metrics",
          any(e.get("port") == "metrics" and e.get("path", "/metrics") == "/metrics" for e in eps))
    check(f"[{render}] PodMonitor sets the namespace label",
          any(r.get("targetLabel") == "namespace" and r.get("sourceLabels") == ["__meta_kubernetes_namespace"]
              for e in eps for r in e.get("relabelings", [])))

    np_ = one(docs, "NetworkPolicy")
    if np_ is not None:
        sel = np_["spec"]["podSelector"].get("matchLabels") or {}
        check(f"[{render}] NetworkPolicy selects the pod", all(pod_labels.get(k) == v for k, v in sel.items()))
        check(f"[{render}] NetworkPolicy admits port metrics",
              any(p.get("port") in ("metrics", METRICS_PORT) for r in np_["spec"].get("ingress", [])
                  for p in r.get("ports", [])))

    # PrometheusRule == the rule file's groups.
    pr = one(docs, "PrometheusRule")
    rules_path = os.path.join(root, "deploy/prometheus/denials-exporter.rules.yml")
    if check(f"[{render}] one PrometheusRule", pr is not None) and check(
            f"[{render}] rule file exists", os.path.isfile(rules_path), rules_path):
        with open(rules_path, encoding="utf-8") as fh:
            src = yaml.safe_load(fh)
        check(f"[{render}] PrometheusRule spec.groups equals deploy/prometheus/denials-exporter.rules.yml",
              pr["spec"] == {"groups": src.get("groups")})

    # Dashboard ConfigMaps == dashboards/*.json, byte for byte.
    sources = {os.path.basename(p): p for p in sorted(glob.glob(os.path.join(root, "dashboards", "*.json")))}
    cms = [d for d in docs if d["kind"] == "ConfigMap"
           and (d["metadata"].get("labels") or {}).get("grafana_dashboard") == "1"]
    check(f"[{render}] one dashboard ConfigMap per dashboards/*.json ({len(sources)})",
          len(cms) == len(sources) and len(sources) > 0, [c["metadata"]["name"] for c in cms])
    got = {}
    for cm in cms:
        got.update(cm.get("data") or {})
        size = sum(len(v.encode()) for v in (cm.get("data") or {}).values())
        check(f"[{render}] ConfigMap {cm['metadata']['name']} under 1 MiB", size < CONFIGMAP_LIMIT, size)
        if size > CLIENT_SIDE_APPLY_LIMIT:
            print(f"note [{render}] ConfigMap {cm['metadata']['name']} is {size} bytes: "
                  f"install with kubectl apply --server-side (client-side apply's annotation is limited to 256 KiB)")
    check(f"[{render}] dashboard keys equal dashboards/*.json names", set(got) == set(sources),
          sorted(set(got) ^ set(sources)))
    for name, path in sources.items():
        with open(path, encoding="utf-8") as fh:
            text = fh.read()
        check(f"[{render}] dashboard {name} identical to dashboards/{name}", got.get(name) == text)
        try:
            json.loads(got.get(name, ""))
            ok = True
        except ValueError as e:
            ok = e
        check(f"[{render}] dashboard {name} is JSON", ok is True, ok)


def exporter_of(dep):
    pod = dep["spec"]["template"]["spec"]
    found = [c for c in (pod.get("initContainers") or []) + (pod.get("containers") or []) if c["name"] == EXPORTER]
    return found[0] if len(found) == 1 else None


def strip_web_tls(docs, web_volume):
    """The render without what components/web-tls adds, to compare with the render without it:
    the flag, the volume and its mount, the probe handlers, the PodMonitor's TLS and auth."""
    out = []
    for d in copy.deepcopy(docs):
        if d["kind"] == "Deployment":
            pod = d["spec"]["template"]["spec"]
            pod["volumes"] = [v for v in pod.get("volumes", []) if v["name"] != web_volume]
            for c in (pod.get("initContainers") or []) + pod.get("containers", []):
                c["volumeMounts"] = [m for m in c.get("volumeMounts", []) if m["name"] != web_volume]
                if c["name"] == EXPORTER:
                    c["args"] = [a for a in c.get("args", []) if not a.startswith("--web.config.file")]
                    for p in ("startupProbe", "livenessProbe", "readinessProbe"):
                        for handler in ("httpGet", "tcpSocket"):
                            (c.get(p) or {}).pop(handler, None)
        if d["kind"] == "PodMonitor":
            for ep in d["spec"]["podMetricsEndpoints"]:
                ep["scheme"] = "http"
                ep.pop("tlsConfig", None)
                ep.pop("basicAuth", None)
        out.append(d)
    return sorted(out, key=lambda d: (d["kind"], d["metadata"]["name"]))


def secret_ref_ok(ref):
    return isinstance(ref, dict) and bool(ref.get("name")) and bool(ref.get("key"))


def web_tls_checks(render, docs, plain_docs, root):
    """The render with components/web-tls against the same overlay without it."""
    dep, plain_dep = one(docs, "Deployment", "agent-executor"), one(plain_docs, "Deployment", "agent-executor")
    if dep is None or plain_dep is None:
        return check(f"[{render}] Deployments to compare", False)
    exp, plain_exp = exporter_of(dep), exporter_of(plain_dep)
    if not check(f"[{render}] one exporter container", exp is not None and plain_exp is not None):
        return False
    pod = dep["spec"]["template"]["spec"]
    args = exp.get("args") or []
    flags = [a for a in args if a.startswith("--web.config.file")]
    check(f"[{render}] --web.config.file=PATH exactly once on the exporter", len(flags) == 1
          and flags[0].startswith("--web.config.file="), flags)
    env = [e.get("name") for e in exp.get("env") or []]
    check(f"[{render}] no DENIALS_EXPORTER_WEB_CONFIG_FILE beside the flag",
          "DENIALS_EXPORTER_WEB_CONFIG_FILE" not in env, env)
    others = [c["name"] for c in (pod.get("initContainers") or []) + pod.get("containers", [])
              if c is not exp and any(a.startswith("--web.config.file") for a in c.get("args") or [])]
    check(f"[{render}] no other container gets --web.config.file", not others, others)
    if len(flags) != 1 or "=" not in flags[0]:
        return False
    config = flags[0].split("=", 1)[1]

    mounts = [m for m in exp.get("volumeMounts", []) if posixpath.dirname(config) == m["mountPath"]]
    if not check(f"[{render}] the web config's directory is a volume mount", len(mounts) == 1, config):
        return False
    mount = mounts[0]
    web_volume = mount["name"]
    check(f"[{render}] web config mount '{web_volume}' is read-only", mount.get("readOnly") is True, mount)
    check(f"[{render}] web config mount is whole (no subPath: a Secret update reaches it)",
          "subPath" not in mount and "subPathExpr" not in mount, mount)
    state = [a.split("=", 1)[1] for a in args if a.startswith("--state-file=")]
    writable = [m["name"] for m in exp.get("volumeMounts", []) if not m.get("readOnly")
                and not (state and posixpath.dirname(state[0]) == m["mountPath"])]
    check(f"[{render}] every exporter mount but the state volume is read-only", not writable, writable)
    sharing = [c["name"] for c in (pod.get("initContainers") or []) + pod.get("containers", [])
               if c is not exp and any(m["name"] == web_volume for m in c.get("volumeMounts", []))]
    check(f"[{render}] only the exporter mounts '{web_volume}'", not sharing, sharing)

    volume = {v["name"]: v for v in pod.get("volumes", [])}.get(web_volume) or {}
    projected = volume.get("projected") or {}
    sources = projected.get("sources") or []
    check(f"[{render}] '{web_volume}' is a projected volume of Secrets only",
          sources and all(set(s) == {"secret"} for s in sources), volume)
    mode = projected.get("defaultMode", 0o644)
    check(f"[{render}] '{web_volume}' files are not world-readable nor writable (defaultMode {oct(mode)})",
          mode & 0o007 == 0 and mode & 0o222 == 0, oct(mode))
    files = {}
    for s in sources:
        sec = s.get("secret") or {}
        for item in sec.get("items") or []:
            files[item["path"]] = (sec.get("name"), item["key"], sec.get("optional", False))
    name = posixpath.basename(config)
    check(f"[{render}] {name} comes from a required Secret",
          name in files and files[name][2] is False, files.get(name))
    example = os.path.join(root, "deploy/kubernetes/components/web-tls/web-config.example.yml")
    if check("components/web-tls/web-config.example.yml exists", os.path.isfile(example)):
        with open(example, encoding="utf-8") as fh:
            tls_cfg = (yaml.safe_load(fh) or {}).get("tls_server_config") or {}
        named = [tls_cfg.get(k) for k in ("cert_file", "key_file", "client_ca_file") if tls_cfg.get(k)]
        check(f"[{render}] the files web-config.example.yml names are projected beside it",
              len(named) == 3 and all(n in files for n in named), (named, sorted(files)))
        for n in ("cert_file", "key_file"):
            check(f"[{render}] {n} comes from a required Secret",
                  tls_cfg.get(n) in files and files[tls_cfg[n]][2] is False, files.get(tls_cfg.get(n)))

    # Probes: same port and timings as without the component, TCP instead of HTTP.
    port = [p for p in exp.get("ports", []) if p.get("name") == "metrics"]
    check(f"[{render}] port metrics is still {METRICS_PORT}",
          len(port) == 1 and port[0].get("containerPort") == METRICS_PORT, exp.get("ports"))
    check(f"[{render}] exporter has no readinessProbe", "readinessProbe" not in exp)
    for p in ("startupProbe", "livenessProbe"):
        was = copy.deepcopy(plain_exp.get(p) or {})
        now = copy.deepcopy(exp.get(p) or {})
        old_port = (was.pop("httpGet", None) or {}).get("port")
        new_port = (now.pop("tcpSocket", None) or {}).get("port")
        check(f"[{render}] {p} targets the port the plain render's did ({old_port})",
              old_port is not None and new_port == old_port, (old_port, new_port))
        check(f"[{render}] {p} timings unchanged", now == was, (was, now))

    # The PodMonitor: https, the server verified, a client certificate, basic auth, from Secrets.
    pm = one(docs, "PodMonitor")
    eps = pm["spec"]["podMetricsEndpoints"] if pm else []
    check(f"[{render}] every PodMonitor endpoint uses scheme https", eps and all(e.get("scheme") == "https" for e in eps),
          [e.get("scheme") for e in eps])
    secret_names = {f[0] for f in files.values()}
    for i, ep in enumerate(eps):
        tls = ep.get("tlsConfig") or {}
        check(f"[{render}] endpoint {i} verifies the server (tlsConfig.ca from a Secret, no insecureSkipVerify)",
              secret_ref_ok((tls.get("ca") or {}).get("secret")) and not tls.get("insecureSkipVerify"), tls)
        check(f"[{render}] endpoint {i} sets tlsConfig.serverName (Prometheus dials the pod IP)",
              bool(tls.get("serverName")), tls)
        check(f"[{render}] endpoint {i} presents a client certificate from a Secret",
              secret_ref_ok((tls.get("cert") or {}).get("secret")) and secret_ref_ok(tls.get("keySecret")), tls)
        auth = ep.get("basicAuth") or {}
        check(f"[{render}] endpoint {i} sends basic auth from a Secret",
              secret_ref_ok(auth.get("username")) and secret_ref_ok(auth.get("password")), auth)
        for ref in ((tls.get("ca") or {}).get("secret"), (tls.get("cert") or {}).get("secret"),
                    tls.get("keySecret"), auth.get("username"), auth.get("password")):
            if secret_ref_ok(ref):
                secret_names.add(ref["name"])
    check(f"[{render}] no Secret object in the render (the operator creates them)",
          not [d for d in docs if d["kind"] == "Secret"])

    check(f"[{render}] equal to the render without web-tls but for the flag, the mount, the probes and the PodMonitor's TLS",
          strip_web_tls(docs, web_volume) == strip_web_tls(plain_docs, web_volume))

    # Every Secret the render needs is created in docs/deploy.md.
    path = os.path.join(root, "docs/deploy.md")
    with open(path, encoding="utf-8") as fh:
        creates = [line for line in fh.read().replace("\\\n", " ").splitlines() if "create secret" in line]
    for s in sorted(secret_names):
        check(f"[{render}] docs/deploy.md has a `kubectl create secret` for {s}",
              any(re.search(rf"create secret \S+ {re.escape(s)}(\s|$)", line) for line in creates))
    return True


def docs_checks(root):
    path = os.path.join(root, "docs/deploy.md")
    if not check("docs/deploy.md exists", os.path.isfile(path)):
        return
    with open(path, encoding="utf-8") as fh:
        text = fh.read()
    for q in ("10m", "32Mi", "200m", "64Mi", "10403", "overlays/native-sidecar", "overlays/classic-sidecar"):
        check(f"docs/deploy.md mentions {q}", q in text)


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--root", required=True)
    ap.add_argument("--native", required=True)
    ap.add_argument("--classic", required=True)
    ap.add_argument("--native-tls", help="the native overlay rendered with components/web-tls")
    ap.add_argument("--classic-tls", help="the classic overlay rendered with components/web-tls")
    args = ap.parse_args()

    native, classic = load(args.native), load(args.classic)
    for render, docs, is_native in (("native", native, True), ("classic", classic, False)):
        namespace_and_label_checks(render, docs)
        dep = deployment_checks(render, docs, is_native)
        monitoring_checks(render, docs, dep, args.root)

    # The two overlays differ only in where the exporter container sits.
    def normalise(docs):
        out = []
        for d in docs:
            d = copy.deepcopy(d)
            if d["kind"] == "Deployment":
                pod = d["spec"]["template"]["spec"]
                cs = pod.pop("initContainers", []) + pod.get("containers", [])
                for c in cs:
                    c.pop("restartPolicy", None)
                pod["containers"] = sorted(cs, key=lambda c: c["name"])
            out.append(d)
        return sorted(out, key=lambda d: (d["kind"], d["metadata"]["name"]))
    check("classic render equals native render but for the exporter's place", normalise(native) == normalise(classic))

    # The same overlays with components/web-tls.
    if args.native_tls or args.classic_tls:
        tls_renders = {}
        for render, path, plain, is_native in (("native+web-tls", args.native_tls, native, True),
                                                ("classic+web-tls", args.classic_tls, classic, False)):
            if not check(f"[{render}] rendered", bool(path)):
                continue
            docs = tls_renders[render] = load(path)
            namespace_and_label_checks(render, docs)
            dep = deployment_checks(render, docs, is_native, tls=True)
            monitoring_checks(render, docs, dep, args.root)
            web_tls_checks(render, docs, plain, args.root)
        if len(tls_renders) == 2:
            check("classic+web-tls equals native+web-tls but for the exporter's place",
                  normalise(tls_renders["native+web-tls"]) == normalise(tls_renders["classic+web-tls"]))

    docs_checks(args.root)

    failed = results.count(False)
    print(f"k8s_assert: {len(results) - failed} checks passed, {failed} failed")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
