#!/usr/bin/env bash
# End-to-end acceptance test: a real pino + pino-roll writer, used as its README shows (the plain
# `target: 'pino-roll'` transport, which cuts lines at roll boundaries under load), the exporter
# killed with SIGKILL halfway and restarted on its state file, and a real Prometheus scraping it
# every second.
#
#   tests/e2e/run.sh [BINARY]        (default target/release/denials-exporter; builds nothing)
#
# Needs: node >= 20 with `(cd tests/e2e && npm ci)` done, /usr/bin/prometheus (Debian package
# `prometheus`), curl. Passes if Prometheus' latest permission_denials_total equals, label set by
# label set, what the writer recorded, and no scrape ever saw a counter go down. Prints
# `e2e: N passed, N failed`; exits non-zero on failure. KEEP=1 keeps the work directory.
#
# Knobs (environment):
#   E2E_RATE=100000   writer lines/s          E2E_DURATION=16   writer seconds
#   E2E_SIZE=1m       pino-roll `size`
#   E2E_START_DELAY=0 seconds between the writer's start and the exporter's: with 4 the exporter
#                     starts over a backlog of rolls that keep appearing while it reads them
#   E2E_COUNT=250     pino-roll `limit.count`: at ~25 rolls/s that keeps ~10 s of log, more than
#                     the state file's age (5 s) plus the downtime; lines of a file deleted while
#                     the exporter is down are lost to any reader
#   E2E_KILL=0        no kill and restart (then the check that the restart is in the data fails)
#   E2E_EXPORTER_ARGS more flags for the exporter
#
# The exporter writes an audit log: after a failure, `check.mjs explain` names each denial the
# stream reported that was counted from its record instead, with where both lines were.
set -euo pipefail

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
root=$(cd "$here/../.." && pwd)
bin=${1:-target/release/denials-exporter}
[[ -x $bin ]] || bin=$root/${1:-target/release/denials-exporter}
[[ -x $bin ]] || { echo "e2e: no exporter binary at ${1:-target/release/denials-exporter} (build it first)"; echo "e2e: 0 passed, 1 failed"; exit 1; }
bin=$(cd "$(dirname "$bin")" && pwd)/$(basename "$bin")
prometheus_bin=${PROMETHEUS:-$(command -v prometheus || echo /usr/bin/prometheus)}
[[ -d $here/node_modules/pino-roll ]] || { echo "e2e: run (cd tests/e2e && npm ci) first"; echo "e2e: 0 passed, 1 failed"; exit 1; }

rate=${E2E_RATE:-100000}
duration=${E2E_DURATION:-16}
size=${E2E_SIZE:-1m}
count=${E2E_COUNT:-250}
delay=${E2E_START_DELAY:-0}

work=$(mktemp -d "${TMPDIR:-/tmp}/denials-e2e.XXXXXX")
logs=$work/logs
mkdir -p "$logs" "$work/prometheus"
pids=()
status=1

cleanup() {
    local pid
    for pid in "${pids[@]}"; do kill -TERM "$pid" 2>/dev/null || true; done
    for pid in "${pids[@]}"; do
        for _ in $(seq 50); do kill -0 "$pid" 2>/dev/null || break; sleep 0.1; done
        kill -KILL "$pid" 2>/dev/null || true
        wait "$pid" 2>/dev/null || true
    done
    if [[ $status -ne 0 || -n ${KEEP:-} ]]; then
        echo "e2e: work directory kept: $work"
    else
        rm -rf "$work"
    fi
}
trap cleanup EXIT
trap 'exit 130' INT TERM

note() { printf 'e2e: %s\n' "$*"; }
fail() {
    note "$*"
    for f in "$work"/exporter.*.log; do [[ -f $f ]] && { echo "--- $f (last lines)"; tail -n 15 "$f"; }; done
    [[ -f $work/writer.log ]] && { echo "--- writer"; tail -n 5 "$work/writer.log"; }
    echo "e2e: 0 passed, 1 failed"
    exit 1
}
free_port() { node -e 'const s=require("net").createServer().listen(0,"127.0.0.1",()=>{console.log(s.address().port);s.close()})'; }
wait_http() { # URL SECONDS
    local i
    for i in $(seq $(($2 * 10))); do curl -fsS -o /dev/null "$1" 2>/dev/null && return 0; sleep 0.1; done
    return 1
}

exporter_port=$(free_port)
prom_port=$(free_port)
metrics=http://127.0.0.1:$exporter_port/metrics
prom=http://127.0.0.1:$prom_port

cat >"$work/prometheus.yml" <<EOF
global:
  scrape_interval: 1s
  scrape_timeout: 1s
  evaluation_interval: 1s
scrape_configs:
  - job_name: denials
    static_configs:
      - targets: ['127.0.0.1:$exporter_port']
EOF
"$prometheus_bin" --config.file="$work/prometheus.yml" --storage.tsdb.path="$work/prometheus" \
    --web.listen-address="127.0.0.1:$prom_port" --log.level=warn >"$work/prometheus.log" 2>&1 &
pids+=($!)

# pino-roll names its files executor.1.log, executor.2.log, … and points current.log at the one
# being written: the glob matches both; the exporter follows a file once per inode.
exporter_args=(run --path "$logs/*.log" --state-file "$work/state.json"
    --web.listen-address "127.0.0.1:$exporter_port" --audit-log "$work/audit.jsonl" ${E2E_EXPORTER_ARGS:-})
start_exporter() { # N: which start, for the log name
    "$bin" "${exporter_args[@]}" >"$work/exporter.$1.log" 2>&1 &
    exporter_pid=$!
    pids+=("$exporter_pid")
    wait_http "http://127.0.0.1:$exporter_port/-/ready" 20 || fail "exporter (start $1) not ready within 20 s"
}
first_scrape() { # Prometheus applies its targets a few seconds after it is ready
    for _ in $(seq 200); do
        curl -fsS "$prom/api/v1/query" --data-urlencode 'query=up{job="denials"} == 1' 2>/dev/null | grep -q '"value"' && break
        sleep 0.1
    done
}
((delay > 0)) || start_exporter 1
wait_http "$prom/-/ready" 30 || fail "Prometheus not ready within 30 s (see $work/prometheus.log)"
((delay > 0)) || first_scrape

node "$here/check.mjs" sample "$metrics" "$work/samples.json" &
sampler_pid=$!
pids+=("$sampler_pid")

note "writing ${duration} s at ${rate} lines/s (pino-roll size $size, keeps $count files) into $logs"
node "$here/writer.mjs" --dir "$logs" --expected "$work/expected.json" --rate "$rate" --duration "$duration" \
    --size "$size" --count "$count" --half "$work/half" >"$work/writer.out" 2>"$work/writer.log" &
writer_pid=$!
pids+=("$writer_pid")
if ((delay > 0)); then
    sleep "$delay"
    note "starting the exporter ${delay} s after the writer, over $(ls "$logs" | wc -l) files"
    start_exporter 1
    first_scrape
fi

for _ in $(seq $((duration * 20 + 200))); do [[ -f $work/half ]] && break; sleep 0.05; done
[[ -f $work/half ]] || fail "the writer never got halfway"
if [[ ${E2E_KILL:-1} == 1 ]]; then
    kill -KILL "$exporter_pid"
    killed_at=$(date +%s.%N)
    wait "$exporter_pid" 2>/dev/null || true
    note "halfway ($(tr -d '\n' <"$work/half") lines written): exporter killed with SIGKILL; restarting it on its state file in 2 s"
    sleep 2 # at least one failed scrape: Prometheus sees the exporter down
    start_exporter 2
fi

wait "$writer_pid" || fail "the writer failed"
cat "$work/writer.out"
[[ -s $work/expected.json ]] || fail "the writer recorded nothing"

set +e
node "$here/check.mjs" settle "$metrics" "$work/expected.json" 60
settled=$?
kill -TERM "$sampler_pid"
wait "$sampler_pid"
node "$here/check.mjs" prometheus "$prom" denials "$work/expected.json" "$work/samples.json" $((settled ? 5 : 30)) "${killed_at:-0}"
result=$?
set -e
if [[ $settled -eq 0 && $result -eq 0 ]]; then
    status=0
    echo "e2e: 1 passed, 0 failed"
    exit 0
else
    for f in "$work"/exporter.*.log; do echo "--- $f (warnings)"; grep -E 'WARN|ERROR' "$f" | grep -v 'no longer fits' | tail -n 10 || true; done
    node "$here/check.mjs" explain "$work/audit.jsonl" "$logs" || true
    echo "e2e: 0 passed, 1 failed"
fi
exit 1
