#include "query/target_labels_source.h"

#include <algorithm>

namespace gpuwatch::query {

TargetLabelsSource::TargetLabelsSource(std::shared_ptr<const store::SeriesSource> inner, store::Labels target)
    : inner_(std::move(inner)), target_(std::move(target)) {
  store::normalize_labels(target_);
}

std::vector<store::LabelMatcher> TargetLabelsSource::inner_matchers(
    std::span<const store::LabelMatcher> matchers) const {
  std::vector<store::LabelMatcher> out;
  for (const auto& m : matchers) {
    const auto it =
        std::find_if(target_.begin(), target_.end(), [&](const auto& l) { return l.first == m.name(); });
    // A matcher the target's value fails can only be met by a series with a value of its own: asking the
    // inner source with it narrows the read and loses nothing.
    if (it == target_.end() || !m.matches(it->second)) out.push_back(m);
  }
  if (out.empty()) out.emplace_back("__name__", store::LabelMatcher::Op::kRegexMatch, ".+");
  return out;
}

bool TargetLabelsSource::with_target(const store::Labels& labels,
                                     std::span<const store::LabelMatcher> matchers,
                                     store::Labels& out) const {
  out = labels;
  bool added = false;
  for (const auto& [name, value] : target_) {
    if (store::label_value(labels, name).empty()) {
      out.emplace_back(name, value);
      added = true;
    }
  }
  if (added) std::sort(out.begin(), out.end());
  for (const auto& m : matchers) {
    const bool on_target =
        std::any_of(target_.begin(), target_.end(), [&](const auto& l) { return l.first == m.name(); });
    if (on_target && !m.matches(store::label_value(out, m.name()))) return false;
  }
  return true;
}

std::vector<store::SeriesPoints> TargetLabelsSource::select(std::span<const store::LabelMatcher> matchers,
                                                            std::int64_t min_t, std::int64_t max_t) const {
  std::vector<store::SeriesPoints> out;
  for (auto& s : inner_->select(inner_matchers(matchers), min_t, max_t)) {
    store::Labels labels;
    if (with_target(s.labels, matchers, labels)) out.push_back({std::move(labels), std::move(s.points)});
  }
  return out;
}

std::vector<store::Labels> TargetLabelsSource::series(std::span<const store::LabelMatcher> matchers,
                                                      std::int64_t min_t, std::int64_t max_t) const {
  std::vector<store::Labels> out;
  for (const auto& l : inner_->series(inner_matchers(matchers), min_t, max_t)) {
    store::Labels labels;
    if (with_target(l, matchers, labels)) out.push_back(std::move(labels));
  }
  return out;
}

void TargetLabelsSource::for_each_series(
    std::span<const store::LabelMatcher> matchers, std::int64_t min_t, std::int64_t max_t,
    const std::function<void(const store::Labels&, std::span<const store::Point>)>& fn) const {
  for_each_series_checked(matchers, min_t, max_t, fn, [] {});
}

void TargetLabelsSource::for_each_series_checked(
    std::span<const store::LabelMatcher> matchers, std::int64_t min_t, std::int64_t max_t,
    const std::function<void(const store::Labels&, std::span<const store::Point>)>& fn,
    const Checkpoint& checkpoint) const {
  store::Labels labels;
  inner_->for_each_series_checked(
      inner_matchers(matchers), min_t, max_t,
      [&](const store::Labels& inner_labels, std::span<const store::Point> points) {
        if (with_target(inner_labels, matchers, labels)) fn(labels, points);
      },
      checkpoint);
}

void TargetLabelsSource::for_each_series_at(
    std::span<const store::LabelMatcher> matchers, std::int64_t min_t, std::int64_t max_t,
    const EvalTimes& times,
    const std::function<void(const store::Labels&, std::span<const store::Point>)>& fn,
    const Checkpoint& checkpoint) const {
  store::Labels labels;
  gpuwatch::for_each_series_at(
      *inner_, inner_matchers(matchers), min_t, max_t, times,
      [&](const store::Labels& inner_labels, std::span<const store::Point> points) {
        if (with_target(inner_labels, matchers, labels)) fn(labels, points);
      },
      checkpoint);
}

}  // namespace gpuwatch::query
