// A SeriesSource held in memory: for tests, benchmarks and dry runs (an import checked before it is
// written). Series are added whole or point by point; reads are safe from several threads once loading
// is done.
#pragma once

#include <map>
#include <span>
#include <string>
#include <vector>

#include "core/series.h"

namespace gpuwatch::query {

class MemorySeriesSource : public store::SeriesSource {
 public:
  // Adds a point to the series with these labels (empty values dropped, names sorted); points of a
  // series must come in increasing time order. Returns "" or the reason it was refused.
  std::string add(store::Labels labels, std::int64_t t_ms, double value);
  void add_series(store::Labels labels, std::vector<store::Point> points);

  std::vector<store::SeriesPoints> select(std::span<const store::LabelMatcher> matchers, std::int64_t min_t,
                                          std::int64_t max_t) const override;
  std::vector<store::Labels> series(std::span<const store::LabelMatcher> matchers, std::int64_t min_t,
                                    std::int64_t max_t) const override;
  // Hands out the held points without copying them.
  void for_each_series(
      std::span<const store::LabelMatcher> matchers, std::int64_t min_t, std::int64_t max_t,
      const std::function<void(const store::Labels&, std::span<const store::Point>)>& fn) const override;

 private:
  std::map<store::Labels, std::vector<store::Point>> series_;
};

}  // namespace gpuwatch::query
