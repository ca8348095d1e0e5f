#!/usr/bin/env bash
# What risk classification costs a replay: `denials-exporter replay FILE` on a generated executor
# log (about 1% denial lines), by the shipped build, by the same source built with
# classification bypassed (`--features bench-risk-bypass`: every attempt is `none` without a
# rule run), and by a baseline binary, runs interleaved. Prints the median wall time and CPU time
# (perf's task-clock, or user + system time from /usr/bin/time without perf) of each, and each
# against the bypassed build; then the figure: the median over runs of the classified build's
# time against the bypassed build's in the same round (and, with CALLGRIND=1, its instructions),
# with whether that is within the 5% replay budget, and the same against each baseline.
#
# Usage: bench/risk_replay.sh [SIZE]     SIZE: bytes with K/M/G suffix (binary), default 256M
#
# Environment (all optional):
#   RUNS=11              runs of each binary (medians reported)
#   SEED=1               generator seed
#   BASELINE="PATH ..."  more binaries measured in the same run (for instance the previous
#                        release), named by their file names; none by default
#   BENCH_DIR=/tmp/denials-bench   where the generated log lives (shared with bench/replay.sh)
#   CALLGRIND=1          also count each build's instructions once under valgrind's callgrind
#                        (slow: about 7 s a run; exact, so it holds on a loaded machine where
#                        the medians move by several percent from one invocation to the next)
#   BENCH_SKIP_BUILD=1   use target/release/denials-exporter and $BENCH_DIR/denials-exporter-bypass
#                        as they are
#
# The two builds of this source are kept in $BENCH_DIR as denials-exporter-risk and
# denials-exporter-bypass (the second build overwrites target/release/denials-exporter; the
# script rebuilds the shipped one last, so the target directory is left as it was).
# Exit status: 0, or 2 on a setup error; the figures are for reading, not a pass/fail check.
set -euo pipefail

ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
SIZE=${1:-256M}
RUNS=${RUNS:-11}
BUDGET=5 # percent: what classification may add to a replay
SEED=${SEED:-1}
BENCH_DIR=${BENCH_DIR:-${TMPDIR:-/tmp}/denials-bench}
TARGET_DIR=${CARGO_TARGET_DIR:-$ROOT/target}
GEN=$TARGET_DIR/release/examples/gen-executor-log
RISK=$BENCH_DIR/denials-exporter-risk
BYPASS=$BENCH_DIR/denials-exporter-bypass

die() { echo "risk_replay.sh: $*" >&2; exit 2; }

median() { sort -g | awk '{ v[NR] = $1 } END { if (NR % 2) print v[(NR + 1) / 2]; else print (v[NR / 2] + v[NR / 2 + 1]) / 2 }'; }

mkdir -p "$BENCH_DIR"
cd "$ROOT"
if [[ -z ${BENCH_SKIP_BUILD:-} ]]; then
    cargo build --release --features bench-risk-bypass --bin denials-exporter || die "build failed"
    cp "$TARGET_DIR/release/denials-exporter" "$BYPASS"
    cargo build --release --example gen-executor-log --bin denials-exporter || die "build failed"
fi
cp "$TARGET_DIR/release/denials-exporter" "$RISK"
[[ -x $BYPASS ]] || die "no bypassed build at $BYPASS"

BYTES=$(numfmt --from=iec "${SIZE%[bB]}") || die "bad size: $SIZE"
LOG=$BENCH_DIR/executor-$BYTES-seed$SEED.log
if [[ ! -s $LOG || ! -s $LOG.summary ]]; then
    [[ -x $GEN ]] || die "no generator at $GEN"
    echo "generating $LOG" >&2
    "$GEN" --bytes "$BYTES" --seed "$SEED" --out "$LOG" 2>"$LOG.summary" || die "generator failed"
fi

names=(bypassed classified)
bins=("$BYPASS" "$RISK")
for baseline in ${BASELINE:-}; do
    [[ -x $baseline ]] || die "no baseline at $baseline"
    names+=("$(basename "$baseline")")
    bins+=("$baseline")
done

# One run: "wall_ms cpu_ms" on stdout.
measure() {
    local bin=$1 start end cpu
    if command -v perf >/dev/null 2>&1; then
        start=$(date +%s%N)
        cpu=$(perf stat -x, -e task-clock "$bin" replay "$LOG" 2>&1 >/dev/null | awk -F, '/task-clock/ { print $1 }')
        end=$(date +%s%N)
    else
        start=$(date +%s%N)
        cpu=$(/usr/bin/time -f '%U %S' "$bin" replay "$LOG" 2>&1 >/dev/null | tail -1 | awk '{ print ($1 + $2) * 1000 }')
        end=$(date +%s%N)
    fi
    [[ -n $cpu ]] || die "no CPU time from a run of $bin"
    echo "$(((end - start) / 1000000)) $cpu"
}

# Same output, so the figures compare equal work.
for i in "${!bins[@]}"; do
    "${bins[$i]}" replay "$LOG" 2>/dev/null | grep -E '^permission_denials_total' | sort >"$BENCH_DIR/risk-replay-${names[$i]}.prom"
done
cmp -s "$BENCH_DIR/risk-replay-bypassed.prom" "$BENCH_DIR/risk-replay-classified.prom" \
    || die "permission_denials_total differs between the bypassed and the classified build"

cat "$LOG" >/dev/null
declare -A walls cpus irs
for ((run = 0; run < RUNS; run++)); do
    for i in "${!bins[@]}"; do
        read -r wall cpu < <(measure "${bins[$i]}")
        walls[${names[$i]}]+="$wall "
        cpus[${names[$i]}]+="$cpu "
    done
done

echo "replay of $(basename "$LOG") ($(grep -o '^lines=[0-9]*' "$LOG.summary"), $(grep -o 'expected_permission_denials_total=[0-9]*' "$LOG.summary")), $RUNS runs each, interleaved"
echo
echo "| build | median wall ms | vs bypassed | median CPU ms | vs bypassed |"
echo "| --- | ---: | ---: | ---: | ---: |"
base_wall=$(tr ' ' '\n' <<<"${walls[bypassed]}" | grep . | median)
base_cpu=$(tr ' ' '\n' <<<"${cpus[bypassed]}" | grep . | median)
for name in "${names[@]}"; do
    wall=$(tr ' ' '\n' <<<"${walls[$name]}" | grep . | median)
    cpu=$(tr ' ' '\n' <<<"${cpus[$name]}" | grep . | median)
    awk -v n="$name" -v w="$wall" -v c="$cpu" -v bw="$base_wall" -v bc="$base_cpu" \
        'BEGIN { printf "| %s | %.0f | %+.1f%% | %.0f | %+.1f%% |\n", n, w, (w / bw - 1) * 100, c, (c / bc - 1) * 100 }'
done

if [[ -n ${CALLGRIND:-} ]]; then
    command -v valgrind >/dev/null 2>&1 || die "CALLGRIND=1 needs valgrind"
    echo
    echo "| build | instructions (callgrind) | vs bypassed |"
    echo "| --- | ---: | ---: |"
    base_ir=
    for i in "${!bins[@]}"; do
        ir=$(valgrind --tool=callgrind --callgrind-out-file=/dev/null "${bins[$i]}" replay "$LOG" 2>&1 >/dev/null |
            awk '/Collected/ { print $4 }')
        [[ -n $ir ]] || die "no instruction count from callgrind for ${bins[$i]}"
        base_ir=${base_ir:-$ir}
        irs[${names[$i]}]=$ir
        awk -v n="${names[$i]}" -v ir="$ir" -v b="$base_ir" \
            'BEGIN { printf "| %s | %d | %+.2f%% |\n", n, ir, (ir / b - 1) * 100 }'
    done
fi

# The figure: what classifying costs a replay, against the replay budget. Each run of the
# classified build is set against the bypassed run of the same round (the runs are interleaved,
# so a slower moment of the machine weighs on both), and the median of those ratios is shown.
paired() {
    paste -d ' ' <(tr ' ' '\n' <<<"$1" | grep .) <(tr ' ' '\n' <<<"$2" | grep .) |
        awk '{ print ($1 / $2 - 1) * 100 }' | median
}
echo
for name in "${names[@]}"; do
    [[ $name == classified ]] && continue
    cpu=$(paired "${cpus[classified]}" "${cpus[$name]}")
    wall=$(paired "${walls[classified]}" "${walls[$name]}")
    ir=
    if [[ -n ${irs[classified]:-} ]]; then
        ir=$(awk -v a="${irs[classified]}" -v b="${irs[$name]}" 'BEGIN { printf ", instructions %+.2f%%", (a / b - 1) * 100 }')
    fi
    if [[ $name == bypassed ]]; then
        verdict=$(awk -v c="$cpu" -v w="$wall" -v a="${irs[classified]:-0}" -v b="${irs[bypassed]:-1}" -v budget="$BUDGET" \
            'BEGIN { worst = c > w ? c : w; if (a / b - 1 > 0) { i = (a / b - 1) * 100; worst = worst > i ? worst : i }
                     print (worst <= budget ? "within" : "over") }')
        printf 'classification costs a replay CPU %+.1f%%, wall %+.1f%%%s (medians of %d paired runs): %s the %s%% budget\n' \
            "$cpu" "$wall" "$ir" "$RUNS" "$verdict" "$BUDGET"
    else
        printf 'classified against %s: CPU %+.1f%%, wall %+.1f%%%s (medians of %d paired runs)\n' \
            "$name" "$cpu" "$wall" "$ir" "$RUNS"
    fi
done
