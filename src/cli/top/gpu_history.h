// One GPU's recent readings as top plots them, the newest last.
#pragma once

#include <deque>

namespace gpuwatch::top {

struct GpuHistory {
  // Each 0..1 (power of its limit, temperature of 100 C); NaN where the GPU gave no value that tick.
  std::deque<double> utilization, memory, power, temperature;
};

}  // namespace gpuwatch::top
