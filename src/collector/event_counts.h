// Cumulative NVML event counts per GPU, since the agent started: every XID per code (not only the last one)
// and every other critical event per type. Written by the event thread, read by the collector at each tick;
// kept by the collector across NVML re-initialisations so counters never go back.
#pragma once

#include <array>
#include <cstdint>
#include <functional>
#include <map>
#include <mutex>
#include <optional>
#include <string>

#include "core/snapshot.h"
#include "sources/nvml/nvml_labels.h"

namespace gpuwatch {

class EventCounts {
 public:
  void record(const std::string& uuid, unsigned long long type, unsigned long long data);
  // Sets device.xid_counts / last_xid and appends one gpu_events_total sample per critical event type.
  void fill(DeviceSnapshot& device) const;
  // True once after a MIG configuration change event.
  bool take_mig_change();

 private:
  struct Counts {
    std::map<unsigned, std::uint64_t> xid;
    std::optional<unsigned> last_xid;
    std::array<std::uint64_t, nvml_labels::kCriticalEvents.size()> events{};
  };
  mutable std::mutex mutex_;
  std::map<std::string, Counts, std::less<>> by_uuid_;
  bool mig_changed_ = false;
};

}  // namespace gpuwatch
