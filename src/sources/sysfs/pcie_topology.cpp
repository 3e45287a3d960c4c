#include "sources/sysfs/pcie_topology.h"

#include <algorithm>
#include <charconv>
#include <filesystem>
#include <map>
#include <string_view>
#include <system_error>

#include "core/pcie_link.h"
#include "sources/sysfs/sysfs_file.h"

namespace gpuwatch::kernel {
namespace {

namespace fs = std::filesystem;

// domain:bus:device.function, as sysfs names a PCI function: "0000:3b:00.0" (the domain 4 to 8 digits).
bool is_pci_address(std::string_view name) {
  const auto hex = [](std::string_view s) {
    return std::all_of(s.begin(), s.end(),
                       [](char c) { return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'f'); });
  };
  const auto first = name.find(':');
  if (first < 4 || first > 8 || name.size() != first + 8) return false;
  const auto rest = name.substr(first);  // ":bb:dd.f"
  return hex(name.substr(0, first)) && rest[0] == ':' && hex(rest.substr(1, 2)) && rest[3] == ':' &&
         hex(rest.substr(4, 2)) && rest[6] == '.' && rest[7] >= '0' && rest[7] <= '7';
}

// The PCI functions from the root port down to the device, each with its directory.
struct PathStep {
  std::string address;
  fs::path dir;
};

std::vector<PathStep> path_to(const fs::path& root, const std::string& bdf) {
  std::error_code ec;
  const fs::path device = fs::canonical(root / "bus/pci/devices" / bdf, ec);
  if (ec) return {};
  std::vector<PathStep> steps;
  fs::path dir;
  for (const auto& part : device) {
    dir /= part;
    if (is_pci_address(part.string())) steps.push_back({part.string(), dir});
  }
  return steps;
}

std::optional<unsigned> parse_width(const std::optional<std::string>& text) {
  if (!text) return std::nullopt;
  unsigned v = 0;
  const auto [end, ec] = std::from_chars(text->data(), text->data() + text->size(), v);
  if (ec != std::errc{}) return std::nullopt;
  return v;
}

PcieLinkState read_link(const fs::path& dir, const char* prefix) {
  PcieLinkState s;
  if (auto text = read_sysfs_file((dir / (std::string(prefix) + "_link_speed")).string()))
    s.gt_per_s = parse_link_speed(*text).value_or(0);
  s.width = parse_width(read_sysfs_file((dir / (std::string(prefix) + "_link_width")).string())).value_or(0);
  return s;
}

}  // namespace

double SharedPcieLink::capacity_bytes_per_second() const {
  if (current.gt_per_s <= 0 || current.width == 0) return 0;
  return pcie_link_bytes_per_second(current.gt_per_s, current.width);
}

std::optional<double> parse_link_speed(std::string_view text) {
  while (!text.empty() && text.front() == ' ') text.remove_prefix(1);
  double v = 0;
  const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), v);
  if (ec != std::errc{} || v <= 0) return std::nullopt;
  std::string_view rest(end, static_cast<std::size_t>(text.data() + text.size() - end));
  while (!rest.empty() && rest.front() == ' ') rest.remove_prefix(1);
  if (!rest.starts_with("GT/s")) return std::nullopt;
  return v;
}

std::vector<SharedPcieLink> read_shared_pcie_links(const std::string& sysfs_root,
                                                   const std::vector<std::string>& gpu_bus_ids) {
  struct Below {
    std::string upstream;
    fs::path dir;
    std::vector<std::string> gpus;
  };
  std::map<std::string, Below> bridges;  // by address
  for (const auto& gpu : gpu_bus_ids) {
    const auto path = path_to(sysfs_root, gpu);
    // path[0] is the root port (its parent is the host bridge, not a link); the last step is the GPU,
    // whose own link is not shared.
    for (std::size_t i = 1; i + 1 < path.size(); ++i) {
      auto& b = bridges[path[i].address];
      b.upstream = path[i - 1].address;
      b.dir = path[i].dir;
      b.gpus.push_back(gpu);
    }
  }
  std::vector<SharedPcieLink> out;
  for (auto& [address, b] : bridges) {
    if (b.gpus.size() < 2) continue;
    std::sort(b.gpus.begin(), b.gpus.end());
    out.push_back(
        {address, b.upstream, read_link(b.dir, "current"), read_link(b.dir, "max"), std::move(b.gpus)});
  }
  return out;
}

}  // namespace gpuwatch::kernel
