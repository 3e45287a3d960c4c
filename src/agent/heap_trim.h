// Gives the heap's free pages back to the kernel, at most once per interval. glibc's free() returns memory
// to the kernel only from the top of an arena; pages freed in the middle (the history's small chunks, merged
// and freed every 128 samples; the per-tick families) stay resident until a malloc_trim. After 10 minutes of
// the benchmark node that is 1.4 MiB of the agent's 13 MiB heap (docs/benchmarks.md). A trim costs a walk
// over the arenas' free chunks: every 10 s is nothing beside the ticks between. Elsewhere than glibc it does
// nothing.
#pragma once

#include <chrono>

namespace gpuwatch {

class HeapTrim {
 public:
  using Clock = std::chrono::steady_clock;
  explicit HeapTrim(Clock::duration every = std::chrono::seconds(10)) : every_(every) {}

  // Trims when `every` has passed since the last trim (the first call only starts the interval). Returns
  // whether it trimmed.
  bool maybe_trim(Clock::time_point now = Clock::now());

 private:
  Clock::duration every_;
  Clock::time_point last_{};
};

}  // namespace gpuwatch
