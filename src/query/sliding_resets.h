// Whether the successive windows of one counter series hold a reset, in O(points) for all of them
// instead of O(points x window): windows only move forward, so the count of resets (a value below the
// one before it) inside the window is carried from one step to the next, each pair counted once on
// entering and once on leaving. rate and increase then skip their ordered walk over a window without one.
#pragma once

#include <algorithm>
#include <span>

#include "core/series.h"

namespace gpuwatch::query {

class SlidingResets {
 public:
  // Starts a new series.
  void reset() {
    begin_ = nullptr;
    end_ = nullptr;
    count_ = 0;
  }

  // Whether `window` (non-empty, starting and ending no earlier than the previous window of this series and
  // inside the same points) holds a reset, a first value below 0 counting as one as rate's walk does.
  bool any(std::span<const store::Point> window) {
    const store::Point* begin = window.data();
    const store::Point* end = begin + window.size();
    if (begin_ == nullptr || begin < begin_ || begin > end_) {  // not a continuation: count afresh
      begin_ = begin;
      end_ = begin;
      count_ = 0;
    }
    // The window counts the pairs (q - 1, q) with begin_ < q < end_.
    for (const store::Point* q = std::max(end_, begin_ + 1); q < end; ++q) count_ += is_reset(q);
    end_ = std::max(end_, end);
    for (const store::Point* q = begin_ + 1; q <= begin && q < end_; ++q) count_ -= is_reset(q);
    begin_ = begin;
    return count_ != 0 || begin->value < 0;
  }

 private:
  static long is_reset(const store::Point* q) { return q->value < (q - 1)->value ? 1 : 0; }

  const store::Point* begin_ = nullptr;
  const store::Point* end_ = nullptr;
  long count_ = 0;
};

}  // namespace gpuwatch::query
