// PCIe Advanced Error Reporting counters and the loaded driver's version, from sysfs under a given root
// (tests point it at a fake tree):
//   <root>/bus/pci/devices/<bdf>/aer_dev_correctable | aer_dev_nonfatal | aer_dev_fatal
//   <root>/module/nvidia/version
#pragma once

#include <cstdint>
#include <optional>
#include <string>

namespace gpuwatch::kernel {

struct AerCounters {
  std::uint64_t correctable = 0;
  std::uint64_t nonfatal = 0;
  std::uint64_t fatal = 0;
};

// The device's AER totals; nullopt when the device or its AER files are absent (AER off, or no such device).
// bdf is the normalised bus id "0000:3b:00.0".
std::optional<AerCounters> read_aer_counters(const std::string& sysfs_root, const std::string& bdf);

// Text of one AER file: "TOTAL_ERR_COR 3" (or the sum of the per-error lines when no TOTAL_ line exists).
std::optional<std::uint64_t> parse_aer_total(const std::string& text);

// "550.54.15"; nullopt when the nvidia module is not loaded (or the root has no such file).
std::optional<std::string> read_nvidia_module_version(const std::string& sysfs_root);

}  // namespace gpuwatch::kernel
