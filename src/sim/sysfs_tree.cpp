// gpuwatchSimWriteSysfsTree: the scenario's PCIe topology as the kernel shows it under /sys, so the agent
// reads which GPUs share a switch uplink (and how wide it is) through its real sysfs code. Each GPU of a
// `pcie_switches` entry sits below a downstream port of that switch, whose upstream port links to a root
// port; other GPUs sit directly below a root port of their own. Link speeds and widths are the scenario's
// nominal ones (faults that downtrain a GPU's link show in NVML, not here).
#include <cstdio>
#include <set>
#include <system_error>

#include "sim/api_support.h"
#include "sim/identity.h"
#include "sim/tree_files.h"

using namespace gpuwatch::sim;

namespace {

constexpr const char* kSpeedText[] = {"Unknown",        "2.5 GT/s PCIe",  "5.0 GT/s PCIe", "8.0 GT/s PCIe",
                                      "16.0 GT/s PCIe", "32.0 GT/s PCIe", "64.0 GT/s PCIe"};

struct Link {
  unsigned gen = 0, width = 0;
};

struct PciFunction {
  std::string vendor, klass;
  Link current, max;
};

std::string bdf(unsigned bus, unsigned device, unsigned function = 0) {
  char buf[40];
  std::snprintf(buf, sizeof buf, "0000:%02x:%02x.%x", bus & 0xFF, device & 0x1F, function & 0x7);
  return buf;
}

class TreeWriter {
 public:
  explicit TreeWriter(std::filesystem::path root) : root_(std::move(root)) {}

  // Writes the function's directory below `parent` ("" for the host bridge) and its bus/pci/devices link.
  std::filesystem::path add(const std::filesystem::path& parent, const std::string& address,
                            const PciFunction& f) {
    auto relative = (parent.empty() ? std::filesystem::path("devices/pci0000:00") : parent) / address;
    const auto dir = root_ / relative;
    std::filesystem::create_directories(dir, ec_);
    auto speed = [](unsigned gen) { return std::string(kSpeedText[gen < 7 ? gen : 0]) + "\n"; };
    ok_ = ok_ && !ec_ && write_file(dir / "vendor", f.vendor + "\n") &&
          write_file(dir / "class", f.klass + "\n") &&
          write_file(dir / "current_link_speed", speed(f.current.gen)) &&
          write_file(dir / "current_link_width", std::to_string(f.current.width) + "\n") &&
          write_file(dir / "max_link_speed", speed(f.max.gen)) &&
          write_file(dir / "max_link_width", std::to_string(f.max.width) + "\n");
    const auto link = root_ / "bus/pci/devices" / address;
    std::filesystem::create_directories(link.parent_path(), ec_);
    std::filesystem::remove(link, ec_);
    std::filesystem::create_directory_symlink(std::filesystem::path("../../..") / relative, link, ec_);
    ok_ = ok_ && !ec_;
    return relative;
  }
  bool ok() const { return ok_; }

 private:
  std::filesystem::path root_;
  std::error_code ec_;
  bool ok_ = true;
};

nvmlReturn_t write_tree(const std::filesystem::path& root, const Scenario& sc) {
  TreeWriter tree(root);
  std::set<unsigned> used_buses;
  for (unsigned g = 0; g < sc.devices.size(); ++g) used_buses.insert(pci_bus(g));
  unsigned next_bus = 1;
  auto free_bus = [&] {
    while (used_buses.contains(next_bus)) ++next_bus;
    used_buses.insert(next_bus);
    return next_bus;
  };
  unsigned next_port = 1;  // root ports on bus 0, numbered in order
  auto root_port = [&] {
    const unsigned n = next_port++;
    return bdf(0, n % 32, n / 32);
  };
  const PciFunction bridge{"0x1000", "0x060400", {}, {}};  // a PCIe switch port
  auto gpu = [&](unsigned g) {
    const DeviceSpec& d = sc.devices[g];
    return PciFunction{
        "0x10de", "0x030200", {d.pcie_gen, d.pcie_width}, {d.model->pcie_gen, d.model->pcie_width}};
  };
  std::set<unsigned> below_switch;
  for (const auto& sw : sc.pcie_switches) {
    const Link uplink{sw.uplink_gen, sw.uplink_width};
    PciFunction port{"0x8086", "0x060400", uplink, uplink};
    const auto rp = tree.add({}, root_port(), port);
    PciFunction up = bridge;
    up.current = up.max = uplink;
    const auto upstream = tree.add(rp, bdf(free_bus(), 0), up);
    const unsigned downstream_bus = free_bus();
    for (unsigned j = 0; j < sw.gpus.size(); ++j) {
      const unsigned g = sw.gpus[j];
      PciFunction down = bridge;
      down.current = gpu(g).current;
      down.max = gpu(g).max;
      const auto port_dir = tree.add(upstream, bdf(downstream_bus, j % 32, j / 32), down);
      tree.add(port_dir, bdf(pci_bus(g), 0), gpu(g));
      below_switch.insert(g);
    }
  }
  for (unsigned g = 0; g < sc.devices.size(); ++g) {
    if (below_switch.contains(g)) continue;
    PciFunction port{"0x8086", "0x060400", gpu(g).current, gpu(g).max};
    tree.add(tree.add({}, root_port(), port), bdf(pci_bus(g), 0), gpu(g));
  }
  return tree.ok() ? NVML_SUCCESS : NVML_ERROR_OPERATING_SYSTEM;
}

}  // namespace

extern "C" int gpuwatchSimWriteSysfsTree(const char* dir) {
  return guarded([&]() -> nvmlReturn_t {
    if (!dir || !*dir) return NVML_ERROR_INVALID_ARGUMENT;
    const auto node = sim().node();
    if (!node) return NVML_ERROR_UNINITIALIZED;
    return write_tree(dir, node->scenario);
  });
}
