#!/usr/bin/env bash
# The cost report's time over 30 days of history (docs/benchmarks.md, "Accounting"): the agent plays
# scenarios/shared-node-week.yaml moved to start 30 days ago, in lockstep at a 60 s interval (what the store
# keeps of older history after downsampling: one sample a minute) until it has caught up with the clock; then
# hyperfine times `gpuwatch report --data-dir DIR --since 30d` in every format over that store.
#   bench/cost_report.sh BUILD_DIR
set -euo pipefail
build=$(cd "${1:-build}" && pwd)
src=$(cd "$(dirname "$0")/.." && pwd)
work=$(mktemp -d)
trap 'kill "${agent:-0}" 2>/dev/null || true; rm -rf "$work"' EXIT

sed 's/^  start: now-7d$/  start: now-30d/' "$src/scenarios/shared-node-week.yaml" >"$work/month.yaml"
mkdir -p "$work/proc"
"$build/gpuwatch" sim proc-tree --proc-root "$work/proc" --sim-scenario "$work/month.yaml" >/dev/null
port=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
cat >"$work/gpuwatch.yaml" <<YAML
listen: 127.0.0.1:$port
interval: 60s
data_dir: $work/data
sim_scenario: $work/month.yaml
proc_root: $work/proc
kmsg: ""
gpu_hour_price: H200=4
teams: research=namespace:research;vision=namespace:vision;physics=user:carol;ops=namespace:ops
YAML
start=$(date +%s)
"$build/gpuwatch" agent --config "$work/gpuwatch.yaml" >"$work/agent.log" 2>&1 &
agent=$!
until python3 - "$port" "$start" <<'PY'
import json, sys, urllib.request
try:
    d = json.load(urllib.request.urlopen(f"http://127.0.0.1:{sys.argv[1]}/api/v1/gpus", timeout=2))
    sys.exit(0 if d["timestamp_ms"] >= int(sys.argv[2]) * 1000 else 1)
except Exception:
    sys.exit(1)
PY
do sleep 1; done
echo "30 days played in $(( $(date +%s) - start )) s"
kill -TERM "$agent"; wait "$agent" || true
du -sh "$work/data"
for format in md json csv html; do
  hyperfine --warmup 1 --runs 10 --export-json "$work/$format.json" \
    "$build/gpuwatch report --data-dir $work/data --since 30d --format $format --out $work/report.$format" |
    grep -E "Time|Range"
done
"$build/gpuwatch" report --data-dir "$work/data" --since 30d | sed -n '1,12p'
