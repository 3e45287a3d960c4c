#include "sources/nvml/simulator_clock.h"

#include <algorithm>
#include <chrono>
#include <cmath>

#include "core/wall_clock.h"

namespace gpuwatch {

std::unique_ptr<SimulatorClock> SimulatorClock::create(std::shared_ptr<const NvmlLibrary> lib) {
  if (!lib) return nullptr;
  auto get = reinterpret_cast<GetTime>(lib->optional_symbol("gpuwatchSimGetTime"));
  auto set = reinterpret_cast<SetTime>(lib->optional_symbol("gpuwatchSimSetTime"));
  auto is_lockstep = reinterpret_cast<int (*)(int*)>(lib->optional_symbol("gpuwatchSimIsLockstep"));
  if (get == nullptr) return nullptr;
  if (lib->fn().nvmlInit_v2() != NVML_SUCCESS) return nullptr;
  int lockstep = 0;
  if (is_lockstep != nullptr && is_lockstep(&lockstep) != 0) lockstep = 0;
  const bool use_lockstep = lockstep != 0 && set != nullptr;
  return std::unique_ptr<SimulatorClock>(new SimulatorClock(std::move(lib), get, set, use_lockstep));
}

SimulatorClock::SimulatorClock(std::shared_ptr<const NvmlLibrary> lib, GetTime get, SetTime set,
                               bool lockstep)
    : lib_(std::move(lib)), get_time_(get), set_time_(set), lockstep_(lockstep) {}

std::int64_t SimulatorClock::now_ms() {
  double seconds = 0;
  if (get_time_(&seconds) != 0) return 0;
  return static_cast<std::int64_t>(std::llround(seconds * 1000.0));
}

SimulatorClock::~SimulatorClock() {
  lib_->fn().nvmlShutdown();
}

bool SimulatorClock::take_interrupt() {
  std::lock_guard lock(mutex_);
  const bool was = interrupted_;
  interrupted_ = false;
  return was;
}

bool SimulatorClock::sleep_until_ms(std::int64_t target_ms) {
  if (lockstep_) {
    // As fast as asked, but never past the wall clock: history made from a start in the past catches up
    // with now and then follows the clock, so nothing is ever stamped ahead of it.
    for (std::int64_t ahead = target_ms - wall_unix_ms(); ahead > 0; ahead = target_ms - wall_unix_ms()) {
      std::unique_lock lock(mutex_);
      if (wake_.wait_for(lock, std::chrono::milliseconds(std::min<std::int64_t>(ahead, 1000)),
                         [&] { return interrupted_; })) {
        interrupted_ = false;
        return false;
      }
    }
    if (take_interrupt()) return false;
    if (target_ms > now_ms()) set_time_(static_cast<double>(target_ms) / 1000.0);
    return true;
  }
  // Scaled: wait the wall time the remaining scenario time takes at the observed rate, then look again.
  for (;;) {
    const auto wall_start = std::chrono::steady_clock::now();
    const std::int64_t start_ms = now_ms();
    const std::int64_t remaining = target_ms - start_ms;
    if (remaining <= 0) return !take_interrupt();
    const auto wait = std::chrono::milliseconds(
        std::clamp<std::int64_t>(static_cast<std::int64_t>(static_cast<double>(remaining) / rate_), 1, 1000));
    {
      std::unique_lock lock(mutex_);
      if (wake_.wait_for(lock, wait, [&] { return interrupted_; })) {
        interrupted_ = false;
        return false;
      }
    }
    const double wall_ms =
        std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - wall_start).count();
    const auto advanced = now_ms() - start_ms;
    if (wall_ms > 0.5 && advanced > 0) rate_ = static_cast<double>(advanced) / wall_ms;
  }
}

void SimulatorClock::interrupt() {
  {
    std::lock_guard lock(mutex_);
    interrupted_ = true;
  }
  wake_.notify_all();
}

std::unique_ptr<Clock> make_clock(const std::shared_ptr<const NvmlLibrary>& lib) {
  if (auto sim = SimulatorClock::create(lib)) return sim;
  return std::make_unique<WallClock>();
}

}  // namespace gpuwatch
