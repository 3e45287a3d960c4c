#!/usr/bin/env bash
# `make bench`: gpuwatch's collection cost, its memory after 10 minutes, and /metrics serving side by side with
# prometheus-node-exporter, all in one run. Writes bench/results/*.json and prints a Markdown summary
# (also bench/results/summary.md). Usage: bench/run.sh BUILD_DIR
#
# Knobs (environment): BENCH_TICKS (600), BENCH_FAST_TICKS (2000 ticks at 10 ms; 0 skips),
# BENCH_RSS_SECONDS (60), BENCH_WRK_SECONDS (10), BENCH_WRK_CONNECTIONS (8), BENCH_PORT_BASE (19480).
# Every server this script starts listens on 127.0.0.1 only and is stopped on exit.
set -euo pipefail

build=${1:-build}
[ -d "$build" ] || { echo "bench: no build directory $build: run make build" >&2; exit 1; }
build=$(cd "$build" && pwd)
here=$(cd "$(dirname "$0")" && pwd)
root=$(dirname "$here")
cd "$root"

ticks=${BENCH_TICKS:-600}
fast_ticks=${BENCH_FAST_TICKS:-2000}
rss_seconds=${BENCH_RSS_SECONDS:-60}
wrk_seconds=${BENCH_WRK_SECONDS:-10}
wrk_connections=${BENCH_WRK_CONNECTIONS:-8}
port_base=${BENCH_PORT_BASE:-19480}
scenario=scenarios/bench-8xh200.yaml
node_exporter=${NODE_EXPORTER:-/usr/bin/prometheus-node-exporter}

gpuwatch="$build/gpuwatch"
sim="$build/sim-lib/libnvidia-ml.so.1"
collect_bench="$build/bench/collect_bench"
results="$here/results"

die() { echo "bench: $*" >&2; exit 1; }
[ -x "$gpuwatch" ] || die "$gpuwatch is missing: run make build"
[ -e "$sim" ] || die "the simulator $sim is missing: run make build"
[ -x "$collect_bench" ] || die "$collect_bench is missing: run make build"
for tool in wrk curl python3 "$node_exporter"; do
  command -v "$tool" >/dev/null || die "$tool is not installed (scripts/install-deps.sh installs it)"
done

mkdir -p "$results"
# shellcheck source=bench/bench_lib.sh
source "$here/bench_lib.sh"

port_free() { ! curl -s -o /dev/null --max-time 1 "http://127.0.0.1:$1/" 2>/dev/null; }
for p in $((port_base + 1)) $((port_base + 2)) $((port_base + 3)) $((port_base + 4)); do
  port_free "$p" || die "127.0.0.1:$p is in use: set BENCH_PORT_BASE"
done

status_kib() { awk -v k="$2:" '$1 == k {print $2}' "/proc/$1/status"; }

# The scenario's fake /proc tree: process names and cgroups are read from it, as on a real node.
proc_root="$work/proc"
"$gpuwatch" sim proc-tree --sim-scenario "$scenario" --proc-root "$proc_root" --nvml-library "$sim" >/dev/null

echo "== 1/3 collection cost: $ticks ticks of 1 s on $scenario (lockstep) =="
"$collect_bench" --nvml-library "$sim" --scenario "$scenario" --proc-root "$proc_root" --ticks "$ticks" \
  --interval-ms 1000 >"$results/collect.json"
if [ "$fast_ticks" -gt 0 ]; then
  "$collect_bench" --nvml-library "$sim" --scenario "$scenario" --proc-root "$proc_root" --ticks "$fast_ticks" \
    --interval-ms 10 >"$results/collect-10ms.json"
else
  rm -f "$results/collect-10ms.json"
fi

# The same run profiled: CPU samples split time inside NVML from the agent's own work without counting waits.
if command -v perf >/dev/null && perf record -q -o "$work/probe.perf" true >/dev/null 2>&1; then
  perf record -q -F 1999 --call-graph dwarf,16384 -o "$work/collect.perf" -- "$collect_bench" \
    --nvml-library "$sim" --scenario "$scenario" --proc-root "$proc_root" --ticks "$ticks" --interval-ms 1000 \
    >"$work/collect-profiled.json" 2>/dev/null
  perf script -i "$work/collect.perf" -F comm,tid,ip,sym,dso 2>/dev/null |
    python3 "$here/cpu_split.py" "$results/collect.json" >"$results/collect-cpu-split.json"
  # The 10 ms run too: there the per-tick hand-off to the device workers weighs most.
  if [ "$fast_ticks" -gt 0 ]; then
    perf record -q -F 1999 --call-graph dwarf,16384 -o "$work/collect-10ms.perf" -- "$collect_bench" \
      --nvml-library "$sim" --scenario "$scenario" --proc-root "$proc_root" --ticks "$fast_ticks" --interval-ms 10 \
      >/dev/null 2>&1
    perf script -i "$work/collect-10ms.perf" -F comm,tid,ip,sym,dso 2>/dev/null |
      python3 "$here/cpu_split.py" "$results/collect-10ms.json" >"$results/collect-10ms-cpu-split.json"
  else
    rm -f "$results/collect-10ms-cpu-split.json"
  fi
else
  echo "(perf is not usable here: no CPU-sample split of the collection cost)"
  rm -f "$results/collect-cpu-split.json" "$results/collect-10ms-cpu-split.json"
fi

# Instruction counts under callgrind: repeatable whatever else the machine runs (CPU time here is not).
if command -v valgrind >/dev/null; then
  for n in 5 25; do
    valgrind --tool=callgrind --callgrind-out-file="$work/collect.callgrind.$n" -- "$collect_bench" \
      --nvml-library "$sim" --scenario "$scenario" --proc-root "$proc_root" --ticks "$n" --interval-ms 1000 \
      >/dev/null 2>&1
  done
  python3 "$here/callgrind_split.py" "$work/collect.callgrind.5" "$work/collect.callgrind.25" 5 25 8 \
    >"$results/collect-callgrind.json"
else
  echo "(valgrind is missing: no instruction counts of the collection cost)"
  rm -f "$results/collect-callgrind.json"
fi

echo "== 2/3 agent memory: ${rss_seconds} s of ticks every 100 ms (10x the default rate), scraped every 0.5 s =="
BENCH_RSS_SECONDS=$rss_seconds BENCH_RSS_PORT=$((port_base + 1)) "$here/agent_rss.sh" "$build"

echo "== 3/3 /metrics serving: wrk -t1 -c$wrk_connections -d${wrk_seconds}s, one server after the other =="
serve_port=$((port_base + 2)) ne_port=$((port_base + 3)) tf_port=$((port_base + 4))
"$gpuwatch" agent --sim-scenario "$scenario" --nvml-library "$sim" --proc-root "$proc_root" \
  --listen "127.0.0.1:$serve_port" --interval 1s --data-dir "$work/serve-data" --log-level warn &
agent=$!
pids+=("$agent")
wait_ready "http://127.0.0.1:$serve_port/readyz" "$agent"
# Rates (GPM's SM activity, ...) need two readings: wait (at most 10 s) for the full set of series.
for _ in $(seq 1 100); do
  ticks_now=$(curl -fsS "http://127.0.0.1:$serve_port/metrics" | awk '$1 == "gpuwatch_ticks_total" {print $2}')
  [ "${ticks_now:-0}" -ge 3 ] 2>/dev/null && break
  sleep 0.1
done

# node_exporter's textfile collector serves gpuwatch's own /metrics body: the same samples, prepared in advance.
mkdir -p "$work/textfile"
curl -fsS "http://127.0.0.1:$serve_port/metrics" >"$work/textfile/gpuwatch.prom.tmp"
mv "$work/textfile/gpuwatch.prom.tmp" "$work/textfile/gpuwatch.prom"

"$node_exporter" --web.listen-address="127.0.0.1:$ne_port" >"$work/ne-default.log" 2>&1 &
ne=$!
pids+=("$ne")
"$node_exporter" --web.listen-address="127.0.0.1:$tf_port" --web.disable-exporter-metrics \
  --collector.disable-defaults --collector.textfile --collector.textfile.directory "$work/textfile" \
  >"$work/ne-textfile.log" 2>&1 &
tf=$!
pids+=("$tf")
wait_ready "http://127.0.0.1:$ne_port/metrics" "$ne"
wait_ready "http://127.0.0.1:$tf_port/metrics" "$tf"

# serve NAME PID URL GZIP(0|1): one wrk run, with the server's CPU and the payload it sends.
serve() {
  local name=$1 pid=$2 url=$3 gzip=$4
  local header=() body="$work/$name.body"
  [ "$gzip" = 1 ] && header=(-H 'Accept-Encoding: gzip')
  local bytes samples
  bytes=$(curl -fsS "${header[@]}" -o "$body" -w '%{size_download}' "$url")
  if [ "$gzip" = 1 ]; then
    samples=$(gzip -dc <"$body" | grep -cv '^#\|^$' || true)
  else
    samples=$(grep -cv '^#\|^$' <"$body" || true)
  fi
  local cpu0 cpu1
  cpu0=$(cpu_seconds "$pid")
  WRK_JSON="$work/$name.wrk.json" wrk -t1 -c"$wrk_connections" -d"${wrk_seconds}s" --timeout 5s --latency \
    -s "$here/wrk_report.lua" "${header[@]}" "$url" >"$work/$name.wrk.txt"
  cpu1=$(cpu_seconds "$pid")
  printf '  %-22s %s\n' "$name" "$(grep 'Requests/sec' "$work/$name.wrk.txt")"
  # The server's resident memory after serving: the peer's figure beside the agent's (section 2).
  printf '{"name": "%s", "url": "%s", "gzip": %s, "payload_bytes": %s, "samples": %s, "cpu_seconds": %s, "vm_rss_kib": %s, "wrk": %s}\n' \
    "$name" "$url" "$([ "$gzip" = 1 ] && echo true || echo false)" "$bytes" "$samples" "$(awk -v a="$cpu0" -v b="$cpu1" 'BEGIN {printf "%.6f", b - a}')" \
    "$(status_kib "$pid" VmRSS)" "$(cat "$work/$name.wrk.json")" >>"$work/serve.jsonl"
}
: >"$work/serve.jsonl"
serve gpuwatch "$agent" "http://127.0.0.1:$serve_port/metrics" 0
serve gpuwatch_gzip "$agent" "http://127.0.0.1:$serve_port/metrics" 1
serve node_exporter "$ne" "http://127.0.0.1:$ne_port/metrics" 0
serve node_exporter_gzip "$ne" "http://127.0.0.1:$ne_port/metrics" 1
serve textfile "$tf" "http://127.0.0.1:$tf_port/metrics" 0
serve textfile_gzip "$tf" "http://127.0.0.1:$tf_port/metrics" 1
python3 -c 'import json,sys; print(json.dumps({"benchmark": "serve", "servers": [json.loads(l) for l in sys.stdin]}, indent=2))' \
  <"$work/serve.jsonl" >"$results/serve.json"

echo
python3 "$here/summarize.py" "$results"
