// Writing the fake host trees (/proc, /sys) the simulator lays out beside its NVML answers.
#pragma once

#include <filesystem>
#include <fstream>
#include <string>

namespace gpuwatch::sim {

inline bool write_file(const std::filesystem::path& path, const std::string& content) {
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  out << content;
  return static_cast<bool>(out);
}

}  // namespace gpuwatch::sim
