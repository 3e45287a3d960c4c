#include "store/decoded_block_cache.h"

namespace gpuwatch::store {
namespace {

// The points and the bookkeeping around them (list node, map slot, shared block).
std::size_t entry_bytes(const std::vector<Point>& points) {
  return points.capacity() * sizeof(Point) + 128;
}

}  // namespace

CachedPoints DecodedBlockCache::find(const BlockKey& key) {
  std::lock_guard lock(mu_);
  const auto it = by_row_.find(key.row);
  if (it == by_row_.end() || !(it->second->key == key)) return nullptr;
  lru_.splice(lru_.begin(), lru_, it->second);
  return it->second->points;
}

void DecodedBlockCache::insert(const BlockKey& key, CachedPoints points, std::uint64_t generation) {
  const std::size_t size = entry_bytes(*points);
  std::lock_guard lock(mu_);
  if (generation != generation_ || size > max_bytes_) return;
  if (const auto it = by_row_.find(key.row); it != by_row_.end()) {
    bytes_ -= it->second->bytes;
    lru_.erase(it->second);
    by_row_.erase(it);
  }
  evict_to(max_bytes_ - size);
  lru_.push_front(Entry{key, std::move(points), size});
  by_row_.emplace(key.row, lru_.begin());
  bytes_ += size;
}

void DecodedBlockCache::clear() {
  std::lock_guard lock(mu_);
  ++generation_;
  evict_to(0);
}

void DecodedBlockCache::forget(const std::vector<std::int64_t>& rows) {
  std::lock_guard lock(mu_);
  ++generation_;
  for (const auto row : rows) {
    const auto it = by_row_.find(row);
    if (it == by_row_.end()) continue;
    bytes_ -= it->second->bytes;
    lru_.erase(it->second);
    by_row_.erase(it);
  }
}

std::uint64_t DecodedBlockCache::generation() const {
  std::lock_guard lock(mu_);
  return generation_;
}

std::size_t DecodedBlockCache::bytes() const {
  std::lock_guard lock(mu_);
  return bytes_;
}

void DecodedBlockCache::evict_to(std::size_t limit) {
  while (bytes_ > limit && !lru_.empty()) {
    bytes_ -= lru_.back().bytes;
    by_row_.erase(lru_.back().key.row);
    lru_.pop_back();
  }
}

}  // namespace gpuwatch::store
