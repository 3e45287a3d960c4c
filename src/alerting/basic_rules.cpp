#include "alerting/basic_rules.h"

#include <string>

namespace gpuwatch::alerting {

std::vector<Condition> basic_conditions(const Snapshot& snapshot) {
  std::vector<Condition> out;
  for (const auto& d : snapshot.devices) {
    if (d.state != DeviceState::kLost) continue;
    Condition c;
    c.alertname = "GpuLost";
    c.severity = Severity::kPage;
    c.labels = {{"gpu", std::to_string(d.identity.index)}, {"uuid", d.identity.uuid}};
    c.summary = "GPU " + std::to_string(d.identity.index) + " fell off the bus";
    c.description = "NVML answers GPU_IS_LOST for GPU " + std::to_string(d.identity.index) + " (" +
                    d.identity.uuid + ", PCI " + d.identity.pci_bus_id + ")";
    c.action = "drain the node; the GPU needs a reset or a reboot, and a hardware check if it recurs";
    out.push_back(std::move(c));
  }
  return out;
}

}  // namespace gpuwatch::alerting
