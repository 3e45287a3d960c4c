#include "core/wall_clock.h"

namespace gpuwatch {

std::int64_t wall_unix_ms() {
  return std::chrono::duration_cast<std::chrono::milliseconds>(
             std::chrono::system_clock::now().time_since_epoch())
      .count();
}

std::int64_t WallClock::now_ms() {
  return wall_unix_ms();
}

bool WallClock::sleep_until_ms(std::int64_t target_ms) {
  // Wait on the steady clock so a wall-clock step (NTP) neither stalls nor hurries the sleep much.
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::milliseconds(target_ms - now_ms());
  std::unique_lock lock(mutex_);
  wake_.wait_until(lock, deadline, [&] { return interrupted_; });
  if (interrupted_) {
    interrupted_ = false;
    return false;
  }
  return true;
}

void WallClock::interrupt() {
  {
    std::lock_guard lock(mutex_);
    interrupted_ = true;
  }
  wake_.notify_all();
}

}  // namespace gpuwatch
