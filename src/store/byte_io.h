#pragma once
// Byte-level writing and bounds-checked reading for the codec: fixed-width little-endian
// integers, LEB128 varints and zigzag signed varints. A read past the end, or an overlong
// varint, throws CodecError naming the region, the byte offset and the field being read.
#include <cstddef>
#include <cstdint>
#include <span>
#include <string>
#include <vector>

#include "store/codec_error.h"

namespace gpuwatch::store {

// Maps small negative and positive numbers to small unsigned ones (0,-1,1,-2 -> 0,1,2,3).
inline std::uint64_t zigzag(std::int64_t v) {
  return (static_cast<std::uint64_t>(v) << 1) ^ static_cast<std::uint64_t>(v >> 63);
}
inline std::int64_t unzigzag(std::uint64_t u) {
  return static_cast<std::int64_t>((u >> 1) ^ (~(u & 1) + 1));
}

inline std::size_t varint_size(std::uint64_t v) {
  std::size_t n = 1;
  while (v >= 0x80) {
    v >>= 7;
    ++n;
  }
  return n;
}

class ByteWriter {
 public:
  explicit ByteWriter(std::vector<std::uint8_t>& out) : out_(out) {}

  void u8(std::uint8_t v) { out_.push_back(v); }
  void varint(std::uint64_t v) {
    while (v >= 0x80) {
      out_.push_back(static_cast<std::uint8_t>(v | 0x80));
      v >>= 7;
    }
    out_.push_back(static_cast<std::uint8_t>(v));
  }
  void svarint(std::int64_t v) { varint(zigzag(v)); }
  void fixed(std::uint64_t v, int bytes) {
    for (int i = 0; i < bytes; ++i) out_.push_back(static_cast<std::uint8_t>(v >> (8 * i)));
  }
  void bytes(std::span<const std::uint8_t> b) { out_.insert(out_.end(), b.begin(), b.end()); }
  std::size_t size() const { return out_.size(); }

 private:
  std::vector<std::uint8_t>& out_;
};

class ByteReader {
 public:
  // `region` names the part of the block being read ("header", "payload") in error messages.
  ByteReader(std::span<const std::uint8_t> in, const char* region) : in_(in), region_(region) {}

  std::uint8_t u8(const char* field) {
    need(1, field);
    return in_[pos_++];
  }
  std::uint64_t varint(const char* field) {
    std::uint64_t v = 0;
    for (int shift = 0; shift < 64; shift += 7) {
      need(1, field);
      const std::uint8_t b = in_[pos_++];
      v |= static_cast<std::uint64_t>(b & 0x7f) << shift;
      if ((b & 0x80) == 0) return v;
    }
    fail(std::string("overlong varint in ") + field);
  }
  std::int64_t svarint(const char* field) { return unzigzag(varint(field)); }
  std::uint64_t fixed(int bytes, const char* field) {
    need(static_cast<std::size_t>(bytes), field);
    std::uint64_t v = 0;
    for (int i = 0; i < bytes; ++i) v |= static_cast<std::uint64_t>(in_[pos_++]) << (8 * i);
    return v;
  }
  std::span<const std::uint8_t> bytes(std::size_t n, const char* field) {
    need(n, field);
    auto s = in_.subspan(pos_, n);
    pos_ += n;
    return s;
  }
  std::size_t offset() const { return pos_; }
  std::size_t remaining() const { return in_.size() - pos_; }

  [[noreturn]] void fail(const std::string& what) const {
    throw CodecError(std::string(region_) + " byte " + std::to_string(pos_) + ": " + what);
  }

 private:
  void need(std::size_t n, const char* field) const {
    if (in_.size() - pos_ < n) fail(std::string("truncated while reading ") + field);
  }

  std::span<const std::uint8_t> in_;
  const char* region_;
  std::size_t pos_ = 0;
};

}  // namespace gpuwatch::store
