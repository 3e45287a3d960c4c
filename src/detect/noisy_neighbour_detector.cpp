// A noisy neighbour: a process arrives on a GPU another process was already busy on, and from then on the
// incumbent gets markedly less of the GPU. Per-process SM utilization is the measure: the incumbent's mean
// over `baseline` before the arrival ("before") against its mean over the newest `measure` since the arrival
// ("after"). The condition holds while after < before x (1 - min_drop) and the newcomer is still there; the
// alert engine's `for` makes it sustained. No alert when the incumbent was idle (before < busy_utilization)
// or already falling over its baseline window, and none without per-process utilization (NVML does not
// report it on MIG or on some cards): the GPU's own utilization counts both tenants and cannot show it.
// A drop that begins more than judge_within after the arrival is not blamed on it; one that began earlier
// holds while it lasts. The snapshot knows processes by pid and name only (no user or container), so any
// other pid is a tenant.
//   GpuNoisyNeighbour  ticket
#include <fmt/format.h>

#include "detect/detector_table.h"
#include "detect/device_facts.h"
#include "detect/device_window.h"

namespace gpuwatch::detect {
namespace {

// Its settings, each an option detect.noisy_neighbour.<name> (docs/configuration.md).
struct NoisyNeighbourSettings {
  milliseconds baseline = 3min;
  double busy_utilization = 0.3;
  double min_drop = 0.3;
  milliseconds measure = 1min;
  milliseconds for_duration = 3min;
  milliseconds judge_within = 30min;
};

constexpr Tunables<NoisyNeighbourSettings, 6> kNoisyNeighbourTunables = {
    "noisy_neighbour",
    {{
        {"baseline", &NoisyNeighbourSettings::baseline, TunableUnit::kDuration,
         "The incumbent's mean SM utilization over this window before an arrival", 10000},
        {"busy_utilization", &NoisyNeighbourSettings::busy_utilization, TunableUnit::kFraction,
         "An incumbent below this before the arrival was idle: never alerts", 0, 1},
        {"min_drop", &NoisyNeighbourSettings::min_drop, TunableUnit::kFraction,
         "Alert when the incumbent's utilization falls by this fraction or more", 0, 1},
        {"measure", &NoisyNeighbourSettings::measure, TunableUnit::kDuration,
         "\"after\" is its mean over the newest this much since the arrival", 1000},
        {"for_duration", &NoisyNeighbourSettings::for_duration, TunableUnit::kDuration,
         "How long the drop must last before it alerts", 0},
        {"judge_within", &NoisyNeighbourSettings::judge_within, TunableUnit::kDuration,
         "A drop that begins later than this after the arrival is not blamed on it", 60000},
    }}};

// A process on one GPU: when it was first seen and its recent SM utilization.
struct Tenant {
  std::int64_t first_seen_ms = 0;
  std::string name;
  std::optional<unsigned> gpu_instance, compute_instance;  // MIG: only tenants of one instance compete
  ValueWindow utilization;
};

// What an incumbent looked like when a newcomer arrived.
struct Baseline {
  double before = 0;
  std::string name;
};

struct Arrival {
  std::int64_t at_ms = 0;
  std::map<unsigned, Baseline> incumbents;  // by pid: the busy, steady tenants at the arrival
  bool hurting = false;                     // at the last evaluation
};

struct GpuState {
  std::map<unsigned, Tenant> tenants;    // by pid
  std::map<unsigned, Arrival> arrivals;  // by the newcomer's pid, while it runs
};

class NoisyNeighbourDetector final : public Detector {
 public:
  explicit NoisyNeighbourDetector(NoisyNeighbourSettings s) : s_(s) {}

  void evaluate(const DetectionInput& in, std::vector<Condition>& out) override {
    std::map<std::string, GpuState> running;
    for (const auto& d : in.snapshot.devices) {
      auto& gpu = running[d.identity.uuid];
      gpu = std::move(gpus_[d.identity.uuid]);
      if (d.state != DeviceState::kOk) continue;  // keep what we knew of a GPU we cannot read this tick
      update(gpu, d.processes, in.snapshot.timestamp_ms);
      report(gpu, d, in.snapshot.timestamp_ms, out);
    }
    gpus_ = std::move(running);  // GPUs that left are forgotten
  }

 private:
  std::int64_t span_ms() const { return std::max(s_.baseline.count(), s_.measure.count()); }

  void update(GpuState& gpu, const std::vector<ProcessSample>& processes, std::int64_t now) {
    // Arrivals first, so an incumbent's baseline holds only samples from before the newcomer.
    for (const auto& p : processes)
      if (!gpu.tenants.empty() && !gpu.tenants.contains(p.pid)) gpu.arrivals[p.pid] = arrival(gpu, p, now);
    std::map<unsigned, Tenant> tenants;
    for (const auto& p : processes) {
      auto it = gpu.tenants.find(p.pid);
      Tenant t = it == gpu.tenants.end() ? Tenant{now, p.name, p.gpu_instance_id, p.compute_instance_id, {}}
                                         : std::move(it->second);
      if (p.sm_utilization) t.utilization.add(now, *p.sm_utilization, span_ms());
      tenants[p.pid] = std::move(t);
    }
    // A newcomer that left, or that has not hurt anyone within judge_within, is no longer a suspect: a drop
    // that begins long after an arrival has other causes.
    std::erase_if(gpu.arrivals, [&](const auto& a) {
      return !tenants.contains(a.first) ||
             (!a.second.hurting && now - a.second.at_ms > s_.judge_within.count());
    });
    for (auto& [pid, a] : gpu.arrivals)  // an incumbent that left is no longer hurt
      std::erase_if(a.incumbents, [&](const auto& i) { return !tenants.contains(i.first); });
    gpu.tenants = std::move(tenants);
  }

  // The incumbents that were busy and steady over the baseline window before `newcomer` arrived.
  Arrival arrival(const GpuState& gpu, const ProcessSample& newcomer, std::int64_t now) const {
    Arrival a{now, {}};
    const double baseline_ms = static_cast<double>(s_.baseline.count());
    for (const auto& [pid, t] : gpu.tenants) {
      if (t.gpu_instance != newcomer.gpu_instance_id || t.compute_instance != newcomer.compute_instance_id)
        continue;
      const auto& w = t.utilization;
      if (static_cast<double>(w.span_ms()) < 0.9 * baseline_ms) continue;  // too new to know its normal
      const double before = w.mean(now - s_.baseline.count()).value;
      if (before < s_.busy_utilization) continue;  // idle: nothing to lose
      const auto slope = w.slope_per_second(now - s_.baseline.count());
      if (slope && *slope * baseline_ms / 1000.0 < -s_.min_drop / 2 * before) continue;  // already falling
      a.incumbents[pid] = {before, t.name};
    }
    return a;
  }

  void report(GpuState& gpu, const DeviceSnapshot& d, std::int64_t now, std::vector<Condition>& out) {
    for (auto& [pid, a] : gpu.arrivals) {
      // The incumbent hurt most, measured over the newest `measure` since the arrival.
      const Baseline* worst = nullptr;
      unsigned worst_pid = 0;
      double worst_after = 0, worst_ratio = 1;
      for (const auto& [ipid, b] : a.incumbents) {
        const auto& w = gpu.tenants.at(ipid).utilization;
        const auto [after, n] = w.mean(std::max(a.at_ms, now - s_.measure.count()));
        if (n < 2 || after >= b.before * (1 - s_.min_drop)) continue;
        if (const double ratio = after / b.before; !worst || ratio < worst_ratio)
          worst = &b, worst_pid = ipid, worst_after = after, worst_ratio = ratio;
      }
      a.hurting = worst != nullptr;
      if (!worst) continue;
      const auto& newcomer = gpu.tenants.at(pid);
      Labels labels = device_labels(d);
      labels["pid"] = std::to_string(pid);
      if (!newcomer.name.empty()) labels["process"] = newcomer.name;
      out.push_back(
          {"GpuNoisyNeighbour", Severity::kTicket, std::move(labels),
           fmt::format("pid {} ({}) arrived on {} and pid {} ({}) lost {:.0f}% of its SM utilization", pid,
                       newcomer.name, gpu_name(d), worst_pid, worst->name, (1 - worst_ratio) * 100),
           fmt::format("pid {} ({}) ran at {:.0f}% SM utilization over the {:.0f} min before pid {} ({}) "
                       "arrived {:.0f} s ago, and at {:.0f}% over the last {:.0f} s; the newcomer now uses "
                       "{:.0f}%",
                       worst_pid, worst->name, worst->before * 100, s_.baseline.count() / 60000.0, pid,
                       newcomer.name, static_cast<double>(now - a.at_ms) / 1000.0, worst_after * 100,
                       static_cast<double>(std::min(now - a.at_ms, s_.measure.count())) / 1000.0,
                       newcomer.utilization.empty() ? 0 : newcomer.utilization.back().value * 100),
           "tell both owners; move one of the jobs to a GPU of its own, or partition the GPU (MIG, MPS "
           "limits) if the two must share it",
           s_.for_duration});
    }
  }

  NoisyNeighbourSettings s_;
  std::map<std::string, GpuState> gpus_;  // by GPU uuid
};

}  // namespace

DetectorInfo noisy_neighbour_detector() {
  return detector_row<NoisyNeighbourDetector, kNoisyNeighbourTunables>("GpuNoisyNeighbour");
}

}  // namespace gpuwatch::detect
