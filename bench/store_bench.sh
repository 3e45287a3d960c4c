#!/usr/bin/env bash
# `make bench-store`: gpuwatch's history store side by side with Prometheus 2.42 and VictoriaMetrics 1.79, in
# one run on identical data. Usage: bench/store_bench.sh BUILD_DIR
#   1. the shared corpus: 24 h of NVML-shaped telemetry, 8 GPUs x 30 series at 1 s (bench/store/
#      gen_gpu_openmetrics.py, the same generator, seed and window as the peers' reference figures)
#   2. parse speed of import (parse only, and import --dry-run end to end) and the codec's bytes/sample
#   3. ingest + bytes/sample of the whole data dir: gpuwatch import, promtool tsdb create-blocks-from
#      openmetrics, VictoriaMetrics /api/v1/import/prometheus (+ force_flush, force_merge)
#   4. five range queries through each one's HTTP API (/api/v1/query_range), medians of QREPS runs: a-c, d
#      (rate over a counter) and e (a regex over 1,000 process series, their own corpus added after the
#      bytes are measured), the VictoriaMetrics cache off (-search.disableCache)
#   5. the second corpus: `gpuwatch sim export` of the incidents scenario (per-process series, GPM ratios),
#      bytes/sample per class of series, and the agent's RSS holding it
# Results: bench/results/store.json and store.md. Steps that need a part gpuwatch does not have yet (the store
# engine, the query API) are reported as skipped. Servers listen on 127.0.0.1 only and are stopped (by PID) on
# exit; data lives under a temp dir that is removed (KEEP=1 keeps it).
#
# Knobs: DURATION (86400 s), START (unix s, 2 h aligned; default yesterday 00:00 UTC), REPS (3), QREPS (5),
# SIM_DURATION (24h), PORT_BASE (19580), CORPUS_DIR (reuse a generated corpus there), JITTER_MS (50: the
# shared corpus again with each GPU's timestamps 0..JITTER_MS ms late, as real reads land, for bytes/sample of
# gpuwatch and VictoriaMetrics on it; 0 skips that pass).
set -euo pipefail

build=${1:-build}
[ -d "$build" ] || { echo "store bench: no build directory $build" >&2; exit 1; }
build=$(cd "$build" && pwd)
here=$(cd "$(dirname "$0")" && pwd)
root=$(dirname "$here")
results="$here/results"
py=python3
DURATION=${DURATION:-86400}
START=${START:-$(date -u -d 'yesterday 00:00' +%s)}
REPS=${REPS:-3}
QREPS=${QREPS:-5}
SIM_DURATION=${SIM_DURATION:-24h}
PORT_BASE=${PORT_BASE:-19580}
JITTER_MS=${JITTER_MS:-50}
PROM_PORT=$((PORT_BASE + 1))
VM_PORT=$((PORT_BASE + 2))
GW_PORT=$((PORT_BASE + 3))
VM_JITTER_PORT=$((PORT_BASE + 4))
END=$((START + DURATION - 1))

gpuwatch="$build/gpuwatch"
die() { echo "store bench: $*" >&2; exit 1; }
for tool in "$gpuwatch" "$build/bench/ingest/parse_bench" "$build/bench/codec/codec_bench"; do
  [ -x "$tool" ] || die "$tool is missing: build the targets gpuwatch parse_bench codec_bench"
done
for tool in promtool prometheus victoria-metrics curl "$py"; do
  command -v "$tool" >/dev/null || die "$tool is not installed (scripts/install-deps.sh)"
done

port_free() { ! ss -ltn | awk '{print $4}' | grep -q ":$1\$"; }
for p in "$PROM_PORT" "$VM_PORT" "$GW_PORT" "$VM_JITTER_PORT"; do port_free "$p" || die "port $p is taken: set PORT_BASE"; done

work=$(mktemp -d /tmp/gpuwatch-store-bench.XXXXXX)
pids=()
cleanup() {
  local p
  for p in "${pids[@]}"; do kill -CONT "$p" 2>/dev/null || true; kill "$p" 2>/dev/null || true; done
  for p in "${pids[@]}"; do wait "$p" 2>/dev/null || true; done
  [ "${KEEP:-0}" = 1 ] || rm -rf "$work"
}
trap cleanup EXIT
trap 'exit 130' INT TERM

mkdir -p "$results"
env_file="$work/results.env"
: > "$env_file"
rec() { echo "$1=$2" >> "$env_file"; echo "  $1=$2"; }
log() { echo "[$(date -u +%H:%M:%S)] $*"; }
now() { date +%s.%N; }
elapsed() { "$py" -c "import sys; print('%.3f' % (float(sys.argv[2]) - float(sys.argv[1])))" "$1" "$2"; }
median() { "$py" -c "import sys, statistics; print('%.6g' % statistics.median([float(x) for x in sys.argv[1:]]))" "$@"; }
ratio() { "$py" -c "import sys; print('%.4g' % (float(sys.argv[1]) / float(sys.argv[2])))" "$1" "$2"; }
json_field() { "$py" -c "import json, sys; print(json.loads(sys.argv[1])[sys.argv[2]])" "$1" "$2"; }
wait_http() { local i; for i in $(seq 300); do curl -sf -o /dev/null "$1" && return 0; sleep 0.2; done; return 1; }
metric() { curl -s "$1/metrics" | awk -v m="$2" '$1 == m {print $2}' | head -1; }
# VictoriaMetrics' merge of one month's partition: asked for, then waited for in its log.
vm_merge() {   # vm_merge BASE LOG PARTITION
  local n i
  n=$(grep -c 'successfully finished' "$2" || true)
  curl -sS --fail "$1/internal/force_merge?partition_prefix=$3" > /dev/null
  for i in $(seq 600); do [ "$(grep -c 'successfully finished' "$2" || true)" -gt "$n" ] && break; sleep 0.2; done
}
rss_kb() { awk '/^VmRSS/ {print $2}' "/proc/$1/status"; }
stop_pid() {
  local p=$1 i keep=() q
  kill -CONT "$p" 2>/dev/null || true   # a stopped server would never act on the TERM
  kill "$p" 2>/dev/null || true
  for i in $(seq 150); do kill -0 "$p" 2>/dev/null || break; sleep 0.2; done
  wait "$p" 2>/dev/null || true
  for q in "${pids[@]}"; do [ "$q" != "$p" ] && keep+=("$q"); done
  pids=("${keep[@]}")
}

# ---------------------------------------------------------------- 1. the shared corpus
gen=${CORPUS_DIR:-$work/gen}
log "1. shared corpus: 8 GPUs x 30 series, ${DURATION} s at 1 s, start $START, in $gen"
if [ ! -f "$gen/.done-$START-$DURATION" ]; then
  rm -rf "$gen"; mkdir -p "$gen"
  "$py" "$here/store/gen_gpu_openmetrics.py" --duration "$DURATION" --start "$START" --out-dir "$gen" \
    --format both > "$gen/gen.log"
  touch "$gen/.done-$START-$DURATION"
fi
SAMPLES=$(awk '/^TOTAL_SAMPLES/ {print $2}' "$gen/gen.log")
rec samples "$SAMPLES"
rec data_start "$START"
# Shape (e)'s own corpus: 1,000 per-process series at 30 s over the same window, added to each store after
# the shared corpus' bytes are measured (so those figures stay the shared corpus' alone).
# Its own directory: the steps below read the shared corpus as "$gen"/*.om and *.prom.
procs=$gen/procs
if [ ! -f "$procs/.done-$START-$DURATION" ]; then
  rm -rf "$procs"; mkdir -p "$procs"
  "$py" "$here/store/gen_process_series.py" --start "$START" --duration "$DURATION" --out-prefix "$procs/procs" \
    > "$procs/gen.log"
  touch "$procs/.done-$START-$DURATION"
fi
rec process_samples "$(awk '/^TOTAL_SAMPLES/ {print $2}' "$procs/gen.log")"
# Shape (f)'s own corpus: a month of gpu_power_watts of every GPU of a second node at 10 s, ending where the
# shared corpus ends, added as shape (e)'s is (generating a month at 1 s would take hours).
month=$gen/month
MONTH_START=$((END + 1 - 30 * 86400))
if [ ! -f "$month/.done-$END" ]; then
  rm -rf "$month"; mkdir -p "$month"
  "$py" "$here/store/gen_month_power.py" --end "$END" --days 30 --out-prefix "$month/month" > "$month/gen.log"
  touch "$month/.done-$END"
fi
rec month_samples "$(awk '/^TOTAL_SAMPLES/ {print $2}' "$month/gen.log")"

# ---------------------------------------------------------------- 2. parse speed and codec
log "2. import parse speed (one core) and the codec on the same data"
cat "$gen"/*.prom "$gen"/*.om > /dev/null   # from the page cache, not the disk
for fmt in prom om; do
  out=$("$build/bench/ingest/parse_bench" "$gen"/*.$fmt)
  rec "parse_${fmt}_samples_per_s" "$(json_field "$out" samples_per_s)"
  rec "parse_${fmt}_samples_per_cpu_s" "$(json_field "$out" samples_per_cpu_s)"
done
t0=$(now)
"$gpuwatch" import --dry-run --quiet "$gen"/*.om > "$work/dry-run.txt"
rec import_dry_run_samples_per_s "$("$py" -c "print('%.0f' % ($SAMPLES / $(elapsed "$t0" "$(now)")))")"
"$build/bench/codec/codec_bench" $(for f in "$gen"/*.prom; do printf -- '--corpus %s ' "$f"; done) \
  --benchmark_filter='^$' > "$work/codec-shared.txt"
rec codec_bytes_per_sample "$(awk '/^overall:/ {print $4}' "$work/codec-shared.txt")"
cp "$work/codec-shared.txt" "$results/store-codec-shared.txt"

# ---------------------------------------------------------------- 3. ingest and bytes on disk
log "3a. gpuwatch import into a data dir"
gw_data=$work/gw-data
have_store=0
if "$gpuwatch" import --data-dir "$work/probe-data" --quiet "$root/tests/ingest/data/small.om" > /dev/null 2>&1; then
  have_store=1
  gtimes=()
  for r in $(seq "$REPS"); do
    rm -rf "$gw_data"
    t0=$(now)
    "$gpuwatch" import --data-dir "$gw_data" --quiet "$gen"/*.om > "$work/gw-import-$r.txt"
    gtimes+=("$(elapsed "$t0" "$(now)")")
  done
  rec gw_import_samples_per_s "$("$py" -c "print('%.0f' % ($SAMPLES / $(median "${gtimes[@]}")))")"
  rec gw_dir_bytes "$(du -sb "$gw_data" | cut -f1)"
  rec gw_bytes_per_sample "$(ratio "$(du -sb "$gw_data" | cut -f1)" "$SAMPLES")"
  "$gpuwatch" import --data-dir "$gw_data" --quiet "$procs/procs.om" > /dev/null
  "$gpuwatch" import --data-dir "$gw_data" --quiet "$month/month.om" > /dev/null
else
  rec gw_import "skipped: this build has no history store"
fi

log "3b. Prometheus: promtool tsdb create-blocks-from openmetrics"
ptimes=()
for r in $(seq "$REPS"); do
  d=$work/prom-$r; rm -rf "$d"; mkdir -p "$d"
  t0=$(now)
  for f in "$gen"/*.om; do promtool tsdb create-blocks-from openmetrics -q "$f" "$d" > /dev/null; done
  ptimes+=("$(elapsed "$t0" "$(now)")")
  [ "$r" -gt 1 ] && rm -rf "$d"
done
rec prom_import_samples_per_s "$("$py" -c "print('%.0f' % ($SAMPLES / $(median "${ptimes[@]}")))")"
printf 'global:\n  scrape_interval: 1m\nscrape_configs: []\n' > "$work/prometheus.yml"
prometheus --config.file="$work/prometheus.yml" --storage.tsdb.path="$work/prom-1" \
  --storage.tsdb.retention.time=15d --web.listen-address="127.0.0.1:$PROM_PORT" > "$work/prometheus.log" 2>&1 &
PROM_PID=$!; pids+=("$PROM_PID")
PROM=http://127.0.0.1:$PROM_PORT
wait_http "$PROM/-/ready" || die "prometheus did not start (log: $work/prometheus.log)"
for i in $(seq 150); do   # its first compaction starts about a minute after start
  v=$(metric "$PROM" prometheus_tsdb_compactions_triggered_total); [ -n "$v" ] && [ "$v" != "0" ] && break; sleep 1
done
prev=""; stable=0
for i in $(seq 60); do
  cur="$(metric "$PROM" prometheus_tsdb_compactions_total) $(metric "$PROM" prometheus_tsdb_blocks_loaded)"
  if [ "$cur" = "$prev" ]; then stable=$((stable + 1)); else stable=0; fi
  [ $stable -ge 3 ] && break; prev=$cur; sleep 2
done
"$py" "$here/store/measure_dir.py" prom "$work/prom-1" > "$work/prom-size.txt"
rec prom_bytes_per_sample "$(awk -F= '$1=="dir_bytes_per_sample" {print $2}' "$work/prom-size.txt")"
# Shape (e)'s series: Prometheus picks up new blocks within its reload interval (1 minute).
promtool tsdb create-blocks-from openmetrics -q "$procs/procs.om" "$work/prom-1" > /dev/null
for i in $(seq 120); do
  n=$(curl -sS -G "$PROM/api/v1/query" --data-urlencode 'query=count(gpu_process_memory_used_bytes{process_name=~"worker-.*"})' \
        -d "time=$END" | "$py" -c "import json,sys; r=json.load(sys.stdin)['data']['result']; print(r[0]['value'][1] if r else 0)")
  [ "$n" = 1000 ] && break; sleep 1
done
kill -STOP "$PROM_PID"

log "3c. VictoriaMetrics: /api/v1/import/prometheus + force_flush"
VM=http://127.0.0.1:$VM_PORT
vtimes=()
for r in $(seq "$REPS"); do
  d=$work/vm-$r; rm -rf "$d"
  victoria-metrics -storageDataPath="$d" -httpListenAddr="127.0.0.1:$VM_PORT" -retentionPeriod=100y \
    -search.disableCache -search.maxPointsPerTimeseries=100000 > "$work/vm-$r.log" 2>&1 &
  VM_PID=$!; pids+=("$VM_PID")
  wait_http "$VM/health" || die "victoria-metrics did not start"
  t0=$(now)
  for f in "$gen"/*.prom; do
    curl -sS --fail -H 'Content-Type: text/plain' --data-binary @"$f" "$VM/api/v1/import/prometheus"
  done
  curl -sS --fail "$VM/internal/force_flush"
  vtimes+=("$(elapsed "$t0" "$(now)")")
  if [ "$r" -lt "$REPS" ]; then stop_pid "$VM_PID"; rm -rf "$d"; fi
done
rec vm_import_samples_per_s "$("$py" -c "print('%.0f' % ($SAMPLES / $(median "${vtimes[@]}")))")"
vm_merge "$VM" "$work/vm-$REPS.log" "$(date -u -d "@$START" +%Y_%m)"
"$py" "$here/store/measure_dir.py" vm "$work/vm-$REPS" "$SAMPLES" > "$work/vm-size.txt"
rec vm_bytes_per_sample "$(ratio "$(awk -F= '$1=="dir_bytes" {print $2}' "$work/vm-size.txt")" "$SAMPLES")"
curl -sS --fail -H 'Content-Type: text/plain' --data-binary @"$procs/procs.prom" "$VM/api/v1/import/prometheus"
curl -sS --fail -H 'Content-Type: text/plain' --data-binary @"$month/month.prom" "$VM/api/v1/import/prometheus"
curl -sS --fail "$VM/internal/force_flush"
# Merged as the shared corpus was, the month's first partition too when it began in an earlier month.
for part in $(printf '%s\n' "$(date -u -d "@$START" +%Y_%m)" "$(date -u -d "@$MONTH_START" +%Y_%m)" | sort -u); do
  vm_merge "$VM" "$work/vm-$REPS.log" "$part"
done

if [ "$JITTER_MS" -gt 0 ]; then
  log "3d. the shared corpus with timestamps 0..$JITTER_MS ms late: bytes of gpuwatch and VictoriaMetrics"
  jit=$gen/jitter-$JITTER_MS
  if [ ! -f "$jit/.done-$START-$DURATION" ]; then
    rm -rf "$jit"; mkdir -p "$jit"
    "$py" "$here/store/gen_gpu_openmetrics.py" --duration "$DURATION" --start "$START" --out-dir "$jit" \
      --format both --jitter-ms "$JITTER_MS" > "$jit/gen.log"
    touch "$jit/.done-$START-$DURATION"
  fi
  JSAMPLES=$(awk '/^TOTAL_SAMPLES/ {print $2}' "$jit/gen.log")
  rec jitter_ms "$JITTER_MS"
  rec jitter_samples "$JSAMPLES"
  if [ "$have_store" = 1 ]; then
    "$gpuwatch" import --data-dir "$work/gw-jitter" --quiet "$jit"/*.om > /dev/null
    rec gw_bytes_per_sample_jitter "$(ratio "$(du -sb "$work/gw-jitter" | cut -f1)" "$JSAMPLES")"
  fi
  VMJ=http://127.0.0.1:$VM_JITTER_PORT
  victoria-metrics -storageDataPath="$work/vm-jitter" -httpListenAddr="127.0.0.1:$VM_JITTER_PORT" \
    -retentionPeriod=100y > "$work/vm-jitter.log" 2>&1 &
  VMJ_PID=$!; pids+=("$VMJ_PID")
  wait_http "$VMJ/health" || die "victoria-metrics (jittered corpus) did not start"
  for f in "$jit"/*.prom; do
    curl -sS --fail -H 'Content-Type: text/plain' --data-binary @"$f" "$VMJ/api/v1/import/prometheus"
  done
  curl -sS --fail "$VMJ/internal/force_flush"
  vm_merge "$VMJ" "$work/vm-jitter.log" "$(date -u -d "@$START" +%Y_%m)"
  "$py" "$here/store/measure_dir.py" vm "$work/vm-jitter" "$JSAMPLES" > "$work/vm-jitter-size.txt"
  rec vm_bytes_per_sample_jitter "$(ratio "$(awk -F= '$1=="dir_bytes" {print $2}' "$work/vm-jitter-size.txt")" "$JSAMPLES")"
  stop_pid "$VMJ_PID"
fi

# ---------------------------------------------------------------- 4. range queries
log "4. query_range, 1 warm-up + $QREPS runs each, curl time_total medians"
QA='gpu_temperature_celsius{gpu="3"}'
QB='avg by (gpu) (gpu_utilization_ratio)'
QC='max_over_time(gpu_memory_used_bytes[5m])'
# d (new key): what an energy or cost panel issues, rate over a counter summed per GPU.
QD='sum by (gpu) (rate(gpu_energy_joules_total[5m]))'
# e (new key): a regex selector over 1,000 process series (their own corpus, 30 s), summed per GPU.
QE='sum by (gpu) (gpu_process_memory_used_bytes{process_name=~"worker-.*"})'
# f (new key): a month view over every GPU at step 5 m (the month corpus and the shared corpus' last day).
QF='avg by (gpu) (gpu_power_watts)'
qbench() {   # qbench NAME BASE QUERY STEP [START]
  local i t ts=() out=$work/q-$1.json cold= from=${5:-$START}
  for i in $(seq 0 "$QREPS"); do
    t=$(curl -sS -G -o "$out" -w '%{time_total}' "$2/api/v1/query_range" --data-urlencode "query=$3" \
          -d "start=$from" -d "end=$END" -d "step=$4")
    if [ "$i" -gt 0 ]; then ts+=("$t"); else cold=$t; fi
  done
  "$py" -c "import json,sys; d=json.load(open(sys.argv[1])); assert d['status']=='success', d" "$out" \
    || { rec "q_${1}_ms" "failed"; return 0; }
  rec "q_${1}_ms" "$("$py" -c "print('%.1f' % (1000 * $(median "${ts[@]}")))")"
  # The warm-up: the first time this server reads these series since it started (gpuwatch's agent is
  # started just before its queries; the peers have run since their import).
  rec "q_${1}_cold_ms" "$("$py" -c "print('%.1f' % (1000 * $cold))")"
}
kill -STOP "$VM_PID"; kill -CONT "$PROM_PID"
qbench prom_a "$PROM" "$QA" 10; qbench prom_b "$PROM" "$QB" 60; qbench prom_c "$PROM" "$QC" 60
qbench prom_d "$PROM" "$QD" 60; qbench prom_e "$PROM" "$QE" 60
# Not shape (f): promtool 2.42 backfills in 2 h blocks, reading its input once a block (360 passes over the
# month corpus, tens of minutes here).
rec q_prom_f_ms "skipped: promtool 2.42 backfills a month in 360 passes"
kill -STOP "$PROM_PID"; kill -CONT "$VM_PID"
qbench vm_a "$VM" "$QA" 10; qbench vm_b "$VM" "$QB" 60; qbench vm_c "$VM" "$QC" 60; qbench vm_d "$VM" "$QD" 60
qbench vm_e "$VM" "$QE" 60; qbench vm_f "$VM" "$QF" 300 "$MONTH_START"
stop_pid "$VM_PID"; stop_pid "$PROM_PID"
if [ "$have_store" = 1 ]; then
  # No GPU and no simulator: the agent serves the imported history (wall-clock domain) and adds only its own
  # metrics to it.
  # Retention past the month corpus: its first hours are more than 30 days old by now.
  "$gpuwatch" agent --data-dir "$gw_data" --listen "127.0.0.1:$GW_PORT" --nvml-library /nonexistent/libnvidia-ml.so.1 \
    --kmsg "" --retention-time 40d > "$work/gw-agent.log" 2>&1 &
  GW_PID=$!; pids+=("$GW_PID")
  if wait_http "http://127.0.0.1:$GW_PORT/api/v1/query_range?query=up&start=$START&end=$START&step=60"; then
    GW=http://127.0.0.1:$GW_PORT
    qbench gw_a "$GW" "$QA" 10; qbench gw_b "$GW" "$QB" 60; qbench gw_c "$GW" "$QC" 60; qbench gw_d "$GW" "$QD" 60
    qbench gw_e "$GW" "$QE" 60; qbench gw_f "$GW" "$QF" 300 "$MONTH_START"
  else
    rec gw_queries "skipped: the agent does not answer /api/v1/query_range"
  fi
  stop_pid "$GW_PID"
else
  rec gw_queries "skipped: this build has no history store"
fi
# The engine's share on the same data held in memory: evaluation and JSON, no HTTP, no block decoding.
if [ -x "$build/bench/ingest/engine_query_bench" ]; then
  out=$("$build/bench/ingest/engine_query_bench" --start "$START" --end "$END" --runs "$QREPS" "$gen"/*.om)
  for q in a b c; do rec "q_engine_${q}_ms" "$(json_field "$out" "q_${q}_ms")"; done
fi

# ---------------------------------------------------------------- 5. the second corpus
log "5. second corpus: gpuwatch sim export of scenarios/incidents-8xh200.yaml, $SIM_DURATION at 1 s"
sim_dir=$work/sim
"$gpuwatch" sim export --scenario "$root/scenarios/incidents-8xh200.yaml" --duration "$SIM_DURATION" --step 1s \
  --format prometheus --out-dir "$sim_dir" > "$work/sim-export.txt"
cat "$work/sim-export.txt"
rec sim_samples "$(sed -n 's/.*samples=\([0-9]*\).*/\1/p' "$work/sim-export.txt")"
rec sim_series "$(sed -n 's/.*series=\([0-9]*\).*/\1/p' "$work/sim-export.txt")"
"$build/bench/codec/codec_bench" $(for f in "$sim_dir"/*.prom; do printf -- '--corpus %s ' "$f"; done) \
  --benchmark_filter='^$' > "$work/codec-sim.txt"
rec sim_codec_bytes_per_sample "$(awk '/^overall:/ {print $4}' "$work/codec-sim.txt")"
cp "$work/codec-sim.txt" "$results/store-codec-incidents.txt"
if [ "$have_store" = 1 ]; then
  rm -rf "$work/gw-sim"
  "$gpuwatch" import --data-dir "$work/gw-sim" --quiet "$sim_dir"/*.prom > /dev/null
  rec sim_gw_bytes_per_sample "$(ratio "$(du -sb "$work/gw-sim" | cut -f1)" "$(sed -n 's/.*samples=\([0-9]*\).*/\1/p' "$work/sim-export.txt")")"
  # The agent serving the imported second corpus (no GPU: nothing new appended), after one query over all of it.
  "$gpuwatch" agent --data-dir "$work/gw-sim" --listen "127.0.0.1:$GW_PORT" \
    --nvml-library /nonexistent/libnvidia-ml.so.1 --kmsg "" > "$work/gw-sim-agent.log" 2>&1 &
  GW_PID=$!; pids+=("$GW_PID")
  wait_http "http://127.0.0.1:$GW_PORT/metrics" &&
    curl -sS -G -o /dev/null "http://127.0.0.1:$GW_PORT/api/v1/query" --data-urlencode 'query=count({__name__=~".+"})' &&
    sleep 2 && rec sim_agent_rss_kb "$(rss_kb "$GW_PID")"
  stop_pid "$GW_PID"
else
  rec sim_agent_rss_kb "skipped: this build has no history store"
fi

"$py" "$here/store/summarize_store.py" "$env_file" "$results/store-codec-shared.txt" \
  "$results/store-codec-incidents.txt" "$results/store.json" > "$results/store.md"
cat "$results/store.md"
log "done: $results/store.md, $results/store.json"
