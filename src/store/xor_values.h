#pragma once
// Gorilla XOR encoding (Pelkonen et al., VLDB 2015), the fallback for values that are not exactly
// decimal: each value is XORed with the previous one and only the meaningful bits are kept.
#include <span>

#include "store/byte_io.h"

namespace gpuwatch::store {

void encode_xor_values(std::span<const double> values, ByteWriter& out);

void decode_xor_values(ByteReader& in, std::span<double> out);

}  // namespace gpuwatch::store
