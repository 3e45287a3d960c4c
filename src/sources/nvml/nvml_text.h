// Text NVML wrote into a caller's buffer (names, serials, UUIDs, versions; the simulator's hostname): read up
// to the first NUL within the buffer, even when the library wrote none, and made valid UTF-8, since a driver
// or a scenario can put any bytes there and they end up in labels and JSON.
#pragma once

#include <cstddef>
#include <cstring>
#include <string>
#include <string_view>

#include "core/utf8.h"

namespace gpuwatch {

inline std::string nvml_text(const char* buffer, std::size_t size) {
  return to_valid_utf8(std::string_view(buffer, ::strnlen(buffer, size)));
}

}  // namespace gpuwatch
