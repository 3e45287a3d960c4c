#include "store/entropy_column.h"

#include <algorithm>
#include <bit>
#include <string>
#include <vector>

#include "store/range_coder.h"

namespace gpuwatch::store {
namespace {

constexpr int kLengthBits = 7;  // bit lengths 0..64 fit a 7-level bit tree
constexpr int kLengths = 65;
constexpr int kModelledBits = 2;  // bits under the leading one that are worth modelling

struct Model {
  std::vector<BitModel> length =
      std::vector<BitModel>(static_cast<std::size_t>(kLengths) << kLengthBits, kBitModelStart);
  std::vector<BitModel> top =
      std::vector<BitModel>(static_cast<std::size_t>(kLengths) << kModelledBits, kBitModelStart);

  BitModel* length_tree(int previous) { return &length[static_cast<std::size_t>(previous) << kLengthBits]; }
  BitModel* top_tree(int length_of) { return &top[static_cast<std::size_t>(length_of) << kModelledBits]; }
};

}  // namespace

void encode_entropy_column(std::span<const std::int64_t> values, ByteWriter& out) {
  Model model;
  std::vector<std::uint8_t> stream;
  stream.reserve(values.size() * 3 + 16);
  RangeEncoder rc(stream);
  int previous = 0;
  for (const std::int64_t v : values) {
    const std::uint64_t z = zigzag(v);
    const int len = static_cast<int>(std::bit_width(z));
    BitModel* tree = model.length_tree(previous);
    unsigned node = 1;
    for (int i = kLengthBits - 1; i >= 0; --i) {
      const unsigned b = (static_cast<unsigned>(len) >> i) & 1;
      rc.bit(tree[node], b);
      node = (node << 1) | b;
    }
    if (len >= 2) {
      const int below = len - 1;
      const int modelled = std::min(kModelledBits, below);
      BitModel* top = model.top_tree(len);
      node = 1;
      for (int i = below - 1; i >= below - modelled; --i) {
        const unsigned b = static_cast<unsigned>((z >> i) & 1);
        rc.bit(top[node], b);
        node = (node << 1) | b;
      }
      rc.direct(z, below - modelled);
    }
    previous = len;
  }
  rc.finish();
  out.varint(stream.size());
  out.bytes(stream);
}

void decode_entropy_column(ByteReader& in, std::span<std::int64_t> out) {
  const std::uint64_t length = in.varint("entropy stream length");
  if (length > in.remaining()) in.fail("entropy stream length " + std::to_string(length) + " past the end");
  RangeDecoder rc(in.bytes(static_cast<std::size_t>(length), "entropy stream"));
  Model model;
  int previous = 0;
  for (std::int64_t& o : out) {
    BitModel* tree = model.length_tree(previous);
    unsigned node = 1;
    for (int i = 0; i < kLengthBits; ++i) node = (node << 1) | rc.bit(tree[node]);
    const int len = static_cast<int>(node - (1u << kLengthBits));
    if (len >= kLengths) in.fail("entropy-coded bit length " + std::to_string(len) + " over 64");
    std::uint64_t z = len == 0 ? 0 : 1;
    if (len >= 2) {
      const int below = len - 1;
      const int modelled = std::min(kModelledBits, below);
      BitModel* top = model.top_tree(len);
      node = 1;
      for (int i = 0; i < modelled; ++i) node = (node << 1) | rc.bit(top[node]);
      z = (z << modelled) | (node - (1u << modelled));
      z = (z << (below - modelled)) | rc.direct(below - modelled);
    }
    o = unzigzag(z);
    previous = len;
  }
}

}  // namespace gpuwatch::store
