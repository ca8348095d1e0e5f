#!/usr/bin/env python3
"""components/sidecar applied to a workload this project does not own (used by k8s_check.sh).

    k8s_foreign.py --source data/foreign/chart-render.yaml --render rendered.yaml

The source is a chart-shaped render kept as test data (tests/deploy/data/foreign): a Deployment
with its own init container, a port named `metrics` and a pod securityContext of its own, a
StatefulSet and a Job, all labelled denials-exporter/sidecar: enabled, and a Deployment without the
label, and a CronJob. The render is that kustomization built with components/sidecar, monitoring and web-tls.
Checks that every labelled workload got the exporter as its first init container (a native
sidecar with startup and liveness probes and no readiness probe, a read-only log mount, a state
volume of its own, --state-reset-on-error, the audit stream on stdout, no IPv4-only listen address)
and both volumes, that the workload's own containers, init containers, volumes and every other
field are exactly as the chart rendered them, that the unlabelled workload is untouched, and that
the PodMonitor selects the injected pods only and scrapes the exporter's port only. With
--post-rendered, examples/helm/post-renderer's output must give every workload the same spec; with
--helm-values and --sidecar, the Helm values snippet must carry the component's sidecar verbatim.
The render must hold no NetworkPolicy that selects the chart's pods (the default install leaves
their ingress alone); with --networkpolicy, the same source rendered with
components/metrics-networkpolicy too must hold exactly one, selecting every injected pod and no
other, admitting only the monitoring namespace, only to port 10403.
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
WORKLOAD_KINDS = {"Deployment", "StatefulSet", "Job", "CronJob"}


def key(d):
    return d["kind"], d["metadata"]["name"]


def template_holder(spec, kind):
    """The dict whose `template` is the pod template: a CronJob's is spec.jobTemplate.spec."""
    return spec["jobTemplate"]["spec"] if kind == "CronJob" else spec


def pod_template(d):
    return template_holder(d["spec"], d["kind"])["template"]


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
    tpl_src = template_holder(spec_src, src["kind"]).pop("template")
    tpl_out = template_holder(spec_out, src["kind"]).pop("template")
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
        labels = pod_template(d).get("metadata", {}).get("labels") or {}
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


def without_image(containers):
    return [{k: v for k, v in c.items() if k != "image"} for c in containers or []]


def helm_values_checks(values_path, sidecar_path, render):
    """The Helm values snippet carries the component's sidecar, volumes and pod label verbatim, and
    the image the component's `images:` entry names."""
    with open(values_path, encoding="utf-8") as fh:
        values = yaml.safe_load(fh)
    with open(sidecar_path, encoding="utf-8") as fh:
        tpl = yaml.safe_load(fh)["spec"]["template"]
    check("helm values: extraInitContainers is the component's sidecar",
          without_image(values.get("extraInitContainers")) == without_image(tpl["spec"]["initContainers"]))
    rendered = {c["image"] for d in render if d["kind"] in WORKLOAD_KINDS
                for c in pod_template(d)["spec"].get("initContainers") or [] if c["name"] == EXPORTER}
    images = [c.get("image") for c in values.get("extraInitContainers") or [] if c.get("name") == EXPORTER]
    check("helm values: the exporter's image is the one the component's images: entry sets",
          len(rendered) == 1 and images == sorted(rendered), (images, sorted(rendered)))
    check("helm values: extraVolumes are the component's volumes", values.get("extraVolumes") == tpl["spec"]["volumes"])
    check("helm values: podLabels are the component's pod label", values.get("podLabels") == tpl["metadata"]["labels"])
    mounts = values.get("extraVolumeMounts") or []
    check(f"helm values: the executor mounts executor-logs at {LOG_DIR}",
          {"name": "executor-logs", "mountPath": LOG_DIR} in mounts, mounts)


def selects_pod(policy, d):
    sel = policy["spec"].get("podSelector") or {}
    if sel.get("matchExpressions"):
        return True  # not evaluated here: counted as selecting, so that the check stays strict
    labels = pod_template(d).get("metadata", {}).get("labels") or {}
    return all(labels.get(k) == v for k, v in (sel.get("matchLabels") or {}).items())


def default_networkpolicy_checks(render, workloads):
    pols = [d for d in render if d["kind"] == "NetworkPolicy"]
    for d in workloads:
        hit = [p["metadata"]["name"] for p in pols if selects_pod(p, d)]
        check(f"default install: no NetworkPolicy selects the pods of {d['kind']}/{d['metadata']['name']}",
              not hit, hit)


def opt_in_networkpolicy_checks(render, injected, untouched):
    """components/metrics-networkpolicy: the monitoring namespace alone, to port 10403 alone."""
    out = {key(d): d for d in render}
    pols = [d for d in render if d["kind"] == "NetworkPolicy"]
    if not check("opt-in: exactly one NetworkPolicy", len(pols) == 1, [p["metadata"]["name"] for p in pols]):
        return
    pol = pols[0]
    for d in injected:
        check(f"opt-in: the NetworkPolicy selects the pods of {d['kind']}/{d['metadata']['name']}",
              selects_pod(pol, out[key(d)]))
    for d in untouched:
        check(f"opt-in: the NetworkPolicy does not select the pods of {d['kind']}/{d['metadata']['name']}",
              not selects_pod(pol, out[key(d)]))
    spec = pol["spec"]
    check("opt-in: Ingress only (egress untouched)", spec.get("policyTypes") == ["Ingress"], spec.get("policyTypes"))
    want = [{"from": [{"namespaceSelector": {"matchLabels": {"kubernetes.io/metadata.name": "monitoring"}}}],
             "ports": [{"port": 10403, "protocol": "TCP"}]}]
    check("opt-in: admits the monitoring namespace to TCP 10403, by number, and nothing else",
          spec.get("ingress") == want, spec.get("ingress"))
    check("opt-in: the namespace is the kustomization's", pol["metadata"].get("namespace") == "acme")


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--source", required=True)
    ap.add_argument("--render", required=True)
    ap.add_argument("--post-rendered", help="examples/helm/post-renderer's output for the same source")
    ap.add_argument("--helm-values", help="examples/helm/values-denials-exporter.yaml")
    ap.add_argument("--sidecar", help="deploy/kubernetes/components/sidecar/sidecar.yaml")
    ap.add_argument("--networkpolicy", help="the same source rendered with components/metrics-networkpolicy too")
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
    default_networkpolicy_checks(render, injected + untouched)
    if args.networkpolicy:
        opt_in_networkpolicy_checks(load(args.networkpolicy), injected, untouched)
    if args.post_rendered:
        post_renderer_checks(render, load(args.post_rendered))
    if args.helm_values and args.sidecar:
        helm_values_checks(args.helm_values, args.sidecar, render)
    if args.post_rendered:
        default_networkpolicy_checks(load(args.post_rendered), injected + untouched)
    failed = results.count(False)
    print(f"k8s_foreign: {len(results) - failed} checks passed, {failed} failed")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
