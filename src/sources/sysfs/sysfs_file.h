// Reading one small sysfs or procfs file whole.
#pragma once

#include <optional>
#include <string>

#include "core/file_io.h"

namespace gpuwatch::kernel {

// The file's text; nullopt when it cannot be opened.
inline std::optional<std::string> read_sysfs_file(const std::string& path) {
  return read_file(path);
}

}  // namespace gpuwatch::kernel
