// The read side of the store: selects over the head's blocks and SQLite's, merged by timestamp; corrupt
// blocks are skipped, counted and logged once.
#include <spdlog/spdlog.h>

#include <algorithm>
#include <cstdint>
#include <memory>

#include "store/codec_error.h"
#include "store/reference_pairs.h"
#include "store/step_pick.h"
#include "store/store.h"
#include "store/time_column.h"

namespace gpuwatch::store {

std::vector<LabelIndex::Candidate> Store::matching(std::span<const LabelMatcher> matchers,
                                                   const Checkpoint* checkpoint) const {
  std::vector<LabelIndex::Candidate> candidates;
  {
    std::lock_guard lock(mu_);
    candidates = index_.candidates(matchers);
  }
  // The matchers (regexes among them) run on the shared label sets after the lock is released: however
  // many series a selector scans, appends wait only for the candidate list to be copied.
  std::size_t seen = 0;
  std::erase_if(candidates, [&](const LabelIndex::Candidate& c) {
    if (checkpoint && ++seen % 64 == 0) (*checkpoint)();
    return !matches_all(matchers, *c.labels);
  });
  return candidates;
}

std::vector<SeriesPoints> Store::select(std::span<const LabelMatcher> matchers, std::int64_t min_t,
                                        std::int64_t max_t) const {
  std::vector<SeriesPoints> out;
  read(
      matchers, min_t, max_t,
      [&](const Labels& labels, std::span<const Point> points) {
        out.push_back(SeriesPoints{labels, {points.begin(), points.end()}});
      },
      nullptr, nullptr);
  return out;
}

void Store::for_each_series(std::span<const LabelMatcher> matchers, std::int64_t min_t, std::int64_t max_t,
                            const std::function<void(const Labels&, std::span<const Point>)>& fn) const {
  read(matchers, min_t, max_t, fn, nullptr, nullptr);
}

void Store::for_each_series_checked(std::span<const LabelMatcher> matchers, std::int64_t min_t,
                                    std::int64_t max_t,
                                    const std::function<void(const Labels&, std::span<const Point>)>& fn,
                                    const Checkpoint& checkpoint) const {
  checkpoint();
  read(matchers, min_t, max_t, fn, &checkpoint, nullptr);
}

void Store::for_each_series_at(std::span<const LabelMatcher> matchers, std::int64_t min_t, std::int64_t max_t,
                               const EvalTimes& times,
                               const std::function<void(const Labels&, std::span<const Point>)>& fn,
                               const Checkpoint& checkpoint) const {
  checkpoint();
  read(matchers, min_t, max_t, fn, &checkpoint, &times);
}

namespace {

// Whether a query's read of a block keeps it decoded: when it reads most of it. A range query reads its
// last block only up to its last step (a day at step 60 s ends 59 s before the block does) and must find it
// next time; a look at the last minutes of every series (an instant query) would fill the cache with blocks
// that no range query needs.
bool worth_keeping(const BlockKey& key, std::int64_t min_t, std::int64_t max_t) {
  const std::int64_t from = std::max(min_t, key.min_t);
  const std::int64_t to = std::min(max_t, key.max_t);
  return from <= to && (to - from) >= (key.max_t - key.min_t) / 2;
}

// Appends a decoded block's points within [min_t, max_t] (those `times` pick, when given).
void append_range(const std::vector<Point>& points, std::int64_t min_t, std::int64_t max_t,
                  const EvalTimes* times, std::vector<Point>& out) {
  const auto first = std::lower_bound(points.begin(), points.end(), min_t,
                                      [](const Point& p, std::int64_t t) { return p.t_ms < t; });
  const auto last =
      std::upper_bound(first, points.end(), max_t, [](std::int64_t t, const Point& p) { return t < p.t_ms; });
  if (times) {
    append_picked(std::span<const Point>(first, last), *times, out);
  } else {
    out.insert(out.end(), first, last);
  }
}

}  // namespace

bool Store::all_cached(const std::vector<BlockKey>& keys, std::vector<CachedPoints>& found) const {
  found.clear();
  for (const BlockKey& key : keys) {
    CachedPoints points = decoded_.find(key);
    if (!points) return false;
    found.push_back(std::move(points));
  }
  return true;
}

void Store::append_sealed(const BlockRow& row, const Labels& labels, std::optional<SeriesId> reference,
                          std::int64_t min_t, std::int64_t max_t, const EvalTimes* times,
                          std::uint64_t generation, BlockDecoder& decoder,
                          ReferenceColumns& reference_columns, TimeColumnCache& time_columns,
                          std::vector<Point>& scratch, std::vector<Point>& out) const {
  const BlockKey& key = row.key;
  CachedPoints points = decoded_.find(key);
  if (points) {
    append_range(*points, min_t, max_t, times, out);
    return;
  }
  // A block kept is decoded straight into the cache's buffer (of exactly its size); one read in passing
  // into the reader's scratch, whose memory serves the next such block.
  const bool keep = worth_keeping(key, min_t, max_t);
  std::shared_ptr<std::vector<Point>> kept = keep ? std::make_shared<std::vector<Point>>() : nullptr;
  std::vector<Point>& decoded = keep ? *kept : scratch;
  decoded.clear();
  try {
    // Only a series whose metric has a reference pays for a look at the header first.
    SeriesReference r{};
    if (reference && inspect_block(row.data).needs_reference) {
      reference_columns.load(
          read_db_->same_range_block(), *reference,
          [&] { return labels_to_string(reference_labels(labels)); }, key, decoder);
      r = reference_columns.view();
    }
    decoder.decode_points(row.data, decoded, r, time_columns.timestamps(row.time_id, row.times));
  } catch (const CodecError& e) {
    std::lock_guard c(corrupt_mu_);
    if (corrupt_rows_.insert(key.row).second)
      spdlog::error("store: block {} of {} cannot be read and is skipped: {}", key.row,
                    labels_to_string(labels), e.what());
    return;
  }
  if (keep) decoded_.insert(key, kept, generation);
  append_range(decoded, min_t, max_t, times, out);
}

std::vector<Point> Store::take_buffer() const {
  std::lock_guard lock(buffers_mu_);
  if (buffers_.empty()) return {};
  std::vector<Point> b = std::move(buffers_.back());
  buffers_.pop_back();
  return b;
}

void Store::give_back_buffer(std::vector<Point> buffer) const {
  // A few, as many as queries usually run at once, of at most 4 MiB each (a month of one series once
  // downsampled; a day at 1 s is 1.4 MiB): a larger one goes back to the allocator.
  constexpr std::size_t kKept = 4;
  constexpr std::size_t kMaxPoints = (std::size_t{4} << 20) / sizeof(Point);
  if (buffer.capacity() > kMaxPoints) return;
  buffer.clear();
  std::lock_guard lock(buffers_mu_);
  if (buffers_.size() < kKept) buffers_.push_back(std::move(buffer));
}

void Store::read(std::span<const LabelMatcher> matchers, std::int64_t min_t, std::int64_t max_t,
                 const std::function<void(const Labels&, std::span<const Point>)>& fn,
                 const Checkpoint* checkpoint, const EvalTimes* times) const {
  const std::vector<LabelIndex::Candidate> matched = matching(matchers, checkpoint);
  std::vector<SeriesId> ids;
  ids.reserve(matched.size());
  for (const auto& c : matched) ids.push_back(c.id);
  std::vector<std::vector<std::shared_ptr<const HeadBlock>>> in_memory;
  std::vector<std::optional<SeriesId>> references(ids.size());
  {
    // Memory first, then SQLite: a block moving from the head to SQLite meanwhile is seen twice (and
    // deduplicated below), never missed. Decoding happens outside the lock that appends take.
    std::lock_guard lock(mu_);
    head_.blocks(ids, min_t, max_t, in_memory);
    for (std::size_t i = 0; i < ids.size(); ++i) references[i] = reference_of(*matched[i].labels);
  }
  // Read before SQLite's snapshot is: a block deleted after it is not cached under its reused row id.
  const std::uint64_t generation = decoded_.generation();
  BlockDecoder decoder;
  ReferenceColumns reference_columns;
  TimeColumnCache time_columns;
  std::vector<Point> scratch;
  std::vector<Point> points = take_buffer();
  std::vector<std::size_t> seams;
  std::vector<BlockKey> keys;
  std::vector<CachedPoints> cached;
  struct GiveBack {
    const Store& store;
    std::vector<Point>& points;
    ~GiveBack() { store.give_back_buffer(std::move(points)); }
  } give_back{*this, points};
  for (std::size_t i = 0; i < ids.size(); ++i) {
    // Between series, never inside read_blocks: a stop leaves no statement half read.
    if (checkpoint) (*checkpoint)();
    const Labels& labels = *matched[i].labels;
    points.clear();
    // Where each block's points begin: blocks are ascending inside, so order is checked at the seams only.
    seams.clear();
    {
      // The keys first: when every block is decoded already (a repeated query), no blob is read.
      std::lock_guard lock(read_mu_);
      read_db_->read_block_keys(ids[i], min_t, max_t, keys);
      if (all_cached(keys, cached)) {
        for (const CachedPoints& c : cached) {
          seams.push_back(points.size());
          append_range(*c, min_t, max_t, times, points);
        }
      } else {
        read_db_->read_blocks(ids[i], min_t, max_t, [&](const BlockRow& row) {
          seams.push_back(points.size());
          append_sealed(row, labels, references[i], min_t, max_t, times, generation, decoder,
                        reference_columns, time_columns, scratch, points);
        });
      }
    }
    for (const auto& b : in_memory[i]) {
      seams.push_back(points.size());
      b->append_points(min_t, max_t, decoder, points);
    }
    // Sealed blocks come oldest first and the head holds what is newer: sorting is needed only when a block
    // was seen in both or blocks overlap.
    const bool out_of_order = std::any_of(seams.begin(), seams.end(), [&](std::size_t s) {
      return s > 0 && s < points.size() && points[s - 1].t_ms >= points[s].t_ms;
    });
    if (out_of_order) {
      std::stable_sort(points.begin(), points.end(),
                       [](const Point& a, const Point& b) { return a.t_ms < b.t_ms; });
      points.erase(std::unique(points.begin(), points.end(),
                               [](const Point& a, const Point& b) { return a.t_ms == b.t_ms; }),
                   points.end());
    }
    if (!points.empty()) fn(labels, points);
  }
}

std::vector<Labels> Store::series(std::span<const LabelMatcher> matchers, std::int64_t min_t,
                                  std::int64_t max_t) const {
  const std::vector<LabelIndex::Candidate> matched = matching(matchers);
  std::vector<Labels> out;
  std::vector<std::pair<SeriesId, Labels>> on_disk;
  {
    std::lock_guard lock(mu_);
    for (const auto& c : matched) {
      if (head_.has_points(c.id, min_t, max_t))
        out.push_back(*c.labels);
      else
        on_disk.emplace_back(c.id, *c.labels);
    }
  }
  std::lock_guard lock(read_mu_);
  for (auto& [id, labels] : on_disk) {
    if (read_db_->has_block(id, min_t, max_t)) out.push_back(std::move(labels));
  }
  std::sort(out.begin(), out.end());
  return out;
}

}  // namespace gpuwatch::store
