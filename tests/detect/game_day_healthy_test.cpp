// A healthy 24-hour day full of benign confounders (scenarios/healthy-day-8xh200.yaml): cards at their power
// cap, idle nights, an allocator staircase that plateaus, 90% preallocation, XID 43/45 from a Ctrl-C, a
// process exiting normally at 89% memory, a trickle of corrected ECC errors. Nothing may fire but the
// Watchdog. Snapshots every 30 s of scenario time (2,880 for the day) keep the lockstep run short.
#include <gtest/gtest.h>

#include <iostream>

#include "game_day.h"
#include "sim_support.h"

namespace gpuwatch::detect::test {
namespace {

TEST(HealthyDayGameDay, OnlyTheWatchdogFires) {
  GameDayOptions o;
  o.end_s = 24 * 3600;
  o.step_s = 30;
  const GameDayResult r = run_game_day(gpuwatch::test::scenario_path("healthy-day-8xh200.yaml"), o);
  const Score s = score({}, r);
  for (const auto& [k, t] : r.fired) {
    if (std::get<0>(k) == "Watchdog") continue;
    ADD_FAILURE() << describe(k) << " fired at " << t << " s: " << r.example.at(k).summary << " ("
                  << r.example.at(k).description << ")";
  }
  EXPECT_TRUE(r.fired.contains({"Watchdog", "ticket", ""}));
  std::cout << "healthy day: " << s.false_positives << " false positives over 24 h\n";
}

}  // namespace
}  // namespace gpuwatch::detect::test
