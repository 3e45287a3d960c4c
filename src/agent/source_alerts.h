// The agent's own alert about its inputs: GpuMonitoringDown while a source (NVML) cannot be read, so a node
// without a library or a driver pages with the reason instead of going quiet (only Watchdog firing and
// /readyz answering 503).
//   GpuMonitoringDown  page  a source fails; at once when it never worked since the agent started (nothing
//                            will change by itself), after `for` when a source that worked stops (a driver
//                            reload re-initialises within seconds)
#pragma once

#include <array>
#include <chrono>
#include <set>
#include <string>
#include <string_view>
#include <vector>

#include "core/condition.h"
#include "core/snapshot.h"

namespace gpuwatch {

// Every alert name the agent raises outside the detector table (each has docs/runbooks/<name>.md).
inline constexpr std::array<std::string_view, 1> kSourceAlertNames = {"GpuMonitoringDown"};

class SourceAlerts {
 public:
  explicit SourceAlerts(std::chrono::milliseconds for_after_success = std::chrono::seconds(30))
      : for_after_success_(for_after_success) {}

  // Adds a condition for each source of the snapshot that failed. Snapshots in time order, one thread.
  void evaluate(const Snapshot& snapshot, std::vector<alerting::Condition>& out);

 private:
  std::chrono::milliseconds for_after_success_;
  std::set<std::string, std::less<>> ever_succeeded_;  // source names
};

}  // namespace gpuwatch
