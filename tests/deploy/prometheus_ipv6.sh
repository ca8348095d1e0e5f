#!/usr/bin/env bash
# The exporter bound to IPv6 loopback alone ([::1]:PORT) is scraped by a real Prometheus, and a
# default-style `:PORT` bind is scraped over both 127.0.0.1 and [::1]:
#   1. starts denials-exporter twice: `--web.listen-address [::1]:P1` and `--web.listen-address :P2`;
#   2. starts Prometheus (on loopback) with the targets [::1]:P1, [::1]:P2 and 127.0.0.1:P2;
#   3. waits (at most 60 s in all) until every target is up and
#      permission_denials_total{workflow="ipv6_demo"} has been scraped from [::1]:P1.
# Exits 0 when that holds, 1 when it does not, 2 when a tool is missing or the host has no IPv6.
# Needs: prometheus (Debian: apt-get install prometheus), curl, python3.
# DENIALS_EXPORTER=/path/to/binary overrides target/debug/denials-exporter (built if missing);
# PROMETHEUS=/path/to/prometheus overrides the one on PATH.
set -euo pipefail

root=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
prometheus=${PROMETHEUS:-prometheus}
exporter=${DENIALS_EXPORTER:-$root/target/debug/denials-exporter}
deadline=$((SECONDS + 60))

for tool in "$prometheus" curl python3; do
  if ! command -v "$tool" >/dev/null 2>&1; then
    echo "prometheus_ipv6: $tool not found" >&2
    exit 2
  fi
done
if ! python3 -c 'import socket; s=socket.socket(socket.AF_INET6); s.bind(("::1", 0))' 2>/dev/null; then
  echo "prometheus_ipv6: this host has no IPv6 loopback" >&2
  exit 2
fi
# shellcheck source=tests/deploy/scratch.sh
source "$root/tests/deploy/scratch.sh"

free_port() {
  python3 -c 'import socket; s=socket.socket(socket.AF_INET6); s.bind(("::", 0)); print(s.getsockname()[1])'
}

mkdir logs
printf '%s\n' '{"level":40,"time":1700000000000,"workflow":"ipv6_demo","event":"agent.permission.denied","toolName":"Bash","decisionReasonType":"rule","decisionReason":"Denied by rule Bash(git push:*)","msg":"agent permission denied"}' >logs/app.log
v6_port=$(free_port)
"$exporter" run --path "$work/logs/*.log" --web.listen-address "[::1]:$v6_port" 2>exporter-v6.log &
pids+=($!)
any_port=$(free_port)
"$exporter" run --path "$work/logs/*.log" --web.listen-address ":$any_port" 2>exporter-any.log &
pids+=($!)

cat >prometheus.yml <<EOF
global:
  scrape_interval: 1s
  scrape_timeout: 1s
scrape_configs:
  - job_name: v6_only
    static_configs: [{targets: ["[::1]:$v6_port"]}]
  - job_name: any_over_v6
    static_configs: [{targets: ["[::1]:$any_port"]}]
  - job_name: any_over_v4
    static_configs: [{targets: ["127.0.0.1:$any_port"]}]
EOF
prom_port=$(free_port)
"$prometheus" --config.file=prometheus.yml --storage.tsdb.path="$work/data" \
  --web.listen-address="127.0.0.1:$prom_port" >prometheus.log 2>&1 &
pids+=($!)
api="http://127.0.0.1:$prom_port/api/v1"

verdict() {
  local targets denials
  targets=$(curl -fsS "$api/targets?state=active" 2>/dev/null) || return 1
  denials=$(curl -fsS --get "$api/query" \
    --data-urlencode 'query=permission_denials_total{job="v6_only",workflow="ipv6_demo"}' 2>/dev/null) || return 1
  TARGETS=$targets DENIALS=$denials python3 -c '
import json, os, sys
targets = json.loads(os.environ["TARGETS"])["data"]["activeTargets"]
result = json.loads(os.environ["DENIALS"])["data"]["result"]
for t in targets:
    print("  %s %s: health=%s lastError=%r" % (t["labels"]["job"], t["scrapeUrl"], t.get("health"), t.get("lastError")))
print("  permission_denials_total from [::1]:", [r["value"][1] for r in result])
ok = len(targets) == 3 and all(t.get("health") == "up" for t in targets) and [r["value"][1] for r in result] == ["1"]
sys.exit(0 if ok else 1)
'
}

while ((SECONDS < deadline)); do
  if out=$(verdict); then
    echo "$out"
    echo "prometheus_ipv6: ok: [::1] alone, and :PORT over IPv4 and IPv6, scraped by Prometheus"
    exit 0
  fi
  sleep 1
done
echo "${out:-}"
echo "prometheus_ipv6: FAILED" >&2
tail -n 20 exporter-v6.log exporter-any.log prometheus.log >&2
exit 1
