#include "detect/detector_table.h"

#include <array>

// Every detector, one line each: <name> for src/detect/<name>_detector.cpp, whose <name>_detector() makes
// its row. The order is the order of evaluation, of the conditions and of the detect.* options.
#define GPUWATCH_DETECTORS(X) \
  X(xid)                      \
  X(gpu_lost)                 \
  X(throttle)                 \
  X(ecc)                      \
  X(pcie)                     \
  X(oom_forecast)             \
  X(probable_oom)             \
  X(memory_leak)              \
  X(version_mismatch)         \
  X(idle_waste)               \
  X(noisy_neighbour)          \
  X(node_contention)          \
  X(pcie_contention)          \
  X(fabric)                   \
  X(watchdog)

namespace gpuwatch::detect {

#define GPUWATCH_DECLARE_DETECTOR(name) DetectorInfo name##_detector();
GPUWATCH_DETECTORS(GPUWATCH_DECLARE_DETECTOR)
#undef GPUWATCH_DECLARE_DETECTOR

std::span<const DetectorInfo> detector_table() {
#define GPUWATCH_DETECTOR_ROW(name) name##_detector(),
  static const std::array kTable = {GPUWATCH_DETECTORS(GPUWATCH_DETECTOR_ROW)};
#undef GPUWATCH_DETECTOR_ROW
  return kTable;
}

std::vector<std::string> alertnames_of(const DetectorInfo& info) {
  std::vector<std::string> out;
  for (std::string_view rest = info.alertnames; !rest.empty();) {
    const auto comma = rest.find(',');
    std::string_view name = rest.substr(0, comma);
    while (!name.empty() && name.front() == ' ') name.remove_prefix(1);
    while (!name.empty() && name.back() == ' ') name.remove_suffix(1);
    if (!name.empty()) out.emplace_back(name);
    rest = comma == std::string_view::npos ? std::string_view{} : rest.substr(comma + 1);
  }
  return out;
}

}  // namespace gpuwatch::detect
