#include "slo/rolling_window.h"

#include <algorithm>

namespace gpuwatch::slo {

RollingWindow::RollingWindow(std::chrono::milliseconds window)
    : window_(window), width_ms_(std::max<std::int64_t>(1, window.count() / kBuckets)) {}

void RollingWindow::advance(std::int64_t bucket) {
  if (head_ < 0) {
    head_ = bucket;
    return;
  }
  if (bucket <= head_) return;  // late events land in the newest bucket: time never runs back here
  const std::int64_t steps = std::min<std::int64_t>(bucket - head_, kBuckets);
  for (std::int64_t i = 1; i <= steps; ++i) {
    auto& b = buckets_[static_cast<std::size_t>((head_ + i) % kBuckets)];
    sum_.bad -= b.bad;
    sum_.total -= b.total;
    b = {};
  }
  if (steps == kBuckets) sum_ = {};  // everything left the window: drop the rounding too
  head_ = bucket;
}

void RollingWindow::add(std::int64_t t_ms, EventCounts events) {
  advance(t_ms / width_ms_);
  auto& b = buckets_[static_cast<std::size_t>(head_ % kBuckets)];
  b.bad += events.bad;
  b.total += events.total;
  sum_.bad += events.bad;
  sum_.total += events.total;
}

EventCounts RollingWindow::sum(std::int64_t t_ms) {
  advance(t_ms / width_ms_);
  return {std::max(0.0, sum_.bad), std::max(0.0, sum_.total)};
}

}  // namespace gpuwatch::slo
