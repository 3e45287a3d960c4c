#pragma once
// Entropy-coded integer column with a static model (integer column form 3), for the same noisy numbers as
// entropy_column.h but decoded several times faster: each number's bit length and the two bits under its
// leading one are one symbol, coded with rANS against frequencies counted over the column and stored with
// it (one table a previous bit length, or one table for the column, whichever makes the column smaller);
// the bits below follow raw. Decoding a number is one table lookup, a multiply and a raw-bit read, where
// the adaptive coder decodes about nine bits one at a time.
#include <cstdint>
#include <span>

#include "store/byte_io.h"

namespace gpuwatch::store {

void encode_static_entropy_column(std::span<const std::int64_t> values, ByteWriter& out);

// Reads exactly out.size() numbers; throws CodecError on a malformed column (never reads past it).
void decode_static_entropy_column(ByteReader& in, std::span<std::int64_t> out);

}  // namespace gpuwatch::store
