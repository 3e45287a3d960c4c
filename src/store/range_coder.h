#pragma once
// A binary adaptive range coder (the one LZMA uses: 11-bit probabilities, carry propagation
// through a cached byte). Adaptive bits cost close to their entropy under the model; direct bits
// cost one bit. The decoder throws CodecError instead of reading past its input.
#include <cstdint>
#include <span>
#include <vector>

#include "store/codec_error.h"

namespace gpuwatch::store {

// Probability (out of 2048) that the next bit is 0; adapts towards what it sees.
using BitModel = std::uint16_t;
inline constexpr BitModel kBitModelStart = 1024;

class RangeEncoder {
 public:
  explicit RangeEncoder(std::vector<std::uint8_t>& out) : out_(out) {}

  void bit(BitModel& p, unsigned b) {
    const std::uint32_t bound = (range_ >> kBits) * p;
    if (b == 0) {
      range_ = bound;
      p = static_cast<BitModel>(p + ((kTotal - p) >> kMove));
    } else {
      low_ += bound;
      range_ -= bound;
      p = static_cast<BitModel>(p - (p >> kMove));
    }
    normalize();
  }
  // The low `n` bits of `v`, most significant first, each costing exactly one bit.
  void direct(std::uint64_t v, int n) {
    for (int i = n - 1; i >= 0; --i) {
      range_ >>= 1;
      if ((v >> i) & 1) low_ += range_;
      normalize();
    }
  }
  void finish() {
    for (int i = 0; i < 5; ++i) shift_low();
  }

 private:
  static constexpr int kBits = 11;
  static constexpr std::uint32_t kTotal = 1u << kBits;
  static constexpr int kMove = 5;
  static constexpr std::uint32_t kTop = 1u << 24;

  void normalize() {
    while (range_ < kTop) {
      range_ <<= 8;
      shift_low();
    }
  }
  void shift_low() {
    if (static_cast<std::uint32_t>(low_) < 0xFF000000u || (low_ >> 32) != 0) {
      std::uint8_t carry = static_cast<std::uint8_t>(low_ >> 32);
      std::uint8_t temp = cache_;
      do {
        out_.push_back(static_cast<std::uint8_t>(temp + carry));
        temp = 0xFF;
      } while (--cache_size_ != 0);
      cache_ = static_cast<std::uint8_t>(low_ >> 24);
    }
    ++cache_size_;
    low_ = (low_ & 0x00FFFFFFu) << 8;
  }

  std::vector<std::uint8_t>& out_;
  std::uint64_t low_ = 0;
  std::uint32_t range_ = 0xFFFFFFFFu;
  std::uint8_t cache_ = 0;
  std::uint64_t cache_size_ = 1;
};

class RangeDecoder {
 public:
  explicit RangeDecoder(std::span<const std::uint8_t> in) : in_(in) {
    for (int i = 0; i < 5; ++i) code_ = (code_ << 8) | next();
  }

  unsigned bit(BitModel& p) {
    const std::uint32_t bound = (range_ >> kBits) * p;
    unsigned b;
    if (code_ < bound) {
      range_ = bound;
      p = static_cast<BitModel>(p + ((kTotal - p) >> kMove));
      b = 0;
    } else {
      code_ -= bound;
      range_ -= bound;
      p = static_cast<BitModel>(p - (p >> kMove));
      b = 1;
    }
    normalize();
    return b;
  }
  std::uint64_t direct(int n) {
    std::uint64_t v = 0;
    for (int i = 0; i < n; ++i) {
      // Direct bits are the noise's low bits, coin tosses to a branch predictor, so they are decoded
      // branch-free (LZMA's way: code_ < 2 * range_ after the halving, so code_ - range_ wraps, top bit
      // set, exactly when the bit is 0). Adaptive bits keep their branch: they are mostly predictable, and
      // decoding them branch-free too was slower (codec_bench, docs/benchmarks.md).
      range_ >>= 1;
      code_ -= range_;
      const std::uint32_t zero = 0u - (code_ >> 31);
      code_ += range_ & zero;
      v = (v << 1) + (zero + 1);
      normalize();
    }
    return v;
  }

 private:
  static constexpr int kBits = 11;
  static constexpr std::uint32_t kTotal = 1u << kBits;
  static constexpr int kMove = 5;
  static constexpr std::uint32_t kTop = 1u << 24;

  std::uint32_t next() {
    if (pos_ >= in_.size()) throw CodecError("entropy-coded column truncated");
    return in_[pos_++];
  }
  void normalize() {
    if (range_ < kTop) {
      range_ <<= 8;
      code_ = (code_ << 8) | next();
    }
  }

  std::span<const std::uint8_t> in_;
  std::size_t pos_ = 0;
  std::uint32_t code_ = 0;
  std::uint32_t range_ = 0xFFFFFFFFu;
};

}  // namespace gpuwatch::store
