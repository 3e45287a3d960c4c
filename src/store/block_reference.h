#pragma once
// The reference of a sealed block coded against another series (chunk_codec.h, SeriesReference;
// reference_pairs.h): the store seals such a block against one block of the reference series, the raw one
// with the same time range and sample count, sealed in the same transaction or before it. One block, never a
// stretch of several, so that a block and its reference are as old: retention deletes them together and
// downsampling rolls them up together (docs/store-format.md, "Reference series").
#include <cstdint>
#include <functional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "store/block_db.h"
#include "store/chunk_codec.h"
#include "store/head_block.h"
#include "store/time_column.h"

namespace gpuwatch::store {

// A reference block's samples, in columns reused from block to block.
class ReferenceColumns {
 public:
  // Decodes the block of `reference` with `key`'s range and count into the columns. Throws CodecError saying
  // what is missing or damaged: the series (reference 0), its block, or that block's bytes, naming the
  // reference by what `reference_name` returns (called only then).
  void load(SameRangeBlock& blocks, SeriesId reference, const std::function<std::string()>& reference_name,
            const BlockKey& key, BlockDecoder& decoder);
  // The same, from a block of the reference still in memory (sealed in the same transaction).
  void load(const HeadBlock& block, BlockDecoder& decoder) { block.decode(decoder, timestamps_ms_, values_); }
  SeriesReference view() const { return {timestamps_ms_, values_}; }

 private:
  std::vector<std::int64_t> timestamps_ms_;
  std::vector<double> values_;
  TimeColumnCache time_columns_;  // a reference block's timestamps may be stored apart too
};

}  // namespace gpuwatch::store
