// The noisy neighbour: a newcomer on a GPU whose busy incumbent then loses a third or more of its SM
// utilization raises a ticket naming both; a newcomer that does not hurt, an idle or already falling
// incumbent, two jobs that start together, or a GPU without per-process utilization raise nothing; the
// newcomer's departure resolves it.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <functional>
#include <map>
#include <optional>

#include "detect_fixture.h"

namespace gpuwatch::detect {
namespace {

using test::Gpu;
using test::kGiB;
using test::names;
using test::snapshot_at;
using V = std::vector<std::string>;
using Util = std::function<std::optional<double>(int)>;

constexpr unsigned kIncumbent = 4100, kNewcomer = 5200;

// Deterministic +-2% wobble, as per-process samples give.
double process_wobble(int t) {
  return 0.02 * std::sin(t * 1.3);
}

struct NeighbourRun {
  std::vector<Condition> last;  // the conditions of the last snapshot
  int ticks_with_conditions = 0;
};

// GPU 1 with the incumbent from 0 s and the newcomer from `arrive` s until `leave` s, a snapshot every 5 s.
NeighbourRun run(Detector& det, int from, int end, int arrive, int leave, const Util& incumbent,
                 const Util& newcomer) {
  NeighbourRun r;
  for (int t = from; t <= end; t += 5) {
    Gpu g(1);
    g.process(kIncumbent, "trainer", 60 * kGiB, incumbent(t));
    if (t >= arrive && t < leave) g.process(kNewcomer, "notebook", 20 * kGiB, newcomer(t));
    r.last = test::evaluate(det, snapshot_at(t * 1000LL, {g}));
    if (!r.last.empty()) ++r.ticks_with_conditions;
  }
  return r;
}

Util steady_then(double before, double after, int at) {
  return [=](int t) { return (t < at ? before : after) + process_wobble(t); };
}

Util constant(double v) {
  return [=](int) { return v; };
}

TEST(NoisyNeighbour, AnArrivalThatHalvesTheIncumbentRaisesATicketNamingBoth) {
  auto det = test::make_detector("noisy_neighbour");
  // Without wobble, so the description's figures are exact.
  auto r = run(
      *det, 0, 600, 300, 10000, [](int t) { return t < 300 ? 0.9 : 0.45; }, constant(0.5));
  ASSERT_EQ(names(r.last), (V{"GpuNoisyNeighbour"}));
  const auto& c = r.last[0];
  EXPECT_EQ(c.severity, Severity::kTicket);
  EXPECT_EQ(c.labels, (std::map<std::string, std::string>{
                          {"gpu", "1"}, {"uuid", "GPU-00000001"}, {"pid", "5200"}, {"process", "notebook"}}));
  EXPECT_EQ(c.for_duration, std::chrono::minutes(3));
  EXPECT_NE(c.summary.find("pid 5200 (notebook)"), std::string::npos) << c.summary;
  EXPECT_NE(c.summary.find("pid 4100 (trainer) lost 50% of its SM utilization"), std::string::npos)
      << c.summary;
  EXPECT_NE(c.description.find("ran at 90% SM utilization"), std::string::npos) << c.description;
  EXPECT_NE(c.description.find("at 45% over the last 60 s"), std::string::npos) << c.description;
}

TEST(NoisyNeighbour, ADropBelowTheThresholdIsQuiet) {
  auto det = test::make_detector("noisy_neighbour");
  // 0.9 -> 0.7 is a 22% drop, under the 30% default.
  EXPECT_EQ(run(*det, 0, 900, 300, 10000, steady_then(0.9, 0.7, 300), constant(0.2)).ticks_with_conditions,
            0);
}

TEST(NoisyNeighbour, ANewcomerThatDoesNotHurtIsQuiet) {
  auto det = test::make_detector("noisy_neighbour");
  EXPECT_EQ(run(*det, 0, 900, 300, 10000, steady_then(0.85, 0.85, 300), constant(0.1)).ticks_with_conditions,
            0);
}

TEST(NoisyNeighbour, AnIdleIncumbentIsQuiet) {
  auto det = test::make_detector("noisy_neighbour");
  EXPECT_EQ(run(*det, 0, 900, 300, 10000, steady_then(0.2, 0.02, 300), constant(0.9)).ticks_with_conditions,
            0);
}

TEST(NoisyNeighbour, AnIncumbentAlreadyFallingBeforeTheArrivalIsQuiet) {
  auto det = test::make_detector("noisy_neighbour");
  // Winding down from 0.9 at 120 s to 0.3 at 420 s, whoever arrives at 300 s.
  auto falling = [](int t) { return std::clamp(0.9 - 0.6 * (t - 120) / 300.0, 0.3, 0.9); };
  EXPECT_EQ(run(*det, 0, 900, 300, 10000, falling, constant(0.5)).ticks_with_conditions, 0);
}

TEST(NoisyNeighbour, ADropLongAfterTheArrivalIsNotBlamedOnTheNewcomer) {
  auto det = test::make_detector("noisy_neighbour");
  // The newcomer arrives at 300 s; the incumbent's own phase change comes 40 minutes later.
  EXPECT_EQ(run(*det, 0, 3000, 300, 10000, steady_then(0.9, 0.4, 2700), constant(0.2)).ticks_with_conditions,
            0);
}

TEST(NoisyNeighbour, ADropThatBeganEarlyHoldsPastTheJudgingWindow) {
  auto det = test::make_detector("noisy_neighbour");
  EXPECT_EQ(names(run(*det, 0, 3000, 300, 10000, steady_then(0.9, 0.4, 300), constant(0.5)).last),
            (V{"GpuNoisyNeighbour"}));
}

TEST(NoisyNeighbour, TwoJobsStartingTogetherAreNotNeighbours) {
  auto det = test::make_detector("noisy_neighbour");
  // The "incumbent" is only 5 s older: it has no baseline of its own.
  EXPECT_EQ(run(*det, 295, 900, 300, 10000, constant(0.4), constant(0.5)).ticks_with_conditions, 0);
}

TEST(NoisyNeighbour, WithoutPerProcessUtilizationItStaysSilent) {
  auto det = test::make_detector("noisy_neighbour");
  auto none = [](int) { return std::optional<double>{}; };
  EXPECT_EQ(run(*det, 0, 900, 300, 10000, none, none).ticks_with_conditions, 0);
}

TEST(NoisyNeighbour, TheNewcomersDepartureResolvesIt) {
  auto det = test::make_detector("noisy_neighbour");
  ASSERT_EQ(names(run(*det, 0, 600, 300, 10000, steady_then(0.9, 0.4, 300), constant(0.5)).last),
            (V{"GpuNoisyNeighbour"}));
  // Same detector, later ticks: the newcomer is gone from 605 s and the incumbent recovers.
  auto after = run(*det, 605, 900, 0, 605, steady_then(0.9, 0.9, 0), constant(0.5));
  EXPECT_TRUE(after.last.empty());
  EXPECT_EQ(after.ticks_with_conditions, 0);
}

TEST(NoisyNeighbour, AnIncumbentThatRecoversWhileTheNewcomerStaysClears) {
  auto det = test::make_detector("noisy_neighbour");
  // Hurt from 300 s to 420 s, then back to 0.9 beside the newcomer: the newest minute decides.
  auto dip = [](int t) { return (t >= 300 && t < 420 ? 0.4 : 0.9) + process_wobble(t); };
  auto r = run(*det, 0, 600, 300, 10000, dip, constant(0.1));
  EXPECT_GT(r.ticks_with_conditions, 0);
  EXPECT_TRUE(r.last.empty());
}

}  // namespace
}  // namespace gpuwatch::detect
