// A series source that can read for an instant selector: at each evaluation time the selector looks only at
// the newest point at or before it, so a source that knows the times may leave out every other point. A day
// of 1 s samples read at a 60 s step is then 1,440 points a series handed to the engine instead of 86,400,
// and none of the others is copied or walked. Sources without it are read whole (for_each_series_at below).
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>
#include <span>

#include "core/series.h"

namespace gpuwatch {

// The times an instant selector is evaluated at: first_ms + k * step_ms for k < count.
struct EvalTimes {
  std::int64_t first_ms = 0;
  std::int64_t step_ms = 1;
  std::size_t count = 0;
};

class StepSampledSource {
 public:
  virtual ~StepSampledSource() = default;
  // for_each_series_checked, except that a series' points may leave out those no time in `times` picks (the
  // newest at or before it, in [min_t, max_t]); every picked point is there, ascending.
  virtual void for_each_series_at(std::span<const LabelMatcher> matchers, std::int64_t min_t,
                                  std::int64_t max_t, const EvalTimes& times,
                                  const std::function<void(const Labels&, std::span<const Point>)>& fn,
                                  const SeriesSource::Checkpoint& checkpoint) const = 0;
};

// Reads `source` for an instant selector at `times`: sampled when it can, else every point.
inline void for_each_series_at(const SeriesSource& source, std::span<const LabelMatcher> matchers,
                               std::int64_t min_t, std::int64_t max_t, const EvalTimes& times,
                               const std::function<void(const Labels&, std::span<const Point>)>& fn,
                               const SeriesSource::Checkpoint& checkpoint) {
  if (const auto* sampled = dynamic_cast<const StepSampledSource*>(&source)) {
    sampled->for_each_series_at(matchers, min_t, max_t, times, fn, checkpoint);
  } else {
    source.for_each_series_checked(matchers, min_t, max_t, fn, checkpoint);
  }
}

}  // namespace gpuwatch
