# Sourced by the deploy scripts that start real processes: builds the exporter if `$exporter` is
# not there yet, makes a scratch directory `$work` and cds into it, and on exit kills and reaps
# every pid the script appended to `pids` and removes `$work`. Needs `$root` and `$exporter`.
if [[ ! -x $exporter ]]; then
  (cd "$root" && cargo build --quiet --bin denials-exporter)
fi

work=$(mktemp -d)
pids=()
cleanup() {
  for pid in "${pids[@]}"; do
    kill "$pid" 2>/dev/null || true
  done
  for pid in "${pids[@]}"; do
    wait "$pid" 2>/dev/null || true
  done
  rm -rf "$work"
}
trap cleanup EXIT
cd "$work"
