#!/usr/bin/env bash
# The dashboards over 24 h and 30 days of history on a node with 8 GPUs and 1,000 processes (docs/benchmarks.md,
# "Web dashboards"). The node is the benchmark node's GPUs (scenarios/bench-8xh200.yaml: 8 H200) with its 80
# processes replaced by PROCESSES (default 1,000: 125 per GPU, each in its own pod), written into the work dir.
# Its history is exported by `gpuwatch sim export` at one snapshot a minute (what the store keeps past
# --downsample-after, 2 days by default) for DAYS (default 30) ending now, imported with `gpuwatch import`;
# the agent then runs on that data dir and bench/ui_bench.mjs drives Chromium. Before measuring, the script
# checks the node has what it says: 8 GPUs and PROCESSES processes in /api/v1/gpus, and history reaching back
# DAYS days.
# Usage: bench/ui_bench.sh BUILD_DIR [DAYS] [PROCESSES]   (tens of minutes on 2 cores; needs ~25 GB in TMPDIR)
# UI_BENCH_PREPARE_ONLY=1 stops once the history is imported. UI_BENCH_KEEP=DIR keeps the imported data (and
# the Prometheus blocks) in DIR and, when DIR holds them already, measures on them again without exporting.
set -euo pipefail
build=${1:-build}
days=${2:-30}
processes=${3:-1000}
root=$(cd "$(dirname "$0")/.." && pwd)
build=$(cd "$build" && pwd)
# What the exit removes: the work dir, unless it is kept.
remove_work=
if [ -n "${UI_BENCH_KEEP:-}" ]; then
  mkdir -p "$UI_BENCH_KEEP"
  work=$(cd "$UI_BENCH_KEEP" && pwd)
else
  work=$(mktemp -d "${TMPDIR:-/tmp}/gpuwatch-ui-bench.XXXXXX")
  remove_work=$work
fi
trap '[ -z "$remove_work" ] || rm -rf "$remove_work"' EXIT
# The benchmark node's GPUs with PROCESSES processes spread evenly over them (tests/web/many_processes_scenario.mjs).
scenario=$work/bench-8xh200-${processes}p.yaml
node "$root/tests/web/many_processes_scenario.mjs" "$root/scenarios/bench-8xh200.yaml" "$processes" > "$scenario"

if [ ! -f "$work/imported" ]; then
rm -rf "$work/data" "$work/prom" "$work/export"
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
touch "$work/imported"
fi
[ -n "${UI_BENCH_PREPARE_ONLY:-}" ] && exit 0
prom_pid=""
if command -v prometheus >/dev/null && [ -d "$work/prom" ]; then
  port=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
  printf 'global:\n  scrape_interval: 1m\nscrape_configs: []\n' > "$work/prometheus.yml"
  prometheus --config.file="$work/prometheus.yml" --storage.tsdb.path="$work/prom" --storage.tsdb.retention.time=60d \
    --web.listen-address="127.0.0.1:$port" > "$work/prometheus.log" 2>&1 &
  prom_pid=$!
  trap 'kill $prom_pid 2>/dev/null; wait $prom_pid 2>/dev/null; [ -z "$remove_work" ] || rm -rf "$remove_work"' EXIT
  for _ in $(seq 100); do curl -fs "http://127.0.0.1:$port/-/ready" >/dev/null && break; sleep 0.3; done
  export UI_BENCH_PEER=http://127.0.0.1:$port
fi
GPUWATCH_SOURCE_DIR=$root GPUWATCH_BINARY_DIR=$build node "$root/bench/ui_bench.mjs" "$work/data" "$scenario" "${UI_BENCH_REPEATS:-5}" \
  "$days" "$processes"
