#include "query/memory_series_source.h"

#include <algorithm>

namespace gpuwatch::query {
namespace {

void tidy(store::Labels& labels) {
  std::erase_if(labels, [](const auto& l) { return l.second.empty(); });
  std::sort(labels.begin(), labels.end());
}

std::span<const store::Point> in_range(const std::vector<store::Point>& points, std::int64_t min_t,
                                       std::int64_t max_t) {
  const auto lo = std::lower_bound(points.begin(), points.end(), min_t,
                                   [](const store::Point& p, std::int64_t t) { return p.t_ms < t; });
  const auto hi = std::upper_bound(lo, points.end(), max_t,
                                   [](std::int64_t t, const store::Point& p) { return t < p.t_ms; });
  return {lo, hi};
}

}  // namespace

std::string MemorySeriesSource::add(store::Labels labels, std::int64_t t_ms, double value) {
  tidy(labels);
  auto& points = series_[std::move(labels)];
  if (!points.empty() && points.back().t_ms >= t_ms) return "out of order or duplicate timestamp";
  points.push_back({t_ms, value});
  return "";
}

void MemorySeriesSource::add_series(store::Labels labels, std::vector<store::Point> points) {
  tidy(labels);
  series_[std::move(labels)] = std::move(points);
}

std::vector<store::SeriesPoints> MemorySeriesSource::select(std::span<const store::LabelMatcher> matchers,
                                                            std::int64_t min_t, std::int64_t max_t) const {
  std::vector<store::SeriesPoints> out;
  for (const auto& [labels, points] : series_) {
    if (!matches_all(matchers, labels)) continue;
    const auto range = in_range(points, min_t, max_t);
    if (range.empty()) continue;
    out.push_back({labels, std::vector<store::Point>(range.begin(), range.end())});
  }
  return out;
}

void MemorySeriesSource::for_each_series(
    std::span<const store::LabelMatcher> matchers, std::int64_t min_t, std::int64_t max_t,
    const std::function<void(const store::Labels&, std::span<const store::Point>)>& fn) const {
  for (const auto& [labels, points] : series_) {
    if (!matches_all(matchers, labels)) continue;
    const auto range = in_range(points, min_t, max_t);
    if (!range.empty()) fn(labels, range);
  }
}

std::vector<store::Labels> MemorySeriesSource::series(std::span<const store::LabelMatcher> matchers,
                                                      std::int64_t min_t, std::int64_t max_t) const {
  std::vector<store::Labels> out;
  for (const auto& [labels, points] : series_) {
    if (matches_all(matchers, labels) && !in_range(points, min_t, max_t).empty()) out.push_back(labels);
  }
  return out;
}

}  // namespace gpuwatch::query
