#!/usr/bin/env bash
# `make bench`'s SLO part: the SLO engine's evaluation cost for 10, 100 and 1,000 SLOs (slo_bench, CPU time),
# written to bench/results/slo.json and printed as the table of docs/benchmarks.md ("SLO evaluation").
# Usage: bench/slo/run.sh BUILD_DIR
set -euo pipefail

build=${1:-build}
here=$(cd "$(dirname "$0")" && pwd)
results="$here/../results"
bench="$build/bench/slo/slo_bench"
[ -x "$bench" ] || { echo "slo bench: $bench is missing: run make build" >&2; exit 1; }
mkdir -p "$results"

echo "SLO evaluation (slo_bench)"
"$bench" --benchmark_min_time=0.5 --benchmark_out="$results/slo.json" --benchmark_out_format=json >/dev/null
python3 - "$results/slo.json" <<'PY'
import json, sys
runs = {b["name"]: b for b in json.load(open(sys.argv[1]))["benchmarks"]}
def us(b):
    scale = {"ns": 1e-3, "us": 1, "ms": 1e3}[b["time_unit"]]
    return b["cpu_time"] * scale
print("| SLOs | per scraped sample | per SLO evaluation | one round (all scrapes + evaluation) |")
print("| --- | --- | --- | --- |")
for n in (10, 100, 1000):
    both = runs.get(f"BM_ConsumeAndEvaluate/{n}")
    only = runs.get(f"BM_EvaluateOnly/{n}")
    if not both or not only:
        continue
    # The counters are rates inverted: seconds per sample and per SLO.
    print(f"| {n:,} | {both['ns_per_sample'] * 1e9:.0f} ns | {only['ns_per_slo'] * 1e9:.0f} ns | {us(both):.1f} µs |")
PY
