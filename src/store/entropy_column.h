#pragma once
// Entropy-coded integer column, for noisy numbers (power in mW, PCIe rates, energy counters).
// Each number is zigzag-mapped; its bit length is coded adaptively in the context of the
// previous number's bit length (noise level varies with the workload phase), the two bits under
// the leading one adaptively per bit length, and the rest directly. Close to the noise's entropy,
// which neither varints nor zstd's byte-wise entropy coder reach.
#include <cstdint>
#include <span>

#include "store/byte_io.h"

namespace gpuwatch::store {

// Writes varint stream length, then the range-coded stream.
void encode_entropy_column(std::span<const std::int64_t> values, ByteWriter& out);

// Reads exactly out.size() numbers.
void decode_entropy_column(ByteReader& in, std::span<std::int64_t> out);

}  // namespace gpuwatch::store
