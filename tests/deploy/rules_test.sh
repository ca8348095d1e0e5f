#!/usr/bin/env bash
# Checks deploy/prometheus/denials-exporter.rules.yml:
#   1. promtool check rules   (syntax, PromQL, templates)
#   2. promtool test rules    (deploy/prometheus/tests/*.yml: each alert fires and stays quiet where
#                              it must, recording rules compute the expected values; and
#                              mixin/tests/paging.test.yml on the mixin rendered with
#                              mixin/tests/paging.json: severities and `for` from _config)
#   3. the alert contract     (names, severity, static summary, templated description, runbook_url
#                              anchors present in docs/runbook.md, every alert and recording rule
#                              covered by a unit test: tests/deploy/dashboards_check.py --alert-contract)
#   4. metric names           (every name in the rules and dashboards is in docs/metrics.md; every
#                              series a rule reads selected by job; dashboard variables and filters)
#   5. the mixin              (mixin/ renders exactly the rule file and dashboards/*.json, and each
#                              _config setting reaches its rules and panels: tests/deploy/mixin_check.py)
# Runs every step and exits non-zero if any failed. Needs promtool (Debian: apt-get install prometheus)
# and python3 with PyYAML and _jsonnet (pip install jsonnet); PROMTOOL=/path/to/promtool overrides the one on PATH.
set -uo pipefail

root=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
cd "$root" || exit 2
promtool=${PROMTOOL:-promtool}
rules=deploy/prometheus/denials-exporter.rules.yml
failed=()

if ! command -v "$promtool" >/dev/null 2>&1; then
  echo "rules_test: $promtool not found (apt-get install -y prometheus, or set PROMTOOL)" >&2
  exit 2
fi

step() {
  local name=$1
  shift
  echo "== $name"
  if "$@"; then
    echo "-- ok: $name"
  else
    echo "-- FAILED: $name"
    failed+=("$name")
  fi
}

shopt -s nullglob
tests=(deploy/prometheus/tests/*.yml)
shopt -u nullglob

step "promtool check rules" "$promtool" check rules "$rules"
if ((${#tests[@]})); then
  step "promtool test rules" "$promtool" test rules "${tests[@]}"
else
  echo "== promtool test rules"; echo "-- FAILED: no deploy/prometheus/tests/*.yml"
  failed+=("promtool test rules")
fi
# The mixin rendered with severities, `for` and thresholds a paging team would set
# (mixin/tests/paging.json), tested by mixin/tests/paging.test.yml beside the rendering.
configured_paging() {
  local tmp rc
  tmp=$(mktemp -d) || return 1
  python3 mixin/render.py --out "$tmp" --config "$(cat mixin/tests/paging.json)" > /dev/null &&
    cp mixin/tests/paging.test.yml "$tmp/" &&
    "$promtool" test rules "$tmp/paging.test.yml"
  rc=$?
  rm -rf "$tmp"
  return "$rc"
}
step "promtool test rules: the mixin configured to page (critical, with a for) pages after its for only" configured_paging
step "alert contract and runbook anchors" python3 tests/deploy/dashboards_check.py --alert-contract
step "metric names in rules and dashboards" python3 tests/deploy/dashboards_check.py
step "the mixin renders the shipped rules and dashboards, and honours its _config" python3 tests/deploy/mixin_check.py

if ((${#failed[@]})); then
  printf 'rules_test: FAILED: %s\n' "${failed[@]}" >&2
  exit 1
fi
echo "rules_test: all passed"
