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
