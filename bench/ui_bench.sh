#!/usr/bin/env bash
# The dashboards over 24 h and 30 days of history (docs/benchmarks.md, "Web dashboards"). The history is the
# benchmark node's (scenarios/bench-8xh200.yaml: 8 H200, 80 processes) exported by `gpuwatch sim export` at one
# snapshot a minute (what the store keeps past --downsample-after, 2 days by default) for 30 days ending now,
# imported with `gpuwatch import`; the agent then runs on that data dir and bench/ui_bench.mjs drives Chromium.
# Usage: bench/ui_bench.sh BUILD_DIR [DAYS]   (takes several minutes on 2 cores; needs ~6 GB in TMPDIR)
set -euo pipefail
build=${1:-build}
days=${2:-30}
root=$(cd "$(dirname "$0")/.." && pwd)
build=$(cd "$build" && pwd)
scenario=$root/scenarios/bench-8xh200.yaml
work=$(mktemp -d "${TMPDIR:-/tmp}/gpuwatch-ui-bench.XXXXXX")
trap 'rm -rf "$work"' EXIT

echo "ui-bench: exporting ${days} days of $scenario at 1 snapshot/min" >&2
"$build/gpuwatch" sim export --sim-scenario "$scenario" --nvml-library "$build/sim-lib/libnvidia-ml.so.1" \
  --duration "${days}d" --step 60s --split 1d --out-dir "$work/export" >&2
# The store keeps the clock domain it was made in, and the agent on the simulator reads only its scenario's:
# a few seconds of the agent, a day before the export begins, make the store in that domain.
echo "ui-bench: making the store (the simulator's clock domain), then importing into $work/data" >&2
GPUWATCH_SIM_MODE=lockstep GPUWATCH_SIM_EPOCH=$(( $(date +%s) - (days + 1) * 86400 )) \
  "$build/gpuwatch" agent --sim-scenario "$scenario" --nvml-library "$build/sim-lib/libnvidia-ml.so.1" \
  --listen 127.0.0.1:0 --data-dir "$work/data" --proc-root "" --kmsg "" --log-level warn &
maker=$!
sleep 3
kill "$maker"
wait "$maker" || true
# One file at a time, removed once imported: the export of 30 days is several GB.
# The last two days also go to Prometheus (promtool tsdb create-blocks-from), the peer the 24 h views' queries
# are replayed against side by side.
files=$(ls "$work/export" | sort)
last_two=$(echo "$files" | tail -n 2)
for f in $files; do
  "$build/gpuwatch" import --data-dir "$work/data" --quiet "$work/export/$f" >/dev/null
  if echo "$last_two" | grep -qx "$f" && command -v promtool >/dev/null; then
    promtool tsdb create-blocks-from openmetrics -q "$work/export/$f" "$work/prom" >/dev/null
  fi
  rm -f "$work/export/$f"
done
prom_pid=""
if command -v prometheus >/dev/null && [ -d "$work/prom" ]; then
  port=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
  printf 'global:\n  scrape_interval: 1m\nscrape_configs: []\n' > "$work/prometheus.yml"
  prometheus --config.file="$work/prometheus.yml" --storage.tsdb.path="$work/prom" --storage.tsdb.retention.time=60d \
    --web.listen-address="127.0.0.1:$port" > "$work/prometheus.log" 2>&1 &
  prom_pid=$!
  trap 'kill $prom_pid 2>/dev/null; wait $prom_pid 2>/dev/null; rm -rf "$work"' EXIT
  for _ in $(seq 100); do curl -fs "http://127.0.0.1:$port/-/ready" >/dev/null && break; sleep 0.3; done
  export UI_BENCH_PEER=http://127.0.0.1:$port
fi
GPUWATCH_SOURCE_DIR=$root GPUWATCH_BINARY_DIR=$build node "$root/bench/ui_bench.mjs" "$work/data" "$scenario" "${UI_BENCH_REPEATS:-5}"
