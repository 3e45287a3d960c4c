// min_over_time / max_over_time over the successive windows of one series in O(points) instead of
// O(points x window): windows only move forward, so a monotonic queue of candidates carries over from one
// step to the next. Same answers as the per-window functions (NaN only when every point is NaN).
#pragma once

#include <algorithm>
#include <cmath>
#include <limits>
#include <optional>
#include <span>
#include <vector>

#include "core/series.h"

namespace gpuwatch::query {

class SlidingExtreme {
 public:
  explicit SlidingExtreme(bool max) : max_(max) {}

  // Starts a new series.
  void reset() {
    queue_.clear();
    head_ = 0;
    pushed_end_ = nullptr;
    last_end_ = nullptr;
  }

  // The extreme of `window`, which must start and end no earlier than the previous window of this series.
  std::optional<double> next(std::span<const store::Point> window) {
    if (window.empty()) return std::nullopt;
    const store::Point* begin = window.data();
    const store::Point* end = begin + window.size();
    // Windows that overlap little (a 5 m range at a 1 m step) are cheaper to scan whole than to queue: a
    // branch-light pass over a few hundred points against a push and pop per point.
    const std::size_t advanced = last_end_ != nullptr && last_end_ >= begin && last_end_ <= end
                                     ? static_cast<std::size_t>(end - last_end_)
                                     : window.size();
    last_end_ = end;
    if (window.size() <= kScanOverlap * std::max<std::size_t>(advanced, 1)) {
      queue_.clear();
      head_ = 0;
      pushed_end_ = nullptr;
      return scan(begin, end);
    }
    if (pushed_end_ == nullptr || pushed_end_ < begin) pushed_end_ = begin;
    for (; pushed_end_ < end; ++pushed_end_) {
      const double v = pushed_end_->value;
      if (std::isnan(v)) continue;
      while (queue_.size() > head_ && !better(queue_.back()->value, v)) queue_.pop_back();
      queue_.push_back(pushed_end_);
    }
    while (head_ < queue_.size() && queue_[head_] < begin) ++head_;
    if (head_ == queue_.size()) return std::numeric_limits<double>::quiet_NaN();  // all NaN
    if (head_ > 1024 && head_ * 2 > queue_.size()) {  // keep the queue's storage bounded
      queue_.erase(queue_.begin(), queue_.begin() + static_cast<std::ptrdiff_t>(head_));
      head_ = 0;
    }
    return queue_[head_]->value;
  }

 private:
  static constexpr std::size_t kScanOverlap = 8;

  bool better(double a, double b) const { return max_ ? a > b : a < b; }

  // The first non-NaN point, then any strictly better one (a NaN compares false and is passed over). Four
  // running extremes, so that each comparison need not wait for the one before.
  double scan(const store::Point* p, const store::Point* end) const {
    while (p < end && std::isnan(p->value)) ++p;
    if (p == end) return std::numeric_limits<double>::quiet_NaN();
    return max_ ? scan_with(p, end, [](double a, double b) { return a > b; })
                : scan_with(p, end, [](double a, double b) { return a < b; });
  }

  template <typename Better>
  static double scan_with(const store::Point* p, const store::Point* end, Better better) {
    double best[4] = {p->value, p->value, p->value, p->value};
    const auto keep = [&](double& b, double v) { b = better(v, b) ? v : b; };
    for (++p; end - p >= 4; p += 4) {
      keep(best[0], p[0].value);
      keep(best[1], p[1].value);
      keep(best[2], p[2].value);
      keep(best[3], p[3].value);
    }
    for (; p < end; ++p) keep(best[0], p->value);
    keep(best[0], best[1]);
    keep(best[2], best[3]);
    keep(best[0], best[2]);
    return best[0];
  }

  bool max_;
  std::vector<const store::Point*> queue_;  // candidates from head_, values strictly monotonic
  std::size_t head_ = 0;
  const store::Point* pushed_end_ = nullptr;
  const store::Point* last_end_ = nullptr;  // the previous window's end
};

}  // namespace gpuwatch::query
