#include "store/step_pick.h"

#include <algorithm>
#include <cstdint>

namespace gpuwatch::store {

void append_picked(std::span<const Point> points, const EvalTimes& times, std::vector<Point>& out) {
  if (points.empty()) return;
  if (times.step_ms <= 0) {
    out.insert(out.end(), points.begin(), points.end());
    return;
  }
  const std::int64_t first_t = points.front().t_ms;
  const std::int64_t last_t = points.back().t_ms;
  // The first time at or after the block's first point: earlier ones pick from an earlier block.
  std::uint64_t k = 0;
  if (first_t > times.first_ms) {
    const auto ahead = static_cast<std::uint64_t>(first_t) - static_cast<std::uint64_t>(times.first_ms);
    const auto step = static_cast<std::uint64_t>(times.step_ms);
    k = (ahead + step - 1) / step;
  }
  const std::size_t n = points.size();
  // Points per millisecond, less one point so that a guess is at or before the pick for regular reads.
  const double spacing = n > 1 ? static_cast<double>(n - 1) / static_cast<double>(last_t - first_t) : 0.0;
  std::size_t from = 0;  // one past the last pick
  const Point* taken = nullptr;
  for (; k < times.count; ++k) {
    const auto t = static_cast<std::int64_t>(static_cast<std::uint64_t>(times.first_ms) +
                                             k * static_cast<std::uint64_t>(times.step_ms));
    if (t >= last_t) break;  // this and every later time pick the last point, appended below
    // Guessed from the block's mean spacing, then walked to: regular reads land on it or next to it. The
    // guesses do not depend on each other's loads, so their cache misses overlap (walking from pick to pick
    // waited out one miss after another: the block's points are rarely in the CPU's cache).
    const auto guess = static_cast<std::size_t>(static_cast<double>(t - first_t) * spacing);
    const std::size_t floor = from > 0 ? from - 1 : 0;  // at or before t: the last pick, or the first point
    std::size_t at = std::clamp(guess, floor, n - 1);
    // A few moves settle regular reads; bursts and gaps fall back to a binary search.
    constexpr int kMoves = 8;
    int moves = 0;
    while (at > floor && points[at].t_ms > t && ++moves < kMoves) --at;
    while (at + 1 < n && points[at + 1].t_ms <= t && ++moves < kMoves) ++at;
    if (moves >= kMoves) {
      const auto next = std::upper_bound(points.begin() + static_cast<std::ptrdiff_t>(floor), points.end(), t,
                                         [](std::int64_t x, const Point& p) { return x < p.t_ms; });
      at = static_cast<std::size_t>(next - points.begin()) - 1;
    }
    from = at + 1;
    const Point* picked = &points[at];
    if (picked != taken) {
      out.push_back(*picked);
      taken = picked;
    }
  }
  if (taken != &points.back()) out.push_back(points.back());
}

}  // namespace gpuwatch::store
