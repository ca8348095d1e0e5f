#!/usr/bin/env bash
# End-to-end test with the REAL Claude Agent SDK: the SDK's bundled Claude Code CLI runs
# against a fake Messages API on loopback (fake-api.mjs), real permission layers deny scripted tool
# calls, an executor (executor.mjs) logs them with real pino and writes the raw SDK messages as
# stream-json, and the exporter's counts, and the risk class of each denial, are compared with
# what the SDK itself reported and what scenario.mjs says each attempt is.
#
#   bash tests/sdk/run.sh [BINARY]     (default target/release/denials-exporter; builds nothing)
#
# Needs: node >= 20 with `(cd tests/sdk && npm ci)` done (installs the SDK, its platform's native
# CLI and pino from package-lock.json). Installs nothing itself. No network but loopback: when the
# machine allows it (`unshare -n`), the SDK and the fake API run in a network namespace of their
# own that has only a loopback interface; else ANTHROPIC_BASE_URL and
# CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC=1 keep the CLI on 127.0.0.1.
#
# Steps: run the executions (scenario.mjs) → work/executor.log (pino), work/stream/*.jsonl
# (stream-json, one file per workflow and all.jsonl), work/expected.json (the SDK's own figures);
# then `denials-exporter replay` on
#   1. the pino log (--workflow-default sdk; its lines name their workflow),
#   2. the stream-json files, the workflow taken from the file name (--workflow-from-path),
#   3. all.jsonl with --workflow-default sdk (every workflow becomes "sdk"),
#   4. the committed capture tests/data/sdk/stream-json.jsonl (capture.sh), against its own
#      expected.json,
# each with --audit-log, and check.mjs compares each exposition and audit log with expected.json
# (and looks for the scenario's fake key pair in every output of the exporter, having checked that
# the input holds it). Prints `sdk: N passed, N failed`
# (N = checks); exits non-zero on any failure. KEEP=1 keeps the work directory.
set -euo pipefail

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)

# Internal: the part that runs the SDK (possibly inside its own network namespace).
if [[ ${1:-} == __agents ]]; then
    work=$2
    if [[ ${3:-} == netns ]]; then ip link set lo up; fi
    node "$here/fake-api.mjs" --port-file "$work/port" --log "$work/fake-api.jsonl" 2>"$work/fake-api.err" &
    fake=$!
    trap 'kill -TERM $fake 2>/dev/null || true; wait $fake 2>/dev/null || true' EXIT
    for _ in $(seq 100); do [[ -s $work/port ]] && break; sleep 0.05; done
    [[ -s $work/port ]] || { echo "sdk: the fake API did not start:"; cat "$work/fake-api.err"; exit 1; }
    node "$here/executor.mjs" --base-url "http://127.0.0.1:$(cat "$work/port")" --work "$work/agents" \
        --log "$work/executor.log" --stream-dir "$work/stream" --expected "$work/expected.json" \
        --fake-log "$work/fake-api.jsonl" --concurrency "${SDK_E2E_CONCURRENCY:-3}" \
        --timeout-ms "${SDK_E2E_TIMEOUT_MS:-45000}"
    exit $?
fi

root=$(cd "$here/../.." && pwd)
say() { printf 'sdk: %s\n' "$*"; }
give_up() { say "$*"; echo "sdk: 0 passed, 1 failed"; exit 1; }

bin=${1:-target/release/denials-exporter}
[[ -x $bin ]] || bin=$root/${1:-target/release/denials-exporter}
[[ -x $bin ]] || give_up "no exporter binary at ${1:-target/release/denials-exporter} (build it first)"
bin=$(cd "$(dirname "$bin")" && pwd)/$(basename "$bin")

# The SDK is the subject of this test: missing means FAIL, never a skip.
command -v node >/dev/null || give_up "node is not installed"
[[ -d $here/node_modules/@anthropic-ai/claude-agent-sdk && -d $here/node_modules/pino ]] ||
    give_up "@anthropic-ai/claude-agent-sdk or pino is not installed: run (cd tests/sdk && npm ci) first"
shopt -s nullglob
natives=("$here"/node_modules/@anthropic-ai/claude-agent-sdk-*/claude "$here"/node_modules/@anthropic-ai/claude-agent-sdk-*/claude.exe)
shopt -u nullglob
((${#natives[@]})) || give_up "the SDK's native Claude Code binary (optional dependency @anthropic-ai/claude-agent-sdk-<platform>) is not installed: run (cd tests/sdk && npm ci) without --omit=optional"

work=$(mktemp -d "${TMPDIR:-/tmp}/denials-sdk.XXXXXX")
status=1
cleanup() {
    if [[ $status -ne 0 || -n ${KEEP:-} ]]; then say "work directory kept: $work"; else rm -rf "$work"; fi
}
trap cleanup EXIT
trap 'exit 130' INT TERM

started=$(date +%s%N)
elapsed() { local ms=$((($(date +%s%N) - started) / 1000000)); printf '%d.%01d s' $((ms / 1000)) $((ms % 1000 / 100)); }
if [[ -z ${SDK_E2E_NO_NETNS:-} ]] && command -v unshare >/dev/null && command -v ip >/dev/null &&
    unshare -n true 2>/dev/null; then
    say "running the SDK in a network namespace with loopback only"
    agents=(timeout --kill-after=5 180 unshare -n bash "$here/run.sh" __agents "$work" netns)
elif [[ -z ${SDK_E2E_NO_NETNS:-} ]] && command -v unshare >/dev/null && command -v ip >/dev/null &&
    unshare -rn true 2>/dev/null; then
    say "running the SDK in a (user) network namespace with loopback only"
    agents=(timeout --kill-after=5 180 unshare -rn bash "$here/run.sh" __agents "$work" netns)
else
    say "no network namespace available: the SDK is kept on loopback by ANTHROPIC_BASE_URL alone"
    agents=(timeout --kill-after=5 180 bash "$here/run.sh" __agents "$work")
fi
passed=0
failed=0
if "${agents[@]}"; then
    passed=$((passed + 1))
else
    failed=$((failed + 1))
    say "FAIL the SDK run (see above; fake API log: $work/fake-api.jsonl)"
    [[ -s $work/expected.json ]] || { say "no expected figures were written"; echo "sdk: $passed passed, $failed failed"; exit 1; }
fi
say "SDK run done after $(elapsed)"

replay() { # NAME EXPECTED_WORKFLOW_AS EXPORTER_ARGS...
    local name=$1 as=$2
    shift 2
    if ! "$bin" replay --audit-log "$work/$name.audit.jsonl" "$@" >"$work/$name.prom" 2>"$work/$name.err"; then
        say "FAIL denials-exporter replay $* exited non-zero:"
        tail -n 20 "$work/$name.err"
        failed=$((failed + 1))
        return
    fi
    echo "== $name: denials-exporter replay ${*//$work/WORK}"
    local out
    set +e
    out=$(node "$here/check.mjs" "$work/$name.prom" "${expected_file:-$work/expected.json}" --name "$name" ${as:+--workflow-as "$as"} \
        --audit "$work/$name.audit.jsonl" --log "$work/$name.err")
    set -e
    echo "$out"
    local ok total
    read -r ok total < <(sed -n 's/^check([^)]*): \([0-9]*\) of \([0-9]*\) checks passed$/\1 \2/p' <<<"$out")
    if [[ -z ${ok:-} ]]; then failed=$((failed + 1)); return; fi
    passed=$((passed + ok))
    failed=$((failed + total - ok))
}

# The no-leak check of check.mjs means something only if the input holds the fake key pair.
secrets_in_input=1
while read -r secret; do
    for f in "$work/executor.log" "$work/stream/all.jsonl"; do
        grep -qF -- "$secret" "$f" || { secrets_in_input=0; say "FAIL the fake key ${secret:0:4}… is not in $(basename "$f"): the no-leak check would prove nothing"; }
    done
done < <(node -e 'for (const s of JSON.parse(require("fs").readFileSync(process.argv[1], "utf8")).secrets ?? []) console.log(s)' "$work/expected.json")
if ((secrets_in_input)) && grep -q '"secrets": \[$' "$work/expected.json"; then
    passed=$((passed + 1))
    say "ok   the fake key pair is in the pino log and in the stream-json"
else
    failed=$((failed + 1))
fi

replay pino '' --workflow-default sdk "$work/executor.log"
workflow_files=()
for f in "$work"/stream/*.jsonl; do [[ $(basename "$f") == all.jsonl ]] || workflow_files+=("$f"); done
replay stream-json-by-path '' --workflow-from-path '/stream/([a-z-]+)\.jsonl$' --workflow-default sdk "${workflow_files[@]}"
replay stream-json-default sdk --workflow-default sdk "$work/stream/all.jsonl"
# The committed capture (tests/data/sdk/, written by capture.sh) against the figures derived with it.
expected_file=$root/tests/data/sdk/expected.json replay capture sdk --workflow-default sdk "$root/tests/data/sdk/stream-json.jsonl"

say "all done after $(elapsed)"
echo "sdk: $passed passed, $failed failed"
[[ $failed -eq 0 ]] && status=0
exit $status
