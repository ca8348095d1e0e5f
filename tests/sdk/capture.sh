#!/usr/bin/env bash
# Regenerates the committed capture of the real Agent SDK's stream-json (tests/data/sdk/): one run
# of every execution in scenario.mjs against the fake Messages API (every permission layer's
# denial, the auto-mode classifier's block and its outages, calls that ran, the fake AWS key
# pair in a denied command), exactly as the SDK emitted it, with the expected figures the
# executor derived from it.
#
#   bash tests/sdk/capture.sh [OUT_DIR]      (default tests/data/sdk; needs (cd tests/sdk && npm ci))
#
# Writes OUT_DIR/stream-json.jsonl (every SDK message of every execution, in arrival order, as
# the executor wrote all.jsonl) and OUT_DIR/expected.json (denials, their frames and per-call
# records, tokens, cost: see tests/sdk/README.md). The one change made to what the SDK emitted:
# the run's temporary directory, which appears in paths, becomes /tmp/denials-sdk-capture (and
# -tmp-denials-sdk-capture where the CLI spells it with dashes) so that
# a regenerated capture differs only where the SDK's output does (ids, timings, order).
# No network but loopback, as in run.sh (a network namespace where `unshare -n` works).
set -euo pipefail

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
root=$(cd "$here/../.." && pwd)
out=${1:-$root/tests/data/sdk}
placeholder=/tmp/denials-sdk-capture

[[ -d $here/node_modules/@anthropic-ai/claude-agent-sdk ]] ||
    { echo "capture: the SDK is not installed: run (cd tests/sdk && npm ci) first" >&2; exit 1; }
work=$(mktemp -d "${TMPDIR:-/tmp}/denials-sdk.XXXXXX")
trap 'rm -rf "$work"' EXIT

if command -v unshare >/dev/null && command -v ip >/dev/null && unshare -n true 2>/dev/null; then
    agents=(unshare -n bash "$here/run.sh" __agents "$work" netns)
elif command -v unshare >/dev/null && command -v ip >/dev/null && unshare -rn true 2>/dev/null; then
    agents=(unshare -rn bash "$here/run.sh" __agents "$work" netns)
else
    agents=(bash "$here/run.sh" __agents "$work")
fi
# One execution at a time: the capture's messages are then grouped by execution.
SDK_E2E_CONCURRENCY=1 timeout --kill-after=5 300 "${agents[@]}" >"$work/executor.out" 2>&1 ||
    { cat "$work/executor.out" >&2; echo "capture: the SDK run failed (above); nothing written" >&2; exit 1; }

mkdir -p "$out"
# (The CLI also names its transcript directory after the working directory, / and . as -.)
dashed() { local path=${1//\//-}; printf '%s' "${path//./-}"; }
for f in stream/all.jsonl:stream-json.jsonl expected.json:expected.json; do
    sed -e "s#$work#$placeholder#g" -e "s#$(dashed "$work")#$(dashed "$placeholder")#g" "$work/${f%%:*}" >"$out/${f##*:}"
done
# The capture must hold what it is for: the fake key pair (so redaction stays tested) and a
# classifier outage. (The single quotes hold JavaScript, not shell.)
# shellcheck disable=SC2016
node -e '
const fs = require("fs")
const [stream, expected] = process.argv.slice(1).map((f) => fs.readFileSync(f, "utf8"))
const e = JSON.parse(expected)
for (const s of e.secrets) if (!stream.includes(s)) { console.error(`capture: the fake key ${s.slice(0, 4)}… is not in the capture`); process.exit(1) }
if (!(e.classifierOutages > 0)) { console.error("capture: no classifier outage in the capture"); process.exit(1) }
console.log(`capture: ${stream.split("\n").filter(Boolean).length} messages, ${e.denialsTotal} denials (${e.classifierOutages} classifier outages), SDK ${e.sdk.version} (CLI ${e.sdk.claudeCodeVersion})`)
' "$out/stream-json.jsonl" "$out/expected.json"
echo "capture: wrote $out/stream-json.jsonl and $out/expected.json"
