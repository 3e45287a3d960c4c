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

// Writes `values` (at least one) and returns the encoding chosen; the caller records it.
ValueEncoding encode_values(std::span<const double> values, ByteWriter& out,
                            IntPacking packing = IntPacking::kVarint);

// Reads exactly out.size() values written with `encoding`; throws CodecError when malformed.
void decode_values(ValueEncoding encoding, ByteReader& in, std::span<double> out);

}  // namespace gpuwatch::store
