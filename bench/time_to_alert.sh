#!/usr/bin/env bash
# Time from fault injection to the alert being in Alertmanager: gpuwatch at 1 s and at 100 ms sampling
# (in-process rules, sent straight to Alertmanager's API v2), side by side in the same run with the
# conventional pipeline: a real Prometheus scraping the 1 s agent's /metrics every 15 s and evaluating the
# equivalent rule (gpu_up == 0) every 15 s into the same Alertmanager. Each pipeline watches its own copy of
# the same simulated node (scaled mode, scale 1, one shared epoch), whose GPUs 1-4 fall off the bus at
# t = 20.1, 20.35, 20.6 and 20.85 s: four faults at different phases of the sampling interval.
# Alertmanager's GET /api/v2/alerts is polled every 50 ms. Writes bench/results/time_to_alert.json and .md.
#
# Usage: bench/time_to_alert.sh BUILD_DIR. Knob: TTA_PORT_BASE (19560).
# Every server listens on 127.0.0.1 only and is stopped (by PID) on exit; data lives in a temp dir.
set -euo pipefail

build=${1:-build}
[ -d "$build" ] || { echo "time_to_alert: no build directory $build" >&2; exit 1; }
build=$(cd "$build" && pwd)
here=$(cd "$(dirname "$0")" && pwd)
results="$here/results"
port_base=${TTA_PORT_BASE:-19560}
gpuwatch="$build/gpuwatch"
for tool in prometheus prometheus-alertmanager curl python3; do
  command -v "$tool" >/dev/null || { echo "time_to_alert: $tool is not installed" >&2; exit 1; }
done
[ -x "$gpuwatch" ] || { echo "time_to_alert: $gpuwatch is missing: run make build" >&2; exit 1; }

# shellcheck source=bench/bench_lib.sh
source "$here/bench_lib.sh"  # $work, $pids, stopped and removed on exit

am_port=$port_base; agent1_port=$((port_base + 1)); agent2_port=$((port_base + 2)); prom_port=$((port_base + 3))

cat > "$work/node.yaml" <<YAML
node: {hostname: tta-node, seed: 5, time_scale: 1, mode: scaled}
devices:
  - {model: H200, count: 5}
faults:
  - {type: fall_off_bus, gpu: 1, at: 20100ms}
  - {type: fall_off_bus, gpu: 2, at: 20350ms}
  - {type: fall_off_bus, gpu: 3, at: 20600ms}
  - {type: fall_off_bus, gpu: 4, at: 20850ms}
YAML
cat > "$work/alertmanager.yml" <<YAML
route: {receiver: none}
receivers: [{name: none}]
YAML
cat > "$work/rules.yml" <<YAML
groups:
  - name: gpu
    interval: 15s
    rules:
      - alert: GpuLostPrometheus
        expr: gpu_up == 0
        labels: {severity: page, pipeline: prometheus-15s}
YAML
cat > "$work/prometheus.yml" <<YAML
global: {scrape_interval: 15s, evaluation_interval: 15s}
rule_files: [$work/rules.yml]
alerting:
  alertmanagers: [{static_configs: [{targets: ['127.0.0.1:$am_port']}]}]
scrape_configs:
  - job_name: gpuwatch
    static_configs: [{targets: ['127.0.0.1:$agent1_port']}]
YAML

wait_ready() {
  for _ in $(seq 1 150); do curl -fsS -o /dev/null "$1" 2>/dev/null && return 0; sleep 0.1; done
  echo "time_to_alert: $1 did not answer" >&2; exit 1
}

prometheus-alertmanager --config.file="$work/alertmanager.yml" --storage.path="$work/am" \
  --web.listen-address="127.0.0.1:$am_port" --cluster.listen-address= --log.level=warn 2>"$work/am.log" &
pids+=($!)
wait_ready "http://127.0.0.1:$am_port/-/ready"

# Scenario time 0 a few seconds from now, so that every process is up before the fault.
epoch=$(python3 -c 'import time; print(f"{time.time() + 8:.3f}")')
export GPUWATCH_SIM_EPOCH=$epoch
for spec in "1s $agent1_port" "100ms $agent2_port"; do
  set -- $spec
  "$gpuwatch" agent --sim-scenario "$work/node.yaml" --listen "127.0.0.1:$2" --interval "$1" \
    --alertmanager-url "http://127.0.0.1:$am_port" --alert-labels "pipeline=gpuwatch-$1" \
    --data-dir "$work/agent-$1" --log-level warn 2>"$work/agent-$1.log" &
  pids+=($!)
done
wait_ready "http://127.0.0.1:$agent1_port/readyz"
wait_ready "http://127.0.0.1:$agent2_port/readyz"
prometheus --config.file="$work/prometheus.yml" --storage.tsdb.path="$work/prom" \
  --web.listen-address="127.0.0.1:$prom_port" --log.level=warn 2>"$work/prom.log" &
pids+=($!)
wait_ready "http://127.0.0.1:$prom_port/-/ready"

mkdir -p "$results"
python3 - "$am_port" "$epoch" "$results" <<'PY'
import json, statistics, sys, time, urllib.request
am_port, epoch, results = int(sys.argv[1]), float(sys.argv[2]), sys.argv[3]
faults = {"1": 20.10, "2": 20.35, "3": 20.60, "4": 20.85}
pipelines = ["gpuwatch-1s", "gpuwatch-100ms", "prometheus-15s"]
seen = {}
deadline = epoch + 21 + 75
while time.time() < deadline and len(seen) < len(pipelines) * len(faults):
    try:
        with urllib.request.urlopen(f"http://127.0.0.1:{am_port}/api/v2/alerts", timeout=2) as r:
            now = time.time()
            for a in json.load(r):
                key = (a["labels"].get("pipeline"), a["labels"].get("gpu"))
                if key[0] in pipelines and key[1] in faults and key not in seen:
                    seen[key] = now - (epoch + faults[key[1]])
    except OSError:
        pass
    time.sleep(0.05)
missing = [f"{p} GPU {g}" for p in pipelines for g in faults if (p, g) not in seen]
if missing:
    sys.exit(f"time_to_alert: no alert for {missing} within 75 s of the faults")
summary = {}
for p in pipelines:
    v = [seen[(p, g)] for g in faults]
    summary[p] = {"per_fault_s": v, "mean_s": statistics.mean(v), "max_s": max(v)}
prom = summary["prometheus-15s"]
dcgm = {"mean_s": prom["mean_s"] + 15.0, "max_s": prom["max_s"] + 30.0,
        "how": "computed: the measured Prometheus pipeline plus dcgm-exporter's 30 s collection "
               "(a fault waits 15 s on average, 30 s at worst, for the next collection)"}
json.dump({"epoch_unix": epoch, "faults_at_s": faults, "pipelines": summary, "dcgm_exporter_30s": dcgm},
          open(f"{results}/time_to_alert.json", "w"), indent=1)
fmt = lambda p: f"{summary[p]['mean_s']:.2f} s mean, {summary[p]['max_s']:.2f} s max (measured, 4 faults)"
md = ["| pipeline | time from fault to alert in Alertmanager |", "| --- | --- |",
      f"| gpuwatch, 1 s sampling | {fmt('gpuwatch-1s')} |",
      f"| gpuwatch, 100 ms sampling | {fmt('gpuwatch-100ms')} |",
      f"| Prometheus scraping gpuwatch every 15 s, rule (gpu_up == 0) every 15 s | {fmt('prometheus-15s')} |",
      f"| the same with dcgm-exporter's 30 s collection | {dcgm['mean_s']:.1f} s mean, {dcgm['max_s']:.1f} s max (computed) |"]
open(f"{results}/time_to_alert.md", "w").write("\n".join(md) + "\n")
print("\n".join(md))
PY
