#!/usr/bin/env bash
# `make bench-scrape`: what scraping costs the agent, per target scrape and per sample, beside a real
# Prometheus scraping the same simulated model servers at the same interval, in one run. The servers are
# scenarios/inference-slo-8xh200.yaml's eight (vLLM, Triton, TGI shapes) served by `gpuwatch sim serve`.
# The agent's scraping cost is its CPU time with the eight targets minus its CPU time without them (the same
# GPU sampling, run right after); Prometheus's is its whole CPU time (scraping is most of what it does here,
# with its TSDB head appends). Usage: bench/scrape_bench.sh BUILD_DIR
#
# Knobs (environment): SCRAPE_BENCH_SECONDS (60), SCRAPE_BENCH_INTERVAL (1s), SCRAPE_BENCH_PORT_BASE (19560).
# Every server listens on 127.0.0.1 only and is stopped on exit. Writes bench/results/scrape.json.
set -euo pipefail

build=${1:-build}
[ -d "$build" ] || { echo "scrape bench: no build directory $build: run make build" >&2; exit 1; }
build=$(cd "$build" && pwd)
here=$(cd "$(dirname "$0")" && pwd)
root=$(dirname "$here")
cd "$root"

seconds=${SCRAPE_BENCH_SECONDS:-60}
interval=${SCRAPE_BENCH_INTERVAL:-1s}
port_base=${SCRAPE_BENCH_PORT_BASE:-19560}
scenario=scenarios/inference-slo-8xh200.yaml
gpuwatch="$build/gpuwatch"
sim="$build/sim-lib/libnvidia-ml.so.1"
results="$here/results"
die() { echo "scrape bench: $*" >&2; exit 1; }
[ -x "$gpuwatch" ] || die "$gpuwatch is missing: run make build"
for tool in prometheus curl python3; do
  command -v "$tool" >/dev/null || die "$tool is not installed (scripts/install-deps.sh installs it)"
done

mkdir -p "$results"
# shellcheck source=bench/bench_lib.sh
source "$here/bench_lib.sh"

export GPUWATCH_SIM_EPOCH=$(date +%s) GPUWATCH_SIM_TIME_SCALE=1 GPUWATCH_SIM_MODE=scaled
"$gpuwatch" sim proc-tree --nvml-library "$sim" --sim-scenario "$scenario" --proc-root "$work/proc" >/dev/null
"$gpuwatch" sim serve --nvml-library "$sim" --sim-scenario "$scenario" > "$work/serve.log" &
pids+=($!)
wait_ready "http://127.0.0.1:18000/metrics" "${pids[-1]}"
mapfile -t urls < <(sed -n 's/.* on \(http:[^ ]*\)$/\1/p' "$work/serve.log")
[ "${#urls[@]}" -eq 8 ] || die "expected 8 servers, got ${#urls[@]}"

# The same targets for both: the agent's config file and Prometheus's.
{
  echo "scrape:"
  echo "  interval: $interval"
  echo "  timeout: 900ms"
  echo "  targets:"
  for u in "${urls[@]}"; do echo "    - {job: inference, url: $u}"; done
} > "$work/agent.yaml"
{
  echo "global: {scrape_interval: $interval, scrape_timeout: 900ms}"
  echo "scrape_configs:"
  echo "  - job_name: inference"
  echo "    static_configs:"
  echo "      - targets: [$(printf '"%s",' "${urls[@]#http://}" | sed 's#/metrics##g; s/,$//')]"
} > "$work/prometheus.yml"
# The scenario without its gpuwatch: section, for the agent that scrapes nothing.
sed '/^gpuwatch:/,$d' "$scenario" > "$work/no-scrape.yaml"

agent_args=(--nvml-library "$sim" --kmsg "" --proc-root "$work/proc" --runbook-dir docs/runbooks)
"$gpuwatch" agent "${agent_args[@]}" --sim-scenario "$scenario" --config "$work/agent.yaml" \
  --listen "127.0.0.1:$port_base" --data-dir "$work/agent-data" > "$work/agent.log" 2>&1 &
agent=$!
pids+=($agent)
prometheus --config.file "$work/prometheus.yml" --storage.tsdb.path "$work/prom-data" \
  --web.listen-address "127.0.0.1:$((port_base + 1))" --log.level warn > "$work/prometheus.log" 2>&1 &
prom=$!
pids+=($prom)
wait_ready "http://127.0.0.1:$port_base/readyz" "$agent"
wait_ready "http://127.0.0.1:$((port_base + 1))/-/ready" "$prom"
sleep 5  # both past their start-up work
a0=$(cpu_seconds "$agent"); p0=$(cpu_seconds "$prom"); t0=$(date +%s.%N)
sleep "$seconds"
a1=$(cpu_seconds "$agent"); p1=$(cpu_seconds "$prom"); t1=$(date +%s.%N)

# Scrapes and samples over the window, asked of each through the same query API.
query() {
  curl -fsS "http://127.0.0.1:$1/api/v1/query" --data-urlencode "query=$2" --data-urlencode "time=$t1" |
    python3 -c "import json,sys; r=json.load(sys.stdin)['data']['result']; print(r[0]['value'][1] if r else 0)"
}
window="${seconds}s"
agent_scrapes=$(query "$port_base" "sum(count_over_time(up{job=\"inference\"}[$window]))")
agent_samples=$(query "$port_base" "sum(sum_over_time(scrape_samples_scraped{job=\"inference\"}[$window]))")
prom_scrapes=$(query "$((port_base + 1))" "sum(count_over_time(up{job=\"inference\"}[$window]))")
prom_samples=$(query "$((port_base + 1))" "sum(sum_over_time(scrape_samples_scraped{job=\"inference\"}[$window]))")
agent_rss=$(awk '/VmRSS/ {print $2}' "/proc/$agent/status")
prom_rss=$(awk '/VmRSS/ {print $2}' "/proc/$prom/status")
kill "$agent" "$prom"
wait "$agent" "$prom" 2>/dev/null || true

# The agent's baseline: the same node and sampling, no targets.
"$gpuwatch" agent "${agent_args[@]}" --sim-scenario "$work/no-scrape.yaml" \
  --listen "127.0.0.1:$((port_base + 2))" --data-dir "$work/base-data" > "$work/base.log" 2>&1 &
base=$!
pids+=($base)
wait_ready "http://127.0.0.1:$((port_base + 2))/readyz" "$base"
sleep 5
b0=$(cpu_seconds "$base"); s0=$(date +%s.%N)
sleep "$seconds"
b1=$(cpu_seconds "$base"); s1=$(date +%s.%N)

python3 - "$results/scrape.json" <<EOF
import json, sys
a = $a1 - $a0; p = $p1 - $p0; b = ($b1 - $b0) * ($t1 - $t0) / ($s1 - $s0)
scrape_cpu = max(a - b, 0.0)
r = {
  "date": "$(date -u +%Y-%m-%d)", "seconds": $seconds, "interval": "$interval", "targets": 8,
  "agent": {"cpu_s": a, "baseline_cpu_s": b, "scrape_cpu_s": scrape_cpu, "scrapes": float("$agent_scrapes"),
            "samples": float("$agent_samples"), "rss_kib": int("$agent_rss")},
  "prometheus": {"cpu_s": p, "scrapes": float("$prom_scrapes"), "samples": float("$prom_samples"),
                 "rss_kib": int("$prom_rss")},
}
for k, cpu in (("agent", scrape_cpu), ("prometheus", p)):
  v = r[k]
  v["us_per_scrape"] = 1e6 * cpu / v["scrapes"] if v["scrapes"] else None
  v["ns_per_sample"] = 1e9 * cpu / v["samples"] if v["samples"] else None
json.dump(r, open(sys.argv[1], "w"), indent=2)
ag, pr = r["agent"], r["prometheus"]
print(f"| | scrapes | samples | CPU s (scraping) | us per target scrape | ns per sample | RSS MiB |")
print(f"|---|---|---|---|---|---|---|")
print(f"| gpuwatch agent | {ag['scrapes']:.0f} | {ag['samples']:.0f} | {scrape_cpu:.2f} (of {a:.2f}; {b:.2f} without targets) | {ag['us_per_scrape']:.0f} | {ag['ns_per_sample']:.0f} | {ag['rss_kib']/1024:.1f} |")
print(f"| Prometheus {'$(prometheus --version 2>&1 | head -1 | cut -d" " -f3)'} | {pr['scrapes']:.0f} | {pr['samples']:.0f} | {p:.2f} | {pr['us_per_scrape']:.0f} | {pr['ns_per_sample']:.0f} | {pr['rss_kib']/1024:.1f} |")
print(f"ratio (agent / Prometheus) per sample: {ag['ns_per_sample']/pr['ns_per_sample']:.2f}")
EOF
