// Every detector's settings together (what the agent's options hold and the DetectorSet is built from), and
// the list of all their tunables that the option table turns into detect.<detector>.<tunable> options. Each
// detector's own struct and tunables live in its <detector>_settings.h; this file only gathers them.
#pragma once

#include <functional>
#include <span>
#include <string>
#include <string_view>

#include "rules/ecc_settings.h"
#include "rules/fabric_settings.h"
#include "rules/idle_settings.h"
#include "rules/leak_settings.h"
#include "rules/lost_settings.h"
#include "rules/node_contention_settings.h"
#include "rules/noisy_neighbour_settings.h"
#include "rules/oom_forecast_settings.h"
#include "rules/pcie_contention_settings.h"
#include "rules/pcie_settings.h"
#include "rules/probable_oom_settings.h"
#include "rules/throttle_settings.h"
#include "rules/xid_settings.h"

namespace gpuwatch::rules {

struct DetectorSettings {
  XidSettings xid;
  LostSettings lost;
  ThrottleSettings throttle;
  EccSettings ecc;
  PcieSettings pcie;
  OomForecastSettings oom_forecast;
  ProbableOomSettings probable_oom;
  LeakSettings leak;
  IdleSettings idle;
  NoisyNeighbourSettings noisy_neighbour;
  NodeContentionSettings node_contention;
  PcieContentionSettings pcie_contention;
  FabricSettings fabric;
};

// One tunable of one detector, read and written as a number in its unit's base (milliseconds, bytes, watts,
// degrees, a fraction, a count).
struct Tunable {
  std::string_view detector;  // as in the detector table: "xid", "memory_leak", ...
  std::string_view name;
  std::string_view option_key;  // "" = detect.<detector>.<name>
  TunableUnit unit;
  std::string_view help;
  double min;
  double max;
  std::function<double(const DetectorSettings&)> get;
  std::function<void(DetectorSettings&, double)> set;

  std::string key() const;  // the option's name
};

// Every detector's tunables, detector by detector, each in the order its settings file lists them.
std::span<const Tunable> detector_tunables();

}  // namespace gpuwatch::rules
