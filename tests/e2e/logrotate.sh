#!/usr/bin/env bash
# End-to-end test of exactly once under the rotator most Linux hosts run: the real Debian
# `logrotate` binary rotating, once a second, the file of the real pino writer
# (`pino.destination()`, reopened on SIGUSR2 from logrotate's `postrotate`), while the exporter is
# killed with SIGKILL at a random moment and restarted on its state file.
#
#   tests/e2e/logrotate.sh [BINARY]      (default target/release/denials-exporter; builds nothing)
#
# Runs, each with its own random kill moment (printed, with LOGROTATE_SEED to replay):
#   1. `compress` + `delaycompress`, `--path app.log`, killed before the first periodic state
#      write (within the state interval after the start: only the state written at start-up and
#      when a new file is followed is on disk);
#   2. the same, killed after it;
#   3. `compress` (rolls gzipped at once: a roll rotated while the exporter is down is finished
#      from its `.gz`), killed before the first periodic state write;
#   4. `compress` + `delaycompress`, `--path 'app.log*'` (the glob matches the `.gz` rolls too:
#      they must be skipped, never read as lines), killed after it.
# Each must end exact: the exporter's permission_denials_total equals what the writer recorded,
# label set by label set, no line read as malformed, and no counter seen going down by a 10 Hz
# sampler of /metrics across the kill and the restart.
#
# Needs: node >= 20 with `(cd tests/e2e && npm ci)` done, /usr/sbin/logrotate (Debian package
# `logrotate`), curl. Prints `logrotate e2e: N passed, N failed`. KEEP=1 keeps the work directory.
#
# Knobs: LOGROTATE_RATE=25000 (lines/s), LOGROTATE_DURATION=11 (writer seconds),
#        LOGROTATE_RUNS="1 2 3 4" (which runs), LOGROTATE_SEED (the random kill moments).
set -uo pipefail

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
root=$(cd "$here/../.." && pwd)
bin=${1:-target/release/denials-exporter}
[[ -x $bin ]] || bin=$root/${1:-target/release/denials-exporter}
[[ -x $bin ]] || { echo "logrotate e2e: no exporter binary (build it first)"; echo "logrotate e2e: 0 passed, 1 failed"; exit 1; }
bin=$(cd "$(dirname "$bin")" && pwd)/$(basename "$bin")
logrotate_bin=${LOGROTATE:-/usr/sbin/logrotate}
[[ -x $logrotate_bin ]] || logrotate_bin=$(command -v logrotate || true)
[[ -x $logrotate_bin ]] || { echo "logrotate e2e: no logrotate (apt-get install logrotate)"; echo "logrotate e2e: 0 passed, 1 failed"; exit 1; }
[[ -d $here/node_modules/pino ]] || { echo "logrotate e2e: run (cd tests/e2e && npm ci) first"; echo "logrotate e2e: 0 passed, 1 failed"; exit 1; }

rate=${LOGROTATE_RATE:-25000}
duration=${LOGROTATE_DURATION:-11}
seed=${LOGROTATE_SEED:-$RANDOM}
RANDOM=$seed
state_interval=5

top=$(mktemp -d "${TMPDIR:-/tmp}/denials-logrotate.XXXXXX")
pids=()
passed=0 failed=0

stop_all() {
    local pid
    for pid in "${pids[@]}"; do kill -TERM "$pid" 2>/dev/null || true; done
    for pid in "${pids[@]}"; do
        for _ in $(seq 50); do kill -0 "$pid" 2>/dev/null || break; sleep 0.1; done
        kill -KILL "$pid" 2>/dev/null || true
        wait "$pid" 2>/dev/null || true
    done
    pids=()
}
cleanup() {
    stop_all
    if ((failed)) || [[ -n ${KEEP:-} ]]; then echo "logrotate e2e: work directory kept: $top"; else rm -rf "$top"; fi
}
trap cleanup EXIT
trap 'exit 130' INT TERM

note() { printf 'logrotate e2e: %s\n' "$*"; }
free_port() { node -e 'const s=require("net").createServer().listen(0,"127.0.0.1",()=>{console.log(s.address().port);s.close()})'; }
wait_http() { # URL SECONDS
    local i
    for i in $(seq $(($2 * 10))); do curl -fsS -o /dev/null "$1" 2>/dev/null && return 0; sleep 0.1; done
    return 1
}
# A random number of milliseconds in [LO, HI).
between() { echo $(($1 + (RANDOM * 32768 + RANDOM) % ($2 - $1))); }

# run NAME DELAYCOMPRESS(yes|no) PATTERN KILL_FROM_MS KILL_TO_MS
run() {
    local name=$1 delay=$2 pattern=$3 kill_ms
    kill_ms=$(between "$4" "$5")
    local work=$top/$name
    local logs=$work/logs
    mkdir -p "$logs"
    local port
    port=$(free_port)
    local metrics=http://127.0.0.1:$port/metrics
    cat >"$work/logrotate.conf" <<EOF
$logs/app.log {
    rotate 8
    create
    compress
    $([[ $delay == yes ]] && echo delaycompress)
    missingok
    postrotate
        # The writer reopens on SIGUSR2; wait until it writes to the new file, so that nothing
        # more lands in the rotated one once it is compressed (without delaycompress, lines
        # written in between would be in no file).
        kill -USR2 \$(cat $work/writer.pid) 2>/dev/null || exit 0
        for i in \$(seq 500); do [ -s $logs/app.log ] && exit 0; sleep 0.01; done
    endscript
}
EOF
    local args=(run --path "$logs/$pattern" --state-file "$work/state.json"
        --state-interval "$state_interval" --web.listen-address "127.0.0.1:$port")
    "$bin" "${args[@]}" >"$work/exporter.1.log" 2>&1 &
    local exporter=$!
    pids+=("$exporter")
    wait_http "http://127.0.0.1:$port/-/ready" 20 || { note "$name: exporter not ready"; return 1; }

    node "$here/check.mjs" sample "$metrics" "$work/samples.json" &
    local sampler=$!
    pids+=("$sampler")
    node "$here/writer.mjs" --dir "$logs" --file app.log --expected "$work/expected.json" \
        --rate "$rate" --duration "$duration" --concurrency 32 >"$work/writer.out" 2>"$work/writer.log" &
    local writer=$!
    pids+=("$writer")
    echo "$writer" >"$work/writer.pid"
    # The kill moment counts from when the exporter follows the writer's file: a file created and
    # rotated away while the exporter is down, never seen, is in no state and out of the glob.
    local i
    for i in $(seq 100); do
        curl -fsS "$metrics" 2>/dev/null | grep -q '^denials_exporter_files_followed [1-9]' && break
        sleep 0.1
    done
    local started_ms
    started_ms=$(date +%s%3N)
    # logrotate once a second, as a cron job would (`-f`: whatever the file's size or age).
    (
        while kill -0 "$writer" 2>/dev/null; do
            sleep 1
            "$logrotate_bin" -f -s "$work/logrotate.status" "$work/logrotate.conf" 2>>"$work/logrotate.err"
        done
    ) &
    local rotator=$!
    pids+=("$rotator")

    local now_ms
    now_ms=$(date +%s%3N)
    local wait_ms=$((started_ms + kill_ms - now_ms))
    ((wait_ms > 0)) && sleep "$(printf '%d.%03d' $((wait_ms / 1000)) $((wait_ms % 1000)))"
    local state_before=no
    [[ -f $work/state.json ]] && state_before=yes
    kill -KILL "$exporter"
    wait "$exporter" 2>/dev/null
    note "$name: exporter killed with SIGKILL ${kill_ms} ms after it followed the writer's file (state file there: $state_before); restarting in 0.5 s"
    sleep 0.5 # shorter than logrotate's interval: a file rotated twice while the exporter is
    # down, created and renamed away unseen, would be in no state and out of the glob
    "$bin" "${args[@]}" >"$work/exporter.2.log" 2>&1 &
    exporter=$!
    pids+=("$exporter")
    wait_http "http://127.0.0.1:$port/-/ready" 30 || { note "$name: exporter not ready after the restart"; return 1; }

    wait "$writer" || { note "$name: the writer failed"; return 1; }
    wait "$rotator" 2>/dev/null
    "$logrotate_bin" -f -s "$work/logrotate.status" "$work/logrotate.conf" 2>>"$work/logrotate.err" # one more, after the last line
    note "$name: $(cat "$work/writer.out"); files now: $(cd "$logs" && echo *)"
    node "$here/check.mjs" settle "$metrics" "$work/expected.json" 60
    local settled=$?
    kill -TERM "$sampler"
    wait "$sampler"
    node "$here/check.mjs" exact "$metrics" "$work/expected.json" "$work/samples.json"
    local exact=$?
    local metrics_text
    metrics_text=$(curl -fsS "$metrics")
    grep -E '^denials_exporter_(state_entries_dropped|compressed_files)' <<<"$metrics_text" | sed 's/^/    /'
    stop_all
    [[ -s $work/logrotate.err ]] && { note "$name: logrotate said:"; head -n 5 "$work/logrotate.err"; }
    if ((settled == 0 && exact == 0)); then
        return 0
    fi
    for f in "$work"/exporter.*.log; do echo "--- $f (warnings)"; grep -E 'WARN|ERROR|dropped|gone' "$f" | tail -n 10; done
    return 1
}

note "seed $seed (LOGROTATE_SEED=$seed replays the kill moments); ${rate} lines/s for ${duration} s, logrotate every second"
interval_ms=$((state_interval * 1000))
for n in ${LOGROTATE_RUNS:-1 2 3 4}; do
    case $n in
        # The exporter starts before the writer: killed less than the state interval after it
        # followed the writer's file is before the first periodic state write.
        1) spec=(delaycompress-before yes app.log 300 $((interval_ms - 1000))) ;;
        2) spec=(delaycompress-after yes app.log $((interval_ms + 500)) $((interval_ms + 4000))) ;;
        3) spec=(compress-before no app.log 300 $((interval_ms - 1000))) ;;
        4) spec=(glob-after yes 'app.log*' $((interval_ms + 500)) $((interval_ms + 4000))) ;;
        *) note "no run $n"; failed=$((failed + 1)); continue ;;
    esac
    note "run $n: ${spec[0]}"
    if run "${spec[@]}"; then
        passed=$((passed + 1)); note "run $n (${spec[0]}): ok"
    else
        failed=$((failed + 1)); note "run $n (${spec[0]}): FAILED"
    fi
done
echo "logrotate e2e: $passed passed, $failed failed"
((failed == 0))
