// Which GPUs share a PCIe link on their way to the CPU, from the device tree sysfs shows (tests point the
// root at a fake tree):
//   <root>/bus/pci/devices/<bdf> -> ../../../devices/pci0000:00/0000:00:01.0/0000:01:00.0/0000:02:00.0/<bdf>
// Every bridge on a GPU's path below the root port (a switch's upstream or downstream port) has one link
// above it that all GPUs below it share. NVML knows each GPU's own link only, not these.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace gpuwatch::kernel {

struct PcieLinkState {
  double gt_per_s = 0;  // transfer rate per lane; 0 when sysfs does not say
  unsigned width = 0;   // lanes; 0 when sysfs does not say
};

// A link two or more GPUs share: typically a PCIe switch's uplink to its root port.
struct SharedPcieLink {
  std::string device;    // the bridge below the link, e.g. the switch's upstream port "0000:01:00.0"
  std::string upstream;  // the port above it, e.g. the root port "0000:00:01.0"
  PcieLinkState current, max;
  std::vector<std::string> gpus;  // bus ids of the GPUs below it, sorted
  // Bytes per second each way at the current speed and width, after line encoding; 0 when unknown.
  double capacity_bytes_per_second() const;
};

// The shared links above the given GPUs (normalised bus ids "0000:18:00.0"), ordered by device. A GPU whose
// path cannot be resolved (no such device under the root) shares nothing; an empty result means no GPUs
// share a link, or sysfs is not there.
std::vector<SharedPcieLink> read_shared_pcie_links(const std::string& sysfs_root,
                                                   const std::vector<std::string>& gpu_bus_ids);

// "32.0 GT/s PCIe", "8 GT/s" -> GT/s per lane; nullopt for "Unknown" and anything else.
std::optional<double> parse_link_speed(std::string_view text);

}  // namespace gpuwatch::kernel
