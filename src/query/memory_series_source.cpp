#include "query/memory_series_source.h"

#include <algorithm>
#include <regex>

#include "query/query_error.h"

namespace gpuwatch::query {
namespace {

void tidy(store::Labels& labels) {
  std::erase_if(labels, [](const auto& l) { return l.second.empty(); });
  std::sort(labels.begin(), labels.end());
}

const std::string& value_of(const store::Labels& labels, const std::string& name) {
  static const std::string kEmpty;
  for (const auto& l : labels) {
    if (l.first == name) return l.second;
  }
  return kEmpty;
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

bool matches_all(const store::Labels& labels, std::span<const store::LabelMatcher> matchers) {
  using Op = store::LabelMatcher::Op;
  for (const auto& m : matchers) {
    const std::string& v = value_of(labels, m.name);
    bool ok = false;
    switch (m.op) {
      case Op::kEqual:
        ok = v == m.value;
        break;
      case Op::kNotEqual:
        ok = v != m.value;
        break;
      case Op::kRegexMatch:
      case Op::kRegexNoMatch:
        try {
          ok = std::regex_match(v, std::regex(m.value)) == (m.op == Op::kRegexMatch);
        } catch (const std::regex_error& e) {
          throw bad_data("invalid regular expression \"" + m.value + "\": " + e.what());
        }
        break;
    }
    if (!ok) return false;
  }
  return true;
}

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
    if (!matches_all(labels, matchers)) continue;
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
    if (!matches_all(labels, matchers)) continue;
    const auto range = in_range(points, min_t, max_t);
    if (!range.empty()) fn(labels, range);
  }
}

std::vector<store::Labels> MemorySeriesSource::series(std::span<const store::LabelMatcher> matchers,
                                                      std::int64_t min_t, std::int64_t max_t) const {
  std::vector<store::Labels> out;
  for (const auto& [labels, points] : series_) {
    if (matches_all(labels, matchers) && !in_range(points, min_t, max_t).empty()) out.push_back(labels);
  }
  return out;
}

}  // namespace gpuwatch::query
