// Evaluating scenario shapes and deterministic noise: pure functions of (time, seed, stream).
#pragma once

#include <cstdint>

#include "sim/scenario.h"

namespace gpuwatch::sim {

// A well-mixed 64-bit hash (splitmix64 finaliser) of the inputs.
std::uint64_t mix(std::uint64_t a, std::uint64_t b = 0, std::uint64_t c = 0);
// Uniform in [-1, 1), fixed for (seed, stream, step).
double noise_unit(std::uint64_t seed, std::uint64_t stream, std::int64_t step);

// The shape's value at t; noise changes once per second of scenario time. 0 when the shape is unset.
double eval_shape(const Shape& shape, double t, std::uint64_t seed, std::uint64_t stream);

}  // namespace gpuwatch::sim
