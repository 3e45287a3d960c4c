// The query API's source when the agent keeps no history (store: off): the latest snapshot and what was
// published with it, as the history would have stored them (the same names, labels and read times, less
// the families kNotStoredFamilies names), one point a series. Instant queries at now find them within the
// lookback; anything older is not there. Rebuilt once per snapshot, on the first query that sees it.
#pragma once

#include <functional>
#include <memory>
#include <mutex>

#include "agent/published_families.h"
#include "core/series.h"
#include "core/snapshot.h"
#include "query/memory_series_source.h"

namespace gpuwatch {

class LatestSeries final : public store::SeriesSource {
 public:
  LatestSeries(std::function<SnapshotPtr()> latest, std::shared_ptr<const PublishedState> published);

  std::vector<store::SeriesPoints> select(std::span<const store::LabelMatcher> matchers, std::int64_t min_t,
                                          std::int64_t max_t) const override;
  std::vector<store::Labels> series(std::span<const store::LabelMatcher> matchers, std::int64_t min_t,
                                    std::int64_t max_t) const override;
  void for_each_series(
      std::span<const store::LabelMatcher> matchers, std::int64_t min_t, std::int64_t max_t,
      const std::function<void(const store::Labels&, std::span<const store::Point>)>& fn) const override;

 private:
  std::shared_ptr<const query::MemorySeriesSource> current() const;

  std::function<SnapshotPtr()> latest_;
  std::shared_ptr<const PublishedState> published_;
  mutable std::mutex mu_;
  mutable SnapshotPtr built_from_;
  mutable std::shared_ptr<const query::MemorySeriesSource> built_;
};

}  // namespace gpuwatch
