// Every detector's tunables with their defaults (documented in docs/detection.md). The agent's option table
// exposes the ones users most often change; the rest stay at these values.
#pragma once

#include <chrono>

namespace gpuwatch::detect {

using std::chrono::milliseconds;
using namespace std::chrono_literals;

struct XidSettings {
  milliseconds hold = 1h;     // an XID alert holds this long after the XID (like increase(...[1h]) > 0)
  unsigned repeat_count = 3;  // application XIDs this often within repeat_window escalate
  milliseconds repeat_window = 10min;
};

struct LostSettings {
  milliseconds stale_for = 30s;  // a hung driver call must last this long before it alerts
};

struct ThrottleSettings {
  milliseconds sw_thermal_for = 5min;  // software thermal slowdown alerts only when sustained
  double temperature_margin_c = 5;     // "near slowdown" = within this many degrees of NVML's threshold
  milliseconds temperature_for = 2min;
};

struct EccSettings {
  unsigned corrected_storm_count = 10;  // corrected errors within storm_window that make a storm
  milliseconds storm_window = 10min;
  unsigned retired_pages_limit = 63;                 // DCGM's fail threshold
  unsigned uncorrectable_remapped_rows_limit = 512;  // DCGM's warn threshold
};

struct PcieSettings {
  milliseconds replay_window = 5min;  // replay rate measured over this window
  double busy_utilization = 0.2;      // a link below its maximum only counts while the GPU is this busy
  milliseconds downtrain_for = 1min;
  milliseconds uncorrectable_hold = 1h;  // an uncorrectable AER error alerts this long
};

struct OomForecastSettings {
  milliseconds horizon = 30min;  // alert when memory is forecast to run out within this
  milliseconds window = 10min;   // least-squares fit over this window of GPU memory used
  milliseconds min_span = 2min;  // no forecast from less history than this
  milliseconds recent = 1min;    // the newest part of the window must forecast the OOM too
  milliseconds for_duration = 3min;
};

struct ProbableOomSettings {
  double full_ratio = 0.95;   // GPU memory used / total at the process's last sample
  milliseconds hold = 15min;  // how long the condition holds after the exit
};

struct LeakSettings {
  milliseconds window = 1h;                        // growth must span this window
  double min_growth_bytes = 1024.0 * 1024 * 1024;  // and add at least this much
  unsigned bins = 6;                               // the window split into bins; the bins' means must rise
  unsigned rising_bins = 5;                        // in at least this many of the bins-1 steps
};

struct IdleSettings {
  milliseconds window = 24h;                 // utilization averaged over this window (kept as 24 bins)
  double utilization_below = 0.2;            // mean utilization under this is idle
  double held_bytes = 1024.0 * 1024 * 1024;  // while processes hold at least this much memory
  double held_fraction = 0.9;                // in at least this fraction of the samples
};

struct NoisyNeighbourSettings {
  milliseconds baseline = 3min;      // the incumbent's mean SM utilization over this window before an arrival
  double busy_utilization = 0.3;     // an incumbent below this before the arrival was idle: never alerts
  double min_drop = 0.3;             // alert when the incumbent's utilization falls by this fraction or more
  milliseconds measure = 1min;       // "after" is its mean over the newest this much since the arrival
  milliseconds for_duration = 3min;  // and the drop must last this long
  milliseconds judge_within =
      30min;  // a drop that begins later than this after the arrival is not blamed on it
};

struct NodeContentionSettings {
  double power_budget_watts = 0;     // the node's budget for all GPUs together (operator's figure); 0 = off
  double at_budget = 0.97;           // a total at or above this fraction of the budget is at it (capped nodes
                                     // hover just under)
  milliseconds baseline = 3min;      // each GPU's normal: its means over this window before the node hit it
  double busy_utilization = 0.3;     // only GPUs this busy before and now count
  double min_drop = 0.15;            // a GPU slowed: its SM clock down by this fraction or more
  milliseconds measure = 1min;       // "now" is the mean over the newest this much
  unsigned min_gpus = 2;             // slowed GPUs needed: one GPU alone is a per-GPU matter
  milliseconds for_duration = 3min;  // sustained
};

struct PcieContentionSettings {
  double at_capacity = 0.8;          // an uplink is full when its GPUs together move this fraction of what it
                                     // carries (packet headers keep real transfers 10-20% under it)
  double min_share = 0.15;           // a GPU takes part when it moves this fraction of the uplink or more
  unsigned min_gpus = 2;             // GPUs taking part needed: one GPU filling the uplink is not a contest
  milliseconds measure = 1min;       // throughput is the mean over the newest this much
  milliseconds baseline = 3min;      // each GPU's normal: its mean over this window before the uplink filled
  double min_drop = 0.2;             // a GPU whose mean fell by this fraction is named as slowed
  milliseconds for_duration = 3min;  // sustained
};

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
};

}  // namespace gpuwatch::detect
