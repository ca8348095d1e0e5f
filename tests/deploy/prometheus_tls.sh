#!/usr/bin/env bash
# Proves --web.config.file with a real Prometheus, on loopback only:
#   1. makes a throw-away CA, a server certificate (127.0.0.1, localhost) and a client certificate
#      with the openssl CLI, in a temporary directory removed at exit;
#   2. starts denials-exporter with TLS, RequireAndVerifyClientCert and basic auth;
#   3. starts Prometheus with three jobs against it:
#        good       https + CA + client certificate + the right password   -> up == 1
#        wrong_pass https + CA + client certificate + a wrong password     -> up == 0, lastError 401
#        plaintext  http                                                  -> up == 0
#   4. waits (at most 60 s in all) for those through Prometheus' HTTP API, then stops both.
# Exits 0 when all three hold, 1 when one does not, 2 when a tool is missing.
# Needs: prometheus (Debian: apt-get install prometheus), openssl, curl, python3 (JSON, free ports).
# DENIALS_EXPORTER=/path/to/binary overrides target/debug/denials-exporter (built if missing);
# PROMETHEUS=/path/to/prometheus overrides the one on PATH.
set -euo pipefail

root=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
prometheus=${PROMETHEUS:-prometheus}
exporter=${DENIALS_EXPORTER:-$root/target/debug/denials-exporter}
deadline=$((SECONDS + 60))

for tool in "$prometheus" openssl curl python3; do
  if ! command -v "$tool" >/dev/null 2>&1; then
    echo "prometheus_tls: $tool not found" >&2
    exit 2
  fi
done
# shellcheck source=tests/deploy/scratch.sh
source "$root/tests/deploy/scratch.sh"

free_port() {
  python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])'
}

# 1. The PKI: ECDSA P-256, valid one day.
ec=(-newkey ec -pkeyopt ec_paramgen_curve:P-256 -nodes)
openssl req -x509 "${ec[@]}" -keyout ca.key -out ca.crt -days 1 -subj "/CN=prometheus_tls test CA" \
  -addext "basicConstraints=critical,CA:TRUE" -addext "keyUsage=critical,keyCertSign,cRLSign" 2>/dev/null
sign() { # name, extensions
  openssl req -new "${ec[@]}" -keyout "$1.key" -out "$1.csr" -subj "/CN=$1" 2>/dev/null
  printf '%s\n' "$2" >"$1.ext"
  openssl x509 -req -in "$1.csr" -CA ca.crt -CAkey ca.key -CAcreateserial -days 1 \
    -extfile "$1.ext" -out "$1.crt" 2>/dev/null
}
sign server $'subjectAltName=IP:127.0.0.1,DNS:localhost\nextendedKeyUsage=serverAuth'
sign client $'subjectAltName=DNS:prometheus\nextendedKeyUsage=clientAuth'

# 2. The exporter. The hash is bcrypt (cost 10) of "scrape-secret", a test-only password.
cat >web.yml <<'EOF'
tls_server_config:
  cert_file: server.crt
  key_file: server.key
  client_ca_file: ca.crt
  client_auth_type: RequireAndVerifyClientCert
  min_version: TLS12
basic_auth_users:
  prometheus: $2b$10$ZgRPUdj3nagG/lMfs7IByuGu77wtmz7TKlhuUlnuF.xrmgUX9koaG
EOF
mkdir logs
printf '%s\n' '{"level":40,"time":1700000000000,"workflow":"tls_demo","event":"agent.permission.denied","toolName":"Bash","decisionReasonType":"rule","decisionReason":"Denied by rule Bash(git push:*)","msg":"agent permission denied"}' >logs/app.log
exporter_port=$(free_port)
"$exporter" run --path "$work/logs/*.log" --web.config.file "$work/web.yml" \
  --web.listen-address "127.0.0.1:$exporter_port" 2>exporter.log &
pids+=($!)

# 3. Prometheus.
cat >prometheus.yml <<EOF
global:
  scrape_interval: 1s
  scrape_timeout: 1s
scrape_configs:
  - job_name: good
    scheme: https
    tls_config: {ca_file: $work/ca.crt, cert_file: $work/client.crt, key_file: $work/client.key}
    basic_auth: {username: prometheus, password: scrape-secret}
    static_configs: [{targets: ["127.0.0.1:$exporter_port"]}]
  - job_name: wrong_pass
    scheme: https
    tls_config: {ca_file: $work/ca.crt, cert_file: $work/client.crt, key_file: $work/client.key}
    basic_auth: {username: prometheus, password: not-the-password}
    static_configs: [{targets: ["127.0.0.1:$exporter_port"]}]
  - job_name: plaintext
    scheme: http
    static_configs: [{targets: ["127.0.0.1:$exporter_port"]}]
EOF
prom_port=$(free_port)
"$prometheus" --config.file=prometheus.yml --storage.tsdb.path="$work/data" \
  --web.listen-address="127.0.0.1:$prom_port" >prometheus.log 2>&1 &
pids+=($!)
api="http://127.0.0.1:$prom_port/api/v1"

# 4. Wait for the three verdicts.
verdicts() {
  curl -fsS "$api/targets?state=active" 2>/dev/null | python3 -c '
import json, sys
targets = json.load(sys.stdin)["data"]["activeTargets"]
by_job = {t["labels"]["job"]: t for t in targets}
good, wrong, plain = (by_job.get(j, {}) for j in ("good", "wrong_pass", "plaintext"))
checks = {
    "good is up": good.get("health") == "up",
    "wrong_pass is down with 401": wrong.get("health") == "down" and "401" in wrong.get("lastError", ""),
    "plaintext is down": plain.get("health") == "down",
}
for job, t in sorted(by_job.items()):
    print("  %s: health=%s lastError=%r" % (job, t.get("health"), t.get("lastError")))
print("ALL OK" if all(checks.values()) else "waiting: " + ", ".join(k for k, v in checks.items() if not v))
'
}
up_query() {
  curl -fsS "$api/query" --data-urlencode "query=up" 2>/dev/null | python3 -c '
import json, sys
for r in sorted(json.load(sys.stdin)["data"]["result"], key=lambda r: r["metric"]["job"]):
    print("  up{job=\"%s\"} == %s" % (r["metric"]["job"], r["value"][1]))
'
}
last=""
while ((SECONDS < deadline)); do
  last=$(verdicts 2>/dev/null || true)
  if [[ $last == *"ALL OK"* ]]; then
    # The same through PromQL: up == 1 for good, 0 for the other two.
    up=$(up_query 2>/dev/null || true)
    if grep -q 'job="good"} == 1' <<<"$up" && grep -q 'job="wrong_pass"} == 0' <<<"$up" &&
      grep -q 'job="plaintext"} == 0' <<<"$up"; then
      echo "$last"
      echo "$up"
      echo "prometheus_tls: ok"
      exit 0
    fi
  fi
  sleep 1
done
echo "prometheus_tls: FAILED within 60 s" >&2
echo "$last" >&2
echo "--- exporter.log" >&2
tail -n 20 exporter.log >&2
echo "--- prometheus.log" >&2
tail -n 20 prometheus.log >&2
exit 1
