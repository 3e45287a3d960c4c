// The read side of the store: selects over the head's blocks and SQLite's, merged by timestamp; corrupt
// blocks are skipped, counted and logged once.
#include <spdlog/spdlog.h>

#include <algorithm>

#include "store/codec_error.h"
#include "store/store.h"

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
  return read(matchers, min_t, max_t, nullptr);
}

void Store::for_each_series_checked(std::span<const LabelMatcher> matchers, std::int64_t min_t,
                                    std::int64_t max_t,
                                    const std::function<void(const Labels&, std::span<const Point>)>& fn,
                                    const Checkpoint& checkpoint) const {
  checkpoint();
  for (const auto& s : read(matchers, min_t, max_t, &checkpoint)) fn(s.labels, s.points);
}

std::vector<SeriesPoints> Store::read(std::span<const LabelMatcher> matchers, std::int64_t min_t,
                                      std::int64_t max_t, const Checkpoint* checkpoint) const {
  const std::vector<LabelIndex::Candidate> matched = matching(matchers, checkpoint);
  std::vector<SeriesId> ids;
  std::vector<SeriesPoints> out;
  ids.reserve(matched.size());
  out.reserve(matched.size());
  for (const auto& c : matched) {
    ids.push_back(c.id);
    out.push_back(SeriesPoints{*c.labels, {}});
  }
  std::vector<std::vector<std::shared_ptr<const HeadBlock>>> in_memory;
  {
    // Memory first, then SQLite: a block moving from the head to SQLite meanwhile is seen twice (and
    // deduplicated below), never missed. Decoding happens outside the lock that appends take.
    std::lock_guard lock(mu_);
    head_.blocks(ids, min_t, max_t, in_memory);
  }
  BlockDecoder decoder;
  for (std::size_t i = 0; i < ids.size(); ++i) {
    for (const auto& b : in_memory[i]) b->append_points(min_t, max_t, decoder, out[i].points);
  }
  DecodedBlock decoded;
  {
    std::lock_guard lock(read_mu_);
    for (std::size_t i = 0; i < ids.size(); ++i) {
      // Between series, never inside read_blocks: a stop leaves no statement half read.
      if (checkpoint) (*checkpoint)();
      auto& points = out[i].points;
      read_db_->read_blocks(ids[i], min_t, max_t, [&](const BlockRow& row) {
        try {
          decoder.decode_into(row.data, decoded.timestamps_ms, decoded.values);
        } catch (const CodecError& e) {
          std::lock_guard c(corrupt_mu_);
          if (corrupt_rows_.insert(row.row).second)
            spdlog::error("store: block {} of {} is corrupt and skipped: {}", row.row,
                          labels_to_string(out[i].labels), e.what());
          return;
        }
        const auto& ts = decoded.timestamps_ms;
        for (auto it = std::lower_bound(ts.begin(), ts.end(), min_t); it != ts.end() && *it <= max_t; ++it)
          points.push_back(Point{*it, decoded.values[static_cast<std::size_t>(it - ts.begin())]});
      });
    }
  }
  for (auto& s : out) {
    std::sort(s.points.begin(), s.points.end(),
              [](const Point& a, const Point& b) { return a.t_ms < b.t_ms; });
    s.points.erase(std::unique(s.points.begin(), s.points.end(),
                               [](const Point& a, const Point& b) { return a.t_ms == b.t_ms; }),
                   s.points.end());
  }
  std::erase_if(out, [](const SeriesPoints& s) { return s.points.empty(); });
  return out;
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
