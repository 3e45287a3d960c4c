// A window of recent (time, value) points, oldest first, trimmed by age: the state detectors keep between
// snapshots. Also the least-squares slope Prometheus's deriv()/predict_linear() use.
#pragma once

#include <cstddef>
#include <cstdint>
#include <deque>
#include <optional>

namespace gpuwatch::detect {

struct Point {
  std::int64_t t_ms = 0;
  double value = 0;
};

// A mean and how many points it took; count 0 (and value 0) when there were none.
struct WindowMean {
  double value = 0;
  std::size_t count = 0;
};

class ValueWindow {
 public:
  // Adds a point (ignored unless newer than the last) and drops points older than now - span_ms.
  void add(std::int64_t t_ms, double value, std::int64_t span_ms) {
    if (!points_.empty() && t_ms <= points_.back().t_ms) return;
    points_.push_back({t_ms, value});
    while (!points_.empty() && points_.front().t_ms < t_ms - span_ms) points_.pop_front();
  }
  void clear() { points_.clear(); }
  const std::deque<Point>& points() const { return points_; }
  bool empty() const { return points_.empty(); }
  std::int64_t span_ms() const { return points_.empty() ? 0 : points_.back().t_ms - points_.front().t_ms; }
  // Mean of the points with from_ms <= t < until_ms.
  WindowMean mean(std::int64_t from_ms, std::int64_t until_ms = INT64_MAX) const {
    WindowMean m;
    for (const auto& p : points_)
      if (p.t_ms >= from_ms && p.t_ms < until_ms) m.value += p.value, ++m.count;
    if (m.count) m.value /= static_cast<double>(m.count);
    return m;
  }
  // Increase from the oldest point to the newest, as a counter (a reset counts from zero).
  double increase() const {
    double total = 0;
    for (std::size_t i = 1; i < points_.size(); ++i) {
      const double d = points_[i].value - points_[i - 1].value;
      total += d >= 0 ? d : points_[i].value;
    }
    return total;
  }
  // Least-squares slope in units per second over the points at or after from_ms; nullopt under 2 points.
  std::optional<double> slope_per_second(std::int64_t from_ms = INT64_MIN) const {
    double n = 0, st = 0, sv = 0, stt = 0, stv = 0;
    const std::int64_t base = points_.empty() ? 0 : points_.back().t_ms;
    for (const auto& p : points_) {
      if (p.t_ms < from_ms) continue;
      const double t = static_cast<double>(p.t_ms - base) / 1000.0;  // relative, for precision
      n += 1;
      st += t;
      sv += p.value;
      stt += t * t;
      stv += t * p.value;
    }
    const double den = n * stt - st * st;
    if (n < 2 || den <= 0) return std::nullopt;
    return (n * stv - st * sv) / den;
  }

 private:
  std::deque<Point> points_;
};

}  // namespace gpuwatch::detect
