#include "store/xor_values.h"

#include <bit>
#include <cstdint>

#include "store/bit_io.h"

namespace gpuwatch::store {

void encode_xor_values(std::span<const double> values, ByteWriter& out) {
  BitWriter bits;
  std::uint64_t prev = std::bit_cast<std::uint64_t>(values[0]);
  bits.put(prev, 64);
  int window_lead = -1;  // no window yet
  int window_trail = 0;
  for (std::size_t i = 1; i < values.size(); ++i) {
    const std::uint64_t cur = std::bit_cast<std::uint64_t>(values[i]);
    const std::uint64_t x = cur ^ prev;
    prev = cur;
    if (x == 0) {
      bits.put(0, 1);
      continue;
    }
    const int lead = std::countl_zero(x);
    const int trail = std::countr_zero(x);
    if (window_lead >= 0 && lead >= window_lead && trail >= window_trail) {
      bits.put(0b10, 2);
      bits.put(x >> window_trail, 64 - window_lead - window_trail);
      continue;
    }
    const int significant = 64 - lead - trail;  // 1..64
    bits.put(0b11, 2);
    bits.put(static_cast<std::uint64_t>(lead), 6);
    bits.put(static_cast<std::uint64_t>(significant - 1), 6);
    bits.put(x >> trail, significant);
    window_lead = lead;
    window_trail = trail;
  }
  const std::vector<std::uint8_t> stream = bits.finish();
  out.varint(stream.size());
  out.bytes(stream);
}

void decode_xor_values(ByteReader& in, std::span<double> out) {
  const std::uint64_t length = in.varint("XOR stream length");
  if (length > in.remaining()) in.fail("XOR stream length " + std::to_string(length) + " past the end");
  BitReader bits(in.bytes(static_cast<std::size_t>(length), "XOR stream"));
  std::uint64_t prev = bits.get(64);
  out[0] = std::bit_cast<double>(prev);
  int window_lead = -1;
  int window_trail = 0;
  for (std::size_t i = 1; i < out.size(); ++i) {
    if (bits.bit()) {
      if (bits.bit()) {
        window_lead = static_cast<int>(bits.get(6));
        const int significant = static_cast<int>(bits.get(6)) + 1;
        window_trail = 64 - window_lead - significant;
        if (window_trail < 0) in.fail("XOR window of " + std::to_string(significant) + " bits overflows");
      } else if (window_lead < 0) {
        in.fail("XOR value reuses a window before one was set");
      }
      prev ^= bits.get(64 - window_lead - window_trail) << window_trail;
    }
    out[i] = std::bit_cast<double>(prev);
  }
}

}  // namespace gpuwatch::store
