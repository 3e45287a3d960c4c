// A fake sysfs PCI tree laid out as the kernel does: functions below their bridges under
// <root>/devices/pci<domain>:<bus>/..., each with its link files, and <root>/bus/pci/devices/<bdf> links.
#pragma once

#include <filesystem>
#include <fstream>
#include <string>

namespace gpuwatch::test {

// Adds a function at `path` below <root>/devices ("pci0000:00/0000:00:01.0/0000:01:00.0").
inline void add_pci_function(const std::filesystem::path& root, const std::string& path,
                             const std::string& speed = "32.0 GT/s PCIe", const std::string& width = "16",
                             const std::string& max_speed = "32.0 GT/s PCIe",
                             const std::string& max_width = "16") {
  namespace fs = std::filesystem;
  const fs::path dir = root / "devices" / path;
  fs::create_directories(dir);
  std::ofstream(dir / "current_link_speed") << speed << "\n";
  std::ofstream(dir / "current_link_width") << width << "\n";
  std::ofstream(dir / "max_link_speed") << max_speed << "\n";
  std::ofstream(dir / "max_link_width") << max_width << "\n";
  const fs::path link = root / "bus/pci/devices" / dir.filename();
  fs::create_directories(link.parent_path());
  fs::create_directory_symlink(fs::path("../../../devices") / path, link);
}

// Two GPUs (0000:18:00.0, 0000:19:00.0 by default) below one switch: root port 00:01.0, upstream port
// 01:00.0, downstream ports 02:00.0 and 02:01.0.
inline void add_switch_with_two_gpus(const std::filesystem::path& root,
                                     const std::string& gpu0 = "0000:18:00.0",
                                     const std::string& gpu1 = "0000:19:00.0") {
  const std::string up = "pci0000:00/0000:00:01.0/0000:01:00.0";
  add_pci_function(root, "pci0000:00/0000:00:01.0");
  add_pci_function(root, up);
  add_pci_function(root, up + "/0000:02:00.0");
  add_pci_function(root, up + "/0000:02:01.0");
  add_pci_function(root, up + "/0000:02:00.0/" + gpu0);
  add_pci_function(root, up + "/0000:02:01.0/" + gpu1);
}

}  // namespace gpuwatch::test
