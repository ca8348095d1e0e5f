#!/usr/bin/env bash
# Same-run figures against another build: `replay` of a 1 GiB log against ripgrep counting the
# denial events in it, and `replay --audit-log` of a 64 MiB log (wall seconds and peak RSS KiB per
# run, one line each; medians in docs/performance.md). Logs from bench/replay.sh / bench/redact.sh.
# Usage: BASE=OLD_BINARY [NEW=BINARY] [ROUNDS=5] bench/matcher_budgets.sh
set -euo pipefail
BASE=${BASE:?BASE=path of the build to compare against}
NEW=${NEW:-$(cd "$(dirname "$0")/.." && pwd)/target/release/denials-exporter}
BIG=${BENCH_DIR:-/tmp/denials-bench}/executor-1G-seed1.log
SMALL=${BENCH_DIR:-/tmp/denials-bench}/executor-64M-seed1.log
ROUNDS=${ROUNDS:-5}
t() { /usr/bin/time -f '%e %M' "$@" 2>&1 >/dev/null | tail -1; }
for r in $(seq "$ROUNDS"); do
  echo "rg $(t rg -c agent.permission.denied $BIG)"
  echo "base_replay $(t $BASE replay $BIG)"
  echo "new_replay $(t $NEW replay $BIG)"
  rm -f /tmp/m.audit; echo "base_audit $(t $BASE replay --audit-log /tmp/m.audit $SMALL)"
  rm -f /tmp/m.audit; echo "new_audit $(t $NEW replay --audit-log /tmp/m.audit $SMALL)"
done
