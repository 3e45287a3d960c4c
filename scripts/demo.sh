#!/usr/bin/env bash
# `make demo`: runs the agent on a bundled simulated GPU node (libnvml-sim) and shows where to look.
# Usage: scripts/demo.sh BUILD_DIR SCENARIO LISTEN   (DEMO_SECONDS=N stops it after N seconds; default: Ctrl-C)
set -euo pipefail
build=${1:-build}
scenario=${2:-scenarios/incidents-8xh200.yaml}
listen=${3:-127.0.0.1:19400}
scale=${DEMO_TIME_SCALE:-10}

gpuwatch="$build/gpuwatch"
sim="$build/sim-lib/libnvidia-ml.so.1"
proc_root="$build/demo-proc"
sysfs_root="$build/demo-sys"
[ -x "$gpuwatch" ] || { echo "demo: $gpuwatch is missing: run make build" >&2; exit 1; }
[ -e "$sim" ] || { echo "demo: the simulator $sim is missing: run make build" >&2; exit 1; }

# Every process that loads the simulator with the same epoch, scale and scenario sees the same GPUs at the
# same moment: the agent and the `status` calls below agree. The scale speeds up the scenario's script only:
# the simulated GPUs, the agent's history and its alerts keep to the wall clock.
export GPUWATCH_SIM_EPOCH=$(date +%s)
export GPUWATCH_SIM_TIME_SCALE=$scale
export GPUWATCH_SIM_MODE=scaled  # a lockstep scenario (a simulated day) plays at the same pace
# A fresh history each run, unless DEMO_DATA_DIR names one to keep.
if [ -n "${DEMO_DATA_DIR:-}" ]; then
  data_dir=$DEMO_DATA_DIR
  if [ -n "$(ls -A "$data_dir" 2>/dev/null)" ]; then
    echo "demo: keeping the history already in $data_dir (new samples are added after it; remove the folder to start clean)"
  fi
else
  data_dir="$build/demo-data"
  rm -rf "$data_dir"
fi
mkdir -p "$data_dir"
# The simulator keeps the node's kernel log (XID lines with pid and process, AER, driver messages) here.
export GPUWATCH_SIM_KMSG="$data_dir/demo-kmsg"
: > "$GPUWATCH_SIM_KMSG"
simulator=(--nvml-library "$sim" --sim-scenario "$scenario")
common=("${simulator[@]}" --proc-root "$proc_root" --kmsg "$GPUWATCH_SIM_KMSG" --sysfs-root "$sysfs_root")

# The scenario's processes as /proc shows them, and its PCIe topology (which GPUs share a switch) as /sys does.
"$gpuwatch" sim proc-tree "${simulator[@]}" --proc-root "$proc_root" >/dev/null
"$gpuwatch" sim sysfs-tree "${simulator[@]}" --sysfs-root "$sysfs_root" >/dev/null

# A scenario with model servers: serve their /metrics on loopback and add their sockets to the proc tree, so
# the agent discovers them on their GPUs (the scenario's `gpuwatch:` section turns discovery on).
services=
if grep -q '^services:' "$scenario"; then
  "$gpuwatch" sim serve "${simulator[@]}" --proc-root "$proc_root" > "$data_dir/sim-serve.log" &
  services=$!
  for _ in $(seq 1 50); do
    [ "$(wc -l < "$data_dir/sim-serve.log")" -gt 0 ] && break
    kill -0 $services 2>/dev/null || { echo "demo: gpuwatch sim serve exited" >&2; cat "$data_dir/sim-serve.log" >&2; exit 1; }
    sleep 0.1
  done
fi

"$gpuwatch" agent "${common[@]}" --listen "$listen" --data-dir "$data_dir" --runbook-dir docs/runbooks &
agent=$!
trap 'kill $agent ${services} 2>/dev/null; wait $agent ${services} 2>/dev/null || true' EXIT INT TERM

url="http://$listen"
for _ in $(seq 1 100); do
  curl -fsS "$url/readyz" >/dev/null 2>&1 && break
  kill -0 $agent 2>/dev/null || { echo "demo: the agent exited" >&2; exit 1; }
  sleep 0.1
done

cat <<TEXT

gpuwatch is running on a simulated node: $scenario
(its script plays ${scale}x faster than the clock, so its faults unfold within minutes; the GPUs' readings,
 the history and the alerts keep to the wall clock; history: $data_dir)

  Open the dashboards in a browser: $url/
  (on-call at /, then $url/?view=debug and $url/?view=executive)

  metrics (Prometheus text)      curl -s $url/metrics
  metrics (OpenMetrics)          curl -s -H 'Accept: application/openmetrics-text' $url/metrics
  metrics (dcgm-exporter names)  curl -s '$url/metrics?naming=dcgm'
  latest snapshot as JSON        curl -s $url/api/v1/gpus
  liveness / readiness           curl -s $url/healthz ; curl -s $url/readyz
  all endpoints                  $url/endpoints
  alerts (Prometheus format)     curl -s $url/api/v1/alerts      or   $gpuwatch alerts --url $url
  a runbook                      curl -s $url/runbooks/GpuLost
  other game days                make demo DEMO_SCENARIO=scenarios/pcie-contention-4xh200.yaml  (see scenarios/)
  history (PromQL)               $gpuwatch query 'gpu_temperature_celsius{gpu="0"}' --url $url --since 10m
                                 promtool query instant $url 'gpu_temperature_celsius' 
  Grafana                        add a Prometheus data source with URL $url
  status table                   GPUWATCH_SIM_MODE=scaled GPUWATCH_SIM_EPOCH=$GPUWATCH_SIM_EPOCH GPUWATCH_SIM_TIME_SCALE=$scale \\
                                   $gpuwatch status ${common[*]}

TEXT
echo "--- gpuwatch status, now ---"
"$gpuwatch" status "${common[@]}" || true
echo
echo "--- gpuwatch alerts, now ---"
"$gpuwatch" alerts --url "$url" || true
echo
echo "--- a few lines of /metrics ---"
curl -fsS "$url/metrics" | grep -E '^gpu_(up|utilization_ratio|power_watts|temperature_celsius)\{' | head -12 || true
echo
if [ -n "$services" ]; then
  echo "--- the model servers (gpuwatch sim serve) ---"
  cat "$data_dir/sim-serve.log"
  echo "  their series, with the GPU each runs on:  $gpuwatch query 'up{job=\"inference\"}' --url $url"
  echo "  vLLM p95 latency by GPU:  $gpuwatch query 'histogram_quantile(0.95, sum by (gpu, le) (rate(vllm:e2e_request_latency_seconds_bucket[1m])))' --url $url"
  echo
fi
if [ -n "${DEMO_SECONDS:-}" ]; then
  sleep "$DEMO_SECONDS"
  echo "--- gpuwatch status after ${DEMO_SECONDS}s (the scenario's minute $((DEMO_SECONDS * scale / 60))) ---"
  "$gpuwatch" status "${common[@]}" || true
  echo "--- gpuwatch alerts after ${DEMO_SECONDS}s ---"
  "$gpuwatch" alerts --url "$url" || true
  echo "--- GPU 0's temperature over the demo, from the agent's history ---"
  "$gpuwatch" query 'gpu_temperature_celsius{gpu="0"}' --url "$url" --start "$GPUWATCH_SIM_EPOCH" --step 5s || true
  if [ -n "$services" ]; then
    echo "--- the model servers the agent scraped, with their GPUs (up, from its history) ---"
    "$gpuwatch" query 'up{job="inference"}' --url "$url" || true
    echo "--- mean request latency per GPU over the last minute (Triton, vLLM, TGI) ---"
    "$gpuwatch" query 'sum by (gpu) (rate(nv_inference_request_duration_us[1m])) / sum by (gpu) (rate(nv_inference_request_success[1m])) / 1e6 or sum by (gpu) (rate(vllm:e2e_request_latency_seconds_sum[1m])) / sum by (gpu) (rate(vllm:e2e_request_latency_seconds_count[1m])) or sum by (gpu) (rate(tgi_request_duration_sum[1m])) / sum by (gpu) (rate(tgi_request_duration_count[1m]))' --url "$url" || true
  fi
else
  echo "Press Ctrl-C to stop the agent."
  wait $agent
fi
