// What top remembers between frames for its plots: each GPU's recent utilization, memory, power and
// temperature, one point per new snapshot, the newest last. Kept by the drawing side, by GPU UUID, so a GPU
// that goes and comes back keeps its line.
#pragma once

#include <cstddef>
#include <cstdint>
#include <deque>
#include <map>
#include <string>

#include "cli/top/frame.h"

namespace gpuwatch::top {

struct GpuHistory {
  // Each 0..1 (power of its limit, temperature of 100 C); NaN where the GPU gave no value that tick.
  std::deque<double> utilization, memory, power, temperature;
};

class History {
 public:
  explicit History(std::size_t points = 512) : points_(points) {}
  // Adds the frame's readings unless its snapshot was added already.
  void add(const TopFrame& frame);
  // The GPU's history; empty when it has none.
  const GpuHistory& of(const std::string& uuid) const;

 private:
  std::size_t points_;
  std::uint64_t last_sequence_ = 0;
  std::map<std::string, GpuHistory> gpus_;
  GpuHistory none_;
};

}  // namespace gpuwatch::top
