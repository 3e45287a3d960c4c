#!/usr/bin/env bash
# How many stored samples of a slowly read counter repeat the one before: runs the agent on the demo scenario
# at the demo's time scale for SECONDS, then asks its query API for gpu_energy_joules_total{gpu="0"} over the
# last hour and counts consecutive equal values. A value carried into a snapshot without being read again
# should not be stored again. Usage: bench/stored_repeats.sh BUILD_DIR [SECONDS] [PORT]
set -euo pipefail
build=${1:?usage: stored_repeats.sh BUILD_DIR [SECONDS] [PORT]}
seconds=${2:-30}
port=${3:-19777}
dir=$(mktemp -d)
trap 'kill $agent 2>/dev/null || true; wait $agent 2>/dev/null || true; rm -rf "$dir"' EXIT
export GPUWATCH_SIM_EPOCH=$(date +%s) GPUWATCH_SIM_TIME_SCALE=10
"$build/gpuwatch" agent --nvml-library "$build/sim-lib/libnvidia-ml.so.1" \
  --sim-scenario scenarios/incidents-8xh200.yaml --listen "127.0.0.1:$port" --data-dir "$dir/data" \
  >"$dir/log" 2>&1 &
agent=$!
sleep "$seconds"
# The simulated GPUs keep to the wall clock (the scenario's script plays 10x faster).
now=$(date +%s)
curl -fsS "http://127.0.0.1:$port/api/v1/query?query=gpu_energy_joules_total%7Bgpu%3D%220%22%7D%5B1h%5D&time=$now" \
  >"$dir/out.json"
python3 - "$dir/out.json" <<'PY'
import json, sys
result = json.load(open(sys.argv[1]))["data"]["result"]
values = result[0]["values"] if result else []
repeats = sum(1 for a, b in zip(values, values[1:]) if a[1] == b[1])
print(f"stored samples {len(values)}, repeating the one before {repeats}")
PY
