#include "store/block_reference.h"

#include <string>

#include "store/codec_error.h"

namespace gpuwatch::store {

void ReferenceColumns::load(SameRangeBlock& blocks, SeriesId reference,
                            const std::function<std::string()>& reference_name, const BlockKey& key,
                            BlockDecoder& decoder) {
  // Named only when something is wrong: a block read through its reference is on the query path.
  const auto coded_against = [&] { return "its values are coded against " + reference_name(); };
  if (reference == 0) throw CodecError(coded_against() + ", which is not in the store");
  std::string damaged;
  const bool found = blocks.read(reference, key, [&](const BlockRow& row) {
    try {
      decoder.decode_into(row.data, timestamps_ms_, values_, {},
                          time_columns_.timestamps(row.time_id, row.times));
    } catch (const CodecError& e) {
      damaged = coded_against() + ", whose block " + std::to_string(row.key.row) + " is damaged: " + e.what();
    }
  });
  if (!found) {
    throw CodecError(coded_against() + ", which has no block of " + std::to_string(key.count) +
                     " samples in [" + std::to_string(key.min_t) + ", " + std::to_string(key.max_t) + "]");
  }
  if (!damaged.empty()) throw CodecError(damaged);
}

}  // namespace gpuwatch::store
