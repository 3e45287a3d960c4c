// Time-to-OOM: a least-squares line through the GPU's memory used over `window` (Prometheus's
// predict_linear), extended to the GPU's total. Frameworks preallocate most of the memory (vLLM ~90%, JAX
// ~75%), so high but flat usage never alerts; and a ramp that has stopped (a warm-up) does not either: the
// growth must still be going on in the newest quarter of the window.
//   GpuMemoryExhaustionForecast  page  memory forecast to run out within `horizon`, for `for_duration`
// The process growing fastest is named (labels pid, process) when it accounts for most of the growth.
#include <fmt/format.h>

#include <algorithm>

#include "detect/detector_table.h"
#include "detect/device_facts.h"
#include "detect/device_window.h"

namespace gpuwatch::detect {
namespace {

// Its settings, each an option detect.oom_forecast.<name> (docs/configuration.md).
struct OomForecastSettings {
  milliseconds horizon = 30min;
  milliseconds window = 10min;
  milliseconds min_span = 2min;
  milliseconds recent = 1min;
  milliseconds for_duration = 3min;
};

constexpr Tunables<OomForecastSettings, 5> kOomForecastTunables = {
    "oom_forecast",
    {{
        {"horizon", &OomForecastSettings::horizon, TunableUnit::kDuration,
         "Alert when GPU memory is forecast to run out within this", 60000,
         std::numeric_limits<double>::max(), "oom_forecast_horizon"},
        {"window", &OomForecastSettings::window, TunableUnit::kDuration,
         "Least-squares fit over this window of GPU memory used", 60000},
        {"min_span", &OomForecastSettings::min_span, TunableUnit::kDuration,
         "No forecast from less history than this", 1000},
        {"recent", &OomForecastSettings::recent, TunableUnit::kDuration,
         "The newest part of the window must forecast the OOM too", 1000},
        {"for_duration", &OomForecastSettings::for_duration, TunableUnit::kDuration,
         "How long the forecast must hold before it alerts", 0},
    }}};

constexpr double kGiB = 1024.0 * 1024 * 1024;

struct GpuMemory {
  ValueWindow used;
  // Each process's, only to name the one growing fastest: a point every window / kProcessPoints.
  std::map<unsigned, CoarseWindow> processes;
};

constexpr std::int64_t kProcessPoints = 120;

class OomForecastDetector final : public Detector {
 public:
  explicit OomForecastDetector(OomForecastSettings s) : s_(s) {}

  void evaluate(const DetectionInput& in, std::vector<Condition>& out) override {
    const auto now = in.snapshot.timestamp_ms;
    const auto span = s_.window.count();
    for (const auto& d : in.snapshot.devices) {
      if (d.state != DeviceState::kOk) continue;
      const Sample* used = d.find(Metric::kMemoryUsed);
      const double total = value_or(d, Metric::kMemoryTotal, 0);
      if (!used || total <= 0) continue;
      auto& st = gpus_[d.identity.uuid];
      st.used.add(now, used->value, span);
      std::map<unsigned, CoarseWindow> still_running;
      for (const auto& p : d.processes) {
        if (!p.used_memory_bytes) continue;
        auto& w = st.processes[p.pid];
        w.add(now, *p.used_memory_bytes, span, span / kProcessPoints);
        still_running[p.pid] = std::move(w);
      }
      st.processes = std::move(still_running);

      if (st.used.span_ms() < s_.min_span.count()) continue;
      // Both the whole window and its newest minute must forecast the OOM: an old ramp (a warm-up) in the
      // window stops counting a minute after the growth stopped, and a brief burst does not alert on its own.
      const auto whole = st.used.slope_per_second();
      const auto recent = st.used.slope_per_second(now - s_.recent.count());
      if (!whole || !recent) continue;
      const double slope = std::min(*whole, *recent);
      if (slope <= 0) continue;
      const double seconds_left = (total - used->value) / slope;
      if (seconds_left > static_cast<double>(s_.horizon.count()) / 1000.0) continue;

      Condition c;
      c.alertname = "GpuMemoryExhaustionForecast";
      c.severity = Severity::kPage;
      c.labels = device_labels(d);
      std::string grower;
      if (auto top = fastest_growing(d, st, slope)) {
        c.labels["pid"] = std::to_string(top->pid);
        if (!top->name.empty()) c.labels["process"] = top->name;
        grower =
            fmt::format("; pid {} ({}) grows {:.1f} MiB/s", top->pid, top->name, top->slope / (1024 * 1024));
      }
      c.summary =
          fmt::format("{} is forecast to run out of memory in {:.0f} min", gpu_name(d), seconds_left / 60);
      c.description = fmt::format(
          "{:.1f} of {:.1f} GiB used, growing {:.1f} MiB/s over the last {:.0f} min{}", used->value / kGiB,
          total / kGiB, slope / (1024 * 1024), static_cast<double>(st.used.span_ms()) / 60000.0, grower);
      c.action =
          "find the growing process (memory leak, growing batch or cache); stop or restart it before it "
          "fails with an out-of-memory error";
      c.for_duration = s_.for_duration;
      out.push_back(std::move(c));
    }
  }

 private:
  struct Grower {
    unsigned pid;
    std::string name;
    double slope;
  };
  static std::optional<Grower> fastest_growing(const DeviceSnapshot& d, const GpuMemory& st,
                                               double gpu_slope) {
    std::optional<Grower> best;
    for (const auto& p : d.processes) {
      auto it = st.processes.find(p.pid);
      if (it == st.processes.end()) continue;
      const auto slope = it->second.points().slope_per_second();
      if (slope && *slope >= 0.5 * gpu_slope && (!best || *slope > best->slope))
        best = Grower{p.pid, p.name, *slope};
    }
    return best;
  }

  OomForecastSettings s_;
  std::map<std::string, GpuMemory> gpus_;  // by GPU uuid
};

}  // namespace

DetectorInfo oom_forecast_detector() {
  return detector_row<OomForecastDetector, kOomForecastTunables>("GpuMemoryExhaustionForecast");
}

}  // namespace gpuwatch::detect
