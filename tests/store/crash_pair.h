#pragma once
// The power and energy pair the crash tests' writer appends beside its plain series, as functions of the
// timestamp alone (the writer resumes where the store ends after each crash, and the test checks every
// point): power in W at mW resolution, and an energy counter in J at µJ resolution that is the trapezoid
// integral of the power over the 1 ms steps plus noise, so that the store seals energy against power.
#include <cstdint>

#include "core/series.h"

namespace gpuwatch::store::test {

inline constexpr const char* kCrashPower = "gpu_power_watts";
inline constexpr const char* kCrashEnergy = "gpu_energy_joules_total";

inline Labels crash_pair_labels(const char* name) {
  return {{"__name__", name}, {"gpu", "0"}};
}

// A pseudo-random number in [0, range) for each t (splitmix64's mix): no pattern a difference order can use.
inline std::int64_t crash_noise(std::int64_t t, std::uint64_t seed, std::int64_t range) {
  std::uint64_t z = static_cast<std::uint64_t>(t) + seed * 0x9E3779B97F4A7C15ULL;
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ULL;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBULL;
  return static_cast<std::int64_t>((z ^ (z >> 31)) % static_cast<std::uint64_t>(range));
}

// A level whose differences are the power's noise: the power's sum over t is then closed-form.
inline std::int64_t crash_level(std::int64_t t) {
  return t <= 0 ? 0 : crash_noise(t, 1, 40'000);
}

inline std::int64_t crash_power_mw(std::int64_t t) {
  return 300'000 + crash_level(t) - crash_level(t - 1);
}

inline double crash_power(std::int64_t t) {
  return static_cast<double>(crash_power_mw(t)) / 1e3;
}

// sum over k = 1..t of (p(k-1) + p(k)) / 2 mW x 1 ms = sum of p(k) + (p(0) - p(t)) / 2, plus noise.
inline double crash_energy(std::int64_t t) {
  const std::int64_t sum_mw = 300'000 * t + crash_level(t);
  const std::int64_t uj =
      33'289'293'653 + sum_mw + (crash_power_mw(0) - crash_power_mw(t)) / 2 + crash_noise(t, 2, 801);
  return static_cast<double>(uj) / 1e6;
}

}  // namespace gpuwatch::store::test
