#pragma once
// The value column of a block: IEEE-754 doubles stored bit-exactly (NaN payloads, signed zeros,
// infinities and denormals included) in the cheapest encoding that is exact for the whole block.
#include <cstdint>
#include <span>

#include "store/byte_io.h"
#include "store/int_column.h"

namespace gpuwatch::store {

enum class ValueEncoding : std::uint8_t {
  kConstant = 0,  // every value has the same bit pattern: 8 bytes for the block
  kDecimal = 1,   // every value is n / 10^k exactly: scaled integers, differences, runs
  kXor = 2,       // fallback: Gorilla XOR with the previous value
};

const char* to_string(ValueEncoding e);

// What a value column may be coded against besides its own values: the block's timestamps and, when the
// store pairs the series with another one (an energy counter with the power it integrates), that series'
// values at the same timestamps. The decoder must be given the same context the encoder had.
struct ValueContext {
  std::span<const std::int64_t> timestamps_ms;
  std::span<const double> reference;  // empty: none; else one value per timestamp
  bool used_reference = false;        // set by the encoder when the column depends on the reference
};

// Writes `values` (at least one) and returns the encoding chosen; the caller records it.
ValueEncoding encode_values(std::span<const double> values, ByteWriter& out, IntPacking packing,
                            ValueContext& context);

// Reads exactly out.size() values written with `encoding`; throws CodecError when malformed.
void decode_values(ValueEncoding encoding, ByteReader& in, std::span<double> out,
                   const ValueContext& context);

}  // namespace gpuwatch::store
