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

}  // namespace gpuwatch::detect
