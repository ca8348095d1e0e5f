#!/usr/bin/env bash
# Replay benchmark: denials-exporter vs Google's mtail on a generated executor log.
#
# Usage: bench/replay.sh [SIZE]        SIZE: bytes with K/M/G suffix (binary), default 1G
#
# Environment (all optional):
#   SEED=1               generator seed
#   RUNS=5               exporter repetitions (median reported)
#   MTAIL_RUNS=3         mtail repetitions (median reported)
#   MTAIL_SIZE=256M      mtail reads a file of at most this size (it runs at ~40 MB/s)
#   BENCH_DIR=/tmp/denials-bench   where generated logs and outputs live (reused across runs)
#   BENCH_REGEN=1        regenerate the logs even if a matching one is there
#   BENCH_TOOLS="exporter mtail"   drop "exporter" to measure mtail and the generator only
#   BENCH_SKIP_BUILD=1   do not run cargo (use binaries already built)
#   BENCH_GEN=PATH       generator binary (default: target/release/examples/gen-executor-log)
#
# Exit status: 0 when the exporter's sum of permission_denials_total equals the generator's
# expected total, 1 on a mismatch, 2 on a setup error. See bench/README.md.
set -euo pipefail

ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
SIZE=${1:-1G}
SEED=${SEED:-1}
RUNS=${RUNS:-5}
MTAIL_RUNS=${MTAIL_RUNS:-3}
MTAIL_SIZE=${MTAIL_SIZE:-256M}
BENCH_DIR=${BENCH_DIR:-${TMPDIR:-/tmp}/denials-bench}
BENCH_TOOLS=${BENCH_TOOLS:-exporter mtail}
TARGET_DIR=${CARGO_TARGET_DIR:-$ROOT/target}
GEN=${BENCH_GEN:-$TARGET_DIR/release/examples/gen-executor-log}
EXPORTER=$TARGET_DIR/release/denials-exporter
PROG=$ROOT/bench/denials.mtail

die() { echo "replay.sh: $*" >&2; exit 2; }
wants() { [[ " $BENCH_TOOLS " == *" $1 "* ]]; }

# SIZE text -> bytes (binary multiples, as the generator reads them).
to_bytes() {
    local text=$1 num unit
    [[ $text =~ ^([0-9]+)([KkMmGg]?)([iI]?[bB]?)$ ]] || die "bad size: $text"
    num=${BASH_REMATCH[1]}
    unit=${BASH_REMATCH[2]^^}
    case $unit in
        K) echo $((num << 10)) ;;
        M) echo $((num << 20)) ;;
        G) echo $((num << 30)) ;;
        *) echo "$num" ;;
    esac
}

median() { sort -g | awk '{ v[NR] = $1 } END { if (NR % 2) print v[(NR + 1) / 2]; else print (v[NR / 2] + v[NR / 2 + 1]) / 2 }'; }

# ---------------------------------------------------------------------------------------------
# Tools

missing=()
command -v mtail >/dev/null 2>&1 || missing+=(mtail)
[[ -x /usr/bin/time ]] || missing+=(time)
if ((${#missing[@]})); then
    echo "installing ${missing[*]} with apt-get" >&2
    apt-get install -y "${missing[@]}" >/dev/null 2>&1 \
        || { apt-get update >/dev/null && apt-get install -y "${missing[@]}" >/dev/null; } \
        || die "cannot install ${missing[*]}"
fi

if [[ -z ${BENCH_SKIP_BUILD:-} ]]; then
    build=(cargo build --release --example gen-executor-log)
    wants exporter && build+=(--bin denials-exporter)
    (cd "$ROOT" && "${build[@]}") || die "build failed"
fi
[[ -x $GEN ]] || die "no generator at $GEN"
if wants exporter; then
    [[ -x $EXPORTER ]] || die "no exporter at $EXPORTER"
    "$EXPORTER" replay --help >/dev/null 2>&1 || die "$EXPORTER replay --help failed"
fi

# ---------------------------------------------------------------------------------------------
# Inputs: generated once per (size, seed), reused while the summary beside them says so.

mkdir -p "$BENCH_DIR"
BYTES=$(to_bytes "$SIZE")
MTAIL_BYTES=$(to_bytes "$MTAIL_SIZE")
((MTAIL_BYTES > BYTES)) && MTAIL_BYTES=$BYTES
QUARTER_BYTES=$((BYTES / 4))

# generate BYTES -> prints the log's path; the generator's summary is in PATH.summary.
generate() {
    local bytes=$1 file="$BENCH_DIR/executor-$1-seed$SEED.log"
    if [[ -z ${BENCH_REGEN:-} && -s $file && -s $file.summary ]] && grep -q "seed=$SEED\$" "$file.summary" \
        && [[ $(stat -c %s "$file") == "$(sed -n 's/.* bytes=\([0-9]*\) .*/\1/p' "$file.summary")" ]]; then
        echo "reusing $file" >&2
    else
        echo "generating $file" >&2
        rm -f "$file.summary"
        "$GEN" --bytes "$bytes" --seed "$SEED" --out "$file" 2>"$file.summary.tmp"
        mv "$file.summary.tmp" "$file.summary"
    fi
    echo "$file"
}
field() { sed -n "s/.*\\b$2=\\([^ ]*\\).*/\\1/p" "$1.summary"; }

LOG=$(generate "$BYTES")
echo "generator: $(cat "$LOG.summary")" >&2
EXPECTED=$(field "$LOG" expected_permission_denials_total)

# ---------------------------------------------------------------------------------------------
# Measurements. Each run: wall seconds (from date, ns resolution) and peak RSS KiB (from time).

# measure OUT_PREFIX CMD... -> sets run_wall (s, from date, ns resolution) and run_rss (KiB, from
# time); stdout goes to OUT_PREFIX.out, stderr to OUT_PREFIX.err.
measure() {
    local prefix=$1 start end
    shift
    start=$(date +%s%N)
    /usr/bin/time -f '%M' -o "$prefix.time" "$@" >"$prefix.out" 2>"$prefix.err" \
        || { tail -n 20 "$prefix.err" >&2; die "command failed: $*"; }
    end=$(date +%s%N)
    run_wall=$(awk -v s="$start" -v e="$end" 'BEGIN { printf "%.3f", (e - s) / 1e9 }')
    run_rss=$(tail -n 1 "$prefix.time")
}

# bench NAME RUNS FILE CMD... : warms the page cache with FILE, runs CMD RUNS times, and sets
# NAME_wall and NAME_rss (medians); the last run's output stays at $BENCH_DIR/NAME.out.
bench() {
    local name=$1 runs=$2 file=$3 walls=() rsses=() i
    shift 3
    cat "$file" >/dev/null
    for ((i = 1; i <= runs; i++)); do
        measure "$BENCH_DIR/$name" "$@"
        echo "  $name run $i: ${run_wall}s, peak RSS $((run_rss / 1024)) MiB" >&2
        walls+=("$run_wall")
        rsses+=("$run_rss")
    done
    printf -v "${name}_wall" '%s' "$(printf '%s\n' "${walls[@]}" | median)"
    printf -v "${name}_rss" '%s' "$(printf '%s\n' "${rsses[@]}" | median | awk '{ printf "%d", $1 }')"
}

mib() { awk -v k="$1" 'BEGIN { printf "%.1f", k / 1024 }'; }
prom_sum() { awk '/^permission_denials_total[{ ]/ { s += $NF } END { printf "%d", s }' "$1"; }

rows=()
# row TOOL BYTES WALL RSS_KIB [MTAIL_MBPS] : appends a table row and sets row_mbps.
row() {
    local mbps gbps ratio
    mbps=$(awk -v b="$2" -v w="$3" 'BEGIN { printf "%.1f", b / 1e6 / w }')
    gbps=$(awk -v b="$2" -v w="$3" 'BEGIN { printf "%.3f", b / 1e9 / w }')
    ratio=${5:+$(awk -v a="$mbps" -v m="$5" 'BEGIN { printf "%.1fx", a / m }')}
    rows+=("| $1 | $(awk -v b="$2" 'BEGIN { printf "%.0f MiB", b / 1048576 }') | $3 | $mbps | $gbps | $(mib "$4") | ${ratio:-1.0x} |")
    row_mbps=$mbps
}

status=0
# Set by bench() through printf -v.
mtail_wall='' mtail_rss='' exporter_wall='' exporter_rss='' quarter_rss=''
if wants mtail; then
    MTAIL_LOG=$LOG
    ((MTAIL_BYTES < BYTES)) && MTAIL_LOG=$(generate "$MTAIL_BYTES")
    mtail_size=$(stat -c %s "$MTAIL_LOG")
    echo "mtail on $MTAIL_LOG ($mtail_size bytes), $MTAIL_RUNS runs" >&2
    bench mtail "$MTAIL_RUNS" "$MTAIL_LOG" \
        mtail --one_shot --one_shot_format prometheus --emit_prog_label=false \
        --progs "$PROG" --logs "$MTAIL_LOG" --logtostderr --address 127.0.0.1 --port 0
    row "mtail $(mtail --version | awk '{ print $3; exit }')" "$mtail_size" "$mtail_wall" "$mtail_rss"
    mtail_mbps=$row_mbps
    mtail_sum=$(prom_sum "$BENCH_DIR/mtail.out")
    mtail_expected=$(field "$MTAIL_LOG" expected_permission_denials_total)
    mtail_mid=$(field "$MTAIL_LOG" denials_midstream)
fi

if wants exporter; then
    echo "exporter on $LOG, $RUNS runs" >&2
    bench exporter "$RUNS" "$LOG" "$EXPORTER" replay "$LOG"
    log_size=$(stat -c %s "$LOG")
    row "denials-exporter" "$log_size" "$exporter_wall" "$exporter_rss" "${mtail_mbps:-}"
    exporter_sum=$(prom_sum "$BENCH_DIR/exporter.out")

    QUARTER=$(generate "$QUARTER_BYTES")
    echo "exporter on $QUARTER (memory check), 3 runs" >&2
    bench quarter 3 "$QUARTER" "$EXPORTER" replay "$QUARTER"
    quarter_sum=$(prom_sum "$BENCH_DIR/quarter.out")
    quarter_expected=$(field "$QUARTER" expected_permission_denials_total)
fi

# ---------------------------------------------------------------------------------------------
# Report

echo
echo "## Replay benchmark ($(nproc) cores, page cache warm, seed $SEED)"
echo
echo "| tool | input | median wall s | MB/s | GB/s | peak RSS MiB | throughput vs mtail |"
echo "| --- | --- | ---: | ---: | ---: | ---: | ---: |"
printf '%s\n' "${rows[@]}"
echo
if wants exporter; then
    if [[ $exporter_sum == "$EXPECTED" ]]; then verdict=OK; else verdict=MISMATCH; status=1; fi
    echo "- exporter sum(permission_denials_total) = $exporter_sum, generator expected $EXPECTED: **$verdict**"
    if [[ $quarter_sum == "$quarter_expected" ]]; then qverdict=OK; else qverdict=MISMATCH; status=1; fi
    echo "- memory: peak RSS $(mib "$exporter_rss") MiB on $(awk -v b="$log_size" 'BEGIN { printf "%.0f", b / 1048576 }') MiB," \
        "$(mib "$quarter_rss") MiB on $(awk -v b="$(stat -c %s "$QUARTER")" 'BEGIN { printf "%.0f", b / 1048576 }') MiB" \
        "(ratio $(awk -v a="$exporter_rss" -v b="$quarter_rss" 'BEGIN { printf "%.2f", a / b }'); about 1.00 means memory does not grow with input);" \
        "quarter-size sum $quarter_sum vs expected $quarter_expected: $qverdict"
fi
if wants mtail; then
    echo "- mtail sum = $mtail_sum on its input (expected $mtail_expected; mid-stream lines $mtail_mid):" \
        "the regex program counts nested decoys and never sees record-only denials"
fi
exit "$status"
