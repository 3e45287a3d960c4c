// GPU memory: the time-to-OOM forecast (a growing GPU alerts, flat preallocation and a finished warm-up do
// not), the probable OOM on an exit at a full GPU (a normal exit at 90% is quiet), and the long-window leak
// (a steady leak and a staircase alert, a plateauing warm-up does not).
#include <gtest/gtest.h>

#include <cmath>

#include "detect_fixture.h"

namespace gpuwatch::detect {
namespace {

using test::Gpu;
using test::kGiB;
using test::names;
using test::snapshot_at;
using V = std::vector<std::string>;

// Deterministic +-0.25 GiB wobble, as allocators and the simulator's noise give.
double wobble(int i) {
  return 0.25 * kGiB * std::sin(i * 1.7);
}

std::vector<Condition> run_memory(Detector& det, int seconds, int step,
                                  const std::function<double(int)>& used) {
  std::vector<Condition> cs;
  for (int t = 0; t <= seconds; t += step) {
    Gpu g(1);
    g.set(Metric::kMemoryUsed, used(t)).process(61001, "python3", used(t) - 1 * kGiB);
    cs = test::evaluate(det, snapshot_at(t * 1000LL, {g}));
  }
  return cs;
}

TEST(OomForecast, GrowthThatFillsTheGpuWithinTheHorizonPages) {
  auto det = test::make_detector("oom_forecast");
  // 90 GiB growing 40 MiB/s: 51 GiB left, about 22 minutes.
  auto cs = run_memory(*det, 180, 1, [](int t) { return 90 * kGiB + t * 40.0 * 1024 * 1024 + wobble(t); });
  ASSERT_EQ(names(cs), (V{"GpuMemoryExhaustionForecast"}));
  EXPECT_EQ(cs[0].severity, Severity::kPage);
  EXPECT_EQ(cs[0].labels.at("pid"), "61001");
  EXPECT_EQ(cs[0].labels.at("process"), "python3");
  EXPECT_EQ(cs[0].for_duration, std::chrono::minutes(3));
  EXPECT_NE(cs[0].summary.find("in 19 min"), std::string::npos) << cs[0].summary;
}

TEST(OomForecast, SlowGrowthBeyondTheHorizonIsQuiet) {
  auto det = test::make_detector("oom_forecast");
  // 4 MiB/s: over three hours to fill.
  EXPECT_TRUE(run_memory(*det, 600, 5, [](int t) { return 90 * kGiB + t * 4.0 * 1024 * 1024; }).empty());
}

TEST(OomForecast, FlatPreallocationAtNinetyPercentIsQuiet) {
  auto det = test::make_detector("oom_forecast");
  EXPECT_TRUE(run_memory(*det, 1800, 5, [](int t) { return 0.9 * 141 * kGiB + wobble(t); }).empty());
}

TEST(OomForecast, AWarmUpThatStoppedIsQuiet) {
  auto det = test::make_detector("oom_forecast");
  // 4 -> 120 GiB over the first minute, then flat: after the ramp the 10-minute fit still rises, but the
  // newest minute does not.
  auto used = [](int t) { return (t < 60 ? 4 + 116.0 * t / 60 : 120) * kGiB + wobble(t); };
  for (int end : {150, 300, 600}) {
    auto fresh = test::make_detector("oom_forecast");
    EXPECT_TRUE(run_memory(*fresh, end, 1, used).empty()) << "at " << end << " s";
  }
}

TEST(ProbableOom, AnExitAtAFullGpuIsAProbableOomANormalExitIsNot) {
  auto det = test::make_detector("probable_oom");
  Gpu full(1), ninety(2);
  full.set(Metric::kMemoryUsed, 140.5 * kGiB).process(61001, "python3", 139 * kGiB);
  ninety.set(Metric::kMemoryUsed, 127 * kGiB).process(7000, "trainer", 126 * kGiB);
  EXPECT_TRUE(test::evaluate(*det, snapshot_at(1000, {full, ninety})).empty());
  Gpu full_after(1), ninety_after(2);
  full_after.set(Metric::kMemoryUsed, 1 * kGiB);
  ninety_after.set(Metric::kMemoryUsed, 1 * kGiB);
  auto cs = test::evaluate(*det, snapshot_at(2000, {full_after, ninety_after}));
  ASSERT_EQ(names(cs), (V{"GpuProcessProbableOom"}));
  EXPECT_EQ(cs[0].labels.at("gpu"), "1");
  EXPECT_EQ(cs[0].labels.at("pid"), "61001");
  EXPECT_EQ(cs[0].labels.at("process"), "python3");
  EXPECT_NE(cs[0].summary.find("probably"), std::string::npos);
  EXPECT_NE(cs[0].description.find("99.6% full"), std::string::npos) << cs[0].description;
  // Held for 15 minutes, then gone.
  EXPECT_EQ(test::evaluate(*det, snapshot_at(14 * 60000, {full_after, ninety_after})).size(), 1U);
  EXPECT_TRUE(test::evaluate(*det, snapshot_at(16 * 60000, {full_after, ninety_after})).empty());
}

TEST(ProbableOom, ProcessesOfALostGpuAreNotOoms) {
  auto det = test::make_detector("probable_oom");
  Gpu full(3);
  full.set(Metric::kMemoryUsed, 140.5 * kGiB).process(61003, "python3", 139 * kGiB);
  test::evaluate(*det, snapshot_at(1000, {full}));
  Gpu lost(3);
  lost.state(DeviceState::kLost);
  EXPECT_TRUE(test::evaluate(*det, snapshot_at(2000, {lost})).empty());
}

std::vector<Condition> run_process(Detector& det, int minutes,
                                   const std::function<double(int)>& bytes_at_second, int every_s = 30) {
  std::vector<Condition> cs;
  for (int t = 0; t <= minutes * 60; t += every_s) {
    Gpu g(0);
    g.process(5000, "server", bytes_at_second(t));
    cs = test::evaluate(det, snapshot_at(t * 1000LL, {g}));
  }
  return cs;
}

TEST(MemoryLeak, SteadyGrowthOverTheWindowTickets) {
  auto det = test::make_detector("memory_leak");
  auto cs = run_process(*det, 70, [](int t) { return 20 * kGiB + t * 1.0 * 1024 * 1024 + wobble(t); });
  ASSERT_EQ(names(cs), (V{"GpuProcessMemoryLeak"}));
  EXPECT_EQ(cs[0].labels.at("pid"), "5000");
  EXPECT_EQ(cs[0].severity, Severity::kTicket);
}

TEST(MemoryLeak, AStaircaseOfModelReloadsTickets) {
  auto det = test::make_detector("memory_leak");
  // +6 GiB every 8 minutes (a model loaded without freeing the old one).
  auto cs = run_process(*det, 70, [](int t) { return (20 + 6.0 * (t / 480)) * kGiB + wobble(t); });
  EXPECT_EQ(names(cs), (V{"GpuProcessMemoryLeak"}));
}

TEST(MemoryLeak, AWarmUpThatPlateausIsNotALeak) {
  auto det = test::make_detector("memory_leak");
  // Allocator staircase for the first 20 minutes (caches filling), then flat for hours.
  auto used = [](int t) { return (30 + 4.0 * std::min(t / 300, 4)) * kGiB + wobble(t); };
  for (int minutes : {60, 80, 180}) {
    auto fresh = test::make_detector("memory_leak");
    EXPECT_TRUE(run_process(*fresh, minutes, used).empty()) << minutes << " min";
  }
}

TEST(MemoryLeak, ReadingsEverySecondDecideAsReadingsEveryHalfMinute) {
  // The window keeps a mean every 10 s of readings a second apart; the decisions stay those of the tests
  // above.
  auto growth = [](int t) { return 20 * kGiB + t * 1.0 * 1024 * 1024 + wobble(t); };
  auto leak = test::make_detector("memory_leak");
  EXPECT_EQ(names(run_process(*leak, 70, growth, 1)), (V{"GpuProcessMemoryLeak"}));
  auto plateau = [](int t) { return (30 + 4.0 * std::min(t / 300, 4)) * kGiB + wobble(t); };
  auto warm_up = test::make_detector("memory_leak");
  EXPECT_TRUE(run_process(*warm_up, 80, plateau, 1).empty());
  // 2 GiB up over the hour under a spike every 10 s: the window's means follow the readings, not the first of
  // each 10 s.
  auto spikes = [](int t) { return (t % 10 == 0 ? 60.0 : 20.0 + 2.0 * t / 3600) * kGiB; };
  auto spiky = test::make_detector("memory_leak");
  EXPECT_EQ(names(run_process(*spiky, 70, spikes, 1)), (V{"GpuProcessMemoryLeak"}));
}

}  // namespace
}  // namespace gpuwatch::detect

namespace gpuwatch::detect {
namespace {

// A day of snapshots every 5 minutes; utilization and held memory per hour of the day.
std::vector<Condition> run_day(Detector& det, const std::function<double(int)>& util_at_hour,
                               const std::function<double(int)>& held_at_hour) {
  std::vector<Condition> cs;
  for (int minute = 0; minute <= 25 * 60; minute += 5) {
    test::Gpu g(7);
    const int hour = (minute / 60) % 24;
    g.set(Metric::kUtilization, util_at_hour(hour));
    if (held_at_hour(hour) > 0) g.process(9000, "jupyter", held_at_hour(hour));
    cs = test::evaluate(det, test::snapshot_at(minute * 60000LL, {g}));
  }
  return cs;
}

TEST(IdleWaste, AGpuHeldAllDayAtFivePercentTickets) {
  auto det = test::make_detector("idle_waste");
  auto cs = run_day(
      *det, [](int) { return 0.05; }, [](int) { return 8 * test::kGiB; });
  ASSERT_EQ(test::names(cs), (std::vector<std::string>{"GpuIdleWaste"}));
  EXPECT_EQ(cs[0].severity, Severity::kTicket);
  EXPECT_NE(cs[0].description.find("mean utilization 5%"), std::string::npos) << cs[0].description;
}

TEST(IdleWaste, IdleNightsOnABusyDayAndAFreeGpuAreNotWaste) {
  auto nights = test::make_detector("idle_waste");
  EXPECT_TRUE(
      run_day(
          *nights, [](int h) { return h >= 8 && h < 20 ? 0.9 : 0.0; }, [](int) { return 120 * test::kGiB; })
          .empty());
  auto free_gpu = test::make_detector("idle_waste");
  EXPECT_TRUE(run_day(
                  *free_gpu, [](int) { return 0.0; }, [](int) { return 0.0; })
                  .empty());
}

}  // namespace
}  // namespace gpuwatch::detect
