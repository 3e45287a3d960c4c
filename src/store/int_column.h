#pragma once
// A column of int64 numbers (time deltas-of-deltas, scaled decimal differences) in one of three
// forms: plain zigzag varints; runs of (value, repeat count), which make the common "nothing
// changed" column (1 s cadence, constant stretches) nearly free; or entropy-coded
// (entropy_column.h), which costs close to the entropy of noisy numbers.
#include <cstdint>
#include <span>

#include "store/byte_io.h"

namespace gpuwatch::store {

// How a column that is not mostly repeats is written: varints (which zstd may squeeze further) or
// entropy-coded. The block encoder tries both and keeps the smaller block.
enum class IntPacking : std::uint8_t { kVarint, kEntropy };

// Bytes encode_int_column would write for `values` with IntPacking::kVarint.
std::size_t int_column_size(std::span<const std::int64_t> values);

void encode_int_column(std::span<const std::int64_t> values, ByteWriter& out,
                       IntPacking packing = IntPacking::kVarint);

// Reads exactly out.size() numbers; throws CodecError on a malformed column.
void decode_int_column(ByteReader& in, std::span<std::int64_t> out);

}  // namespace gpuwatch::store
