// Small helpers every detector uses: the labels that identify a GPU, reading a sample with a fallback, and
// finding the GPU a kernel-log record names.
#pragma once

#include <map>
#include <string>
#include <string_view>

#include "core/snapshot.h"

namespace gpuwatch::detect {

using Labels = std::map<std::string, std::string>;

// gpu (index) and uuid.
inline Labels device_labels(const DeviceSnapshot& d) {
  return {{"gpu", std::to_string(d.identity.index)}, {"uuid", d.identity.uuid}};
}

inline std::string gpu_name(const DeviceSnapshot& d) {
  return "GPU " + std::to_string(d.identity.index);
}

inline double value_or(const DeviceSnapshot& d, Metric m, double fallback, std::string_view label0 = {},
                       std::string_view label1 = {}) {
  const Sample* s = d.find(m, label0, label1);
  return s ? s->value : fallback;
}

inline bool has(const DeviceSnapshot& d, Metric m, std::string_view label0 = {}) {
  return d.find(m, label0) != nullptr;
}

// The whole GPU (never a MIG instance) at a normalised bus id; null when no GPU of the snapshot sits there.
inline const DeviceSnapshot* device_at_bus(const Snapshot& s, std::string_view bus_id) {
  for (const auto& d : s.devices)
    if (!d.identity.is_mig_instance && d.identity.pci_bus_id == bus_id) return &d;
  return nullptr;
}

}  // namespace gpuwatch::detect
