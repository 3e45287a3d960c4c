// A GPU held but barely used: mean utilization under utilization_below over a long window (default a day)
// while processes hold memory on it nearly all that time (the seed's rule: under 20% means the GPU is not
// worth its cost). Idle nights on a GPU busy by day average out; a GPU nobody holds is free, not wasted.
//   GpuIdleWaste  ticket  a daily digest item, never a page
// The window is kept as 24 bins of sums, so a day of 1-second samples costs a few hundred bytes per GPU.
#include <fmt/format.h>

#include <deque>

#include "detect/detector_table.h"
#include "detect/device_facts.h"

namespace gpuwatch::detect {
namespace {

// Its settings, each an option detect.idle_waste.<name> (docs/configuration.md).
struct IdleSettings {
  milliseconds window = 24h;
  double utilization_below = 0.2;
  double held_bytes = 1024.0 * 1024 * 1024;
  double held_fraction = 0.9;
};

constexpr Tunables<IdleSettings, 4> kIdleTunables = {
    "idle_waste",
    {{
        {"window", &IdleSettings::window, TunableUnit::kDuration,
         "Utilization is averaged over this window (kept as 24 bins)", 3600000},
        {"utilization_below", &IdleSettings::utilization_below, TunableUnit::kFraction,
         "A mean utilization under this is idle", 0, 1},
        {"held_bytes", &IdleSettings::held_bytes, TunableUnit::kBytes,
         "While processes hold at least this much GPU memory", 0},
        {"held_fraction", &IdleSettings::held_fraction, TunableUnit::kFraction,
         "In at least this fraction of the samples (with held_bytes)", 0, 1},
    }}};

constexpr int kBins = 24;
constexpr double kGiB = 1024.0 * 1024 * 1024;

struct Bin {
  std::int64_t start_ms = 0;
  double utilization = 0;
  double held_bytes = 0;
  std::uint64_t samples = 0;
  std::uint64_t held = 0;
};

class IdleWasteDetector final : public Detector {
 public:
  explicit IdleWasteDetector(IdleSettings s) : s_(s) {}

  void evaluate(const DetectionInput& in, std::vector<Condition>& out) override {
    const auto now = in.snapshot.timestamp_ms;
    const std::int64_t bin_ms = std::max<std::int64_t>(1, s_.window.count() / kBins);
    for (const auto& d : in.snapshot.devices) {
      if (d.state != DeviceState::kOk || d.identity.is_mig_instance) continue;
      const Sample* util = d.find(Metric::kUtilization);
      if (!util) continue;
      double held = 0;
      for (const auto& p : d.processes) held += p.used_memory_bytes.value_or(0);
      auto& bins = gpus_[d.identity.uuid];
      if (bins.empty() || now - bins.back().start_ms >= bin_ms) bins.push_back({now});
      while (bins.size() > kBins) bins.pop_front();
      Bin& b = bins.back();
      b.utilization += util->value;
      b.held_bytes += held;
      ++b.samples;
      if (held >= s_.held_bytes) ++b.held;

      if (bins.size() < kBins) continue;  // a whole window first
      double u = 0, bytes = 0;
      std::uint64_t n = 0, h = 0;
      for (const auto& x : bins) {
        u += x.utilization;
        bytes += x.held_bytes;
        n += x.samples;
        h += x.held;
      }
      const double mean = u / static_cast<double>(n);
      const double held_share = static_cast<double>(h) / static_cast<double>(n);
      if (mean >= s_.utilization_below || held_share < s_.held_fraction) continue;
      out.push_back(
          {"GpuIdleWaste",
           Severity::kTicket,
           device_labels(d),
           fmt::format("{} was held but nearly idle for {:.0f} h", gpu_name(d),
                       static_cast<double>(now - bins.front().start_ms) / 3.6e6),
           fmt::format("mean utilization {:.0f}% (threshold {:.0f}%) while processes held {:.1f} GiB on "
                       "average, {:.0f}% of the time",
                       mean * 100, s_.utilization_below * 100, bytes / static_cast<double>(n) / kGiB,
                       held_share * 100),
           "ask the holders to release the GPU (idle notebooks, finished jobs kept alive), or share it "
           "(MIG, time slicing)",
           {}});
    }
  }

 private:
  IdleSettings s_;
  std::map<std::string, std::deque<Bin>> gpus_;  // by GPU uuid
};

}  // namespace

DetectorInfo idle_waste_detector() {
  return detector_row<IdleWasteDetector, kIdleTunables>("GpuIdleWaste");
}

}  // namespace gpuwatch::detect
