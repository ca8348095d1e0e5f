#!/usr/bin/env bash
# The pino snippet of docs/formats.md, run as written with the real pino, read by the real exporter:
#
#   bash tests/deploy/formats_snippet.sh [EXPORTER]     (default target/release/denials-exporter)
#
# 1. extracts the ```js block that follows the marker comment in docs/formats.md;
# 2. runs it through tests/deploy/formats_snippet.mjs (a hook denial, a canUseTool denial, allowed
#    calls, and the completed line listing both plus a path-rule denial) and replays the log: the
#    hook denial must count as reason="hook", the callback's as reason="permissionPromptTool", the
#    path rule's as "unknown", three in all (the record counts nothing twice);
# 3. the control: the same execution without the wrappers counts both as reason="unknown".
# Needs node and tests/e2e/node_modules (npm ci in tests/e2e).
set -uo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
exporter=${1:-$root/target/release/denials-exporter}
[ -x "$exporter" ] || { echo "formats_snippet: no exporter at $exporter"; exit 1; }
[ -d "$root/tests/e2e/node_modules/pino" ] || { echo "formats_snippet: no pino: (cd tests/e2e && npm ci)"; exit 1; }
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

awk '/<!-- tests\/deploy\/formats_snippet.sh runs this block/ { armed = 1; next }
     armed && /^```js$/ { inside = 1; next }
     inside && /^```$/ { exit }
     inside { print }' "$root/docs/formats.md" > "$work/snippet.mjs"
[ -s "$work/snippet.mjs" ] || { echo "formats_snippet: no marked js block in docs/formats.md"; exit 1; }

count() { # count METRICS TOOL REASON
  awk -v want="permission_denials_total{reason=\"$3\",tool=\"$2\",workflow=\"review\"}" '$1 == want { print $2 }' "$1"
}
total() { awk '/^permission_denials_total\{/ { n += $2 } END { print n + 0 }' "$1"; }

status=0
expect() { # expect WHAT GOT WANT
  if [ "$2" = "$3" ]; then echo "ok   $1: $2"; else echo "FAIL $1: got '${2}', want '$3'"; status=1; fi
}

for run in wrapped unwrapped; do
  flag=; [ $run = unwrapped ] && flag=--unwrapped
  node "$root/tests/deploy/formats_snippet.mjs" "$work/snippet.mjs" "$work/$run.log" $flag || { echo "FAIL node ($run)"; exit 1; }
  "$exporter" replay "$work/$run.log" > "$work/$run.prom" 2> "$work/$run.err" || { cat "$work/$run.err"; exit 1; }
done
grep -c '"event":"agent.permission.denied"' "$work/wrapped.log" > "$work/n"
expect "the snippet logs two denial lines" "$(cat "$work/n")" 2
expect "hook denial counted with reason hook" "$(count "$work/wrapped.prom" Bash hook)" 1
expect "canUseTool denial counted with reason permissionPromptTool" "$(count "$work/wrapped.prom" Write permissionPromptTool)" 1
expect "path-rule denial (no code of ours saw it) counted as unknown" "$(count "$work/wrapped.prom" Read unknown)" 1
expect "three denials in all: the record counts none twice" "$(total "$work/wrapped.prom")" 3
expect "control, without the wrappers: the hook denial is unknown" "$(count "$work/unwrapped.prom" Bash unknown)" 1
expect "control, without the wrappers: the canUseTool denial is unknown" "$(count "$work/unwrapped.prom" Write unknown)" 1
exit $status
