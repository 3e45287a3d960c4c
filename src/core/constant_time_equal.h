// Compares secrets (passwords, their hashes) in a time that does not depend on where they differ.
#pragma once

#include <cstddef>
#include <string_view>

namespace gpuwatch {

inline bool constant_time_equal(std::string_view a, std::string_view b) {
  if (a.size() != b.size()) return false;
  unsigned char diff = 0;
  for (std::size_t i = 0; i < a.size(); ++i) diff |= static_cast<unsigned char>(a[i] ^ b[i]);
  return diff == 0;
}

}  // namespace gpuwatch
