#include "collector/read_latch.h"

namespace gpuwatch {

void ReadLatch::begin(std::uint64_t tick) {
  std::lock_guard lock(mutex_);
  tick_ = tick;
  pending_ = 0;
}

void ReadLatch::expect() {
  std::lock_guard lock(mutex_);
  ++pending_;
}

void ReadLatch::cancel() {
  done(tick_);
}

void ReadLatch::done(std::uint64_t tick) {
  {
    std::lock_guard lock(mutex_);
    if (tick != tick_ || pending_ == 0 || --pending_ > 0) return;
  }
  all_done_.notify_one();  // only the last read of the tick wakes the collector
}

bool ReadLatch::wait_until(std::chrono::steady_clock::time_point deadline) {
  std::unique_lock lock(mutex_);
  return all_done_.wait_until(lock, deadline, [&] { return pending_ == 0; });
}

}  // namespace gpuwatch
