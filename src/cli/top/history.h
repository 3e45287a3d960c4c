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
#include "cli/top/gpu_history.h"

namespace gpuwatch::top {

class History {
 public:
  explicit History(std::size_t points = 512) : points_(points) {}
  // Adds the frame's readings unless its snapshot was added already; the history it brings (an agent's)
  // first, for the GPUs without one yet.
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
