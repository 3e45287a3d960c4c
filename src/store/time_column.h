#pragma once
// Timestamps stored apart from the values of sealed blocks (docs/store-format.md, "Time columns"). The series
// read together (one GPU's read group, one scrape of a target, one series group of an imported file) carry
// the same timestamps, however irregular, and the store keeps one copy of them for all their blocks of a
// window instead of one a block.
//
// A caller may rely on: decode_time_column(encode_time_column(t)) returns t exactly for any strictly
// increasing t of 1 .. kMaxBlockSamples timestamps; encoding is deterministic, so equal timestamps give equal
// bytes and equal columns are found by comparing bytes; decoding any byte string either returns what was
// encoded or throws CodecError (a flipped bit or a truncation is a checksum mismatch).
#include <cstddef>
#include <cstdint>
#include <list>
#include <span>
#include <utility>
#include <vector>

#include "store/byte_io.h"

namespace gpuwatch::store {

// A time column as blocks and time columns store it: the first delta, then deltas of deltas (t.size() - 1
// numbers), modulo 2^64 so that any int64 range is exact. Into `out`, resized.
void deltas_of_deltas(std::span<const std::int64_t> t, std::vector<std::int64_t>& out);
// The inverse, in place: on entry t[0] is the first timestamp and t[1..] the numbers; on exit, timestamps.
void undo_deltas_of_deltas(std::span<std::int64_t> t);

// Throws CodecError unless `t` holds 1 .. kMaxBlockSamples strictly increasing timestamps.
void check_timestamps(std::span<const std::int64_t> t);

// The sample count, first timestamp and span (last - first) that a block's header and a time column's both
// hold: written, and read back checked (a count of 1 .. kMaxBlockSamples), as docs/store-format.md lays out.
struct SampleRange {
  std::size_t samples = 0;
  std::int64_t first_ms = 0;
  std::int64_t last_ms = 0;
};
void write_sample_range(ByteWriter& out, std::span<const std::int64_t> t);
SampleRange read_sample_range(ByteReader& in);

// Below this many encoded bytes a block keeps its timestamps inline: a steady cadence is one run of two or
// three bytes, less than a row of its own costs.
inline constexpr std::size_t kMinTimeColumnBytesApart = 64;

struct TimeColumnInfo {
  std::size_t samples = 0;
  std::int64_t first_ms = 0;
  std::int64_t last_ms = 0;
  std::uint32_t checksum = 0;  // the column's CRC-32, its last four bytes
};

// Throws CodecError for an empty, oversized or not strictly increasing input.
std::vector<std::uint8_t> encode_time_column(std::span<const std::int64_t> t);
// Verifies the checksum and reads the header.
TimeColumnInfo inspect_time_column(std::span<const std::uint8_t> column);
// Into `out`, resized to the column's count.
void decode_time_column(std::span<const std::uint8_t> column, std::vector<std::int64_t>& out);

// The time columns one reader decoded last, by row and checksum: the series of one group are often read one
// after another (a GPU's panel), and each of their blocks of a window names the same column. Bounded; lives
// as long as the reader (one query), so it holds no memory at rest.
class TimeColumnCache {
 public:
  // The timestamps a sealed block's decode needs (BlockDecoder's `timestamps`): none when `id` is 0 (they
  // are inline), else those of the column stored in row `id` with bytes `column`, decoded now or found.
  // Throws CodecError when the column is missing (`column` empty) or damaged.
  std::span<const std::int64_t> timestamps(std::int64_t id, std::span<const std::uint8_t> column);

 private:
  static constexpr std::size_t kKept = 32;  // 32 hour-long columns of 1 s readings: 0.9 MiB
  struct Entry {
    std::int64_t id = 0;
    std::uint32_t checksum = 0;
    std::vector<std::int64_t> timestamps;
  };
  std::list<Entry> entries_;  // most recent first
};

}  // namespace gpuwatch::store
