#!/usr/bin/env bash
# The agent's memory after 10 minutes of the benchmark node (scenarios/bench-8xh200.yaml): BENCH_RSS_SECONDS
# (default 60) of ticks every 100 ms at 10x scenario time, history on, no scrape targets, kubelet, remote write
# or TLS, scraped every 0.5 s; then VmRSS, VmHWM and where each MiB goes (bench/rss_split.py over the agent's
# smaps). Part of `make bench` (bench/run.sh); runs alone as well.
#   bench/agent_rss.sh BUILD_DIR      writes bench/results/rss.json and rss-split.json
# Knobs: BENCH_RSS_SECONDS (60), BENCH_RSS_PORT (the agent's port, default 19481), BENCH_RSS_RESULTS (where
# rss.json and rss-split.json go, default bench/results: one each for builds run side by side), BENCH_RSS_TLS
# (1: the agent serves HTTPS with a self-signed certificate made here, and is scraped over it: what TLS costs).
set -euo pipefail
build=${1:-build}
[ -d "$build" ] || { echo "agent-rss: no build directory $build: run make build" >&2; exit 1; }
build=$(cd "$build" && pwd)
here=$(cd "$(dirname "$0")" && pwd)
root=$(dirname "$here")
cd "$root"
rss_seconds=${BENCH_RSS_SECONDS:-60}
rss_port=${BENCH_RSS_PORT:-19481}
scenario=scenarios/bench-8xh200.yaml
gpuwatch="$build/gpuwatch"
sim="$build/sim-lib/libnvidia-ml.so.1"
results=${BENCH_RSS_RESULTS:-$here/results}
die() { echo "agent-rss: $*" >&2; exit 1; }
[ -x "$gpuwatch" ] || die "$gpuwatch is missing: run make build"
[ -e "$sim" ] || die "the simulator $sim is missing: run make build"
mkdir -p "$results"
# shellcheck source=bench/bench_lib.sh
source "$here/bench_lib.sh"
status_kib() { awk -v k="$2:" '$1 == k {print $2}' "/proc/$1/status"; }

# The scenario's fake /proc tree: process names and cgroups are read from it, as on a real node.
proc_root="$work/proc"
"$gpuwatch" sim proc-tree --sim-scenario "$scenario" --proc-root "$proc_root" --nvml-library "$sim" >/dev/null

tls=()
scheme=http
if [ "${BENCH_RSS_TLS:-0}" = 1 ]; then
  openssl req -x509 -newkey rsa:2048 -nodes -subj /CN=127.0.0.1 -days 1 -keyout "$work/key.pem" \
    -out "$work/cert.pem" 2>/dev/null
  printf 'tls_server_config:\n  cert_file: %s\n  key_file: %s\n' "$work/cert.pem" "$work/key.pem" >"$work/web.yml"
  tls=(--web-config-file "$work/web.yml")
  scheme=https
fi
GPUWATCH_SIM_TIME_SCALE=10 GPUWATCH_SIM_EPOCH=$(date +%s) \
  "$gpuwatch" agent --sim-scenario "$scenario" --nvml-library "$sim" --proc-root "$proc_root" \
  --listen "127.0.0.1:$rss_port" --interval 100ms --data-dir "$work/rss-data" --log-level warn "${tls[@]}" &
agent=$!
pids+=("$agent")
wait_ready "$scheme://127.0.0.1:$rss_port/readyz" "$agent"
start=$(date +%s)
scrapes=0
while [ $(($(date +%s) - start)) -lt "$rss_seconds" ]; do
  curl -fsSk --max-time 2 -H 'Accept-Encoding: gzip' -o /dev/null "$scheme://127.0.0.1:$rss_port/metrics" && scrapes=$((scrapes + 1))
  sleep 0.5
done
agent_ticks=$(curl -fsSk --max-time 2 "$scheme://127.0.0.1:$rss_port/metrics" | awk '$1 == "gpuwatch_ticks_total" {print $2}')
# Where each MiB goes (heap, arenas, stacks, the binary, each shared library), from the agent's smaps.
python3 "$here/rss_split.py" "$agent" >"$results/rss-split.json"
# The agent's CPU over the run (utime + stime, fields 14 and 15 of /proc/PID/stat, in clock ticks).
cpu_s=$(awk -v hz="$(getconf CLK_TCK)" '{sub(/^.*\) /, ""); printf "%.2f", ($12 + $13) / hz}' "/proc/$agent/stat")
cat >"$results/rss.json" <<JSON
{"benchmark": "agent_rss", "wall_seconds": $rss_seconds, "time_scale": 10, "interval_s": 0.1,
 "agent_ticks": ${agent_ticks:-0}, "scrapes": $scrapes,
 "vm_rss_kib": $(status_kib "$agent" VmRSS), "vm_hwm_kib": $(status_kib "$agent" VmHWM), "cpu_seconds": $cpu_s,
 "tls": ${BENCH_RSS_TLS:-0}, "target_rss_mib": 20}
JSON
kill "$agent"
wait "$agent" 2>/dev/null || true
python3 - "$results/rss.json" "$results/rss-split.json" <<'PY'
import json, sys
rss, split = (json.load(open(p)) for p in sys.argv[1:])
parts = split["parts_kib"]
mapped = sum(k for name, k in parts.items() if ".so" in name or name == "the gpuwatch binary")
print(f"agent after {rss['agent_ticks']} ticks: VmRSS {rss['vm_rss_kib'] / 1024:.1f} MiB, "
      f"VmHWM {rss['vm_hwm_kib'] / 1024:.1f} MiB, CPU {rss['cpu_seconds']} s; the binary and shared libraries {mapped / 1024:.1f} MiB")
for name, kib in list(parts.items())[:14]:
    print(f"  {name}: {kib / 1024:.1f} MiB")
PY
