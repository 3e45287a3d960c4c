# shellcheck shell=bash
# How the benchmarks run nvtop, the peer of `gpuwatch top` and of the one-shot commands, on the simulator:
# nvtop is no Debian package, so its path comes from NVTOP (built from github.com/Syllo/nvtop); it loads
# libnvml-sim as libnvidia-ml.so.1 from the build, and sees the same GPUs at the same moment as gpuwatch when
# both get the same scenario and epoch. Sourced by bench/top_vs_nvtop.sh and bench/oneshot.sh.

# nvtop_peer_check NAME: true when NVTOP names an executable; says what is missing (and how to get it)
# when NVTOP is unset; exits when NVTOP is set but is no executable.
nvtop_peer_check() {
  if [ -z "${NVTOP:-}" ]; then
    echo "$1: NVTOP is not set: measuring gpuwatch alone. nvtop is not a Debian package; build it from"
    echo "  its source (github.com/Syllo/nvtop, cmake -DNVIDIA_SUPPORT=ON) and pass NVTOP=/path/to/nvtop."
    return 1
  fi
  if [ ! -x "$NVTOP" ]; then
    echo "$1: NVTOP=$NVTOP is not an executable" >&2
    exit 1
  fi
}

# nvtop_sim_env SIM_DIR SCENARIO EPOCH: the environment (NAME=VALUE words for env) under which gpuwatch and
# nvtop both read libnvml-sim's SCENARIO at the same scenario time.
nvtop_sim_env() {
  echo "LANG=C.UTF-8 GPUWATCH_SIM_SCENARIO=$2 GPUWATCH_SIM_EPOCH=$3 GPUWATCH_SIM_MODE=scaled LD_LIBRARY_PATH=$1"
}

# nvtop_live_scenario SCENARIO OUT: writes OUT, SCENARIO with each GPU process's pid replaced by that of a live
# process started here (a `sleep`, added to the caller's pids for its cleanup), so that /proc has every process
# NVML reports, as on a real node. nvtop 3.3.2's `-s` dereferences the command line of a process it cannot find
# in /proc and dies of SIGSEGV before it prints anything; both tools read the same copy.
nvtop_live_scenario() {
  local map=() pid
  for pid in $(grep -oE '\bpid: *[0-9]+' "$1" | grep -oE '[0-9]+' | sort -un); do
    sleep 86400 &
    pids+=("$!")
    map+=("$pid=$!")
  done
  python3 - "$1" "$2" "${map[@]}" <<'PY'
import re, sys
source, out, pairs = sys.argv[1], sys.argv[2], dict(p.split("=") for p in sys.argv[3:])
text = open(source).read()
text = re.sub(r"\b(pid: *)([0-9]+)", lambda m: m.group(1) + pairs[m.group(2)], text)
open(out, "w").write(text)
PY
}
