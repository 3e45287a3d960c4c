// The production clock: system time, real sleeps. interrupt() wakes a sleeper (or the next one, if nobody is
// sleeping yet), so a shutdown requested just before a sleep still ends it at once.
#pragma once

#include <condition_variable>
#include <mutex>

#include "core/clock.h"

namespace gpuwatch {

// System time, ms since the Unix epoch: what WallClock::now_ms() reads, for code that asks the real time
// whatever clock the agent runs on (a lockstep simulator's never passes it, requests default to it).
std::int64_t wall_unix_ms();

class WallClock final : public Clock {
 public:
  std::int64_t now_ms() override;
  bool sleep_until_ms(std::int64_t target_ms) override;
  void interrupt() override;
  const char* domain() const override { return "wall"; }

 private:
  std::mutex mutex_;
  std::condition_variable wake_;
  bool interrupted_ = false;
};

}  // namespace gpuwatch
