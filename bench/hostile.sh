#!/usr/bin/env bash
# Hostile-input benchmark: peak RSS and wall time of the exporter on
# each input an attacker controls, against the shipped 64 MiB container limit.
#
# Usage: bench/hostile.sh
#
# Environment (all optional):
#   HOSTILE_DIR=/tmp/denials-hostile   where the generated inputs live (reused across runs)
#   HOSTILE_REGEN=1                    regenerate the inputs even if they are there
#   RUNS=3                             repetitions of a replay that takes under 3 s (median)
#   LIMIT_MIB=64                       the memory limit reported against
#
# Each input is replayed (`denials-exporter replay FILE`); the audit-ring and memory inputs are
# also followed by `run` until it has read every line (polling /metrics for the sum of
# denials_exporter_lines_total), with peak RSS from /proc/PID/status VmHWM. Under a cgroup
# limit (`systemd-run --scope -p MemoryMax=64M`, when systemd is there) a replay that does not
# fit is killed, and the table says so; without cgroup control, peak RSS is compared with the
# limit instead (prlimit --as limits virtual memory, which is not what a container counts).
#
# Prints a Markdown table; raw results go to bench/out/hostile.jsonl, one object per run.
# Exit status: 0 when every input counted what it must, 1 otherwise, 2 on a setup error.
set -euo pipefail

ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
DIR=${HOSTILE_DIR:-${TMPDIR:-/tmp}/denials-hostile}
RUNS=${RUNS:-3}
LIMIT_MIB=${LIMIT_MIB:-64}
TARGET_DIR=${CARGO_TARGET_DIR:-$ROOT/target}
EXPORTER=$TARGET_DIR/release/denials-exporter
OUT=$ROOT/bench/out/hostile.jsonl

die() { echo "hostile.sh: $*" >&2; exit 2; }
median() { sort -g | awk '{ v[NR] = $1 } END { if (NR % 2) print v[(NR + 1) / 2]; else print (v[NR / 2] + v[NR / 2 + 1]) / 2 }'; }

[[ -x /usr/bin/time ]] || die "/usr/bin/time is needed (apt-get install time)"
command -v python3 >/dev/null || die "python3 is needed"
command -v curl >/dev/null || die "curl is needed"
if [[ ! -x $EXPORTER ]]; then
    (cd "$ROOT" && cargo build --release --bin denials-exporter) || die "build failed"
fi

# Memory control: a cgroup scope if systemd can make one, else none.
SCOPE=()
if systemd-run --scope -p MemoryMax=${LIMIT_MIB}M --quiet true >/dev/null 2>&1; then
    SCOPE=(systemd-run --scope -p "MemoryMax=${LIMIT_MIB}M" --quiet)
    CONTROL="cgroup MemoryMax=${LIMIT_MIB}M (systemd-run --scope)"
else
    CONTROL="none available (no systemd); peak RSS compared with ${LIMIT_MIB} MiB"
fi

if [[ -n ${HOSTILE_REGEN:-} || ! -s $DIR/expected.txt ]]; then
    echo "generating inputs in $DIR ..." >&2
    rm -rf "$DIR" && mkdir -p "$DIR"
    python3 "$ROOT/bench/hostile_inputs.py" bench "$DIR"
fi
mkdir -p "$(dirname "$OUT")"
: >"$OUT"

# Sum of a metric family's samples in a Prometheus text exposition.
metric_sum() { awk -v m="$1" '$1 == m || index($1, m "{") == 1 { s += $NF } END { printf "%.0f\n", s }'; }

# replay NAME -> "rss_kib seconds denials status", median over RUNS when a run is short.
replay() {
    local file=$DIR/$1.log rss=() secs=() denials=0 status=ok i
    for ((i = 0; i < RUNS; i++)); do
        local stats rc=0
        "${SCOPE[@]}" /usr/bin/time -o "$DIR/time.txt" -f '%M %e' "$EXPORTER" replay "$file" \
            >"$DIR/out.prom" 2>"$DIR/err.log" || rc=$?
        stats=$(tail -1 "$DIR/time.txt")
        if ((rc != 0)); then status="exit $rc"; fi
        rss+=("${stats%% *}")
        secs+=("${stats##* }")
        denials=$(metric_sum permission_denials_total <"$DIR/out.prom")
        # A short run is repeated for a median; a long one is measured once.
        if (($(awk -v s="${stats##* }" 'BEGIN { print (s >= 3) }'))); then break; fi
    done
    echo "$(printf '%s\n' "${rss[@]}" | median) $(printf '%s\n' "${secs[@]}" | median) $denials $status"
}

# follow NAME [FLAGS...] -> "rss_kib seconds denials status": `run` until every line is read.
follow() {
    local name=$1 file=$DIR/$1.log
    shift
    local lines port=$((20000 + RANDOM % 20000)) state=$DIR/state-$name.json
    lines=$(wc -l <"$file")
    rm -f "$state"
    local start=$EPOCHREALTIME
    "${SCOPE[@]}" "$EXPORTER" run --path "$file" --state-file "$state" \
        --web.listen-address "127.0.0.1:$port" --log.level warn "$@" 2>"$DIR/run-$name.log" &
    local pid=$! read=0 status=ok rss=0 body="" deadline=$((SECONDS + 240))
    while ((read < lines)); do
        if ! kill -0 "$pid" 2>/dev/null; then status="died"; break; fi
        if ((SECONDS > deadline)); then status="timeout"; break; fi
        body=$(curl -s --max-time 2 "http://127.0.0.1:$port/metrics" || true)
        read=$(metric_sum denials_exporter_lines_total <<<"$body")
        sleep 0.2
    done
    local secs
    secs=$(awk -v a="$start" -v b="$EPOCHREALTIME" 'BEGIN { printf "%.2f\n", b - a }')
    # VmHWM of the exporter itself (under a scope, the child of systemd-run).
    local target=$pid
    [[ ${#SCOPE[@]} -gt 0 ]] && target=$(pgrep -P "$pid" | head -1 || echo "$pid")
    rss=$(awk '/^VmHWM:/ { print $2 }' "/proc/$target/status" 2>/dev/null || echo 0)
    kill -TERM "$pid" 2>/dev/null || true
    wait "$pid" 2>/dev/null || true
    echo "${rss:-0} $secs $(metric_sum permission_denials_total <<<"$body") $status"
}

declare -A EXPECTED
while read -r name n; do EXPECTED[$name]=$n; done <"$DIR/expected.txt"

printf 'Memory control: %s\n\n' "$CONTROL"
printf '| input | mode | size MiB | peak RSS MiB | time s | fits %s MiB? | counted denials | expected |\n' "$LIMIT_MIB"
printf '|---|---|---:|---:|---:|---|---:|---:|\n'
failed=0
row() {
    local name=$1 mode=$2 rss_kib=$3 secs=$4 denials=$5 status=$6
    local size mib fits
    size=$(awk -v b="$(stat -c %s "$DIR/$name.log")" 'BEGIN { printf "%.1f", b / 1048576 }')
    mib=$(awk -v k="$rss_kib" 'BEGIN { printf "%.1f", k / 1024 }')
    fits=$(awk -v m="$mib" -v l="$LIMIT_MIB" 'BEGIN { print (m <= l) ? "yes" : "NO" }')
    [[ $status == ok ]] || fits="NO ($status)"
    local want=${EXPECTED[$name]}
    [[ $denials == "$want" && $status == ok ]] || failed=1
    printf '| %s | %s | %s | %s | %s | %s | %s | %s |\n' "$name" "$mode" "$size" "$mib" "$secs" "$fits" "$denials" "$want"
    printf '{"input":"%s","mode":"%s","bytes":%s,"peak_rss_kib":%s,"seconds":%s,"limit_mib":%s,"fits":%s,"denials":%s,"expected":%s,"status":"%s","control":"%s"}\n' \
        "$name" "$mode" "$(stat -c %s "$DIR/$name.log")" "$rss_kib" "$secs" "$LIMIT_MIB" \
        "$([[ $fits == yes ]] && echo true || echo false)" "$denials" "$want" "$status" "$CONTROL" >>"$OUT"
}

while read -r name _; do
    # shellcheck disable=SC2046
    row "$name" replay $(replay "$name")
done <"$DIR/expected.txt"
# The audit ring and memory under `run`, where holding a pass or raw names would show.
# shellcheck disable=SC2046
row f5-backlog-1m "run --recent-denials 100" $(follow f5-backlog-1m --recent-denials 100)
# shellcheck disable=SC2046
row f5-backlog-1m "run --recent-denials 0" $(follow f5-backlog-1m --recent-denials 0)
# shellcheck disable=SC2046
row f5-300-1mb-tools run $(follow f5-300-1mb-tools)
# shellcheck disable=SC2046
row f1-1mib-line run $(follow f1-1mib-line)
# The per-call books and the waiting denials at their caps, under `run`.
# shellcheck disable=SC2046
row f6-call-book run $(follow f6-call-book)

printf '\nraw: %s\n' "$OUT"
exit $failed
