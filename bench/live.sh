#!/usr/bin/env bash
# Live benchmarks of `denials-exporter run`:
#
#   * latency from a line's append to its count in /metrics, with inotify and with --poll;
#   * sustained ingest of the real pino + pino-roll writer (tests/e2e/writer.mjs) with size-based
#     rolling and old files deleted, and whether the final count equals what was written;
#   * idle: CPU time and memory while following 100 files that nobody writes to;
#   * scrape: /metrics latency while the writer writes 100k lines/s (a scrape every 10 ms).
#
# Usage: bench/live.sh                 (builds the release binary first)
#
# Environment (all optional):
#   LATENCY_SAMPLES=500     inotify latency samples (each: append, then GET /metrics until it shows)
#   POLL_SAMPLES=100        --poll latency samples (about 0.5 s each; 0 skips them)
#   SPACING_MS=20           pause between two latency samples (--poll adds a random 0–1 s)
#   INGEST_SECONDS=15       how long the writer writes
#   INGEST_RATE=0           writer lines/s; 0 = as fast as pino goes
#   IDLE_SECONDS=10         idle window
#   IDLE_FILES=100          files followed while idle
#   BENCH_SKIP_BUILD=1      do not run cargo (use target/release/denials-exporter as it is)
#   SCRAPE_RATE=100000      writer lines/s during the scrape benchmark
#   BENCH_ONLY="latency ingest idle scrape"   run a subset
#
# Needs python3, and for the ingest figure node >= 20 with `(cd tests/e2e && npm ci)` done.
# Prints a Markdown table; the raw JSON of every measurement is kept in bench/out/live.jsonl.
# Exit status: 0, or 1 if the ingest lost or double counted anything, 2 on a setup error.
set -euo pipefail

ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
TARGET_DIR=${CARGO_TARGET_DIR:-$ROOT/target}
BIN=$TARGET_DIR/release/denials-exporter
LATENCY_SAMPLES=${LATENCY_SAMPLES:-500}
POLL_SAMPLES=${POLL_SAMPLES:-100}
SPACING_MS=${SPACING_MS:-20}
INGEST_SECONDS=${INGEST_SECONDS:-15}
INGEST_RATE=${INGEST_RATE:-0}
IDLE_SECONDS=${IDLE_SECONDS:-10}
IDLE_FILES=${IDLE_FILES:-100}
SCRAPE_RATE=${SCRAPE_RATE:-100000}
BENCH_ONLY=${BENCH_ONLY:-latency ingest idle scrape}
OUT=$ROOT/bench/out
PY=$ROOT/bench/live_bench.py

die() { echo "live.sh: $*" >&2; exit 2; }
wants() { [[ " $BENCH_ONLY " == *" $1 "* ]]; }

command -v python3 >/dev/null || die "python3 is needed"
if [[ -z ${BENCH_SKIP_BUILD:-} ]]; then
    (cd "$ROOT" && cargo build --release --bin denials-exporter) >&2 || die "cargo build failed"
fi
[[ -x $BIN ]] || die "no binary at $BIN"
mkdir -p "$OUT"
results=$OUT/live.jsonl
: >"$results"

run() { # one measurement: prints progress to stderr, appends its JSON line
    echo "live.sh: python3 bench/live_bench.py $*" >&2
    python3 "$PY" "$@" | tee -a "$results" >&2
}

if wants latency; then
    run latency "$BIN" --samples "$LATENCY_SAMPLES" --spacing-ms "$SPACING_MS"
    if ((POLL_SAMPLES > 0)); then
        run latency "$BIN" --poll --samples "$POLL_SAMPLES" --spacing-ms "$SPACING_MS"
    fi
fi
if wants ingest; then
    if [[ -d $ROOT/tests/e2e/node_modules/pino-roll ]] && command -v node >/dev/null; then
        run ingest "$BIN" --writer "$ROOT/tests/e2e/writer.mjs" --seconds "$INGEST_SECONDS" --rate "$INGEST_RATE"
    else
        echo "live.sh: skipping ingest: run (cd tests/e2e && npm ci) first" >&2
    fi
fi
if wants scrape; then
    [[ -d $ROOT/tests/e2e/node_modules/pino-roll ]] || die "scrape needs (cd tests/e2e && npm ci) first"
    run ingest "$BIN" --writer "$ROOT/tests/e2e/writer.mjs" --seconds "$INGEST_SECONDS" --rate "$SCRAPE_RATE" --scrape-ms 10
fi
if wants idle; then
    run idle "$BIN" --files "$IDLE_FILES" --seconds "$IDLE_SECONDS" --file-kib 8
    run idle "$BIN" --files "$IDLE_FILES" --seconds "$IDLE_SECONDS" --file-kib 1024
    run idle "$BIN" --files "$IDLE_FILES" --seconds "$IDLE_SECONDS" --file-kib 1024 --poll
fi

python3 - "$results" "$(nproc)" "$(cut -d' ' -f1-3 /proc/loadavg)" <<'EOF'
import json, sys
rows = [json.loads(l) for l in open(sys.argv[1]) if l.strip()]
print(f"\n## denials-exporter live benchmarks ({sys.argv[2]} cores, load average 1/5/15 min at the end: {sys.argv[3]})\n")
print("| figure | value | reproduce |")
print("|---|---|---|")
status = 0
for r in rows:
    if r["bench"] == "latency":
        n = "LATENCY_SAMPLES" if r["mode"] == "inotify" else "POLL_SAMPLES"
        print(f"| append → /metrics latency, {r['mode']} ({r['samples']} samples) | "
              f"p50 {r['p50_ms']} ms, p90 {r['p90_ms']} ms, p99 {r['p99_ms']} ms, max {r['max_ms']} ms | "
              f"`BENCH_ONLY=latency {n}={r['samples']} bench/live.sh` |")
    elif r["bench"] == "ingest":
        ok = "yes" if r["ok"] else "**NO**"
        status |= 0 if r["ok"] else 1
        print(f"| sustained ingest, pino + pino-roll (`{r['writer'].split('writer.mjs ')[1]}`) | "
              f"{r['writer_lines_per_s']:,} lines/s for {r['writer_seconds']} s ({r['mb_per_s']} MB/s, "
              f"{r['rotations']} rotations, {r['files_left']} files left); caught up {r['caught_up_after_writer_s']} s after the writer stopped | "
              f"`BENCH_ONLY=ingest bench/live.sh` |")
        print(f"| ingest: final count = written (no loss, no double count) | {ok}: {r['counted_denials']:,} of "
              f"{r['expected_denials']:,} denials, {r['series'] - r['series_wrong']}/{r['series']} series exact, "
              f"{r['exporter_lines']:,} of {r['writer_lines']:,} lines | same |")
        print(f"| ingest: exporter CPU, peak RSS | {r['exporter_cpu_s']} s CPU ({r['exporter_cpu_pct_of_core']}% of one core), "
              f"VmHWM {r['exporter_vmhwm_mib']} MiB | same |")
        if "scrape" in r:
            sc = r["scrape"]
            print(f"| GET /metrics during that ingest ({sc['samples']} scrapes, one every {sc['interval_ms']} ms) | "
                  f"p50 {sc['p50_ms']} ms, p99 {sc['p99_ms']} ms, max {sc['max_ms']} ms | `BENCH_ONLY=scrape bench/live.sh` |")
    elif r["bench"] == "idle":
        print(f"| idle, {r['files_followed']} files of {r['file_kib']} KiB followed, {r['mode']}: CPU in {r['window_s']} s without writes | "
              f"{r['cpu_ms']} ms (resolution {r['cpu_resolution_ms']} ms); VmRSS {r['vmrss_mib']} MiB, VmHWM {r['vmhwm_mib']} MiB | "
              f"`BENCH_ONLY=idle bench/live.sh` |")
sys.exit(status)
EOF
