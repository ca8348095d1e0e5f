#!/usr/bin/env python3
"""The node agent as its DaemonSet runs it, against kubelet-style logs, with a kill -9.

    node_agent_check.py [BINARY]   (default target/release/denials-exporter)

Renders deploy/kubernetes/overlays/node-agent with `kubectl kustomize`, and runs BINARY with the
DaemonSet container's command and args and its environment, every hostPath volume mapped into a
temporary directory (a mount path in an arg or an env value becomes the same path under it;
regex-escaped in a value that is a regex). One thing is added: a loopback listen address, as
several tests share this machine. The logs are written by kubelet-style writers
(tests/deploy/kubelet_logs.py: CRI framing, the kubelet's default rotation of 10 MiB and 5 files,
renamed to 0.log.<time> and gzipped) for two pods in two namespaces, each with an `executor`
container and a `proxy` container beside it that logs denials too and must not be counted.

Checked: each pod's `permission_denials_total` (by its `namespace` and `pod` labels) equals the
denials its executor wrote, across rotations and a kill -9 in the middle of writing with the
agent down for a second; nothing of the `proxy` containers is counted; each pod's execution
record is counted under its own namespace and pod; the overlay mounts the logs read-only and
mounts no service account token; and, with one pod's logs deleted while the agent is stopped and
a grace period of 2 s, that pod's series are dropped and the other's kept. Exits 0 when every check holds; prints `N passed, N failed`.
"""

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
import urllib.request

import yaml

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from kubelet_logs import ContainerLog  # noqa: E402

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))
BIN = os.path.abspath(sys.argv[1] if len(sys.argv) > 1 else "target/release/denials-exporter")
OVERLAY = os.path.join(ROOT, "deploy/kubernetes/overlays/node-agent")
PODS = [("agents-a", "review-7d9f6c5b8-x2x9q"), ("agents-b", "triage-5c4b7d9f6-q8w2e")]
RECORD = (
    '{"level":30,"time":1781251300000,"executionId":"%s","workflow":"review",'
    '"sdkMsgType":"result","subtype":"success","costUsd":0.5,"numTurns":3,'
    '"msg":"Claude Agent SDK execution completed"}'
)

passed = failed = 0


def check(name, ok, detail=""):
    global passed, failed
    if ok:
        passed += 1
        print("ok   - " + name)
    else:
        failed += 1
        print("FAIL - %s %s" % (name, detail))


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def daemonset_container():
    rendered = subprocess.run(["kubectl", "kustomize", OVERLAY], check=True, capture_output=True,
                              text=True).stdout
    docs = [d for d in yaml.safe_load_all(rendered) if d]
    ds = next(d for d in docs if d["kind"] == "DaemonSet")
    pod = ds["spec"]["template"]["spec"]
    return pod, pod["containers"][0]


def mapped(value, mounts, tmp):
    """`value` with each mount path moved under `tmp` (escaped when `value` is a regex)."""
    for path in sorted(mounts, key=len, reverse=True):
        moved = tmp + path
        value = value.replace(path, re.escape(moved) if value.startswith("^") else moved)
    return value


def scrape(port):
    try:
        with urllib.request.urlopen("http://127.0.0.1:%d/metrics" % port, timeout=5) as r:
            return r.read().decode()
    except OSError:
        return ""


def series(text, name):
    """[(labels dict, value)] of the samples of `name`."""
    out = []
    for line in text.splitlines():
        if line.startswith(name + "{"):
            labels, value = line[len(name) + 1:].rsplit("} ", 1)
            out.append((dict(re.findall(r'(\w+)="((?:[^"\\]|\\.)*)"', labels)), float(value)))
    return out


def by_pod(text, name):
    counts = {}
    for labels, value in series(text, name):
        key = (labels.get("namespace"), labels.get("pod"))
        counts[key] = counts.get(key, 0) + value
    return counts


def main():
    pod_spec, container = daemonset_container()
    check("the DaemonSet mounts no service account token",
          pod_spec.get("automountServiceAccountToken") is False)
    volumes = {v["name"]: v for v in pod_spec["volumes"]}
    mounts = {m["mountPath"]: m for m in container["volumeMounts"]}
    logs = next(m for m in container["volumeMounts"] if m["mountPath"] == "/var/log/pods")
    check("the kubelet's logs are mounted read-only", logs.get("readOnly") is True)
    check("every volume is a hostPath", all("hostPath" in volumes[m["name"]]
                                            for m in container["volumeMounts"]))

    tmp = tempfile.mkdtemp(prefix="node-agent.")
    for path in mounts:
        os.makedirs(tmp + path, exist_ok=True)
    port = free_port()
    argv = [BIN] + [mapped(a, mounts, tmp) for a in container.get("command", [])[1:]]
    argv += [mapped(a, mounts, tmp) for a in container.get("args", [])]
    argv += ["--web.listen-address=127.0.0.1:%d" % port]
    env = {k: v for k, v in os.environ.items() if not k.startswith("DENIALS_EXPORTER_")}
    env.update({e["name"]: mapped(e["value"], mounts, tmp) for e in container.get("env", [])})
    log = open(os.path.join(tmp, "agent.log"), "ab")

    def start():
        return subprocess.Popen(argv, env=env, stdout=subprocess.DEVNULL, stderr=log)

    root = tmp + "/var/log/pods"
    writers = []
    for namespace, pod in PODS:
        writers.append((ContainerLog(root, namespace, pod, "executor"),
                        ContainerLog(root, namespace, pod, "proxy")))
    stop = threading.Event()

    def write():
        # 10k lines/s (3.6 MB/s) per executor: a 10 MiB roll every 3 s or so. Faster, a roll could
        # be made and gzipped within the second the agent is down, which the kubelet, rotating
        # at most once per containerLogMonitorInterval (10 s), never does (docs/node-agent.md).
        while not stop.is_set():
            for executor, proxy in writers:
                executor.write_denials(20, filler=49)
                proxy.write_denials(5, filler=10)
            time.sleep(0.1)

    agent = start()
    writer = threading.Thread(target=write)
    writer.start()
    time.sleep(6)
    agent.send_signal(signal.SIGKILL)
    agent.wait()
    time.sleep(1)
    agent = start()
    time.sleep(6)
    stop.set()
    writer.join()
    for executor, _ in writers:
        executor.write_line(RECORD % executor.execution)
    rotations = [executor.rotations for executor, _ in writers]
    want = {(ns, pod): w[0].denials for (ns, pod), w in zip(PODS, writers)}
    deadline = time.time() + 60
    got = {}
    while time.time() < deadline:
        text = scrape(port)
        got = by_pod(text, "permission_denials_total")
        executions = by_pod(text, "agent_executions_total")
        if got == want and all(executions.get(k) == 1 for k in want):
            break
        time.sleep(0.25)
    check("each executor rotated at least twice (the kubelet's 10 MiB, 5 files)",
          min(rotations) >= 2, rotations)
    check("each pod's denials counted exactly once, under its namespace and pod, across a kill -9",
          got == want, "want %s got %s" % (want, got))
    check("each pod's execution record counted under its namespace and pod",
          all(executions.get(k) == 1 for k in want), executions)
    total = sum(value for _, value in series(text, "permission_denials_total"))
    check("nothing of the proxy containers is counted (%d proxy denials written)"
          % sum(proxy.denials for _, proxy in writers), total == sum(want.values()), total)
    agent.terminate()
    agent.wait(30)

    # The second pod is deleted (the kubelet removes its log directory) while the agent is
    # stopped; started again with a grace period of 2 s instead of the DaemonSet's, its series
    # go, the first pod's stay.
    shutil.rmtree(os.path.dirname(writers[1][0].dir))
    env["DENIALS_EXPORTER_PATH_LABELS_GRACE"] = "2s"
    agent = start()
    gone, kept = PODS[1], PODS[0]
    deadline = time.time() + 30
    while time.time() < deadline:
        text = scrape(port)
        got = by_pod(text, "permission_denials_total")
        if got and gone not in got:
            break
        time.sleep(0.25)
    check("a deleted pod's series are dropped after the grace period, the others kept",
          gone not in got and got.get(kept) == want[kept], got)
    check("and counted in denials_exporter_path_labels_expired_total, with no file counted lost",
          "denials_exporter_path_labels_expired_total 1" in text
          and "denials_exporter_lost_files_total 0" in text)
    agent.terminate()
    agent.wait(30)
    if failed:
        subprocess.run(["tail", "-n", "40", os.path.join(tmp, "agent.log")])
    if not os.environ.get("NODE_AGENT_KEEP"):
        shutil.rmtree(tmp, ignore_errors=True)
    print("node agent: %d passed, %d failed" % (passed, failed))
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
