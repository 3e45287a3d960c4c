// Randomized game days: from a seed, pick a fault (which one, which GPU, when, how strong), write a two-GPU
// scenario with it, run it through the collector and the detectors, and compare the alerts that fired with
// those the injected fault implies. Some draws are benign (a power cap without brake, XID 43, a trickle of
// replays or corrected errors, a slow leak): they must raise nothing. Prints precision and recall.
#include <gtest/gtest.h>

#include <fstream>
#include <functional>
#include <iostream>
#include <random>

#include "game_day.h"
#include "sim_support.h"

namespace gpuwatch::detect::test {
namespace {

struct Injected {
  std::string fault;  // the YAML of one fault entry
  std::set<AlertKey> expected;
  std::string what;
};

using Draw = std::function<Injected(std::mt19937&, const std::string& gpu, int at)>;

template <typename T>
T pick(std::mt19937& rng, std::initializer_list<T> options) {
  std::uniform_int_distribution<std::size_t> d(0, options.size() - 1);
  return *(options.begin() + d(rng));
}

std::string at_gpu(const std::string& type, const std::string& gpu, int at) {
  return "{type: " + type + ", gpu: " + gpu + ", at: " + std::to_string(at) + "s";
}

// Each draw: the fault, and the alerts it must raise on its GPU (by the rules in docs/detection.md).
const std::vector<Draw>& draws() {
  static const std::vector<Draw> kDraws = {
      [](std::mt19937&, const std::string& g, int at) {
        return Injected{
            at_gpu("thermal_throttle", g, at) + "}", {{"GpuThermalSlowdown", "page", g}}, "thermal"};
      },
      [](std::mt19937&, const std::string& g, int at) {
        return Injected{at_gpu("fall_off_bus", g, at) + "}",
                        {{"GpuLost", "page", g}, {"GpuXidCritical", "page", g}},
                        "off the bus"};
      },
      [](std::mt19937&, const std::string& g, int at) {
        return Injected{at_gpu("ecc_dbe", g, at) + "}",
                        {{"GpuEccUncorrectable", "page", g},
                         {"GpuXidCritical", "page", g},
                         {"GpuMemoryRepairPending", "ticket", g}},
                        "double-bit ECC"};
      },
      [](std::mt19937& rng, const std::string& g, int at) {
        const bool brake = pick(rng, {true, false});
        const int limit = pick(rng, {300, 400, 500});
        std::set<AlertKey> e;
        if (brake) e.insert({"GpuPowerBrake", "page", g});
        return Injected{at_gpu("power_cap", g, at) + ", limit: " + std::to_string(limit) +
                            "W, brake: " + (brake ? "true" : "false") + "}",
                        e, brake ? "power brake" : "power cap (benign)"};
      },
      [](std::mt19937& rng, const std::string& g, int at) {
        const int width = pick(rng, {4, 8});
        return Injected{at_gpu("link_downtrain", g, at) + ", width: " + std::to_string(width) + "}",
                        {{"GpuPcieLinkDegraded", "ticket", g}},
                        "downtrain"};
      },
      [](std::mt19937& rng, const std::string& g, int at) {
        // Gen5 x16 allows 30.72 replays a minute: 0.2/s and 0.3/s are within it, 1..4/s are not.
        const double rate = pick(rng, {0.2, 0.3, 1.0, 2.0, 4.0});
        std::set<AlertKey> e;
        if (rate * 60 > 30.72) e.insert({"GpuPcieReplayRate", "ticket", g});
        return Injected{
            at_gpu("pcie_replays", g, at) + ", rate: " + std::to_string(static_cast<int>(rate * 60)) + "/m}",
            e, "replays"};
      },
      [](std::mt19937& rng, const std::string& g, int at) {
        const unsigned code = pick(rng, {13U, 31U, 43U, 74U, 95U, 119U, 140U});
        std::set<AlertKey> e;
        if (code == 13 || code == 31) e.insert({"GpuXidApplication", "ticket", g});
        if (code >= 74) e.insert({"GpuXidCritical", "page", g});
        return Injected{at_gpu("xid", g, at) + ", code: " + std::to_string(code) + "}", e,
                        "xid " + std::to_string(code)};
      },
      [](std::mt19937& rng, const std::string& g, int at) {
        const int seconds = pick(rng, {60, 90, 120});
        return Injected{at_gpu("hung_call", g, at) + ", duration: " + std::to_string(seconds) + "s}",
                        {{"GpuStale", "page", g}},
                        "hang"};
      },
      [](std::mt19937& rng, const std::string& g, int at) {
        const int per_hour = pick(rng, {2, 360});  // a trickle, or a storm of 6 a minute
        std::set<AlertKey> e;
        if (per_hour > 60) e.insert({"GpuEccCorrectedStorm", "ticket", g});
        return Injected{at_gpu("ecc_sbe", g, at) + ", rate: " + std::to_string(per_hour) + "/h}", e,
                        "corrected ECC"};
      },
      [](std::mt19937& rng, const std::string& g, int at) {
        // 56 GiB free: 8 MiB/s takes two hours to fill it, 64 MiB/s fifteen minutes.
        const int mib = pick(rng, {8, 64});
        std::set<AlertKey> e;
        if (mib > 32) e.insert({"GpuMemoryExhaustionForecast", "page", g});
        return Injected{at_gpu("memory_leak", g, at) + ", pid: " + std::to_string(7000 + std::stoi(g)) +
                            ", rate: " + std::to_string(mib) + "MiB/s}",
                        e, "leak"};
      },
  };
  return kDraws;
}

std::string scenario_yaml(unsigned seed, const std::string& fault) {
  std::string y =
      "node: {seed: " + std::to_string(seed) + ", mode: lockstep}\ndevices:\n  - {model: H200, count: 2}\n";
  y += "processes:\n";
  for (int g = 0; g < 2; ++g)
    y += "  - {pid: " + std::to_string(7000 + g) + ", gpu: " + std::to_string(g) +
         ", name: python3, memory: {value: 85GiB, noise: 128MiB}, sm_util: {value: 80, noise: 5}}\n";
  return y + "faults:\n  - " + fault + "\n";
}

TEST(RandomGameDays, AlertsFollowFromWhatWasInjected) {
  constexpr unsigned kSeed = 20250301;
  constexpr int kScenarios = 20;
  std::mt19937 rng(kSeed);
  gpuwatch::test::TempDir dir;
  Score total;
  for (int i = 0; i < kScenarios; ++i) {
    const auto& draw = draws()[std::uniform_int_distribution<std::size_t>(0, draws().size() - 1)(rng)];
    const std::string gpu = std::to_string(std::uniform_int_distribution<int>(0, 1)(rng));
    const int at = std::uniform_int_distribution<int>(60, 180)(rng);
    const Injected inj = draw(rng, gpu, at);
    const std::string path = dir.path() + "/random-" + std::to_string(i) + ".yaml";
    std::ofstream(path) << scenario_yaml(kSeed + i, inj.fault);
    SCOPED_TRACE("scenario " + std::to_string(i) + " (" + inj.what + "): " + inj.fault);
    GameDayOptions o;
    o.end_s = at + 300;
    const GameDayResult r = run_game_day(path, o);
    const Score s = score(inj.expected, r);
    std::cout << "  " << i << ": " << inj.what << " on GPU " << gpu << " at " << at << " s -> "
              << inj.expected.size() << " alert(s) expected, " << s.true_positives << " fired as expected, "
              << s.false_positives << " unexpected\n";
    for (const auto& [k, t] : r.fired) {
      if (std::get<0>(k) != "Watchdog") {
        EXPECT_TRUE(inj.expected.contains(k)) << "unexpected " << describe(k);
      }
    }
    for (const auto& k : inj.expected) EXPECT_TRUE(r.fired.contains(k)) << "missed " << describe(k);
    total.true_positives += s.true_positives;
    total.false_positives += s.false_positives;
    total.false_negatives += s.false_negatives;
  }
  std::cout << "random game days (seed " << kSeed << ", " << kScenarios << " scenarios): precision "
            << total.precision() << " recall " << total.recall() << " (" << total.true_positives << " true, "
            << total.false_positives << " false positives, " << total.false_negatives << " missed)\n";
}

}  // namespace
}  // namespace gpuwatch::detect::test
