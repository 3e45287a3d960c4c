// This tick's device reads that have not ended yet, so the collector sleeps once until all of them are done
// (or the deadline passes) instead of once per GPU: on a small machine each of those sleeps is a wake-up and
// a context switch of the collector's thread, the larger part of the per-tick hand-off's cost. Only an
// optimisation of the wait: each worker is still waited for, and judged late, on its own afterwards.
//
// A read started in an earlier tick that ends now (a worker that was stuck) counts for nothing: every read
// carries the tick it was started for.
#pragma once

#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <mutex>

namespace gpuwatch {

class ReadLatch {
 public:
  // A new tick: reads still out from earlier ticks no longer count.
  void begin(std::uint64_t tick);
  // A read of this tick is about to start: call before starting it, and cancel() if it did not start.
  void expect();
  void cancel();
  // A read started for `tick` ended.
  void done(std::uint64_t tick);
  // True once every expected read of this tick has ended, waiting until `deadline` at most.
  bool wait_until(std::chrono::steady_clock::time_point deadline);

 private:
  std::mutex mutex_;
  std::condition_variable all_done_;
  std::uint64_t tick_ = 0;
  unsigned pending_ = 0;
};

}  // namespace gpuwatch
