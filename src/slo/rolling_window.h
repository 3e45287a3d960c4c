// Events over a sliding window kept incrementally: the window is cut into 60 buckets of window/60 each;
// adding events costs O(1), reading the sum costs O(1), and the memory is fixed whatever the rate. The sum
// covers the last `window` to within one bucket (window/60: 5 s of 5 m, 72 min of 3 d), the whole current
// bucket included.
#pragma once

#include <array>
#include <chrono>
#include <cstdint>

namespace gpuwatch::slo {

struct EventCounts {
  double bad = 0;
  double total = 0;
};

class RollingWindow {
 public:
  static constexpr int kBuckets = 60;
  explicit RollingWindow(std::chrono::milliseconds window);

  void add(std::int64_t t_ms, EventCounts events);
  // The sum over (t_ms - window, t_ms]; moves the window to t_ms.
  EventCounts sum(std::int64_t t_ms);
  std::chrono::milliseconds window() const { return window_; }

 private:
  void advance(std::int64_t bucket);

  std::chrono::milliseconds window_;
  std::int64_t width_ms_;
  std::array<EventCounts, kBuckets> buckets_{};
  std::int64_t head_ = -1;  // the bucket number (t_ms / width) of the newest bucket; -1 before the first
  EventCounts sum_{};
};

}  // namespace gpuwatch::slo
