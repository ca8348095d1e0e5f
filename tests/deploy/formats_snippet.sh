#!/usr/bin/env bash
# The pino snippet of docs/formats.md, run as written with the real pino, read by the real exporter:
#
#   bash tests/deploy/formats_snippet.sh [EXPORTER]     (default target/release/denials-exporter)
#
# 1. extracts the ```js block that follows the marker comment in docs/formats.md;
# 2. runs it through tests/deploy/formats_snippet.mjs (a hook denial, a canUseTool denial, allowed
#    calls, a path-rule denial, each call's answer through logToolResults, and the completed line
#    listing the three denials) and replays the log: the hook denial must count as reason="hook",
#    the callback's as reason="permissionPromptTool", the path rule's as "rule", three in all (the
#    answers and the record count nothing twice), none unenforced;
# 3. the answers alone (no wrappers) give the same reasons;
# 4. the control: the same execution with neither counts all three as reason="unknown".
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

for run in wrapped results-only unwrapped; do
  flag=; [ $run != wrapped ] && flag=--$run
  node "$root/tests/deploy/formats_snippet.mjs" "$work/snippet.mjs" "$work/$run.log" $flag || { echo "FAIL node ($run)"; exit 1; }
  "$exporter" replay "$work/$run.log" > "$work/$run.prom" 2> "$work/$run.err" || { cat "$work/$run.err"; exit 1; }
done
unenforced() { awk '/^permission_denials_unenforced_total\{/ { n += $2 } END { print n + 0 }' "$1"; }
grep -c '"event":"agent.permission.denied"' "$work/wrapped.log" > "$work/n"
expect "the snippet logs two denial lines" "$(cat "$work/n")" 2
grep -c '"event":"agent.tool.result"' "$work/wrapped.log" > "$work/n"
expect "the snippet logs five answers" "$(cat "$work/n")" 5
for run in wrapped results-only; do
  expect "$run: hook denial counted with reason hook" "$(count "$work/$run.prom" Bash hook)" 1
  expect "$run: canUseTool denial counted with reason permissionPromptTool" "$(count "$work/$run.prom" Write permissionPromptTool)" 1
  expect "$run: path-rule denial (no code of ours saw it) counted with reason rule" "$(count "$work/$run.prom" Read rule)" 1
  expect "$run: three denials in all: answers and record count none twice" "$(total "$work/$run.prom")" 3
  expect "$run: no denial ran anyway" "$(unenforced "$work/$run.prom")" 0
done
expect "control, neither: the hook denial is unknown" "$(count "$work/unwrapped.prom" Bash unknown)" 1
expect "control, neither: the canUseTool denial is unknown" "$(count "$work/unwrapped.prom" Write unknown)" 1
expect "control, neither: the path-rule denial is unknown" "$(count "$work/unwrapped.prom" Read unknown)" 1
exit $status
