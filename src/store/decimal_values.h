#pragma once
// Decimal encoding: when every value of a block equals round(v * 10^k) / 10^k bit-exactly for one
// k (integers: k = 0; 0.87: k = 2; 612.345: k = 3), the block is stored as those integers: the
// first, then an integer column of the differences from the first value (order 0, for noise around
// a level), from the previous value (order 1), of those differences (order 2, for counters), from a
// moving level (order 3, for noise around a level that shifts), or of the differences from what a
// reference series predicts (order 4: an energy counter's increments against the power it integrates),
// whichever is smallest, each divided by the common divisor of its numbers.
#include <span>

#include "store/byte_io.h"
#include "store/int_column.h"
#include "store/value_column.h"

namespace gpuwatch::store {

// Largest k tried; 10^k and every scaled integer (< 2^53) are exact doubles.
inline constexpr int kMaxDecimalScale = 15;

// Writes the block and returns true when it is exactly decimal; otherwise writes nothing. Sets
// context.used_reference when it chose order 4.
bool encode_decimal_values(std::span<const double> values, ByteWriter& out, IntPacking packing,
                           ValueContext& context);

// Throws CodecError when the block is malformed or needs a reference the context lacks.
void decode_decimal_values(ByteReader& in, std::span<double> out, const ValueContext& context);

}  // namespace gpuwatch::store
