// The scenario clock of libnvml-sim, read through its gpuwatchSim* entry points. In lockstep mode the agent
// drives scenario time: sleep_until_ms moves it to the target and returns at once, so tests run as fast as
// the machine allows and are deterministic, up to the wall clock, which it never passes (a run that starts
// in the past catches up with now, then follows the clock). In scaled mode the simulator reports wall time
// (its script runs faster or slower than the clock, its GPUs do not) and sleep_until_ms waits it out.
#pragma once

#include <condition_variable>
#include <memory>
#include <mutex>

#include "core/clock.h"
#include "sources/nvml/nvml_library.h"

namespace gpuwatch {

class SimulatorClock final : public Clock {
 public:
  // Null when the library does not export the simulator's clock, or the simulator cannot initialise. The
  // clock holds one NVML initialisation for its lifetime: the simulator's clock runs only while initialised,
  // and this keeps scenario time continuous across the collector's re-initialisations.
  static std::unique_ptr<SimulatorClock> create(std::shared_ptr<const NvmlLibrary> lib);
  ~SimulatorClock() override;
  SimulatorClock(const SimulatorClock&) = delete;
  SimulatorClock& operator=(const SimulatorClock&) = delete;

  std::int64_t now_ms() override;
  bool sleep_until_ms(std::int64_t target_ms) override;
  void interrupt() override;
  const char* domain() const override { return lockstep_ ? "scenario-lockstep" : "scenario-scaled"; }
  bool lockstep() const { return lockstep_; }

 private:
  using GetTime = int (*)(double*);
  using SetTime = int (*)(double);
  SimulatorClock(std::shared_ptr<const NvmlLibrary> lib, GetTime get, SetTime set, bool lockstep);
  bool take_interrupt();

  std::shared_ptr<const NvmlLibrary> lib_;
  GetTime get_time_;
  SetTime set_time_;
  bool lockstep_;
  std::mutex mutex_;
  std::condition_variable wake_;
  bool interrupted_ = false;
  double rate_ = 1.0;  // scenario seconds per wall second, learnt while sleeping in scaled mode
};

// The clock the agent runs on: the simulator's when the loaded library is libnvml-sim, otherwise the wall
// clock (also when lib is null: no NVML at all).
std::unique_ptr<Clock> make_clock(const std::shared_ptr<const NvmlLibrary>& lib);

}  // namespace gpuwatch
