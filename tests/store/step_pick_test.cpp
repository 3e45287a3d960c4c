// Reads for an instant selector (for_each_series_at): whatever points a read leaves out, at every evaluation
// time the newest point at or before it is the same as in a read of all points.
#include <gtest/gtest.h>

#include <algorithm>
#include <optional>
#include <random>

#include "store/step_pick.h"
#include "store/store.h"
#include "temp_dir.h"

namespace gpuwatch::store {
namespace {

using test::TempDir;

std::optional<Point> newest_at(std::span<const Point> points, std::int64_t t) {
  const auto it = std::upper_bound(points.begin(), points.end(), t,
                                   [](std::int64_t x, const Point& p) { return x < p.t_ms; });
  if (it == points.begin()) return std::nullopt;
  return *std::prev(it);
}

// Every time picks the same point from `some` as from `all`, and `some` ascends and holds only points of
// `all`.
void expect_same_picks(std::span<const Point> all, std::span<const Point> some, const EvalTimes& times) {
  EXPECT_TRUE(std::is_sorted(some.begin(), some.end(),
                             [](const Point& a, const Point& b) { return a.t_ms < b.t_ms; }));
  for (const Point& p : some)
    EXPECT_TRUE(std::binary_search(all.begin(), all.end(), p, [](auto& a, auto& b) {
      return a.t_ms < b.t_ms;
    })) << p.t_ms;
  for (std::size_t k = 0; k < times.count; ++k) {
    const std::int64_t t = times.first_ms + static_cast<std::int64_t>(k) * times.step_ms;
    ASSERT_EQ(newest_at(all, t), newest_at(some, t)) << "time " << t;
  }
}

std::vector<Point> jittered(std::mt19937& rng, std::int64_t from, std::size_t n) {
  std::uniform_int_distribution<std::int64_t> gap(1, 2'000);  // reads land ms to seconds apart
  std::vector<Point> points;
  std::int64_t t = from;
  for (std::size_t i = 0; i < n; ++i) {
    t += gap(rng);
    points.push_back({t, static_cast<double>(i)});
  }
  return points;
}

TEST(StepPick, KeepsWhatEveryTimePicksAndTheLastPoint) {
  std::mt19937 rng(7);
  for (int round = 0; round < 200; ++round) {
    const auto points = jittered(rng, 10'000, 1 + rng() % 500);
    const EvalTimes times{static_cast<std::int64_t>(rng() % 20'000),
                          1 + static_cast<std::int64_t>(rng() % 9'000), rng() % 400};
    std::vector<Point> picked;
    append_picked(points, times, picked);
    ASSERT_FALSE(picked.empty());
    EXPECT_EQ(picked.back(), points.back());
    expect_same_picks(points, picked, times);
  }
}

TEST(StepPick, AStepFinerThanTheSamplesKeepsEveryPointOnce) {
  const std::vector<Point> points{{1000, 1}, {2000, 2}, {3000, 3}};
  std::vector<Point> picked;
  append_picked(points, EvalTimes{0, 10, 1000}, picked);
  EXPECT_EQ(picked, points);
}

TEST(StepPick, OneStepInSixtyCopiesOnePointInSixty) {
  std::vector<Point> points;
  for (int i = 0; i < 3600; ++i) points.push_back({1000LL * i, static_cast<double>(i)});
  std::vector<Point> picked;
  append_picked(points, EvalTimes{0, 60'000, 60}, picked);
  ASSERT_EQ(picked.size(), 61u);  // 0 s, 60 s, ... 3540 s, and the last point (3599 s)
  EXPECT_EQ(picked[1], (Point{60'000, 60}));
  EXPECT_EQ(picked.back(), (Point{3'599'000, 3599}));
}

TEST(StoreReadAt, PicksTheSamePointsAsAFullReadAcrossSealedAndHeadBlocks) {
  TempDir dir;
  StoreOptions o;
  o.data_dir = dir.path();
  o.background_flusher = false;
  o.block_window_ms = 60'000;
  o.block_max_samples = 50;
  auto store = Store::open(o);
  std::mt19937 rng(11);
  const Labels labels{{"__name__", "gpu_power_watts"}, {"gpu", "0"}};
  auto points = jittered(rng, 0, 3000);
  // A gap of ten minutes: times in it pick the last point before it, from another block.
  for (std::size_t i = 1500; i < points.size(); ++i) points[i].t_ms += 600'000;
  for (std::size_t i = 0; i < 2500; ++i)
    ASSERT_EQ(store->append(labels, points[i].t_ms, points[i].value), "");
  store->maintain();  // seals what the windows cut; the rest stays in the head
  for (std::size_t i = 2500; i < points.size(); ++i)
    ASSERT_EQ(store->append(labels, points[i].t_ms, points[i].value), "");
  ASSERT_GT(store->health().blocks_sealed, 10u);
  const std::vector<LabelMatcher> m{{"__name__", LabelMatcher::Op::kEqual, "gpu_power_watts"}};
  for (const std::int64_t step : {1'000, 15'000, 60'000, 300'000}) {
    for (int twice = 0; twice < 2; ++twice) {  // decoded, then from the cache
      const EvalTimes times{200'000, step, static_cast<std::size_t>(3'000'000 / step)};
      const std::int64_t min_t = times.first_ms - 300'000;
      const std::int64_t max_t = times.first_ms + static_cast<std::int64_t>(times.count - 1) * step;
      std::vector<Point> all;
      store->for_each_series(
          m, min_t, max_t, [&](const Labels&, std::span<const Point> p) { all.assign(p.begin(), p.end()); });
      std::vector<Point> some;
      std::size_t calls = 0;
      store->for_each_series_at(
          m, min_t, max_t, times,
          [&](const Labels& l, std::span<const Point> p) {
            ++calls;
            EXPECT_EQ(l, labels);
            some.assign(p.begin(), p.end());
          },
          [] {});
      ASSERT_EQ(calls, 1u);
      ASSERT_FALSE(all.empty());
      if (step >= 60'000) {
        EXPECT_LT(some.size(), all.size() / 2) << "step " << step;
      }
      expect_same_picks(all, some, times);
    }
  }
}

}  // namespace
}  // namespace gpuwatch::store
