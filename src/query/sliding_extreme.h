// min_over_time / max_over_time over the successive windows of one series in O(points) instead of
// O(points x window): windows only move forward, so a monotonic queue of candidates carries over from one
// step to the next. Same answers as the per-window functions (NaN only when every point is NaN).
#pragma once

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
  }

  // The extreme of `window`, which must start and end no earlier than the previous window of this series.
  std::optional<double> next(std::span<const store::Point> window) {
    if (window.empty()) return std::nullopt;
    const store::Point* begin = window.data();
    const store::Point* end = begin + window.size();
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
  bool better(double a, double b) const { return max_ ? a > b : a < b; }

  bool max_;
  std::vector<const store::Point*> queue_;  // candidates from head_, values strictly monotonic
  std::size_t head_ = 0;
  const store::Point* pushed_end_ = nullptr;
};

}  // namespace gpuwatch::query
