#include "ingest/validating_appender.h"

namespace gpuwatch::ingest {

std::string ValidatingAppender::check(SeriesState& s, std::int64_t t_ms) {
  if (s.any && t_ms <= s.last_t) {
    return std::string(t_ms == s.last_t ? "duplicate timestamp" : "out of order") + ": sample at " +
           std::to_string(t_ms) + " ms, the series already has one at " + std::to_string(s.last_t) + " ms";
  }
  s.last_t = t_ms;
  s.any = true;
  ++accepted_;
  return "";
}

std::string ValidatingAppender::append(const store::Labels& labels, std::int64_t t_ms, double value) {
  const std::string key = store::labels_to_string(labels);
  std::string reason = check(series_[key], t_ms);
  if (reason.empty() && keep_points_) points_[key].push_back({t_ms, value});
  return reason;
}

std::vector<store::SeriesAppender::Rejection> ValidatingAppender::append_points(
    const store::Labels& labels, std::span<const store::Point> points) {
  const std::string key = store::labels_to_string(labels);
  SeriesState& s = series_[key];
  std::vector<Rejection> rejected;
  std::vector<store::Point>* kept = keep_points_ ? &points_[key] : nullptr;
  for (std::size_t i = 0; i < points.size(); ++i) {
    if (std::string reason = check(s, points[i].t_ms); !reason.empty()) {
      rejected.push_back({i, std::move(reason)});
    } else if (kept != nullptr) {
      kept->push_back(points[i]);
    }
  }
  return rejected;
}

}  // namespace gpuwatch::ingest
