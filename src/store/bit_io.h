#pragma once
// Bit-level writing and bounds-checked reading (most significant bit first), for the XOR
// float encoding. Reading past the end throws CodecError.
#include <cstdint>
#include <span>
#include <vector>

#include "store/codec_error.h"

namespace gpuwatch::store {

class BitWriter {
 public:
  // Appends the low `n` bits of `v` (0 <= n <= 64).
  void put(std::uint64_t v, int n) {
    if (n == 0) return;
    if (n < 64) v &= (std::uint64_t{1} << n) - 1;
    const int room = 64 - fill_;
    if (n <= room) {
      acc_ |= n == 64 ? v : v << (room - n);
      fill_ += n;
    } else {
      acc_ |= v >> (n - room);
      fill_ = 64;
      flush_word();
      acc_ = v << (64 - (n - room));
      fill_ = n - room;
    }
    if (fill_ == 64) flush_word();
  }
  // Pads the last byte with zero bits and returns the bytes written so far.
  std::vector<std::uint8_t> finish() {
    for (int i = 0; i < fill_; i += 8) bytes_.push_back(static_cast<std::uint8_t>(acc_ >> (56 - i)));
    acc_ = 0;
    fill_ = 0;
    return std::move(bytes_);
  }

 private:
  void flush_word() {
    for (int i = 0; i < 8; ++i) bytes_.push_back(static_cast<std::uint8_t>(acc_ >> (56 - 8 * i)));
    acc_ = 0;
    fill_ = 0;
  }

  std::vector<std::uint8_t> bytes_;
  std::uint64_t acc_ = 0;
  int fill_ = 0;
};

class BitReader {
 public:
  explicit BitReader(std::span<const std::uint8_t> in) : in_(in) {}

  // Reads `n` bits (0 <= n <= 64) as the low bits of the result.
  std::uint64_t get(int n) {
    if (n == 0) return 0;
    if (static_cast<std::uint64_t>(n) > in_.size() * 8 - bit_) {
      throw CodecError("XOR value stream truncated at bit " + std::to_string(bit_));
    }
    std::uint64_t v = 0;
    int left = n;
    while (left > 0) {
      const std::size_t byte = bit_ >> 3;
      const int off = static_cast<int>(bit_ & 7);
      const int take = std::min(8 - off, left);
      const std::uint64_t bits = (in_[byte] >> (8 - off - take)) & ((1u << take) - 1);
      v = (take == 64 ? 0 : v << take) | bits;
      left -= take;
      bit_ += static_cast<std::uint64_t>(take);
    }
    return v;
  }
  bool bit() { return get(1) != 0; }

 private:
  std::span<const std::uint8_t> in_;
  std::uint64_t bit_ = 0;
};

}  // namespace gpuwatch::store
