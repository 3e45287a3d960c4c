// Driver and library versions that do not fit together, defined precisely:
//   GpuDriverVersionMismatch   page    NVML answers LIB_RM_VERSION_MISMATCH (the user-space driver no longer
//                                      matches the loaded kernel module: an upgrade without reboot), or the
//                                      driver version NVML reports differs from /sys/module/nvidia/version
//   GpuProcessLibcudaMismatch  ticket  a GPU process maps libcuda.so.<version> other than the loaded kernel
//                                      module's version (a container shipping its own driver library)
//   GpuCudaRuntimeTooNew       ticket  a GPU process maps libcudart.so.<major> whose major version exceeds
//   the
//                                      CUDA version the driver supports (minor-version compatibility is
//                                      normal)
//   GpuMixedVbios              ticket  GPUs of one model on this node run different VBIOS versions
#include <fmt/format.h>

#include <fmt/ranges.h>

#include <cctype>
#include <set>

#include "detect/detector_table.h"
#include "detect/device_facts.h"

namespace gpuwatch::detect {
namespace {

std::string lower(std::string s) {
  for (auto& c : s) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return s;
}

// "/usr/lib/x86_64-linux-gnu/libcuda.so.550.54.15" with prefix "libcuda.so." -> "550.54.15"
std::string version_after(const std::string& path, std::string_view prefix) {
  const auto base = path.substr(path.rfind('/') + 1);
  return base.starts_with(prefix) ? base.substr(prefix.size()) : "";
}

int major_of(const std::string& version) {
  int major = 0;
  for (char c : version) {
    if (!std::isdigit(static_cast<unsigned char>(c))) break;
    major = major * 10 + (c - '0');
  }
  return major;
}

class VersionMismatchDetector final : public Detector {
 public:
  void evaluate(const DetectionInput& in, std::vector<Condition>& out) override {
    const Snapshot& s = in.snapshot;
    const std::string module = in.kernel_module_version.value_or("");
    if (lower(s.source_error).find("version mismatch") != std::string::npos) {
      out.push_back({"GpuDriverVersionMismatch",
                     Severity::kPage,
                     {},
                     "NVML and the loaded driver do not match",
                     fmt::format("NVML cannot talk to the kernel module ({}); loaded module {}",
                                 s.source_error, module.empty() ? "unknown" : module),
                     "finish the driver upgrade: drain the node and reboot it (or reload the nvidia modules)",
                     {}});
    } else if (!module.empty() && !s.node.driver_version.empty() && module != s.node.driver_version) {
      out.push_back({"GpuDriverVersionMismatch",
                     Severity::kPage,
                     {},
                     "NVML and the loaded driver do not match",
                     fmt::format("NVML reports driver {}, the loaded kernel module is {}",
                                 s.node.driver_version, module),
                     "finish the driver upgrade: drain the node and reboot it (or reload the nvidia modules)",
                     {}});
    }
    const std::string driver = module.empty() ? s.node.driver_version : module;
    const int cuda_major = major_of(s.node.cuda_driver_version);
    for (const auto& d : s.devices) {
      for (const auto& p : d.processes) {
        auto it = in.process_libraries.find(p.pid);
        if (it == in.process_libraries.end()) continue;
        for (const auto& path : it->second) {
          Labels labels = device_labels(d);
          labels["pid"] = std::to_string(p.pid);
          if (!p.name.empty()) labels["process"] = p.name;
          if (auto v = version_after(path, "libcuda.so.");
              !v.empty() && v != "1" && !driver.empty() && v != driver)
            out.push_back(
                {"GpuProcessLibcudaMismatch",
                 Severity::kTicket,
                 labels,
                 fmt::format("pid {} ({}) uses a CUDA driver library of another version", p.pid, p.name),
                 fmt::format("maps {} (version {}); the loaded kernel module is {}", path, v, driver),
                 "run the container with the host's driver libraries (NVIDIA container toolkit) instead "
                 "of its own libcuda",
                 {}});
          if (auto v = version_after(path, "libcudart.so.");
              !v.empty() && cuda_major > 0 && major_of(v) > cuda_major)
            out.push_back(
                {"GpuCudaRuntimeTooNew",
                 Severity::kTicket,
                 labels,
                 fmt::format("pid {} ({}) needs a newer driver than this node has", p.pid, p.name),
                 fmt::format("maps {} (CUDA {}); the driver supports CUDA {}", path, v,
                             s.node.cuda_driver_version),
                 "upgrade the node's driver, or build the job against the CUDA major version the driver "
                 "supports",
                 {}});
        }
      }
    }
    std::map<std::string, std::set<std::string>> vbios_by_model;
    for (const auto& d : s.devices)
      if (!d.identity.is_mig_instance && !d.identity.vbios_version.empty())
        vbios_by_model[d.identity.name].insert(d.identity.vbios_version);
    for (const auto& [model, versions] : vbios_by_model) {
      if (versions.size() < 2) continue;
      out.push_back({"GpuMixedVbios",
                     Severity::kTicket,
                     {{"model", model}},
                     fmt::format("{} GPUs on this node run different VBIOS versions", model),
                     fmt::format("VBIOS versions: {}", fmt::join(versions, ", ")),
                     "flash every GPU of the node to the same VBIOS in the next maintenance window",
                     {}});
    }
  }
};

}  // namespace

DetectorInfo version_mismatch_detector() {
  return detector_row<VersionMismatchDetector>(
      "version_mismatch",
      "GpuDriverVersionMismatch, GpuProcessLibcudaMismatch, GpuCudaRuntimeTooNew, GpuMixedVbios");
}

}  // namespace gpuwatch::detect
