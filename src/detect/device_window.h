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

// Points are kept as 12 bytes each (the time as milliseconds after the point before, then the value) where
// a time and a value took 16: the detectors' windows are most of the agent's memory after the history (a
// process's GPU memory over the hour a leak needs). A window does not reach across a gap of more than 49 days
// (2^32 ms) between two points: the point after such a gap starts it again.
class ValueWindow {
 public:
  // Adds a point (ignored unless newer than the last) and drops points older than now - span_ms.
  void add(std::int64_t t_ms, double value, std::int64_t span_ms) {
    if (!points_.empty() && t_ms <= back_t_) return;
    if (!points_.empty() && t_ms - back_t_ > std::int64_t{UINT32_MAX}) clear();
    points_.push_back({static_cast<std::uint32_t>(points_.empty() ? 0 : t_ms - back_t_), value});
    if (points_.size() == 1) front_t_ = t_ms;
    back_t_ = t_ms;
    while (!points_.empty() && front_t_ < t_ms - span_ms) {
      points_.pop_front();
      if (!points_.empty()) front_t_ += points_.front().after_ms;
    }
  }
  // Replaces the newest point's value (a mean still taking points); only when not empty.
  void set_back_value(double value) { points_.back().value = value; }
  void clear() { points_.clear(); }
  bool empty() const { return points_.empty(); }
  std::size_t size() const { return points_.size(); }
  // The oldest and the newest point; only when not empty.
  Point front() const { return {front_t_, points_.front().value}; }
  Point back() const { return {back_t_, points_.back().value}; }
  // Calls f(Point) for each point, oldest first.
  template <typename F>
  void for_each(F&& f) const {
    std::int64_t t = front_t_;
    for (auto it = points_.begin(); it != points_.end(); ++it) {
      if (it != points_.begin()) t += it->after_ms;
      f(Point{t, it->value});
    }
  }
  std::int64_t span_ms() const { return points_.empty() ? 0 : back_t_ - front_t_; }
  // Mean of the points with from_ms <= t < until_ms.
  WindowMean mean(std::int64_t from_ms, std::int64_t until_ms = INT64_MAX) const {
    WindowMean m;
    for_each([&](const Point& p) {
      if (p.t_ms >= from_ms && p.t_ms < until_ms) m.value += p.value, ++m.count;
    });
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
    const std::int64_t base = back_t_;
    for_each([&](const Point& p) {
      if (p.t_ms < from_ms) return;
      const double t = static_cast<double>(p.t_ms - base) / 1000.0;  // relative, for precision
      n += 1;
      st += t;
      sv += p.value;
      stt += t * t;
      stv += t * p.value;
    });
    const double den = n * stt - st * st;
    if (n < 2 || den <= 0) return std::nullopt;
    return (n * stv - st * sv) / den;
  }

 private:
  struct [[gnu::packed]] Stored {
    std::uint32_t after_ms;  // after the point before; 0 for the first ever added
    double value;
  };
  static_assert(sizeof(Stored) == 12);
  std::deque<Stored> points_;
  std::int64_t front_t_ = 0;  // the oldest point's time
  std::int64_t back_t_ = 0;   // the newest point's time
};

// A window of one point per `resolution_ms`: the mean of the readings in it, stored at the time of its first.
// Where a decision takes many readings together (a trend over minutes, bins of an hour), a point every few
// seconds decides as every reading would, for a fraction of the memory at a tick of a second or less: the
// windows of every GPU process are most of what the detectors hold.
class CoarseWindow {
 public:
  void add(std::int64_t t_ms, double value, std::int64_t span_ms, std::int64_t resolution_ms) {
    if (!points_.empty() && t_ms <= points_.back().t_ms) return;  // not newer: ignored, as ValueWindow does
    if (!points_.empty() && t_ms - bucket_start_ms_ < resolution_ms) {
      sum_ += value;
      ++count_;
      points_.set_back_value(sum_ / count_);
      return;
    }
    points_.add(t_ms, value, span_ms);
    bucket_start_ms_ = t_ms;
    sum_ = value;
    count_ = 1;
  }
  const ValueWindow& points() const { return points_; }

 private:
  ValueWindow points_;
  std::int64_t bucket_start_ms_ = 0;  // the newest point's first reading
  double sum_ = 0;                    // of the readings in the newest point
  double count_ = 0;
};

}  // namespace gpuwatch::detect
