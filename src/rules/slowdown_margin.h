// How a GPU's temperature stands against its slowdown threshold, in the words the health verdict and the
// throttle detector both use: a GPU already past the threshold is "above" it, never "near" it.
#pragma once

#include <cmath>
#include <string_view>

namespace gpuwatch::rules {

// Compared as shown (whole degrees), so the words never contradict the numbers printed beside them.
inline std::string_view slowdown_relation(double temperature_c, double slowdown_c) {
  const long t = std::lround(temperature_c), s = std::lround(slowdown_c);
  return t > s ? "above" : t == s ? "at" : "near";
}

}  // namespace gpuwatch::rules
