// One GPU's telemetry at scenario time t: load-driven power, temperature, clocks and throttle reasons, and
// the counters NVML integrates (energy, violation time, activity for GPM, PCIe and NVLink traffic).
//
// Inputs are constant over each one-second step of scenario time. Counters are integrated over those
// fixed steps from t = 0 (with checkpoints cached every few minutes), so any reader at the same t gets the
// same value, whatever it read before. The last reading and the counters it was integrated to are kept too:
// every call of one collection reads the same t, and the next collection's t continues that integration
// (the same steps in the same order as from the checkpoint, so the same bits) instead of starting over.
#pragma once

#include <cstdint>
#include <mutex>
#include <vector>

#include "sim/fault_effects.h"
#include "sim/process_model.h"

namespace gpuwatch::sim {

struct Counters {
  double energy_mj = 0;
  double temp_c = 0;
  double violation_power_ns = 0;
  double violation_thermal_ns = 0;
  double sm_pct_s = 0;  // integral of percent over seconds, for GPM averages
  double occupancy_pct_s = 0;
  double tensor_pct_s = 0;
  double dram_pct_s = 0;
  double pcie_tx_bytes = 0;
  double pcie_rx_bytes = 0;
  double nvlink_tx_kib = 0;  // per link
  double nvlink_rx_kib = 0;
};

struct GpuReading {
  double t = 0;
  double util = 0;      // percent
  double mem_util = 0;  // percent
  double power_w = 0;
  double power_limit_w = 0;
  unsigned sm_mhz = 0;
  unsigned mem_mhz = 0;
  unsigned long long reasons = 0;  // clock event reason bits
  double pcie_tx_kbs = 0;
  double pcie_rx_kbs = 0;
  Counters counters;
};

// The counters of a reading as integrals over wall seconds, when each scenario second took wall_per_second
// of them (scaled mode plays the script faster than the clock; the energy a GPU used still grows per wall
// second). The temperature is a level, not an integral, and is kept.
Counters per_wall_seconds(Counters c, double wall_per_second);

class GpuPhysics {
 public:
  GpuPhysics(const Scenario& scenario, const ProcessModel& processes, const FaultEffects& faults,
             unsigned gpu);
  GpuReading read(double t) const;
  // The share of its full clocks the GPU runs at, at t (1, or less under a power cap, brake or thermal
  // slowdown): what slows the work on it.
  double clock_factor(double t) const { return step(static_cast<std::int64_t>(t < 0 ? 0 : t)).clock_factor; }

 private:
  struct Step {
    double util, mem_util, power_w, limit_w, temp_target, clock_factor;
    unsigned long long reasons;
    double pcie_tx_kbs, pcie_rx_kbs, nvlink_kibs;
  };
  Step step(std::int64_t k) const;
  static void advance(Counters& c, const Step& s, double dt);
  Counters counters_at_step(std::int64_t k) const;

  const Scenario& scenario_;
  const ProcessModel& processes_;
  const FaultEffects& faults_;
  const DeviceSpec& device_;
  unsigned gpu_;
  mutable std::mutex cache_mutex_;
  mutable std::vector<Counters>
      checkpoints_;                      // counters at steps 0, kCheckpointSteps, 2*kCheckpointSteps, ...
  mutable std::int64_t last_step_ = -1;  // the step last integrated to, and the counters there
  mutable Counters last_counters_;
  mutable bool have_last_reading_ = false;  // the last read()'s answer, for more calls at the same t
  mutable GpuReading last_reading_;
};

}  // namespace gpuwatch::sim
