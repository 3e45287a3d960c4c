// A process whose GPU memory keeps growing over a long window: a steady leak, or the staircase of a server
// that loads models without freeing the old ones. The window is cut into bins; the bins' mean usage must rise
// from bin to bin in most steps, each by a real amount, and add min_growth_bytes in all. A warm-up that
// plateaus rises in the first bins only and never alerts.
//   GpuProcessMemoryLeak  ticket
#include <fmt/format.h>

#include "detect/detector_table.h"
#include "detect/device_facts.h"
#include "detect/device_window.h"

namespace gpuwatch::detect {
namespace {

// Its settings, each an option detect.memory_leak.<name> (docs/configuration.md).
struct LeakSettings {
  milliseconds window = 1h;
  double min_growth_bytes = 1024.0 * 1024 * 1024;
  unsigned bins = 6;
  unsigned rising_bins = 5;
};

constexpr Tunables<LeakSettings, 4> kLeakTunables = {
    "memory_leak",
    {{
        {"window", &LeakSettings::window, TunableUnit::kDuration, "Growth must span this window", 60000},
        {"min_growth_bytes", &LeakSettings::min_growth_bytes, TunableUnit::kBytes,
         "The least growth of a process's GPU memory over the window that is a leak", 1},
        {"bins", &LeakSettings::bins, TunableUnit::kCount,
         "The window is split into this many bins; their means must rise", 2, 1000},
        {"rising_bins", &LeakSettings::rising_bins, TunableUnit::kCount,
         "How many of the bins-1 steps between bins must rise", 1, 1000},
    }}};

constexpr double kGiB = 1024.0 * 1024 * 1024;

class MemoryLeakDetector final : public Detector {
 public:
  explicit MemoryLeakDetector(LeakSettings s) : s_(s) {}

  void evaluate(const DetectionInput& in, std::vector<Condition>& out) override {
    const auto now = in.snapshot.timestamp_ms;
    std::map<std::pair<std::string, unsigned>, CoarseWindow> running;
    for (const auto& d : in.snapshot.devices) {
      if (d.state != DeviceState::kOk) {  // keep the history of a GPU we cannot read this tick
        for (auto& [key, w] : windows_)
          if (key.first == d.identity.uuid) running[key] = std::move(w);
        continue;
      }
      for (const auto& p : d.processes) {
        if (!p.used_memory_bytes) continue;
        auto& w = running[{d.identity.uuid, p.pid}];
        w = std::move(windows_[{d.identity.uuid, p.pid}]);
        w.add(now, *p.used_memory_bytes, s_.window.count(), resolution_ms());
        if (auto growth = leak_growth(w.points())) {
          Labels labels = device_labels(d);
          labels["pid"] = std::to_string(p.pid);
          if (!p.name.empty()) labels["process"] = p.name;
          out.push_back(
              {"GpuProcessMemoryLeak",
               Severity::kTicket,
               std::move(labels),
               fmt::format("pid {} ({}) on {} keeps growing its GPU memory", p.pid, p.name, gpu_name(d)),
               fmt::format(
                   "grew {:.2f} GiB over the last {:.0f} min, rising in {} of {} steps; now {:.1f} GiB",
                   growth->total / kGiB, static_cast<double>(w.points().span_ms()) / 60000.0, growth->rising,
                   s_.bins - 1, *p.used_memory_bytes / kGiB),
               "look for a leak or for models loaded without freeing the old ones; restart the process "
               "in a quiet moment before it runs out of memory",
               {}});
        }
      }
    }
    windows_ = std::move(running);  // processes that left are forgotten
  }

 private:
  struct Growth {
    double total;
    unsigned rising;
  };
  std::optional<Growth> leak_growth(const ValueWindow& w) const {
    if (s_.bins < 2 || static_cast<double>(w.span_ms()) < 0.9 * static_cast<double>(s_.window.count()))
      return std::nullopt;
    std::vector<double> sum(s_.bins, 0), n(s_.bins, 0);
    const double t0 = static_cast<double>(w.front().t_ms), len = static_cast<double>(w.span_ms()) + 1;
    w.for_each([&](const Point& p) {
      const auto b = std::min<std::size_t>(
          s_.bins - 1, static_cast<std::size_t>((static_cast<double>(p.t_ms) - t0) / len * s_.bins));
      sum[b] += p.value;
      n[b] += 1;
    });
    for (double c : n)
      if (c == 0) return std::nullopt;
    const double step = s_.min_growth_bytes / (2.0 * (s_.bins - 1));
    unsigned rising = 0;
    for (unsigned b = 1; b < s_.bins; ++b)
      if (sum[b] / n[b] - sum[b - 1] / n[b - 1] >= step) ++rising;
    const double total = sum.back() / n.back() - sum.front() / n.front();
    if (rising < s_.rising_bins || total < s_.min_growth_bytes) return std::nullopt;
    return Growth{total, rising};
  }

  // 60 points a bin: 10 s for the default hour in 6 bins.
  std::int64_t resolution_ms() const { return s_.window.count() / (60 * std::int64_t{s_.bins}); }

  LeakSettings s_;
  std::map<std::pair<std::string, unsigned>, CoarseWindow> windows_;  // by (GPU uuid, pid)
};

}  // namespace

DetectorInfo memory_leak_detector() {
  return detector_row<MemoryLeakDetector, kLeakTunables>("GpuProcessMemoryLeak");
}

}  // namespace gpuwatch::detect
