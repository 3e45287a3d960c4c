#!/usr/bin/env bash
# `gpuwatch top` beside nvtop on the same simulated node, in one run: both draw the same 8 simulated H200 with
# 80 processes (scenarios/bench-8xh200.yaml, libnvml-sim answering both) in their own detached tmux session of
# the same size, at the same refresh interval, at the same time. After a warm-up, each one's CPU time over the
# window (its threads' run time from /proc/PID/task/*/schedstat, in nanoseconds: the 10 ms clock ticks of
# /proc/PID/stat are too coarse for a few milliseconds a refresh), per refresh, and its memory (VmRSS, VmHWM, and RssAnon:
# the part that is the program's own, not pages of the shared libraries it maps). A third
# session runs `top --url` on an agent of the same node: the cost of drawing alone.
#   bench/top_vs_nvtop.sh BUILD_DIR        NVTOP=/path/to/nvtop (built from github.com/Syllo/nvtop; nvtop is no
#                                          Debian package) adds the peer; without it only top is measured.
# Knobs: BENCH_TOP_SECONDS (window, default 60), BENCH_TOP_INTERVAL_MS (default 1000), BENCH_TOP_SIZE
# (default 160x50), BENCH_TOP_PORT (the agent `top --url` reads, default 19471). Writes bench/results/top.json
# and prints a Markdown table.
set -euo pipefail
build=${1:-build}
seconds=${BENCH_TOP_SECONDS:-60}
interval_ms=${BENCH_TOP_INTERVAL_MS:-1000}
size=${BENCH_TOP_SIZE:-160x50}
cols=${size%x*}
rows=${size#*x}
scenario=$PWD/scenarios/bench-8xh200.yaml
sim_dir=$(cd "$build/sim-lib" && pwd)
gpuwatch=$(cd "$build" && pwd)/gpuwatch
work=$(mktemp -d /tmp/gpuwatch-top-bench-XXXXXX)
socket=$work/tmux.sock
tmux_() { tmux -S "$socket" -f /dev/null -u "$@"; }
trap 'tmux_ kill-server 2>/dev/null || true; rm -rf "$work"' EXIT

# shellcheck source=bench/nvtop_peer.sh
source "$(dirname "$0")/nvtop_peer.sh"
nvtop_peer_check top-bench || true

# Both load libnvml-sim as libnvidia-ml.so.1 and see the same GPUs at the same moment (same epoch).
sim_env=$(nvtop_sim_env "$sim_dir" "$scenario" "$(date +%s)")
tmux_ new-session -d -s top -x "$cols" -y "$rows" \
  "env $sim_env $gpuwatch top --nvml-library $sim_dir/libnvidia-ml.so.1 --interval ${interval_ms}ms --kmsg ''"
# top --url draws what an agent serves: its CPU is the drawing's alone (the agent reads the GPUs).
port=${BENCH_TOP_PORT:-19471}
env $sim_env "$gpuwatch" agent --listen "127.0.0.1:$port" --nvml-library "$sim_dir/libnvidia-ml.so.1" \
  --kmsg '' --data-dir "$work/agent-data" --interval "${interval_ms}ms" 2>"$work/agent.log" &
agent=$!
trap 'kill $agent 2>/dev/null || true; tmux_ kill-server 2>/dev/null || true; rm -rf "$work"' EXIT
for _ in $(seq 1 100); do
  curl -fsS "http://127.0.0.1:$port/readyz" >/dev/null 2>&1 && break
  sleep 0.1
done
tmux_ new-session -d -s top_url -x "$cols" -y "$rows" \
  "env LANG=C.UTF-8 $gpuwatch top --url http://127.0.0.1:$port --interval ${interval_ms}ms"
if [ -n "${NVTOP:-}" ]; then
  # nvtop's delay is in tenths of a second.
  tmux_ new-session -d -s nvtop -x "$cols" -y "$rows" \
    "env $sim_env $NVTOP -d $((interval_ms / 100))"
fi

pid_of() { # the program tmux runs in session $1 (its pane's process, after env exec'd it)
  tmux_ list-panes -t "$1" -F '#{pane_pid}'
}
cpu_ns() { cat /proc/"$1"/task/*/schedstat | awk '{ns += $1} END {printf "%d", ns}'; }
status_kib() { awk -v k="$2:" '$1 == k {print $2}' "/proc/$1/status"; }

sleep 5  # warm-up: libraries loaded, first frames drawn
sessions=(top top_url)
[ -n "${NVTOP:-}" ] && sessions+=(nvtop)
declare -A pid start
for s in "${sessions[@]}"; do
  pid[$s]=$(pid_of "$s")
  start[$s]=$(cpu_ns "${pid[$s]}")
done
for s in "${sessions[@]}"; do echo "top-bench: $s is pid ${pid[$s]} ($(cat /proc/${pid[$s]}/comm))"; done
sleep "$seconds"
refreshes=$((seconds * 1000 / interval_ms))
json="{\"seconds\": $seconds, \"interval_ms\": $interval_ms, \"size\": \"$size\", \"scenario\": \"bench-8xh200\", \"programs\": {"
table="| program | CPU per refresh | CPU share | VmRSS | VmHWM | RssAnon |\n| --- | ---: | ---: | ---: | ---: | ---: |\n"
first=1
for s in "${sessions[@]}"; do
  p=${pid[$s]}
  used=$(( $(cpu_ns "$p") - ${start[$s]} ))
  rss=$(status_kib "$p" VmRSS)
  hwm=$(status_kib "$p" VmHWM)
  anon=$(status_kib "$p" RssAnon)
  per_refresh_ms=$(awk -v t="$used" -v n="$refreshes" 'BEGIN {printf "%.3f", t / 1e6 / n}')
  share=$(awk -v t="$used" -v s="$seconds" 'BEGIN {printf "%.2f", 100 * t / 1e9 / s}')
  case $s in
    top) name="gpuwatch top (reads the GPUs)" ;;
    top_url) name="gpuwatch top --url (draws an agent's readings)" ;;
    *) name=nvtop ;;
  esac
  [ $first -eq 1 ] || json+=", "
  first=0
  json+="\"$s\": {\"cpu_ms_per_refresh\": $per_refresh_ms, \"cpu_percent\": $share, \"vmrss_kib\": $rss, \"vmhwm_kib\": $hwm, \"rssanon_kib\": $anon}"
  table+="| $name | $per_refresh_ms ms | $share % | $((rss / 1024)) MiB | $((hwm / 1024)) MiB | $((anon / 1024)) MiB |\n"
done
json+="}}"
mkdir -p bench/results
echo "$json" > bench/results/top.json
echo
echo "8 simulated H200, 80 processes, ${size} terminal, refresh every ${interval_ms} ms, ${seconds} s window:"
printf "%b" "$table"
