#!/usr/bin/env bash
# Risk classifier micro-benchmark: nanoseconds per classification over the labelled corpus
# (tests/data/risk/corpus.tsv), its ordinary commands, with user rules, and 16 KiB inputs (the byte budget, the worst
# case). Release build; prints a Markdown table.
#
# Usage: bench/risk.sh
#
# Environment (optional):
#   RISK_BENCH_ROUNDS=50    passes over each set of attempts, per run (the best of seven runs,
#                          in thread CPU time, is shown)
#
# Reading the figure against replay: at the usual 1% of denial lines, replay meets about 27,000
# denials per GiB of log, so every microsecond per classification adds about 27 ms per GiB
# (4% of a 0.64 s replay of 1 GiB). Classification runs once per denial, never per line.
set -euo pipefail

ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
cd "$ROOT"
cargo bench --bench risk 2>&1 |
    grep -E '^\|'
