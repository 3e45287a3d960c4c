// An NVML event set with the XID and critical event types each whole GPU supports registered. wait() is the
// only call made after construction; it is meant for one dedicated thread.
#pragma once

#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "sources/nvml/nvml_library.h"

namespace gpuwatch {

struct WatchedDevice {
  nvmlDevice_t handle;
  std::string uuid;
};

struct NvmlEvent {
  const std::string* uuid;  // points into the set's device list; valid while the set lives
  unsigned long long type;  // one nvmlEventType* bit
  unsigned long long data;  // the XID for XID events
};

class NvmlEventSet {
 public:
  // The types listened for: XIDs, the critical types of nvml_labels::kCriticalEvents, MIG reconfiguration.
  static unsigned long long wanted_types();

  NvmlEventSet(std::shared_ptr<const NvmlLibrary> lib, std::vector<WatchedDevice> devices);
  ~NvmlEventSet();
  NvmlEventSet(const NvmlEventSet&) = delete;
  NvmlEventSet& operator=(const NvmlEventSet&) = delete;

  // False when events are unavailable (no event API, or no device supports any wanted type).
  bool ok() const { return set_ != nullptr && registered_ > 0; }

  // Waits up to timeout_ms for the next event. nullopt on timeout; also after an error, having waited
  // timeout_ms (so a failing wait does not spin).
  std::optional<NvmlEvent> wait(unsigned timeout_ms);

 private:
  std::shared_ptr<const NvmlLibrary> lib_;
  std::vector<WatchedDevice> devices_;
  nvmlEventSet_t set_ = nullptr;
  int registered_ = 0;
};

}  // namespace gpuwatch
