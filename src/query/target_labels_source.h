// The labels a Prometheus scraping the agent would give every series, over the agent's own history: the
// target's `instance` (its host:port) and `job`. Queries, series and label lookups see them on every series
// and match on them; a series that has its own (history imported from a Prometheus) keeps its own, as a
// scrape with honor_labels does.
#pragma once

#include <memory>
#include <span>

#include "core/series.h"
#include "core/step_sampled_source.h"

namespace gpuwatch::query {

class TargetLabelsSource final : public store::SeriesSource, public StepSampledSource {
 public:
  // target: the labels and their values, e.g. {{"instance", "node7:19400"}, {"job", "gpuwatch"}}.
  TargetLabelsSource(std::shared_ptr<const store::SeriesSource> inner, store::Labels target);

  std::vector<store::SeriesPoints> select(std::span<const store::LabelMatcher> matchers, std::int64_t min_t,
                                          std::int64_t max_t) const override;
  std::vector<store::Labels> series(std::span<const store::LabelMatcher> matchers, std::int64_t min_t,
                                    std::int64_t max_t) const override;
  void for_each_series(
      std::span<const store::LabelMatcher> matchers, std::int64_t min_t, std::int64_t max_t,
      const std::function<void(const store::Labels&, std::span<const store::Point>)>& fn) const override;
  void for_each_series_checked(
      std::span<const store::LabelMatcher> matchers, std::int64_t min_t, std::int64_t max_t,
      const std::function<void(const store::Labels&, std::span<const store::Point>)>& fn,
      const Checkpoint& checkpoint) const override;
  void for_each_series_at(std::span<const store::LabelMatcher> matchers, std::int64_t min_t,
                          std::int64_t max_t, const EvalTimes& times,
                          const std::function<void(const store::Labels&, std::span<const store::Point>)>& fn,
                          const Checkpoint& checkpoint) const override;

 private:
  // The matchers the inner source is asked with: all but those on a target label that the target's own
  // value satisfies (a series without the label must still be found); never none.
  std::vector<store::LabelMatcher> inner_matchers(std::span<const store::LabelMatcher> matchers) const;
  // The series' labels with the target's added where it lacks them, or false when a matcher on a target
  // label refuses the result.
  bool with_target(const store::Labels& labels, std::span<const store::LabelMatcher> matchers,
                   store::Labels& out) const;

  std::shared_ptr<const store::SeriesSource> inner_;
  store::Labels target_;  // sorted by name
};

}  // namespace gpuwatch::query
