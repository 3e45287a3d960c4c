#include "sim/gpu_physics.h"

#include <algorithm>
#include <cmath>

#include "sim/shape.h"
#include "sources/nvml/nvml_abi.h"

namespace gpuwatch::sim {
namespace {

constexpr std::int64_t kCheckpointSteps = 256;
constexpr double kThermalTau = 45;          // seconds for temperature to close 63% of the gap
constexpr double kNvlinkAtFullLoad = 18e6;  // KiB/s per link

}  // namespace

GpuPhysics::GpuPhysics(const Scenario& scenario, const ProcessModel& processes, const FaultEffects& faults,
                       unsigned gpu)
    : scenario_(scenario),
      processes_(processes),
      faults_(faults),
      device_(scenario.devices[gpu]),
      gpu_(gpu) {}

GpuPhysics::Step GpuPhysics::step(std::int64_t k) const {
  const double t = static_cast<double>(k);
  const GpuModel& m = *device_.model;
  const std::uint64_t seed = scenario_.node.seed;
  Step s{};
  s.util = std::clamp(processes_.gpu_utilization(gpu_, t), 0.0, 100.0);
  s.mem_util = std::clamp(s.util * 0.55 + 3 * noise_unit(seed, 0x500000 + gpu_, k), 0.0, 100.0);
  const double demand = m.idle_power_w + s.util / 100 * (m.max_power_w - m.idle_power_w) +
                        0.015 * m.max_power_w * noise_unit(seed, 0x600000 + gpu_, k) * (s.util > 1 ? 1 : 0.2);
  s.limit_w = faults_.power_cap_w(gpu_, t).value_or(device_.power_limit_w);
  s.power_w = std::min(demand, s.limit_w);
  s.clock_factor = 1;
  if (s.util < 1) s.reasons |= nvmlClocksEventReasonGpuIdle;
  if (demand > s.limit_w) {
    s.reasons |= nvmlClocksEventReasonSwPowerCap;
    s.clock_factor = std::clamp(s.limit_w / demand, 0.4, 1.0);
  }
  if (faults_.power_brake(gpu_, t)) {
    s.reasons |= nvmlClocksThrottleReasonHwPowerBrakeSlowdown | nvmlClocksThrottleReasonHwSlowdown;
    s.clock_factor = std::min(s.clock_factor, 0.3);
    s.power_w = std::min(s.power_w, m.idle_power_w + 0.3 * (s.limit_w - m.idle_power_w));
  }
  s.temp_target = m.temp_idle + m.temp_rise * s.power_w / m.max_power_w;
  if (faults_.thermal_throttle(gpu_, t)) {
    // Cooling failure: the die heats past the slowdown threshold and the clocks are pulled down.
    s.temp_target = m.temp_slowdown + 4;
    s.reasons |= nvmlClocksEventReasonSwThermalSlowdown | nvmlClocksThrottleReasonHwThermalSlowdown;
    s.clock_factor = std::min(s.clock_factor, 0.6);
    s.power_w = std::min(s.power_w, m.idle_power_w + 0.6 * (s.power_w - m.idle_power_w));
  }
  const double load = s.util / 100 * s.clock_factor;
  // The GPU's own traffic, scaled by its load, plus what its processes move (their share of it when the
  // switch uplink is full).
  const auto moved = [&](PcieDirection dir) {
    return processes_.pcie_demand(gpu_, dir, t) * processes_.pcie_share(gpu_, dir, t) / 1000;  // KB/s
  };
  s.pcie_tx_kbs = std::max(0.0, load * kPcieBaseFromDeviceAtFullLoad / 1000 *
                                        (1 + 0.05 * noise_unit(seed, 0x700000 + gpu_, k)) +
                                    200) +
                  moved(PcieDirection::kFromDevice);
  s.pcie_rx_kbs = std::max(0.0, load * kPcieBaseToDeviceAtFullLoad / 1000 *
                                        (1 + 0.05 * noise_unit(seed, 0x800000 + gpu_, k)) +
                                    300) +
                  moved(PcieDirection::kToDevice);
  s.nvlink_kibs = m.nvlinks > 0 ? load * kNvlinkAtFullLoad : 0;
  return s;
}

void GpuPhysics::advance(Counters& c, const Step& s, double dt) {
  c.energy_mj += s.power_w * 1000 * dt;
  c.temp_c = s.temp_target + (c.temp_c - s.temp_target) * std::exp(-dt / kThermalTau);
  const unsigned long long power_bits =
      nvmlClocksEventReasonSwPowerCap | nvmlClocksThrottleReasonHwPowerBrakeSlowdown;
  const unsigned long long thermal_bits =
      nvmlClocksEventReasonSwThermalSlowdown | nvmlClocksThrottleReasonHwThermalSlowdown;
  if (s.reasons & power_bits) c.violation_power_ns += dt * 1e9;
  if (s.reasons & thermal_bits) c.violation_thermal_ns += dt * 1e9;
  c.sm_pct_s += s.util * s.clock_factor * dt;
  c.occupancy_pct_s += s.util * 0.45 * dt;
  c.tensor_pct_s += s.util * 0.7 * s.clock_factor * dt;
  c.dram_pct_s += s.mem_util * dt;
  c.pcie_tx_bytes += s.pcie_tx_kbs * 1000 * dt;
  c.pcie_rx_bytes += s.pcie_rx_kbs * 1000 * dt;
  c.nvlink_tx_kib += s.nvlink_kibs * dt;
  c.nvlink_rx_kib += s.nvlink_kibs * 0.97 * dt;
}

Counters per_wall_seconds(Counters c, double wall_per_second) {
  if (wall_per_second == 1) return c;
  for (double* integral : {&c.energy_mj, &c.violation_power_ns, &c.violation_thermal_ns, &c.sm_pct_s,
                           &c.occupancy_pct_s, &c.tensor_pct_s, &c.dram_pct_s, &c.pcie_tx_bytes,
                           &c.pcie_rx_bytes, &c.nvlink_tx_kib, &c.nvlink_rx_kib})
    *integral *= wall_per_second;
  return c;
}

Counters GpuPhysics::counters_at_step(std::int64_t k) const {
  // From the checkpoint at or before step `first`, or from the last step integrated to when that lies
  // between the two: the same steps in the same order either way.
  const auto integrate = [&](std::int64_t first, std::int64_t end) {
    const bool resume = last_step_ >= first && last_step_ <= end;
    Counters c = resume ? last_counters_ : checkpoints_[static_cast<std::size_t>(first / kCheckpointSteps)];
    for (std::int64_t i = resume ? last_step_ : first; i < end; ++i) advance(c, step(i), 1);
    return c;
  };
  if (checkpoints_.empty()) {
    Counters start;
    start.temp_c = step(0).temp_target;
    checkpoints_.push_back(start);
  }
  const auto wanted = static_cast<std::size_t>(k / kCheckpointSteps);
  while (checkpoints_.size() <= wanted) {
    const std::int64_t first = static_cast<std::int64_t>(checkpoints_.size() - 1) * kCheckpointSteps;
    checkpoints_.push_back(integrate(first, first + kCheckpointSteps));
  }
  const Counters c = integrate(static_cast<std::int64_t>(wanted) * kCheckpointSteps, k);
  last_step_ = k;
  last_counters_ = c;
  return c;
}

GpuReading GpuPhysics::read(double t) const {
  t = std::max(0.0, t);
  std::lock_guard lock(cache_mutex_);
  if (have_last_reading_ && last_reading_.t == t) return last_reading_;
  const auto k = static_cast<std::int64_t>(std::floor(t));
  const Step s = step(k);
  GpuReading r;
  r.t = t;
  r.counters = counters_at_step(k);
  advance(r.counters, s, t - static_cast<double>(k));
  r.util = s.util;
  r.mem_util = s.mem_util;
  r.power_w = s.power_w;
  r.power_limit_w = s.limit_w;
  r.reasons = s.reasons;
  const GpuModel& m = *device_.model;
  const double busy_mhz = s.util >= 1 ? m.max_sm_mhz : m.idle_sm_mhz;
  r.sm_mhz =
      static_cast<unsigned>(std::max<double>(m.idle_sm_mhz, std::round(busy_mhz * s.clock_factor / 15) * 15));
  r.mem_mhz = m.max_mem_mhz;
  r.pcie_tx_kbs = s.pcie_tx_kbs;
  r.pcie_rx_kbs = s.pcie_rx_kbs;
  have_last_reading_ = true;
  last_reading_ = r;
  return r;
}

}  // namespace gpuwatch::sim
