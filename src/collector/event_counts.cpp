#include "collector/event_counts.h"

namespace gpuwatch {

void EventCounts::record(const std::string& uuid, unsigned long long type, unsigned long long data) {
  std::lock_guard lock(mutex_);
  if ((type & nvmlEventMigConfigChange) != 0) mig_changed_ = true;
  auto& c = by_uuid_[uuid];
  if ((type & nvmlEventTypeXidCriticalError) != 0) {
    const auto xid = static_cast<unsigned>(data);
    ++c.xid[xid];
    c.last_xid = xid;
  }
  for (std::size_t i = 0; i < nvml_labels::kCriticalEvents.size(); ++i) {
    if ((type & nvml_labels::kCriticalEvents[i].bit) != 0) ++c.events[i];
  }
}

void EventCounts::fill(DeviceSnapshot& device) const {
  std::lock_guard lock(mutex_);
  const auto it = by_uuid_.find(device.identity.uuid);
  const Counts empty;
  const Counts& c = it == by_uuid_.end() ? empty : it->second;
  device.xid_counts = c.xid;
  device.last_xid = c.last_xid;
  for (std::size_t i = 0; i < c.events.size(); ++i) {
    auto& s = device.samples.emplace_back(Metric::kCriticalEvents, static_cast<double>(c.events[i]));
    s.labels[0] = nvml_labels::kCriticalEvents[i].label;
  }
}

bool EventCounts::take_mig_change() {
  std::lock_guard lock(mutex_);
  const bool changed = mig_changed_;
  mig_changed_ = false;
  return changed;
}

}  // namespace gpuwatch
