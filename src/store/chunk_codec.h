#pragma once
// The history store's chunk codec: one block = one series' samples (int64 millisecond
// timestamps, strictly increasing; IEEE-754 doubles) over a time range, encoded losslessly and
// bit-exactly into a self-describing byte string with a version and a CRC-32 checksum.
// The byte format is documented in docs/store-format.md.
//
// A caller may rely on: decode(encode(t, v)) returns t and v bit for bit; encode refuses empty,
// mismatched, oversized or non-increasing input with CodecError; decode of any byte string either
// returns exactly what was encoded or throws CodecError (a flipped bit or a truncation is reported
// as a checksum mismatch); neither crashes on any input.
#include <cstdint>
#include <memory>
#include <span>
#include <vector>

#include "core/series.h"
#include "store/codec_error.h"
#include "store/int_column.h"
#include "store/value_column.h"

namespace gpuwatch::store {

// Blocks are read at every version: version 2 added the static-model entropy column (integer column form 3),
// which a version 1 reader would refuse as an unknown form; version 3 blocks keep their timestamps apart
// (time_column.h), and only those are written at version 3, so that older readers read every other block.
inline constexpr std::uint8_t kBlockFormatVersion = 3;
inline constexpr std::uint8_t kOldestBlockFormatVersion = 1;
inline constexpr std::size_t kMaxBlockSamples = std::size_t{1} << 22;

// Another series' samples that a block's values may be coded against (an energy counter against the power
// it integrates: its increments then cost only the counter's own noise). The store chooses the pairs; the
// encoder uses the reference only when its timestamps are the block's and it pays; a block that used one
// says so (BlockInfo::needs_reference) and decodes only with the same reference samples.
struct SeriesReference {
  std::span<const std::int64_t> timestamps_ms;
  std::span<const double> values;
};

struct EncodeOptions {
  int zstd_level = 3;          // 0 disables zstd; otherwise zstd is kept only when it makes the block smaller
  bool entropy_coding = true;  // also try entropy-coded columns and keep them when smaller
};

// What a block holds, read from its header without decoding the samples.
struct BlockInfo {
  std::size_t samples = 0;
  std::int64_t first_ms = 0;
  std::int64_t last_ms = 0;
  ValueEncoding values = ValueEncoding::kConstant;
  bool zstd = false;
  bool needs_reference = false;
  bool times_apart = false;  // its timestamps are in a time column of their own (time_column.h)
  std::size_t encoded_bytes = 0;
};

struct DecodedBlock {
  std::vector<std::int64_t> timestamps_ms;
  std::vector<double> values;
};

// Encodes blocks; keeps one zstd context so that encoding many blocks does not allocate one each.
class BlockEncoder {
 public:
  explicit BlockEncoder(EncodeOptions options = {});
  ~BlockEncoder();
  BlockEncoder(BlockEncoder&&) noexcept;
  BlockEncoder& operator=(BlockEncoder&&) noexcept;

  // With `times_apart` the block holds no time column: its timestamps are stored apart by the caller
  // (time_column.h) and given back to decode.
  std::vector<std::uint8_t> encode(std::span<const std::int64_t> timestamps_ms,
                                   std::span<const double> values, SeriesReference reference = {},
                                   bool times_apart = false);

 private:
  struct Zstd;
  // The time column (deltas of deltas; null when the timestamps are stored apart), then the values.
  ValueEncoding encode_payload(const std::vector<std::int64_t>* time_column, std::span<const double> values,
                               IntPacking packing, std::vector<std::uint8_t>& raw, ValueContext& context);
  std::size_t compress(const std::vector<std::uint8_t>& raw, std::vector<std::uint8_t>& out);

  EncodeOptions options_;
  std::unique_ptr<Zstd> zstd_;
};

// Decodes blocks; keeps one zstd context.
class BlockDecoder {
 public:
  BlockDecoder();
  ~BlockDecoder();
  BlockDecoder(BlockDecoder&&) noexcept;
  BlockDecoder& operator=(BlockDecoder&&) noexcept;

  // `reference` is needed (and checked) only for blocks whose BlockInfo::needs_reference is set, and
  // `timestamps` (its time column, checked against the header) only for those whose times_apart is.
  DecodedBlock decode(std::span<const std::uint8_t> block, SeriesReference reference = {},
                      std::span<const std::int64_t> timestamps = {});
  // Same, into caller-owned vectors (resized), so a reader can reuse their memory.
  void decode_into(std::span<const std::uint8_t> block, std::vector<std::int64_t>& timestamps_ms,
                   std::vector<double>& values, SeriesReference reference = {},
                   std::span<const std::int64_t> timestamps = {});
  // Same, as points appended to `out` (grown by exactly the block's samples, never zero-filled first): the
  // form a reader walks and caches, without a copy of columns of its own. On CodecError `out` is unchanged.
  void decode_points(std::span<const std::uint8_t> block, std::vector<Point>& out,
                     SeriesReference reference = {}, std::span<const std::int64_t> timestamps = {});

 private:
  struct Zstd;
  std::unique_ptr<Zstd> zstd_;
  // The columns decode_points decodes into first, reused from block to block.
  std::vector<std::int64_t> timestamps_ms_;
  std::vector<double> values_;
};

// Verifies the checksum and reads the header.
BlockInfo inspect_block(std::span<const std::uint8_t> block);

// One-shot conveniences.
std::vector<std::uint8_t> encode_block(std::span<const std::int64_t> timestamps_ms,
                                       std::span<const double> values, EncodeOptions options = {},
                                       SeriesReference reference = {});
DecodedBlock decode_block(std::span<const std::uint8_t> block, SeriesReference reference = {},
                          std::span<const std::int64_t> timestamps = {});

}  // namespace gpuwatch::store
