#!/usr/bin/env python3
"""components/sidecar applied to a workload this project does not own (used by k8s_check.sh).

    k8s_foreign.py --source data/foreign/chart-render.yaml --render rendered.yaml

The source is a chart-shaped render kept as test data (tests/deploy/data/foreign): a Deployment
with its own init container, a port named `metrics` and a pod securityContext of its own, a
StatefulSet and a Job, all labelled denials-exporter/sidecar: enabled, and a Deployment without the
label. The render is that kustomization built with components/sidecar, monitoring and web-tls.
Checks that every labelled workload got the exporter as its first init container (a native
sidecar with startup and liveness probes and no readiness probe, a read-only log mount, a state
volume of its own, --state-reset-on-error, the audit stream on stdout, no IPv4-only listen address)
and both volumes, that the workload's own containers, init containers, volumes and every other
field are exactly as the chart rendered them, that the unlabelled workload is untouched, and that
the PodMonitor selects the injected pods only and scrapes the exporter's port only. With
--post-rendered, examples/helm/post-renderer's output must give every workload the same spec; with
--helm-values and --sidecar, the Helm values snippet must carry the component's sidecar verbatim.
Prints one line per check; exit 1 if any failed.
"""
import argparse
import copy
import os
import sys

import yaml

sys.dont_write_bytecode = True  # no __pycache__ in the repository
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from k8s_assert import check, load, results  # noqa: E402  (same directory: the check log and the loader)

EXPORTER = "denials-exporter"
LABEL = ("denials-exporter/sidecar", "enabled")
OWN_VOLUMES = {"executor-logs", "exporter-state"}
WEB_TLS_VOLUME = "exporter-web-tls"
LOG_DIR = "/var/log/executor"
WORKLOAD_KINDS = {"Deployment", "StatefulSet", "Job"}


def key(d):
    return d["kind"], d["metadata"]["name"]


def labelled(d):
    return (d["metadata"].get("labels") or {}).get(LABEL[0]) == LABEL[1]


def exporter_checks(n, pod):
    inits = pod.get("initContainers") or []
    mine = [c for c in inits if c["name"] == EXPORTER]
    if not check(f"{n}: exactly one exporter, the first init container", len(mine) == 1 and inits[0]["name"] == EXPORTER,
                 [c["name"] for c in inits]):
        return
    exp = mine[0]
    check(f"{n}: exporter is a native sidecar (restartPolicy Always)", exp.get("restartPolicy") == "Always")
    check(f"{n}: exporter has startup and liveness probes and no readiness probe",
          "startupProbe" in exp and "livenessProbe" in exp and "readinessProbe" not in exp)
    args = exp.get("args") or []
    for flag in ("--state-reset-on-error", "--audit-log=-"):
        check(f"{n}: exporter runs with {flag}", flag in args, args)
    listen = [a for a in args if a.startswith("--web.listen-address")]
    check(f"{n}: exporter does not pin an IPv4-only listen address", not any("0.0.0.0" in a for a in listen), listen)
    mounts = {m["name"]: m for m in exp.get("volumeMounts") or []}
    logs = mounts.get("executor-logs") or {}
    check(f"{n}: exporter mounts executor-logs read-only at {LOG_DIR}",
          logs.get("readOnly") is True and logs.get("mountPath") == LOG_DIR, logs)
    check(f"{n}: exporter mounts exporter-state writable", "exporter-state" in mounts
          and not mounts["exporter-state"].get("readOnly"), mounts.get("exporter-state"))
    path = [a for a in args if a.startswith("--path=")]
    check(f"{n}: exporter reads under {LOG_DIR}", len(path) == 1 and path[0].startswith(f"--path={LOG_DIR}/"), path)


def workload_checks(src, out):
    n = f"{src['kind']}/{src['metadata']['name']}"
    check(f"{n}: namespace set by the kustomization", out["metadata"].get("namespace") == "acme")
    check(f"{n}: workload metadata unchanged",
          {k: v for k, v in out["metadata"].items() if k != "namespace"} == src["metadata"])
    spec_src, spec_out = copy.deepcopy(src["spec"]), copy.deepcopy(out["spec"])
    tpl_src, tpl_out = spec_src.pop("template"), spec_out.pop("template")
    check(f"{n}: every spec field outside the pod template unchanged", spec_src == spec_out)
    pod_src, pod_out = tpl_src["spec"], tpl_out["spec"]
    want_labels = dict(tpl_src.get("metadata", {}).get("labels") or {}, **{LABEL[0]: LABEL[1]})
    check(f"{n}: pod template labels are the chart's plus {LABEL[0]}",
          (tpl_out.get("metadata") or {}).get("labels") == want_labels, (tpl_out.get("metadata") or {}).get("labels"))
    check(f"{n}: pod template annotations unchanged",
          (tpl_out.get("metadata") or {}).get("annotations") == (tpl_src.get("metadata") or {}).get("annotations"))
    exporter_checks(n, pod_out)
    check(f"{n}: the workload's own containers are exactly as rendered by the chart",
          pod_out.get("containers") == pod_src.get("containers"))
    own_inits = [c for c in pod_out.get("initContainers") or [] if c["name"] != EXPORTER]
    check(f"{n}: the workload's own init containers unchanged, in order",
          own_inits == (pod_src.get("initContainers") or []), [c["name"] for c in own_inits])
    vols = {v["name"]: v for v in pod_out.get("volumes") or []}
    for v in pod_src.get("volumes") or []:
        check(f"{n}: own volume {v['name']} unchanged", vols.get(v["name"]) == v, vols.get(v["name"]))
    for name in sorted(OWN_VOLUMES):
        check(f"{n}: volume {name} is an emptyDir with a sizeLimit",
              "sizeLimit" in ((vols.get(name) or {}).get("emptyDir") or {}), vols.get(name))
    extra = set(vols) - OWN_VOLUMES - {WEB_TLS_VOLUME} - {v["name"] for v in pod_src.get("volumes") or []}
    check(f"{n}: no other volume added", not extra, extra)
    rest_src = {k: v for k, v in pod_src.items() if k not in ("containers", "initContainers", "volumes")}
    rest_out = {k: v for k, v in pod_out.items() if k not in ("containers", "initContainers", "volumes")}
    check(f"{n}: every other pod field (securityContext, restartPolicy, serviceAccountName) unchanged",
          rest_src == rest_out, (rest_src, rest_out))


def podmonitor_checks(docs, injected, untouched):
    pms = [d for d in docs if d["kind"] == "PodMonitor"]
    if not check("one PodMonitor", len(pms) == 1):
        return
    sel = pms[0]["spec"]["selector"].get("matchLabels") or {}
    check("PodMonitor selects by the sidecar label only", sel == {LABEL[0]: LABEL[1]}, sel)

    def selects(d):
        labels = d["spec"]["template"].get("metadata", {}).get("labels") or {}
        return all(labels.get(k) == v for k, v in sel.items())
    for d in injected:
        check(f"PodMonitor selects the pods of {d['kind']}/{d['metadata']['name']}", selects(d))
    for d in untouched:
        check(f"PodMonitor does not select the pods of {d['kind']}/{d['metadata']['name']}", not selects(d))
    keeps = [r for e in pms[0]["spec"]["podMetricsEndpoints"] for r in e.get("relabelings") or []
             if r.get("action") == "keep" and r.get("sourceLabels") == ["__meta_kubernetes_pod_container_name"]]
    check("PodMonitor keeps the exporter container's port only (the executor has a port named metrics too)",
          len(keeps) == 1 and keeps[0].get("regex") == EXPORTER, keeps)


def post_renderer_checks(render, post):
    """examples/helm/post-renderer, given the chart's render, gives every workload the same spec."""
    out = {key(d): d for d in render}
    for d in post:
        if d["kind"] in WORKLOAD_KINDS:
            n = f"{d['kind']}/{d['metadata']['name']}"
            check(f"{n}: the post-renderer gives the spec the kustomization gives",
                  out.get(key(d), {}).get("spec") == d["spec"])


def helm_values_checks(values_path, sidecar_path):
    """The Helm values snippet carries the component's sidecar, volumes and pod label verbatim."""
    with open(values_path, encoding="utf-8") as fh:
        values = yaml.safe_load(fh)
    with open(sidecar_path, encoding="utf-8") as fh:
        tpl = yaml.safe_load(fh)["spec"]["template"]
    check("helm values: extraInitContainers is the component's sidecar",
          values.get("extraInitContainers") == tpl["spec"]["initContainers"])
    check("helm values: extraVolumes are the component's volumes", values.get("extraVolumes") == tpl["spec"]["volumes"])
    check("helm values: podLabels are the component's pod label", values.get("podLabels") == tpl["metadata"]["labels"])
    mounts = values.get("extraVolumeMounts") or []
    check(f"helm values: the executor mounts executor-logs at {LOG_DIR}",
          {"name": "executor-logs", "mountPath": LOG_DIR} in mounts, mounts)


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--source", required=True)
    ap.add_argument("--render", required=True)
    ap.add_argument("--post-rendered", help="examples/helm/post-renderer's output for the same source")
    ap.add_argument("--helm-values", help="examples/helm/values-denials-exporter.yaml")
    ap.add_argument("--sidecar", help="deploy/kubernetes/components/sidecar/sidecar.yaml")
    args = ap.parse_args()
    source = {key(d): d for d in load(args.source)}
    render = load(args.render)
    out = {key(d): d for d in render}
    injected, untouched = [], []
    check("the test data has a labelled Deployment, StatefulSet and Job, and an unlabelled workload",
          {k for k, _ in source if labelled(source[(k, _)])} == WORKLOAD_KINDS
          and any(not labelled(d) for d in source.values()))
    for k, src in source.items():
        got = out.get(k)
        if not check(f"{k[0]}/{k[1]} is in the render", got is not None):
            continue
        if labelled(src):
            workload_checks(src, got)
            injected.append(got)
        else:
            check(f"{k[0]}/{k[1]} (not labelled) untouched",
                  {**got, "metadata": {k2: v for k2, v in got["metadata"].items() if k2 != "namespace"}} == src)
            untouched.append(got)
    podmonitor_checks(render, injected, untouched)
    if args.post_rendered:
        post_renderer_checks(render, load(args.post_rendered))
    if args.helm_values and args.sidecar:
        helm_values_checks(args.helm_values, args.sidecar)
    failed = results.count(False)
    print(f"k8s_foreign: {len(results) - failed} checks passed, {failed} failed")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
