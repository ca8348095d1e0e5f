#!/usr/bin/env bash
# Every test of the project, in order of depth: unit + integration (cargo test), the exposition
# checked by promtool, rules and dashboards, manifests, then the end-to-end runs against a real
# Prometheus and the real pino writer. Prints one summary line `N passed, N failed`.
# Needs: cargo, promtool/prometheus, python3 with kubernetes-validate and checkov, kubectl,
# actionlint, hadolint, shellcheck,
# logrotate, chromium, node with tests/e2e/node_modules (`.ci/run` installs all of it).
set -uo pipefail
cd "$(dirname "$0")/.." || exit 2

passed=0 failed=0 failures=()
step() {
  local name=$1; shift
  echo
  echo "==== $name"
  local start=$SECONDS
  if "$@"; then
    passed=$((passed + 1)); echo "==== $name: ok ($((SECONDS - start)) s)"
  else
    failed=$((failed + 1)); failures+=("$name"); echo "==== $name: FAILED ($((SECONDS - start)) s)"
  fi
}

check_exposition() {
  local out
  out=$(mktemp)
  target/release/denials-exporter replay examples/executor.log tests/data/*.log >"$out" &&
    promtool check metrics <"$out" &&
    grep -q '^permission_denials_total{' "$out"
}

# The release binary links libc (and libgcc_s, for unwinding) and nothing else: loading libm,
# for one log2 and the statistics of a scheduler `run` does not use, cost `run` 0.6 MiB of RSS
# (its load-time relocations touch most of it).
check_shared_libraries() {
  local needed
  needed=$(readelf -d target/release/denials-exporter |
    sed -n 's/.*Shared library: \[\(.*\)\]/\1/p' | sort | tr '\n' ' ')
  [[ $needed == "libc.so.6 libgcc_s.so.1 " ]] ||
    { echo "the release binary needs other shared libraries: $needed" >&2; return 1; }
}

step "cargo build --release" cargo build --release --locked --bin denials-exporter
step "the release binary needs libc and libgcc_s alone (no libm)" check_shared_libraries
step "cargo test" cargo test --locked --no-fail-fast
step "promtool check metrics (replay output)" check_exposition
step "alert and recording rules, dashboards" bash tests/deploy/rules_test.sh
step "kubernetes manifests and Dockerfile" bash tests/deploy/k8s_check.sh
step "actionlint: the CI and release workflows (.github/workflows)" actionlint
step "hadolint: the Dockerfile" hadolint Dockerfile
step "the node agent as its DaemonSet runs it: two pods in two namespaces, a proxy container beside each, kubelet rotation, kill -9" \
  python3 tests/deploy/node_agent_check.py target/release/denials-exporter
step "the node agent with 200 pods rotating at once and a kill -9: each pod's count exact" \
  python3 bench/node_agent.py target/release/denials-exporter --exact --pods 200
step "docs/formats.md's pino snippet: hook and canUseTool denials counted with their reason" \
  bash tests/deploy/formats_snippet.sh target/release/denials-exporter
step "the cost of a write with 1,100 rolls beside the written file, and of 2,000 idle files (loose smoke bounds; figures: bench/files_cpu.py)" \
  python3 bench/files_cpu.py target/release/denials-exporter --seconds 4 --idle 2000 --smoke 8 --idle-bound 0.1
step "drill-down: exemplar and data links lead to the real exporter's audit records" \
  python3 tests/deploy/drilldown_check.py --exporter target/release/denials-exporter
step "exemplars: a real Prometheus with exemplar storage returns the execution ids written" \
  python3 tests/deploy/exemplars.py target/release/denials-exporter
step "a real Prometheus scraping over TLS with basic auth and a client certificate" \
  env "DENIALS_EXPORTER=$PWD/target/release/denials-exporter" bash tests/deploy/prometheus_tls.sh
step "a real Prometheus scraping the exporter on [::1] alone, and on :PORT over IPv4 and IPv6" \
  env "DENIALS_EXPORTER=$PWD/target/release/denials-exporter" bash tests/deploy/prometheus_ipv6.sh
step "every dashboard and rule expression against a real Prometheus" \
  python3 tests/deploy/promql_e2e.py --exporter target/release/denials-exporter --fixture examples/executor.log --fixture tests/deploy/data/enforcement.log
step "the landing page in headless Chromium: states, dangerous attempts first, totals equal to /metrics, a demo whose time moves" \
  python3 tests/deploy/landing_chromium.py target/release/denials-exporter
step "real Claude Agent SDK against a fake API" bash tests/sdk/run.sh target/release/denials-exporter
step "pino + pino-roll writer (plain transport), kill -9, real Prometheus" bash tests/e2e/run.sh target/release/denials-exporter
step "the real logrotate (create, compress, delaycompress) against pino.destination(), kill -9" \
  bash tests/e2e/logrotate.sh target/release/denials-exporter
step "the exporter started over a growing backlog of pino-roll rolls" \
  env E2E_START_DELAY=4 E2E_RATE=40000 E2E_SIZE=2m E2E_DURATION=12 bash tests/e2e/run.sh target/release/denials-exporter
step "chaos soak (smoke): pino-roll, logrotate and a CRI writer at once; kill -9, SIGTERM, SIGHUP, SIGSTOP, bursts, scrape storms, slow clients, an unwritable state; exact, every line read once, no lost file claimed, no decrease, no secret out" \
  python3 bench/chaos_soak.py target/release/denials-exporter --seconds 75

echo
((failed)) && printf 'failed: %s\n' "${failures[@]}"
echo "$passed passed, $failed failed"
((failed == 0))
