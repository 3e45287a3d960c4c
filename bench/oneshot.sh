#!/usr/bin/env bash
# The one-shot commands people run by hand, beside `nvtop -s`, as whole processes in turn on the same simulated
# node (scenarios/incidents-8xh200.yaml: 8 H200, one lost, libnvml-sim answering all of them as
# libnvidia-ml.so.1): `gpuwatch status`, `gpuwatch status --json`, `gpuwatch alerts` (asking an agent on the same
# node, started here) and `nvtop -s`, each run BENCH_ONESHOT_RUNS times (default 10) after one warm-up, run i of
# each command before run i+1 of any (bench/oneshot_times.py). Median wall and CPU time (user + system) per command.
#   bench/oneshot.sh BUILD_DIR      NVTOP=/path/to/nvtop adds the peer (bench/nvtop_peer.sh); without it only
#                                   gpuwatch is measured, and the script says so.
# Knobs: BENCH_ONESHOT_RUNS (10), BENCH_ONESHOT_PORT (the agent `alerts` asks, default 19472),
# BENCH_ONESHOT_BASELINE (another build directory, e.g. main's: its three commands run in the same rounds,
# as "main ...", against the same simulator and agent, so that a change is measured in one run).
# Writes bench/results/oneshot.json and prints a Markdown table.
set -euo pipefail
build=${1:-build}
[ -d "$build" ] || { echo "oneshot-bench: no build directory $build: run make build" >&2; exit 1; }
here=$(cd "$(dirname "$0")" && pwd)
root=$(dirname "$here")
cd "$root"
runs=${BENCH_ONESHOT_RUNS:-10}
port=${BENCH_ONESHOT_PORT:-19472}
scenario_source=$root/scenarios/incidents-8xh200.yaml
sim_dir=$(cd "$build/sim-lib" && pwd)
gpuwatch=$(cd "$build" && pwd)/gpuwatch
die() { echo "oneshot-bench: $*" >&2; exit 1; }
[ -x "$gpuwatch" ] || die "$gpuwatch is missing: run make build"
# shellcheck source=bench/bench_lib.sh
source "$here/bench_lib.sh"
# shellcheck source=bench/nvtop_peer.sh
source "$here/nvtop_peer.sh"
with_nvtop=1
nvtop_peer_check oneshot-bench || with_nvtop=0

# The scenario's GPU processes are live processes here (nvtop_live_scenario), as NVML's are on a real node.
scenario=$work/incidents-8xh200.yaml
nvtop_live_scenario "$scenario_source" "$scenario"
# Everything sees the same scenario at the same moment; the library comes from LD_LIBRARY_PATH for all, so the
# commands are the ones a user types.
read -r -a sim_env <<<"$(nvtop_sim_env "$sim_dir" "$scenario" "$(date +%s)")"
export "${sim_env[@]}"
"$gpuwatch" agent --listen "127.0.0.1:$port" --data-dir "$work/agent-data" --kmsg '' --log-level error \
  2>"$work/agent.log" &
agent=$!
pids+=("$agent")
wait_ready "http://127.0.0.1:$port/readyz" "$agent"
sleep 3 # the incidents' alerts become pending or fire: `alerts` prints a table, not "no alerts"

commands=("status=$gpuwatch status" "status_json=$gpuwatch status --json"
  "alerts=$gpuwatch alerts --url http://127.0.0.1:$port")
if [ -n "${BENCH_ONESHOT_BASELINE:-}" ]; then
  baseline=$(cd "$BENCH_ONESHOT_BASELINE" && pwd)/gpuwatch
  [ -x "$baseline" ] || die "$baseline is missing"
  commands+=("main_status=$baseline status" "main_status_json=$baseline status --json"
    "main_alerts=$baseline alerts --url http://127.0.0.1:$port")
fi
[ "$with_nvtop" = 1 ] && commands+=("nvtop=$NVTOP -s")
mkdir -p "$here/results"
python3 "$here/oneshot_times.py" "$runs" "${commands[@]}" >"$here/results/oneshot.json"

python3 - "$here/results/oneshot.json" "$runs" <<'PY'
import json, sys
data = json.load(open(sys.argv[1]))["commands"]
peer = data.get("nvtop")
print(f"\nOne-shot commands on the simulated incidents node, medians of {sys.argv[2]} runs in turn, and of as many"
      " back to back (each after its own, as hyperfine runs them):")
print("| command | wall | CPU | wall vs nvtop -s | CPU vs nvtop -s | back to back: CPU | vs nvtop -s |\n"
      "| --- | ---: | ---: | ---: | ---: | ---: | ---: |")
names = {"status": "gpuwatch status", "status_json": "gpuwatch status --json", "alerts": "gpuwatch alerts",
         "nvtop": "nvtop -s"}
names.update({"main_" + k: "main's " + v for k, v in list(names.items()) if k != "nvtop"})
for key, r in data.items():
    w, c = r["median_wall_ms"], r["median_cpu_ms"]
    ratio = lambda a, b: f"{a / b:.2f}x" if peer and b > 0 else "-"
    rw = ratio(w, peer["median_wall_ms"]) if peer else "-"
    rc = ratio(c, peer["median_cpu_ms"]) if peer else "-"
    b = r["back_to_back_median_cpu_ms"]
    rb = ratio(b, peer["back_to_back_median_cpu_ms"]) if peer else "-"
    print(f"| {names.get(key, key)} | {w:.1f} ms | {c:.1f} ms | {rw} | {rc} | {b:.1f} ms | {rb} |")
# A negative exit status is a signal (status exits 3 on a critical node, which is no failure): a run that did
# not finish is no figure to compare with.
for key, r in data.items():
    died = [code for code in r["exit_codes"] if code < 0]
    if died:
        print(f"\nWARNING: {names.get(key, key)} died of signal {-died[0]} in {len(died)} of {len(r['exit_codes'])} runs:"
              " its times are of runs that did not finish")
PY
