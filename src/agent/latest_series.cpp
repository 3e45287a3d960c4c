#include "agent/latest_series.h"

#include "exposition/native_metrics.h"
#include "store/snapshot_history.h"

namespace gpuwatch {
namespace {

void add_families(query::MemorySeriesSource& out, const std::vector<Family>& families, std::int64_t t) {
  for (const auto& family : families) {
    if (!is_stored(family.name)) continue;
    for (const auto& series : family.series)
      out.add_series(store::stored_labels(family.name, series),
                     {{store::stored_time(series, t), series.value}});
  }
}

}  // namespace

LatestSeries::LatestSeries(std::function<SnapshotPtr()> latest,
                           std::shared_ptr<const PublishedState> published)
    : latest_(std::move(latest)), published_(std::move(published)) {}

std::shared_ptr<const query::MemorySeriesSource> LatestSeries::current() const {
  const SnapshotPtr snapshot = latest_();
  std::lock_guard lock(mu_);
  if (built_ && snapshot == built_from_) return built_;
  auto made = std::make_shared<query::MemorySeriesSource>();
  if (snapshot) {
    add_families(*made, native_families(*snapshot), snapshot->timestamp_ms);
    if (published_) add_families(*made, published_->stored_families().families, snapshot->timestamp_ms);
  }
  built_from_ = snapshot;
  built_ = made;
  return made;
}

std::vector<store::SeriesPoints> LatestSeries::select(std::span<const store::LabelMatcher> matchers,
                                                      std::int64_t min_t, std::int64_t max_t) const {
  return current()->select(matchers, min_t, max_t);
}

std::vector<store::Labels> LatestSeries::series(std::span<const store::LabelMatcher> matchers,
                                                std::int64_t min_t, std::int64_t max_t) const {
  return current()->series(matchers, min_t, max_t);
}

void LatestSeries::for_each_series(
    std::span<const store::LabelMatcher> matchers, std::int64_t min_t, std::int64_t max_t,
    const std::function<void(const store::Labels&, std::span<const store::Point>)>& fn) const {
  const auto source = current();  // held while its points are handed out
  source->for_each_series(matchers, min_t, max_t, fn);
}

}  // namespace gpuwatch
