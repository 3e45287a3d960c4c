// Node power contention: several busy GPUs slowing down while the node's GPUs together draw its power budget
// raise one ticket naming them and the total; off by default, under the budget, busy without a drop, one
// GPU alone, cards steady at their own power cap, and a job that ends raise nothing; leaving the budget
// resolves it.
#include <gtest/gtest.h>

#include <functional>
#include <set>

#include "detect_fixture.h"

namespace gpuwatch::detect {
namespace {

using test::Gpu;
using test::names;
using test::snapshot_at;
using V = std::vector<std::string>;

struct Reading {
  double watts = 550, utilization = 0.9, clock_mhz = 1980;
  bool brake = false;  // hw_power_brake_slowdown
  double limit_watts = 700;
};
// What GPU `gpu` reads at second `t`.
using Script = std::function<Reading(unsigned gpu, int t)>;

struct Run {
  std::vector<Condition> last;
  int ticks_with_conditions = 0;
};

// Four GPUs, a snapshot every 5 s from 0 to `end` s.
Run run(Detector& det, int end, const Script& script) {
  Run r;
  for (int t = 0; t <= end; t += 5) {
    std::vector<Gpu> gpus;
    for (unsigned i = 0; i < 4; ++i) {
      const Reading x = script(i, t);
      Gpu g(i);
      g.set(Metric::kPower, x.watts).set(Metric::kUtilization, x.utilization);
      g.set(Metric::kClock, x.clock_mhz * 1e6, "sm");
      g.set(Metric::kClockEventActive, x.brake ? 1 : 0, "hw_power_brake_slowdown");
      g.set(Metric::kPowerLimit, x.limit_watts);
      gpus.push_back(std::move(g));
    }
    r.last = test::evaluate(det, snapshot_at(t * 1000LL, gpus));
    if (!r.last.empty()) ++r.ticks_with_conditions;
  }
  return r;
}

DetectorSettings budget(double watts) {
  DetectorSettings s;
  test::tune(s, "node_contention.power_budget_watts", watts);
  return s;
}

// From 300 s the GPUs in `slowed` draw 620 W each and brake to 1400 MHz; the others draw 620 W at full
// clock. Before, every GPU draws 550 W (2200 W in all) at 1980 MHz.
Script brake_from_300(std::set<unsigned> slowed) {
  return [slowed](unsigned gpu, int t) {
    if (t < 300) return Reading{};
    return Reading{620, 0.88, slowed.contains(gpu) ? 1400.0 : 1980.0};
  };
}

TEST(NodePowerContention, SeveralGpusSlowingAtTheBudgetRaiseATicketNamingThemAndTheTotal) {
  auto det = test::make_detector("node_contention", budget(2400));
  const auto r = run(*det, 600, brake_from_300({0, 1, 2}));
  ASSERT_EQ(names(r.last), (V{"GpuNodePowerContention"}));
  const auto& c = r.last[0];
  EXPECT_EQ(c.severity, Severity::kTicket);
  EXPECT_TRUE(c.labels.empty());  // one alert per node; the engine adds hostname
  EXPECT_EQ(c.for_duration, std::chrono::minutes(3));
  EXPECT_NE(c.summary.find("GPUs 0, 1, 2 slow down"), std::string::npos) << c.summary;
  EXPECT_NE(c.summary.find("at its 2400 W power budget: its GPUs draw 2480 W"), std::string::npos)
      << c.summary;
  EXPECT_NE(c.description.find("GPU 1: SM clock 1980 -> 1400 MHz, utilization 90% -> 88%"), std::string::npos)
      << c.description;
  EXPECT_EQ(c.description.find("GPU 3"), std::string::npos) << c.description;
}

TEST(NodePowerContention, ABrakeOnSeveralGpusAfterTheNodeReachedItsBudgetHoldsThoughThePowerFalls) {
  auto det = test::make_detector("node_contention", budget(2400));
  const auto r = run(*det, 660, [](unsigned gpu, int t) {
    if (t < 300) return Reading{};
    if (t < 360 || gpu >= 2) return Reading{620, 0.9, 1980};
    return Reading{200, 0.9, 594, true};  // braked: 30% clock, the total at 1640 W
  });
  ASSERT_EQ(names(r.last), (V{"GpuNodePowerContention"}));
  EXPECT_NE(r.last[0].summary.find("GPUs 0, 1 slow down"), std::string::npos) << r.last[0].summary;
  EXPECT_NE(r.last[0].summary.find("draw 1640 W together (at most 2480 W)"), std::string::npos)
      << r.last[0].summary;
}

TEST(NodePowerContention, OffByDefault) {
  auto det = test::make_detector("node_contention");
  EXPECT_EQ(run(*det, 600, brake_from_300({0, 1, 2})).ticks_with_conditions, 0);
}

TEST(NodePowerContention, UnderTheBudgetSlowGpusAreNotANodeMatter) {
  auto det = test::make_detector("node_contention", budget(4000));
  EXPECT_EQ(run(*det, 600, brake_from_300({0, 1, 2})).ticks_with_conditions, 0);
}

TEST(NodePowerContention, BusyAtTheBudgetWithoutADropIsQuiet) {
  auto det = test::make_detector("node_contention", budget(2400));
  EXPECT_EQ(run(*det, 600, brake_from_300({})).ticks_with_conditions, 0);
}

TEST(NodePowerContention, OneSlowedGpuAloneIsQuiet) {
  auto det = test::make_detector("node_contention", budget(2400));
  EXPECT_EQ(run(*det, 600, brake_from_300({2})).ticks_with_conditions, 0);
}

TEST(NodePowerContention, CardsSteadyAtTheirOwnPowerCapAreQuiet) {
  // Each card at its own 500 W cap, clocks held lower all along; the node budget is their sum.
  auto det = test::make_detector("node_contention", budget(2000));
  const auto r = run(*det, 900, [](unsigned, int t) {
    return Reading{t < 300 ? 420.0 : 500.0, 0.95, 1650 + (t % 20 == 0 ? 15.0 : 0.0)};
  });
  EXPECT_EQ(r.ticks_with_conditions, 0);
}

TEST(NodePowerContention, CardsThatAGrowingLoadTakesToTheirOwnPowerCapAreQuiet) {
  // From 300 s the load grows; GPUs 0-2 reach their own 600 W cap and clock down by a quarter.
  auto det = test::make_detector("node_contention", budget(2400));
  const auto r = run(*det, 600, [](unsigned gpu, int t) {
    if (gpu == 3) return Reading{620, 0.9, 1980};
    return t < 300 ? Reading{550, 0.9, 1980, false, 600} : Reading{600, 0.98, 1485, false, 600};
  });
  EXPECT_EQ(r.ticks_with_conditions, 0);
}

TEST(NodePowerContention, ANodeManagerLoweringTheCardsLimitsIsContention) {
  // The same slowdown, but the enforced limits fell from 700 W to 600 W: the node capped them.
  auto det = test::make_detector("node_contention", budget(2400));
  const auto r = run(*det, 600, [](unsigned gpu, int t) {
    if (t < 300) return Reading{};
    if (gpu == 3) return Reading{620, 0.9, 1980};
    return t < 360 ? Reading{620, 0.9, 1980} : Reading{600, 0.98, 1485, false, 600};
  });
  ASSERT_EQ(names(r.last), (V{"GpuNodePowerContention"}));
  EXPECT_NE(r.last[0].summary.find("GPUs 0, 1, 2 slow down"), std::string::npos) << r.last[0].summary;
}

TEST(NodePowerContention, ALighterLoadAtFullClockIsQuiet) {
  // Utilization down by a third on three GPUs, clocks at their maximum: less work, not a power limit.
  auto det = test::make_detector("node_contention", budget(2400));
  const auto r = run(*det, 600, [](unsigned gpu, int t) {
    return t < 300 ? Reading{} : Reading{620, gpu < 3 ? 0.6 : 0.9, 1980};
  });
  EXPECT_EQ(r.ticks_with_conditions, 0);
}

TEST(NodePowerContention, JobsThatEndAtTheBudgetAreNotSlowed) {
  // Utilization and clocks fall because the work ended, not because of the budget.
  auto det = test::make_detector("node_contention", budget(2400));
  const auto r = run(*det, 600, [](unsigned, int t) {
    return t < 300 ? Reading{} : Reading{620, 0.02, 900};
  });
  EXPECT_EQ(r.ticks_with_conditions, 0);
}

TEST(NodePowerContention, LeavingTheBudgetResolvesIt) {
  auto det = test::make_detector("node_contention", budget(2400));
  const auto braking = brake_from_300({0, 1});
  ASSERT_EQ(names(run(*det, 600, braking).last), (V{"GpuNodePowerContention"}));
  // The same detector, continuing: from 605 s the total falls to 2000 W.
  std::vector<Gpu> gpus;
  for (unsigned i = 0; i < 4; ++i) {
    Gpu g(i);
    g.set(Metric::kPower, 500).set(Metric::kClock, 1400e6, "sm");
    gpus.push_back(std::move(g));
  }
  EXPECT_TRUE(test::evaluate(*det, snapshot_at(605'000, gpus)).empty());
}

}  // namespace
}  // namespace gpuwatch::detect
