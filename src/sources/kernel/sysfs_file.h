// Reading one small sysfs or procfs file whole.
#pragma once

#include <fstream>
#include <optional>
#include <sstream>
#include <string>

namespace gpuwatch::kernel {

// The file's text; nullopt when it cannot be opened.
inline std::optional<std::string> read_sysfs_file(const std::string& path) {
  std::ifstream in(path);
  if (!in) return std::nullopt;
  std::ostringstream text;
  text << in.rdbuf();
  return text.str();
}

}  // namespace gpuwatch::kernel
