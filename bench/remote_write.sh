#!/usr/bin/env bash
# Remote write, measured (docs/benchmarks.md, "Remote write"):
#  1. Disk queue bytes per hour of outage: the agent on scenarios/bench-8xh200.yaml (8 H200, 80 processes, 1 s)
#     in lockstep from one hour back, its receiver down: what its queue holds once it has caught up with now,
#     bytes per sample, and the hour at the live rate of part 3 (the replay's snapshots that the sink's queue
#     dropped on a loaded machine are counted, not queued).
#  2. Catch-up: VictoriaMetrics comes up; the time the agent takes to send the hour, and the agent's CPU
#     (utime+stime) per sample sent while it does.
#  3. Live forwarding beside Prometheus in agent mode, in one run: for BENCH_RW_SECONDS the agent sends its
#     samples to VictoriaMetrics and a `prometheus --enable-feature=agent` scrapes the agent's /metrics every
#     second and forwards the same series to the same VictoriaMetrics. Samples forwarded and process CPU per
#     sample for each (the agent's CPU also pays for its collection, its history and serving the scrapes).
# Usage: bench/remote_write.sh BUILD_DIR   (writes bench/results/remote-write.json)
set -euo pipefail
build=${1:-build}
root=$(cd "$(dirname "$0")/.." && pwd)
seconds=${BENCH_RW_SECONDS:-60}
base=${BENCH_PORT_BASE:-19560}
agent_port=$((base + 1)) vm_port=$((base + 2)) prom_port=$((base + 3))
work=$(mktemp -d)
pids=()
cleanup() { for p in "${pids[@]}"; do kill "$p" 2>/dev/null || true; done; wait 2>/dev/null || true; rm -rf "$work"; }
trap cleanup EXIT

cpu_ticks() { awk '{print $14 + $15}' "/proc/$1/stat"; }
metric() {  # metric NAME: the agent's value (summed over series)
  curl -s "http://127.0.0.1:$agent_port/metrics" | awk -v n="$1" '$1 ~ "^"n"({|$)" {s += $2} END {printf "%.0f", s}'
}
hz=$(getconf CLK_TCK)

GPUWATCH_SIM_MODE=lockstep GPUWATCH_SIM_EPOCH=$(($(date +%s) - 3600)) \
  "$build/gpuwatch" agent --listen "127.0.0.1:$agent_port" --sim-scenario "$root/scenarios/bench-8xh200.yaml" \
  --data-dir "$work/agent" --kmsg "" --remote-write-url "http://127.0.0.1:$vm_port/api/v1/write" \
  2>"$work/agent.log" &
agent=$!
pids+=("$agent")
for _ in $(seq 1 100); do curl -sf "http://127.0.0.1:$agent_port/healthz" >/dev/null && break; sleep 0.2; done
# Caught up when the newest queued sample is within 5 s of now.
for _ in $(seq 1 600); do
  lag=$(curl -s "http://127.0.0.1:$agent_port/api/v1/query?query=time()-timestamp(gpu_temperature_celsius)" |
    python3 -c 'import json,sys; r=json.load(sys.stdin)["data"]["result"]; print(int(min(float(x["value"][1]) for x in r)) if r else 9999)')
  [ "$lag" -lt 5 ] && break
  sleep 0.5
done
queue_bytes=$(metric gpuwatch_remote_write_queue_bytes)
queue_samples=$(metric gpuwatch_remote_write_queue_length)
# A replay makes snapshots faster than a sink takes them on a loaded machine: those its queue dropped are not
# in the hour's queue, so the hour is also given at the live rate measured below.
replay_dropped=$(curl -s "http://127.0.0.1:$agent_port/metrics" |
  awk '$1 == "gpuwatch_sink_dropped_snapshots_total{sink=\"remote_write\"}" {printf "%.0f", $2}')

victoria-metrics -httpListenAddr="127.0.0.1:$vm_port" -storageDataPath="$work/vm" -retentionPeriod=10y \
  -dedup.minScrapeInterval=1ms -loggerLevel=ERROR >"$work/vm.log" 2>&1 &
pids+=("$!")
before_cpu=$(cpu_ticks "$agent")
before_sent=$(metric gpuwatch_remote_write_samples_sent_total)
start=$(date +%s.%N)
for _ in $(seq 1 1200); do
  [ "$(metric gpuwatch_remote_write_queue_length)" -lt 20000 ] && break
  sleep 0.1
done
end=$(date +%s.%N)
drain_cpu=$(( $(cpu_ticks "$agent") - before_cpu ))
drained=$(( $(metric gpuwatch_remote_write_samples_sent_total) - before_sent ))

# Live, side by side: Prometheus in agent mode scraping the agent and forwarding to the same receiver.
cat >"$work/prom.yml" <<YAML
global: {scrape_interval: 1s, scrape_timeout: 1s}
scrape_configs:
  - job_name: gpuwatch
    static_configs: [{targets: ['127.0.0.1:$agent_port']}]
remote_write:
  - url: http://127.0.0.1:$vm_port/api/v1/write
YAML
prometheus --enable-feature=agent --config.file="$work/prom.yml" --storage.agent.path="$work/prom" \
  --web.listen-address="127.0.0.1:$prom_port" >"$work/prom.log" 2>&1 &
prom=$!
pids+=("$prom")
sleep 5
a_cpu=$(cpu_ticks "$agent") a_sent=$(metric gpuwatch_remote_write_samples_sent_total)
p_cpu=$(cpu_ticks "$prom")
p_sent=$(curl -s "http://127.0.0.1:$prom_port/metrics" | awk '$1 ~ /^prometheus_remote_storage_samples_total/ {s += $2} END {printf "%.0f", s}')
sleep "$seconds"
a_cpu=$(( $(cpu_ticks "$agent") - a_cpu )) a_sent=$(( $(metric gpuwatch_remote_write_samples_sent_total) - a_sent ))
p_cpu=$(( $(cpu_ticks "$prom") - p_cpu ))
p_sent=$(( $(curl -s "http://127.0.0.1:$prom_port/metrics" | awk '$1 ~ /^prometheus_remote_storage_samples_total/ {s += $2} END {printf "%.0f", s}') - p_sent ))

# Whether Prometheus's scrapes of the agent worked (its lastError when not).
curl -s "http://127.0.0.1:$prom_port/api/v1/targets" | python3 -c 'import json,sys; [print("prometheus target:", t["health"], t["lastError"], "scrape", t["lastScrapeDuration"], "s") for t in json.load(sys.stdin)["data"]["activeTargets"]]' >&2
mkdir -p "$root/bench/results"
python3 - "$queue_bytes" "$queue_samples" "$start" "$end" "$drain_cpu" "$drained" "$a_cpu" "$a_sent" "$p_cpu" "$p_sent" "$hz" "$seconds" "${replay_dropped:-0}" >"$root/bench/results/remote-write.json" <<'PY'
import json, sys
qb, qs, start, end, dcpu, drained, acpu, asent, pcpu, psent, hz, secs, rdropped = sys.argv[1:]
hz = float(hz)
wall = float(end) - float(start)
out = {
    "queue_bytes_per_hour_of_outage": int(qb), "queue_samples_per_hour_of_outage": int(qs),
    "queue_bytes_per_sample": int(qb) / max(1, int(qs)),
    "replay_snapshots_dropped_by_the_sink": int(rdropped),
    "queue_bytes_per_hour_at_the_live_rate": round(int(qb) / max(1, int(qs)) * int(asent) / int(secs) * 3600),
    "catch_up_seconds": round(wall, 2), "catch_up_samples": int(drained),
    "catch_up_samples_per_second": round(int(drained) / wall) if wall > 0 else None,
    "catch_up_cpu_ns_per_sample": round(int(dcpu) / hz * 1e9 / max(1, int(drained)), 1),
    "live_seconds": int(secs),
    "gpuwatch_live_samples": int(asent), "gpuwatch_live_cpu_ns_per_sample": round(int(acpu) / hz * 1e9 / max(1, int(asent)), 1),
    "prometheus_agent_live_samples": int(psent), "prometheus_agent_live_cpu_ns_per_sample": round(int(pcpu) / hz * 1e9 / max(1, int(psent)), 1),
}
print(json.dumps(out, indent=2))
PY
cat "$root/bench/results/remote-write.json"
