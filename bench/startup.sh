#!/usr/bin/env bash
# Start-to-healthy: how long `denials-exporter run` takes from exec to the first `/-/healthy` 200,
# for a clean start and for each data fault it must survive (it comes up whatever the data).
#
# Usage: bench/startup.sh [BINARY]     BINARY defaults to target/release/denials-exporter
#
# Environment (all optional):
#   RUNS=5              starts per case (median and max reported, in milliseconds)
#   BACKLOG=64M         size of the log already there at start (read after healthy; it shows that
#                       a backlog does not delay healthy)
#
# Cases: clean (no state yet), restored (a valid state from a previous run), state_corrupt,
# state_newer, state_unreadable (a directory), state_unwritable (its directory is missing),
# state_volume_full (RLIMIT_FSIZE 0: every write of a byte fails), log_dir_missing.
# Prints one line per case: `case  median_ms  max_ms`. Exit status 1 if a case never got healthy.
set -euo pipefail

ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
BIN=${1:-$ROOT/target/release/denials-exporter}
RUNS=${RUNS:-5}
BACKLOG=${BACKLOG:-64M}
[[ -x $BIN ]] || { echo "startup: no binary at $BIN (cargo build --release)" >&2; exit 2; }

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
mkdir "$work/logs"
python3 - "$work/logs/app.log" "$BACKLOG" <<'EOF'
import sys
path, size = sys.argv[1], sys.argv[2]
n = int(size[:-1]) * {"K": 1 << 10, "M": 1 << 20, "G": 1 << 30}[size[-1]] if size[-1] in "KMG" else int(size)
line = ('{"level":40,"time":1700000000000,"workflow":"bench","event":"agent.permission.denied",'
        '"toolName":"Bash","decisionReasonType":"rule","decisionReason":"Denied by rule Bash(rm:*)",'
        '"msg":"agent permission denied"}\n').encode()
with open(path, "wb") as f:
    f.write(line * max(1, n // len(line)))
EOF

# One start: prepares the case, execs the exporter, polls /-/healthy every 5 ms; prints the ms.
measure() {
  python3 - "$BIN" "$work" "$1" <<'EOF'
import os, resource, shutil, signal, socket, subprocess, sys, time, urllib.request
bin_, work, case = sys.argv[1:]
state = os.path.join(work, "state", "state.json")
shutil.rmtree(os.path.join(work, "state"), ignore_errors=True)
os.makedirs(os.path.dirname(state))
glob = os.path.join(work, "logs", "*.log")
preexec = None
if case == "restored":
    shutil.copy(os.path.join(work, "good-state.json"), state)
elif case == "state_corrupt":
    open(state, "w").write("{not json")
elif case == "state_newer":
    open(state, "w").write('{"version":"9","files":[]}')
elif case == "state_unreadable":
    os.mkdir(state)
elif case == "state_unwritable":
    state = os.path.join(work, "missing", "state.json")
elif case == "state_volume_full":
    def preexec():
        signal.signal(signal.SIGXFSZ, signal.SIG_IGN)
        resource.setrlimit(resource.RLIMIT_FSIZE, (0, resource.RLIM_INFINITY))
elif case == "log_dir_missing":
    glob = os.path.join(work, "nowhere", "*.log")
s = socket.socket(); s.bind(("127.0.0.1", 0)); port = s.getsockname()[1]; s.close()
args = [bin_, "run", "--path", glob, "--state-file", state, "--web.listen-address", f"127.0.0.1:{port}"]
start = time.monotonic()
p = subprocess.Popen(args, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, preexec_fn=preexec)
took = None
while time.monotonic() - start < 30 and p.poll() is None:
    try:
        if urllib.request.urlopen(f"http://127.0.0.1:{port}/-/healthy", timeout=1).status == 200:
            took = time.monotonic() - start
            break
    except OSError:
        time.sleep(0.005)
if case == "clean" and took is not None:  # keep its state for the `restored` case
    for _ in range(600):
        try:
            if urllib.request.urlopen(f"http://127.0.0.1:{port}/-/ready", timeout=1).status == 200:
                break
        except OSError:
            pass
        time.sleep(0.05)
p.send_signal(signal.SIGTERM)
p.wait()
if case == "clean":
    shutil.copy(state, os.path.join(work, "good-state.json"))
print("never" if took is None else f"{took * 1000:.0f}")
EOF
}

echo "# start-to-healthy, ms ($RUNS starts each, backlog $BACKLOG, $(basename "$BIN"))"
printf '%-20s %8s %8s\n' case median max
status=0
for case in clean restored state_corrupt state_newer state_unreadable state_unwritable \
  state_volume_full log_dir_missing; do
  times=()
  for ((i = 0; i < RUNS; i++)); do times+=("$(measure "$case")"); done
  if printf '%s\n' "${times[@]}" | grep -q never; then
    printf '%-20s %8s %8s\n' "$case" never never
    status=1
    continue
  fi
  sorted=($(printf '%s\n' "${times[@]}" | sort -n))
  printf '%-20s %8s %8s\n' "$case" "${sorted[$((RUNS / 2))]}" "${sorted[$((RUNS - 1))]}"
done
exit $status
