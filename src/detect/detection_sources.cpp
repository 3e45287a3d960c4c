#include "detect/detection_sources.h"

#include "sources/kernel/pcie_aer.h"

namespace gpuwatch::detect {

DetectionSources::DetectionSources(DetectionSourceOptions options) : options_(std::move(options)) {
  if (!options_.kmsg.empty()) kmsg_.emplace(options_.kmsg);
}

DetectionInput DetectionSources::gather(const Snapshot& snapshot) {
  DetectionInput in{snapshot, {}, {}, {}};
  if (kmsg_) in.kernel_events = kmsg_->poll();
  if (!options_.sysfs_root.empty()) {
    for (const auto& d : snapshot.devices) {
      if (d.identity.is_mig_instance || d.identity.pci_bus_id.empty()) continue;
      if (auto aer = kernel::read_aer_counters(options_.sysfs_root, d.identity.pci_bus_id))
        in.aer[d.identity.pci_bus_id] = *aer;
    }
    in.kernel_module_version = kernel::read_nvidia_module_version(options_.sysfs_root);
  }
  return in;
}

}  // namespace gpuwatch::detect
