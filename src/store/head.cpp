#include "store/head.h"

#include <algorithm>

namespace gpuwatch::store {

// Chunks are varint-coded only (no zstd, no entropy coding): at 128 samples those rarely pay, and a chunk
// encodes in a few microseconds on the appending thread. Sealing re-encodes the whole block at full strength.
Head::Head(std::int64_t window_ms, std::size_t max_samples)
    : window_ms_(window_ms), max_samples_(max_samples), chunk_encoder_(EncodeOptions{0, false}) {}

std::int64_t Head::window_of(std::int64_t t) const {
  const std::int64_t q = t / window_ms_;
  return (t % window_ms_ != 0 && t < 0) ? q - 1 : q;  // floor division: windows are aligned for any t
}

std::int64_t Head::last_t(SeriesId id) const {
  const auto it = series_.find(id);
  return it == series_.end() ? std::numeric_limits<std::int64_t>::min() : it->second.last_t;
}

void Head::set_last_t(SeriesId id, std::int64_t t) {
  auto& s = series_[id];
  s.last_t = std::max(s.last_t, t);
}

void Head::cut(State& s) {
  if (s.open.empty()) return;
  pending_.push_back(std::make_shared<const HeadBlock>(std::move(s.open)));
  s.open = HeadBlock{};
}

void Head::add(SeriesId id, std::int64_t t, double v, std::uint64_t segment) {
  State& s = series_[id];
  if (!s.open.empty() && (window_of(t) != window_of(s.open.first_t()) || s.open.size() >= max_samples_))
    cut(s);
  if (s.open.empty()) s.open = HeadBlock(id, segment);
  s.open.add(t, v, chunk_encoder_, chunk_decoder_);
  s.last_t = t;
}

void Head::cut_finished(std::int64_t now_t) {
  const std::int64_t now_window = window_of(now_t);
  for (auto& [id, s] : series_) {
    if (!s.open.empty() && window_of(s.open.first_t()) < now_window) cut(s);
  }
}

void Head::cut_all() {
  for (auto& [id, s] : series_) cut(s);
}

bool Head::cut_if_same(SeriesId id, std::int64_t first_t, std::int64_t last_t, std::size_t size) {
  const auto it = series_.find(id);
  if (it == series_.end()) return false;
  const HeadBlock& open = it->second.open;
  if (open.empty() || open.first_t() != first_t || open.last_t() != last_t || open.size() != size)
    return false;
  cut(it->second);
  return true;
}

void Head::drop_pending(std::size_t count) {
  pending_.erase(pending_.begin(),
                 pending_.begin() + static_cast<std::ptrdiff_t>(std::min(count, pending_.size())));
}

void Head::blocks(SeriesId id, std::int64_t min_t, std::int64_t max_t,
                  std::vector<std::shared_ptr<const HeadBlock>>& out) const {
  for (const auto& b : pending_) {
    if (b->series() == id && b->overlaps(min_t, max_t)) out.push_back(b);
  }
  const auto it = series_.find(id);
  if (it != series_.end() && it->second.open.overlaps(min_t, max_t))
    out.push_back(std::make_shared<const HeadBlock>(it->second.open));
}

void Head::blocks(std::span<const SeriesId> ids, std::int64_t min_t, std::int64_t max_t,
                  std::vector<std::vector<std::shared_ptr<const HeadBlock>>>& out) const {
  out.resize(ids.size());
  for (const auto& b : pending_) {
    const auto it = std::lower_bound(ids.begin(), ids.end(), b->series());
    if (it != ids.end() && *it == b->series() && b->overlaps(min_t, max_t))
      out[static_cast<std::size_t>(it - ids.begin())].push_back(b);
  }
  for (std::size_t i = 0; i < ids.size(); ++i) {
    const auto it = series_.find(ids[i]);
    if (it != series_.end() && it->second.open.overlaps(min_t, max_t))
      out[i].push_back(std::make_shared<const HeadBlock>(it->second.open));
  }
}

bool Head::has_points(SeriesId id, std::int64_t min_t, std::int64_t max_t) const {
  for (const auto& b : pending_) {
    if (b->series() == id && b->overlaps(min_t, max_t)) return true;
  }
  const auto it = series_.find(id);
  return it != series_.end() && it->second.open.overlaps(min_t, max_t);
}

std::uint64_t Head::oldest_needed_segment() const {
  std::uint64_t oldest = UINT64_MAX;
  for (const auto& b : pending_) oldest = std::min(oldest, b->first_segment());
  for (const auto& [id, s] : series_) {
    if (!s.open.empty()) oldest = std::min(oldest, s.open.first_segment());
  }
  return oldest;
}

std::size_t Head::samples_in_memory() const {
  std::size_t n = 0;
  for (const auto& b : pending_) n += b->size();
  for (const auto& [id, s] : series_) n += s.open.size();
  return n;
}

std::size_t Head::memory_bytes() const {
  std::size_t n = 0;
  for (const auto& b : pending_) n += b->memory_bytes();
  for (const auto& [id, s] : series_) n += s.open.memory_bytes();
  return n;
}

bool Head::holds(SeriesId id) const {
  const auto it = series_.find(id);
  if (it != series_.end() && !it->second.open.empty()) return true;
  return std::any_of(pending_.begin(), pending_.end(), [id](const auto& b) { return b->series() == id; });
}

}  // namespace gpuwatch::store
