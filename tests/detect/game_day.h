// A game day: a scenario run through the real collector on libnvml-sim in lockstep, with the simulator
// writing the kernel log, /proc and /sys trees the agent reads, and every snapshot evaluated by Detection
// (the sources and the DetectorSet, as the agent runs them). Conditions become
// "fired" once they have held for their for_duration, as the alert engine would fire them.
#pragma once

#include <map>
#include <set>
#include <string>
#include <tuple>
#include <vector>

#include "core/snapshot.h"
#include "detect/detector_set.h"

namespace gpuwatch::detect::test {

// What identifies an alert in the suite: name, severity ("page"/"ticket") and GPU index ("" for none).
using AlertKey = std::tuple<std::string, std::string, std::string>;

struct GameDayResult {
  std::map<AlertKey, double> fired;       // first scenario second each alert fired
  std::map<AlertKey, Condition> example;  // the condition as it fired
  std::vector<double> node_power_w;       // the GPUs' total power draw at each snapshot
  std::set<AlertKey> firing_at_end;       // the alerts firing after the last snapshot
  SnapshotPtr last_snapshot;              // what the collector read last
};

struct GameDayOptions {
  double end_s = 600;
  double step_s = 5;       // scenario seconds between snapshots
  double drain_s = 0;      // scenario seconds read after end_s, unjudged, so that hangs end before teardown
  bool read_sysfs = true;  // the simulator's /sys tree (PCIe topology) as --sysfs-root
  DetectorSettings settings;
};

// Runs the scenario file; the caller keeps the test alive (throws on setup failures).
GameDayResult run_game_day(const std::string& scenario_path, const GameDayOptions& options);

struct Score {
  std::size_t true_positives = 0, false_positives = 0, false_negatives = 0;
  double precision() const;
  double recall() const;
};

// Watchdog is left out: it always fires by design.
Score score(const std::set<AlertKey>& expected, const GameDayResult& result);
std::string describe(const AlertKey& k);

}  // namespace gpuwatch::detect::test
