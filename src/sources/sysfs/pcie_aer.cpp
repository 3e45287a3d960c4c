#include "sources/sysfs/pcie_aer.h"

#include <sstream>

#include "sources/sysfs/sysfs_file.h"

namespace gpuwatch::kernel {

std::optional<std::uint64_t> parse_aer_total(const std::string& text) {
  std::istringstream in(text);
  std::string name;
  std::uint64_t value = 0, sum = 0;
  bool any = false;
  while (in >> name >> value) {
    if (name.starts_with("TOTAL_ERR_")) return value;
    sum += value;
    any = true;
  }
  if (!any) return std::nullopt;
  return sum;
}

std::optional<AerCounters> read_aer_counters(const std::string& sysfs_root, const std::string& bdf) {
  const std::string dir = sysfs_root + "/bus/pci/devices/" + bdf + "/";
  auto total = [&](const char* file) -> std::optional<std::uint64_t> {
    auto text = read_sysfs_file(dir + file);
    return text ? parse_aer_total(*text) : std::nullopt;
  };
  auto cor = total("aer_dev_correctable");
  auto nonfatal = total("aer_dev_nonfatal");
  auto fatal = total("aer_dev_fatal");
  if (!cor && !nonfatal && !fatal) return std::nullopt;
  return AerCounters{cor.value_or(0), nonfatal.value_or(0), fatal.value_or(0)};
}

std::optional<std::string> read_nvidia_module_version(const std::string& sysfs_root) {
  auto text = read_sysfs_file(sysfs_root + "/module/nvidia/version");
  if (!text) return std::nullopt;
  while (!text->empty() && (text->back() == '\n' || text->back() == ' ')) text->pop_back();
  if (text->empty()) return std::nullopt;
  return text;
}

}  // namespace gpuwatch::kernel
