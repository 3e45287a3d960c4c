#include "detect/detector_set.h"

#include <array>

#include "detect/detectors.h"

namespace gpuwatch::detect {

std::span<const DetectorInfo> detector_table() {
  static const std::array<DetectorInfo, 15> kTable = {{
      {"xid", "GpuXidCritical, GpuXidHardware, GpuXidApplication, GpuXidRepeating",
       [](const DetectorSettings& s) { return make_xid_detector(s.xid); }},
      {"gpu_lost", "GpuLost, GpuStale",
       [](const DetectorSettings& s) { return make_gpu_lost_detector(s.lost); }},
      {"throttle",
       "GpuPowerBrake, GpuThermalSlowdown, GpuHardwareSlowdown, GpuSoftwareThermalSlowdown, "
       "GpuTemperatureNearSlowdown",
       [](const DetectorSettings& s) { return make_throttle_detector(s.throttle); }},
      {"ecc",
       "GpuEccUncorrectable, GpuRowRemapFailed, GpuEccCorrectedStorm, GpuMemoryRepairPending, "
       "GpuMemoryRepairExhausted",
       [](const DetectorSettings& s) { return make_ecc_detector(s.ecc); }},
      {"pcie", "GpuPcieReplayRate, GpuPcieLinkDegraded, GpuPcieUncorrectableError",
       [](const DetectorSettings& s) { return make_pcie_detector(s.pcie); }},
      {"oom_forecast", "GpuMemoryExhaustionForecast",
       [](const DetectorSettings& s) { return make_oom_forecast_detector(s.oom_forecast); }},
      {"probable_oom", "GpuProcessProbableOom",
       [](const DetectorSettings& s) { return make_probable_oom_detector(s.probable_oom); }},
      {"memory_leak", "GpuProcessMemoryLeak",
       [](const DetectorSettings& s) { return make_memory_leak_detector(s.leak); }},
      {"version_mismatch",
       "GpuDriverVersionMismatch, GpuProcessLibcudaMismatch, GpuCudaRuntimeTooNew, GpuMixedVbios",
       [](const DetectorSettings&) { return make_version_mismatch_detector(); }},
      {"idle_waste", "GpuIdleWaste",
       [](const DetectorSettings& s) { return make_idle_waste_detector(s.idle); }},
      {"noisy_neighbour", "GpuNoisyNeighbour",
       [](const DetectorSettings& s) { return make_noisy_neighbour_detector(s.noisy_neighbour); }},
      {"node_contention", "GpuNodePowerContention",
       [](const DetectorSettings& s) { return make_node_contention_detector(s.node_contention); }},
      {"pcie_contention", "GpuPcieContention",
       [](const DetectorSettings& s) { return make_pcie_contention_detector(s.pcie_contention); }},
      {"fabric", "GpuFabricRegistrationFailed, GpuFabricNotRegistered",
       [](const DetectorSettings& s) { return make_fabric_detector(s.fabric); }},
      {"watchdog", "Watchdog", [](const DetectorSettings&) { return make_watchdog_detector(); }},
  }};
  return kTable;
}

DetectorSet::DetectorSet(const DetectorSettings& settings) {
  for (const auto& info : detector_table()) detectors_.push_back(info.make(settings));
}

std::vector<Condition> DetectorSet::evaluate(const DetectionInput& input) {
  std::vector<Condition> out;
  for (auto& d : detectors_) d->evaluate(input, out);
  return out;
}

}  // namespace gpuwatch::detect
