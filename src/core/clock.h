// Time comes from an injected clock: the wall clock in production; the simulator's scenario clock when the
// agent runs on libnvml-sim (scaled for demos, lockstep in tests). Everything time-derived in the agent
// (timestamps, sampling, later history windows and alert durations) reads this clock, never the system's.
#pragma once

#include <chrono>
#include <cstdint>

namespace gpuwatch {

class Clock {
 public:
  virtual ~Clock() = default;
  // Milliseconds since the Unix epoch in this clock's domain.
  virtual std::int64_t now_ms() = 0;
  // Blocks until now_ms() >= target_ms or until interrupted. A lockstep clock returns at once after moving
  // scenario time to target_ms. Returns false when interrupted (shutdown).
  virtual bool sleep_until_ms(std::int64_t target_ms) = 0;
  // Wakes any sleep_until_ms() caller (shutdown, reload).
  virtual void interrupt() = 0;
  // "wall", "scenario-scaled" or "scenario-lockstep": recorded with history so domains are never mixed.
  virtual const char* domain() const = 0;
};

}  // namespace gpuwatch
