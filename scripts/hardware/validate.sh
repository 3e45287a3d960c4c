#!/usr/bin/env bash
# Checks gpuwatch against a real NVIDIA GPU and writes a report. Run it on a GPU machine from the repository root:
#   scripts/hardware/validate.sh OUT_DIR
# It builds gpuwatch, compares `gpuwatch status --json` with `nvidia-smi --query-gpu`, checks gpuwatch's NVML
# struct layouts against the real nvml.h of the CUDA toolkit, scrapes /metrics through promtool, and times a
# collection tick against the time spent inside NVML. It reads only; it changes no GPU setting.
set -euo pipefail
out=${1:?usage: validate.sh OUT_DIR}
mkdir -p "$out"
build=${BUILD:-build-hw}
exec > >(tee "$out/validate.log") 2>&1

echo "== machine"; nvidia-smi -L || true; nvidia-smi --query-gpu=driver_version --format=csv,noheader | head -1 || true

echo "== build"
cmake -S . -B "$build" -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo >/dev/null
cmake --build "$build" -j "$(nproc)" --target gpuwatch abi_layout_ours >/dev/null

echo "== struct layouts: ours vs nvml.h"
nvml_h=$(ls /usr/local/cuda/include/nvml.h /usr/include/nvml.h 2>/dev/null | head -1 || true)
if [ -n "$nvml_h" ]; then
  g++ -std=c++17 -I"$(dirname "$nvml_h")" -o "$build/abi_layout_real" tests/hardware/abi_layout_real.cpp
  "$build/abi_layout_real" > "$out/abi-real.txt"
  "$build/tests/hardware/abi_layout_ours" > "$out/abi-ours.txt"
  if diff -u "$out/abi-real.txt" "$out/abi-ours.txt" > "$out/abi.diff"; then echo "layouts match ($nvml_h)"; else echo "LAYOUT MISMATCH"; cat "$out/abi.diff"; fi
else
  echo "no nvml.h found (install the CUDA toolkit headers)"
fi

echo "== gpuwatch status vs nvidia-smi"
"$build/gpuwatch" status --json > "$out/status.json" || true
"$build/gpuwatch" status > "$out/status.txt" || true
fields=index,uuid,name,serial,pci.bus_id,vbios_version,driver_version,memory.total,memory.used,memory.free,temperature.gpu,temperature.memory,power.draw,power.limit,clocks.sm,clocks.mem,clocks.gr,clocks.max.sm,clocks.max.mem,pcie.link.gen.current,pcie.link.gen.max,pcie.link.width.current,pcie.link.width.max,utilization.gpu,utilization.memory,pstate,ecc.errors.corrected.volatile.total,ecc.errors.uncorrected.volatile.total,clocks_event_reasons.active
nvidia-smi --query-gpu=$fields --format=csv,nounits > "$out/nvidia-smi.csv" || true
python3 scripts/hardware/compare.py "$out/status.json" "$out/nvidia-smi.csv" | tee "$out/comparison.md"

echo "== /metrics through promtool, and tick cost"
"$build/gpuwatch" agent --listen 127.0.0.1:19499 --interval 1s > "$out/agent.log" 2>&1 &
agent=$!
trap 'kill $agent 2>/dev/null || true' EXIT
for _ in $(seq 1 100); do curl -fsS http://127.0.0.1:19499/readyz >/dev/null 2>&1 && break; sleep 0.1; done
sleep 5
curl -fsS http://127.0.0.1:19499/metrics > "$out/metrics.prom"
curl -fsS 'http://127.0.0.1:19499/metrics?naming=dcgm' > "$out/metrics-dcgm.prom"
(promtool check metrics < "$out/metrics.prom" && echo "promtool: no finding") 2>&1 | tee "$out/promtool.txt" || true
grep -E '^gpuwatch_collection_duration_seconds|^gpuwatch_ticks_total' "$out/metrics.prom" || true
kill $agent; wait $agent 2>/dev/null || true
echo "report in $out"
