// The scenario's processes over time: when each one runs, how much GPU memory and SM time it uses
// (including leaks and climbs to OOM), and the per-GPU totals derived from them.
#pragma once

#include <cstddef>
#include <vector>

#include "sim/scenario.h"

namespace gpuwatch::sim {

enum class PcieDirection { kToDevice, kFromDevice };  // NVML's RX and TX, counted at the GPU

// Every GPU's own PCIe traffic at full load besides what its processes declare (command submission,
// small copies), in bytes per second; it scales with the GPU's load.
constexpr double kPcieBaseToDeviceAtFullLoad = 3.0e9;
constexpr double kPcieBaseFromDeviceAtFullLoad = 1.5e9;
// The share of a link's encoded rate that carries data once packet headers are paid for.
constexpr double kPciePayloadEfficiency = 0.9;

class ProcessModel {
 public:
  explicit ProcessModel(const Scenario& scenario);

  const ProcessSpec& spec(std::size_t i) const { return scenario_.processes[i]; }
  std::size_t size() const { return scenario_.processes.size(); }
  const std::vector<std::size_t>& on_gpu(unsigned gpu) const { return by_gpu_[gpu]; }

  bool alive(std::size_t i, double t) const;
  // When the process ends: its stop time, or the moment its memory filled the GPU (process_oom).
  double end_time(std::size_t i) const { return end_[i]; }
  double memory(std::size_t i, double t) const;   // bytes; 0 when not running
  double sm_util(std::size_t i, double t) const;  // percent; 0 when not running

  double gpu_memory_used(unsigned gpu, double t) const;  // bytes, capped at the card's memory
  double instance_memory_used(unsigned gpu, int inst, double t) const;
  double gpu_utilization(unsigned gpu, double t) const;  // percent

  // Bytes per second the processes on `gpu` ask to move over PCIe at t (their pcie_rx / pcie_tx shapes).
  double pcie_demand(unsigned gpu, PcieDirection dir, double t) const;
  // The fraction of that demand the GPU gets: 1 unless the GPUs below its switch together ask for more
  // than the uplink carries (after every GPU's base traffic at full load), then each gets the same
  // fraction of what it asks for.
  double pcie_share(unsigned gpu, PcieDirection dir, double t) const;

 private:
  double raw_memory(std::size_t i, double t) const;
  double raw_gpu_memory(unsigned gpu, double t) const;
  double raw_instance_memory(unsigned gpu, int inst, double t) const;
  double instance_capacity(unsigned gpu, int inst) const;
  double raw_sm_util(std::size_t i, double t) const;
  double input_share(std::size_t i, double t) const;  // a process waiting on PCIe runs this fraction
  const Scenario& scenario_;
  std::vector<int> switch_of_;  // by GPU: its index in scenario.pcie_switches, -1 for none
  std::vector<std::vector<std::size_t>> by_gpu_;
  std::vector<double> end_;
};

// Memory the driver keeps on every GPU (and on every MIG instance) before any process allocates.
constexpr double kDriverReservedBytes = 512.0 * 1024 * 1024;
constexpr double kInstanceReservedBytes = 32.0 * 1024 * 1024;

}  // namespace gpuwatch::sim
