// Node power contention: the GPUs together draw the node's power budget (an operator's figure: NVML knows
// each card's own limit, not the power supply's) and several busy GPUs slow down at once, as a node-level
// power brake or a node power manager capping them does. Each GPU's normal is frozen when the total reaches
// the budget: its mean SM clock and utilization over `baseline` before that moment. While the total stays
// at the budget, a GPU is slowed when it was busy before, is still busy, and its mean SM clock over the
// newest `measure` is down by min_drop or more. Utilization alone is not a sign: a capped GPU stays busy
// (its kernels just run longer), and a lighter load lowers utilization on a healthy day too. The condition
// holds while at least min_gpus GPUs are slowed; it ends when the total leaves the budget, unless a power
// brake on min_gpus GPUs or more is what pulled it down (a brake drops the power far below any budget). A
// card at its own, unchanged power cap never counts, even when a growing load just took it there; one slowed
// GPU alone is a per-GPU matter (throttle, noisy neighbour). Off while the budget is 0 (the default).
//   GpuNodePowerContention  ticket
// Shared PCIe bandwidth is the PCIe contention detector's (pcie_contention_detector.cpp).
#include <fmt/format.h>
#include <fmt/ranges.h>

#include <optional>

#include "detect/detector_table.h"
#include "detect/device_facts.h"
#include "detect/device_window.h"

namespace gpuwatch::detect {
namespace {

// Its settings, each an option detect.node_contention.<name> (docs/configuration.md).
struct NodeContentionSettings {
  double power_budget_watts = 0;
  double at_budget = 0.97;
  milliseconds baseline = 3min;
  double busy_utilization = 0.3;
  double min_drop = 0.15;
  milliseconds measure = 1min;
  unsigned min_gpus = 2;
  milliseconds for_duration = 3min;
};

constexpr Tunables<NodeContentionSettings, 8> kNodeContentionTunables = {
    "node_contention",
    {{
        {"power_budget_watts", &NodeContentionSettings::power_budget_watts, TunableUnit::kWatts,
         "Power the node's supply can give all GPUs together (the operator's figure); alert when they draw "
         "it and slow down; 0 = off",
         0, 1e6, "node_power_budget_watts"},
        {"at_budget", &NodeContentionSettings::at_budget, TunableUnit::kFraction,
         "A total at or above this fraction of the budget is at it (capped nodes hover just under)", 0.5, 1},
        {"baseline", &NodeContentionSettings::baseline, TunableUnit::kDuration,
         "Each GPU's normal: its means over this window before the node hit the budget", 10000},
        {"busy_utilization", &NodeContentionSettings::busy_utilization, TunableUnit::kFraction,
         "Only GPUs this busy before and now count", 0, 1},
        {"min_drop", &NodeContentionSettings::min_drop, TunableUnit::kFraction,
         "A GPU slowed: its SM clock down by this fraction or more", 0, 1},
        {"measure", &NodeContentionSettings::measure, TunableUnit::kDuration,
         "\"now\" is the mean over the newest this much", 1000},
        {"min_gpus", &NodeContentionSettings::min_gpus, TunableUnit::kCount,
         "Slowed GPUs needed: one GPU alone is a per-GPU matter", 1},
        {"for_duration", &NodeContentionSettings::for_duration, TunableUnit::kDuration,
         "How long it must last before it alerts", 0},
    }}};

struct GpuWindows {
  unsigned index = 0;
  ValueWindow clock_hz, utilization;
  double power_w = 0, limit_w = 0;  // at the newest snapshot; limit 0 when NVML does not say
  bool braking = false;
};

struct Normal {
  double clock_hz = 0, utilization = 0, limit_w = 0;
};

// A GPU drawing its own, unchanged power limit is slowed by its own cap (as a load that grows makes it), not
// by the node: node capping lowers the enforced limit, and a brake says so.
bool at_own_cap(const GpuWindows& g, const Normal& normal) {
  return !g.braking && g.limit_w > 0 && g.power_w >= 0.97 * g.limit_w && g.limit_w >= 0.99 * normal.limit_w;
}

// The node at its budget: since when, and each busy GPU's normal just before.
struct Episode {
  std::int64_t since_ms = 0;
  std::map<std::string, Normal> normals;  // by uuid
  double peak_w = 0;                      // the most the GPUs drew together since
};

double drop(double before, double after) {
  return before > 0 ? 1 - after / before : 0;
}

class NodeContentionDetector final : public Detector {
 public:
  explicit NodeContentionDetector(NodeContentionSettings s) : s_(s) {}

  void evaluate(const DetectionInput& in, std::vector<Condition>& out) override {
    if (s_.power_budget_watts <= 0) return;
    const std::int64_t now = in.snapshot.timestamp_ms;
    double total_w = 0;
    unsigned braking = 0;
    std::map<std::string, GpuWindows> seen;
    for (const auto& d : in.snapshot.devices) {
      if (d.identity.is_mig_instance || d.state != DeviceState::kOk) continue;
      auto& g = seen[d.identity.uuid];
      g = std::move(gpus_[d.identity.uuid]);
      g.index = d.identity.index;
      const std::int64_t span = s_.baseline.count() + s_.measure.count();
      if (const Sample* c = d.find(Metric::kClock, "sm")) g.clock_hz.add(now, c->value, span);
      if (const Sample* u = d.find(Metric::kUtilization)) g.utilization.add(now, u->value, span);
      g.power_w = value_or(d, Metric::kPower, 0);
      g.limit_w = value_or(d, Metric::kPowerLimit, 0);
      g.braking = value_or(d, Metric::kClockEventActive, 0, "hw_power_brake_slowdown") > 0;
      total_w += g.power_w;
      if (g.braking) ++braking;
    }
    gpus_ = std::move(seen);  // GPUs that left or cannot be read are forgotten

    // A power brake pulls the total far below the budget at once: the episode it ends lasts while the
    // brake holds on several GPUs.
    const bool at_budget = total_w >= s_.power_budget_watts * s_.at_budget;
    if (!at_budget && !(episode_ && braking >= s_.min_gpus)) {
      episode_.reset();
      return;
    }
    if (!episode_) episode_ = start(now);
    episode_->peak_w = std::max(episode_->peak_w, total_w);
    report(now, total_w, out);
  }

 private:
  Episode start(std::int64_t now) const {
    Episode e{now, {}, 0};
    for (const auto& [uuid, g] : gpus_) {
      if (static_cast<double>(g.utilization.span_ms()) < 0.9 * static_cast<double>(s_.baseline.count()))
        continue;  // too new to know its normal
      const auto util = g.utilization.mean(now - s_.baseline.count(), now);
      const auto clock = g.clock_hz.mean(now - s_.baseline.count(), now);
      if (util.count && util.value >= s_.busy_utilization)
        e.normals[uuid] = {clock.value, util.value, g.limit_w};
    }
    return e;
  }

  void report(std::int64_t now, double total_w, std::vector<Condition>& out) const {
    std::map<unsigned, std::string> slowed;  // by GPU index, so the summary lists them in order
    for (const auto& [uuid, normal] : episode_->normals) {
      const auto it = gpus_.find(uuid);
      if (it == gpus_.end()) continue;
      const auto& g = it->second;
      const std::int64_t from = std::max(episode_->since_ms, now - s_.measure.count());
      const auto util = g.utilization.mean(from, now + 1);
      const auto clock = g.clock_hz.mean(from, now + 1);
      if (util.count < 2 || util.value < s_.busy_utilization) continue;  // idle now: its job ended
      if (clock.count < 2 || drop(normal.clock_hz, clock.value) < s_.min_drop) continue;
      if (at_own_cap(g, normal)) continue;
      slowed[g.index] =
          fmt::format("GPU {}: SM clock {:.0f} -> {:.0f} MHz, utilization {:.0f}% -> {:.0f}%", g.index,
                      normal.clock_hz / 1e6, clock.value / 1e6, normal.utilization * 100, util.value * 100);
    }
    if (slowed.size() < s_.min_gpus) return;
    std::vector<unsigned> indices;
    std::vector<std::string> details;
    for (const auto& [index, detail] : slowed) indices.push_back(index), details.push_back(detail);
    out.push_back(
        {"GpuNodePowerContention",
         Severity::kTicket,
         {},
         fmt::format("GPUs {} slow down with the node at its {:.0f} W power budget: its GPUs draw {:.0f} W "
                     "together (at most {:.0f} W)",
                     fmt::join(indices, ", "), s_.power_budget_watts, total_w, episode_->peak_w),
         fmt::format(
             "the GPUs reached the node's {:.0f} W budget {:.0f} s ago and draw {:.0f} W now; against "
             "each GPU's mean over the {:.0f} min before: {}",
             s_.power_budget_watts, static_cast<double>(now - episode_->since_ms) / 1000.0, total_w,
             s_.baseline.count() / 60000.0, fmt::join(details, "; ")),
         "check the node's power supplies and BMC power capping; lower the GPUs' power limits so their sum "
         "fits the budget, or move work to another node",
         s_.for_duration});
  }

  NodeContentionSettings s_;
  std::map<std::string, GpuWindows> gpus_;  // by uuid
  std::optional<Episode> episode_;          // while the node is at its budget
};

}  // namespace

DetectorInfo node_contention_detector() {
  return detector_row<NodeContentionDetector, kNodeContentionTunables>("GpuNodePowerContention");
}

}  // namespace gpuwatch::detect
