#include "detect/detection_sources.h"

#include <algorithm>
#include <fstream>

#include "core/utf8.h"
#include "sources/kernel/pcie_aer.h"

namespace gpuwatch::detect {
namespace {

// The CUDA driver and runtime libraries a process maps (each path once).
std::vector<std::string> cuda_libraries(const std::string& proc_root, unsigned pid) {
  std::vector<std::string> out;
  std::ifstream maps(proc_root + "/" + std::to_string(pid) + "/maps");
  for (std::string line; std::getline(maps, line);) {
    const auto slash = line.find('/');
    if (slash == std::string::npos) continue;
    std::string path = to_valid_utf8(std::string_view(line).substr(slash));  // quoted in alerts
    const auto base = path.substr(path.rfind('/') + 1);
    if (!base.starts_with("libcuda.so.") && !base.starts_with("libcudart.so.")) continue;
    if (std::find(out.begin(), out.end(), path) == out.end()) out.push_back(std::move(path));
  }
  return out;
}

constexpr std::int64_t kTopologyRefreshMs = 10'000;

}  // namespace

DetectionSources::DetectionSources(DetectionSourceOptions options) : options_(std::move(options)) {
  if (!options_.kmsg.empty()) kmsg_.emplace(options_.kmsg);
}

DetectionInput DetectionSources::gather(const Snapshot& snapshot) {
  DetectionInput in{snapshot, {}, {}, {}, {}, {}};
  if (kmsg_) in.kernel_events = kmsg_->poll();
  if (!options_.sysfs_root.empty()) {
    std::vector<std::string> gpus;
    for (const auto& d : snapshot.devices) {
      if (d.identity.is_mig_instance || d.identity.pci_bus_id.empty()) continue;
      gpus.push_back(d.identity.pci_bus_id);
      if (auto aer = kernel::read_aer_counters(options_.sysfs_root, d.identity.pci_bus_id))
        in.aer[d.identity.pci_bus_id] = *aer;
    }
    in.kernel_module_version = kernel::read_nvidia_module_version(options_.sysfs_root);
    if (gpus != topology_gpus_ || snapshot.timestamp_ms - topology_read_ms_ >= kTopologyRefreshMs ||
        snapshot.timestamp_ms < topology_read_ms_) {
      shared_links_ = kernel::read_shared_pcie_links(options_.sysfs_root, gpus);
      topology_gpus_ = std::move(gpus);
      topology_read_ms_ = snapshot.timestamp_ms;
    }
    in.shared_pcie_links = shared_links_;
  }
  if (!options_.proc_root.empty()) {
    std::map<unsigned, std::vector<std::string>> seen;
    for (const auto& d : snapshot.devices) {
      for (const auto& p : d.processes) {
        auto it = libraries_.find(p.pid);
        seen[p.pid] =
            it != libraries_.end() ? std::move(it->second) : cuda_libraries(options_.proc_root, p.pid);
      }
    }
    libraries_ = std::move(seen);  // processes that left are forgotten
    in.process_libraries = libraries_;
  }
  return in;
}

const procfs::Workload& DetectionSources::workload(unsigned pid) {
  auto it = workloads_.find(pid);
  if (it == workloads_.end()) {
    procfs::Workload w;
    if (!options_.proc_root.empty())
      w = procfs::read_workload(options_.proc_root, pid).value_or(procfs::Workload{});
    it = workloads_.emplace(pid, std::move(w)).first;
  }
  return it->second;
}

void DetectionSources::keep_workloads(const std::set<unsigned>& pids) {
  std::erase_if(workloads_, [&](const auto& entry) { return !pids.contains(entry.first); });
}

}  // namespace gpuwatch::detect
