// The head: each series' open block in memory (encoded chunks and a raw tail, head_block.h), and blocks cut
// from it that wait to be encoded whole and committed to SQLite. A series' open block is cut when its next
// sample falls in a later aligned time window (window_ms) or when it holds max_samples; the store also cuts
// blocks whose window has ended everywhere (a series that stopped). Not thread-safe: the store guards it.
#pragma once

#include <cstdint>
#include <limits>
#include <memory>
#include <span>
#include <string>
#include <unordered_map>
#include <vector>

#include "core/series.h"
#include "store/chunk_codec.h"
#include "store/head_block.h"
#include "store/label_index.h"

namespace gpuwatch::store {

class Head {
 public:
  Head(std::int64_t window_ms, std::size_t max_samples);

  // The newest timestamp a series holds anywhere (head or sealed), or INT64_MIN.
  std::int64_t last_t(SeriesId id) const;
  void set_last_t(SeriesId id, std::int64_t t);

  // Adds a sample whose timestamp is newer than last_t (the caller checks), written to WAL `segment`.
  void add(SeriesId id, std::int64_t t, double v, std::uint64_t segment);

  // Cuts every open block whose window ended before `now_t`'s window (series that went quiet).
  void cut_finished(std::int64_t now_t);
  // Cuts every open block (tests, and callers about to copy the data dir).
  void cut_all();
  // Cuts a series' open block when it holds exactly this range and count (true then): its next sample would
  // cut it anyway (its window ended, or it is as full as the block it pairs with), and a block coded against
  // it is sealed with it.
  bool cut_if_same(SeriesId id, std::int64_t first_t, std::int64_t last_t, std::size_t size);
  // Blocks cut and not yet committed, oldest first; they stay readable until drop_pending().
  std::vector<std::shared_ptr<const HeadBlock>> pending() const { return pending_; }
  void drop_pending(std::size_t count);  // the oldest `count` were committed

  // The blocks in memory (pending, then open) of a series that overlap [min_t, max_t]: shared, immutable
  // copies that the caller decodes outside the store's lock.
  void blocks(SeriesId id, std::int64_t min_t, std::int64_t max_t,
              std::vector<std::shared_ptr<const HeadBlock>>& out) const;
  // The same for many series at once, `ids` ascending: out[i] gets the blocks of ids[i]. One pass over the
  // pending blocks, however many series a query reads.
  void blocks(std::span<const SeriesId> ids, std::int64_t min_t, std::int64_t max_t,
              std::vector<std::vector<std::shared_ptr<const HeadBlock>>>& out) const;
  bool has_points(SeriesId id, std::int64_t min_t, std::int64_t max_t) const;

  // The oldest WAL segment whose samples are still only in memory, or UINT64_MAX when none.
  std::uint64_t oldest_needed_segment() const;
  std::size_t samples_in_memory() const;
  std::size_t memory_bytes() const;
  // True while samples of the series are only in memory (an open or pending block): retention must not
  // drop such a series, though it has no committed block yet.
  bool holds(SeriesId id) const;
  // Drops what the head keeps of a series retention removed (its newest timestamp): without it every series
  // ever appended would keep a state here, and its label set in the index, for the life of the process.
  void forget(SeriesId id) { series_.erase(id); }

 private:
  struct State {
    std::int64_t last_t = std::numeric_limits<std::int64_t>::min();
    HeadBlock open;
  };
  std::int64_t window_of(std::int64_t t) const;
  void cut(State& s);

  std::int64_t window_ms_;
  std::size_t max_samples_;
  BlockEncoder chunk_encoder_;
  BlockDecoder chunk_decoder_;  // merges small chunks (head_block.h)
  std::unordered_map<SeriesId, State> series_;
  std::vector<std::shared_ptr<const HeadBlock>> pending_;
};

}  // namespace gpuwatch::store
