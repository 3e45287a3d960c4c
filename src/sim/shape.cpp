#include "sim/shape.h"

#include <algorithm>
#include <cmath>
#include <numbers>

namespace gpuwatch::sim {

std::uint64_t mix(std::uint64_t a, std::uint64_t b, std::uint64_t c) {
  std::uint64_t z = a * 0x9E3779B97F4A7C15ULL ^ (b + 0x632BE59BD9B4E019ULL) * 0xBF58476D1CE4E5B9ULL ^
                    (c + 0x85EBCA77C2B2AE63ULL) * 0x94D049BB133111EBULL;
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ULL;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBULL;
  return z ^ (z >> 31);
}

double noise_unit(std::uint64_t seed, std::uint64_t stream, std::int64_t step) {
  const std::uint64_t h = mix(seed, stream, static_cast<std::uint64_t>(step));
  return static_cast<double>(h >> 11) / static_cast<double>(1ULL << 52) - 1.0;
}

double eval_shape(const Shape& shape, double t, std::uint64_t seed, std::uint64_t stream) {
  if (!shape.set) return 0;
  double value = 0;
  double previous = shape.segments.empty() ? 0 : shape.segments.front().value;
  for (const auto& s : shape.segments) {
    if (t < s.at) break;
    const double progress = s.ramp > 0 ? std::min(1.0, (t - s.at) / s.ramp) : 1.0;
    value = previous + (s.value - previous) * progress;
    previous = s.value;
  }
  for (const auto& p : shape.periodic) {
    const double phase = std::fmod((t + p.phase) / p.period, 1.0);
    switch (p.wave) {
      case Wave::kSine:
        value += p.amplitude * std::sin(2 * std::numbers::pi * phase);
        break;
      case Wave::kSquare:
        value += phase < 0.5 ? p.amplitude : -p.amplitude;
        break;
      case Wave::kSawtooth:
        value += p.amplitude * (2 * phase - 1);
        break;
    }
  }
  if (shape.noise > 0)
    value += shape.noise * noise_unit(seed, stream, static_cast<std::int64_t>(std::floor(t)));
  return std::clamp(value, shape.min, shape.max);
}

}  // namespace gpuwatch::sim
