// Sealed blocks already decoded, by SQLite row: a dashboard refreshing the same range re-reads the same
// blocks, and decoding them is most of what a query over the history costs. Bounded by bytes of decoded
// points (the memory it holds is the agent's own, in its RSS), least recently used first out. It holds
// decoded blocks only, never query results: every query still selects, merges and evaluates afresh.
//
// A caller may rely on:
// - find() returns the points a block held when it was decoded, or null; a block is found only under the
//   row, series, time range and count it was inserted with.
// - clear() and forget() (called when rows are deleted: retention, downsampling) drop those blocks, and an
//   insert of a block read before that (its generation() is older) is ignored, so a reused row id never
//   returns another block's points.
// - Thread-safe.
#pragma once

#include <cstdint>
#include <list>
#include <memory>
#include <mutex>
#include <unordered_map>
#include <vector>

#include "core/series.h"
#include "store/block_db.h"

namespace gpuwatch::store {

using CachedPoints = std::shared_ptr<const std::vector<Point>>;

class DecodedBlockCache {
 public:
  explicit DecodedBlockCache(std::size_t max_bytes) : max_bytes_(max_bytes) {}

  CachedPoints find(const BlockKey& key);
  // Keeps `points` unless the cache was cleared after `generation` was read, or they alone exceed the bound.
  void insert(const BlockKey& key, CachedPoints points, std::uint64_t generation);
  void clear();
  // Drops these rows only (downsampling replaced them), with the same guard against older inserts.
  void forget(const std::vector<std::int64_t>& rows);
  std::uint64_t generation() const;
  std::size_t bytes() const;

 private:
  struct Entry {
    BlockKey key;
    CachedPoints points;
    std::size_t bytes;
  };
  void evict_to(std::size_t limit);

  const std::size_t max_bytes_;
  mutable std::mutex mu_;
  std::list<Entry> lru_;  // most recently used first
  std::unordered_map<std::int64_t, std::list<Entry>::iterator> by_row_;
  std::size_t bytes_ = 0;
  std::uint64_t generation_ = 0;
};

}  // namespace gpuwatch::store
