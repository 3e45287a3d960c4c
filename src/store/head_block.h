// One series' samples held in memory by the head: encoded chunks (the block codec, without zstd) and a raw
// tail. Kept encoded so that an hour of 1 s samples costs a few bytes a sample instead of 16: the agent's
// memory stays small with a thousand series in the head. The raw tail holds at most kTailSamples; each full
// tail becomes a small chunk, and kChunkSamples / kTailSamples small chunks are merged into one chunk, so a
// series holds 256 bytes of raw samples, not the 2 KiB a raw tail of a whole chunk would.
#pragma once

#include <cstdint>
#include <limits>
#include <vector>

#include "core/series.h"
#include "store/chunk_codec.h"
#include "store/label_index.h"

namespace gpuwatch::store {

inline constexpr std::size_t kChunkSamples = 128;
inline constexpr std::size_t kTailSamples = 16;
static_assert(kChunkSamples % kTailSamples == 0);

class HeadBlock {
 public:
  HeadBlock() = default;
  HeadBlock(SeriesId series, std::uint64_t first_segment) : series_(series), first_segment_(first_segment) {}

  // Adds a sample newer than every sample held; encodes the tail into a small chunk when it is full, and
  // merges the small chunks into one when they hold kChunkSamples (decoding them with `decoder`).
  void add(std::int64_t t, double v, BlockEncoder& encoder, BlockDecoder& decoder);
  // All samples, oldest first.
  void decode(BlockDecoder& decoder, std::vector<std::int64_t>& t, std::vector<double>& v) const;
  // Appends the samples in [min_t, max_t].
  void append_points(std::int64_t min_t, std::int64_t max_t, BlockDecoder& decoder,
                     std::vector<Point>& out) const;
  bool overlaps(std::int64_t min_t, std::int64_t max_t) const {
    return count_ > 0 && first_t_ <= max_t && last_t_ >= min_t;
  }

  SeriesId series() const { return series_; }
  std::uint64_t first_segment() const { return first_segment_; }
  std::size_t size() const { return count_; }
  bool empty() const { return count_ == 0; }
  std::int64_t first_t() const { return first_t_; }
  std::int64_t last_t() const { return last_t_; }
  std::size_t memory_bytes() const;

 private:
  struct Chunk {
    std::int64_t first_t;
    std::int64_t last_t;
    std::vector<std::uint8_t> bytes;
  };
  SeriesId series_ = 0;
  std::uint64_t first_segment_ = 0;  // the WAL segment holding its oldest sample
  std::size_t count_ = 0;
  std::int64_t first_t_ = std::numeric_limits<std::int64_t>::min();
  std::int64_t last_t_ = std::numeric_limits<std::int64_t>::min();
  std::vector<Chunk> chunks_;  // of kChunkSamples each, oldest first; its capacity is its size
  std::vector<Chunk> small_;   // of kTailSamples each, newer than chunks_, not yet merged
  std::vector<std::int64_t> tail_t_;
  std::vector<double> tail_v_;
};

}  // namespace gpuwatch::store
