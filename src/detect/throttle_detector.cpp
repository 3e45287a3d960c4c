// Clock throttling, by the reasons NVML reports. The software power cap is what a card working at its power
// limit does all day: it never alerts.
//   GpuPowerBrake              page    hardware power brake (an external power-supply signal)
//   GpuThermalSlowdown         page    hardware thermal slowdown: the GPU is too hot
//   GpuHardwareSlowdown        page    hardware slowdown without a more specific reason
//   GpuSoftwareThermalSlowdown ticket  software thermal slowdown held for sw_thermal_for
//   GpuTemperatureNearSlowdown ticket  within temperature_margin_c of the slowdown threshold for
//   temperature_for
// Only the most specific one is raised per GPU (a power brake also sets hardware slowdown; a hardware thermal
// slowdown comes with the software one and a temperature past the threshold).
#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <iterator>

#include "detect/detector_table.h"
#include "detect/device_facts.h"
#include "rules/slowdown_margin.h"
#include "rules/throttle_reasons.h"

namespace gpuwatch::detect {
namespace {

using rules::kThrottleReasons;
using rules::ThrottleReason;
using rules::ThrottleSettings;  // the rule book's (src/rules/throttle_settings.h): health judges by it too

class ThrottleDetector final : public Detector {
 public:
  explicit ThrottleDetector(ThrottleSettings s) : s_(s) {}

  void evaluate(const DetectionInput& in, std::vector<Condition>& out) override {
    for (const auto& d : in.snapshot.devices) {
      if (d.state != DeviceState::kOk || d.identity.is_mig_instance) continue;
      auto active = [&](const char* reason) { return value_or(d, Metric::kClockEventActive, 0, reason) > 0; };
      const double temp = value_or(d, Metric::kTemperature, -1);
      const double slowdown = value_or(d, Metric::kTemperatureThreshold, -1, "slowdown");
      Condition c;
      c.labels = device_labels(d);
      const auto* hit = std::find_if(std::begin(kThrottleReasons), std::end(kThrottleReasons),
                                     [&](const ThrottleReason& r) { return active(r.reason); });
      if (hit != std::end(kThrottleReasons)) {
        c.alertname = hit->alertname;
        c.severity = hit->level == HealthVerdict::kCritical ? Severity::kPage : Severity::kTicket;
        c.summary = fmt::format(fmt::runtime(hit->summary), gpu_name(d));
        c.action = hit->action;
        if (hit->for_duration) c.for_duration = s_.*(hit->for_duration);
      } else if (temp >= 0 && slowdown > 0 && temp >= slowdown - s_.temperature_margin_c) {
        c.alertname = "GpuTemperatureNearSlowdown";
        c.severity = Severity::kTicket;
        const std::string_view relation = rules::slowdown_relation(temp, slowdown);
        c.summary = relation == "at"
                        ? fmt::format("{} is at its slowdown threshold", gpu_name(d))
                        : fmt::format("{} is {:.0f} C {} its slowdown threshold", gpu_name(d),
                                      std::abs(slowdown - temp), temp > slowdown ? "above" : "below");
        c.action = "check airflow and inlet temperature before the GPU starts slowing down";
        c.for_duration = s_.temperature_for;
      } else {
        continue;
      }
      // Formatted only for a GPU that raises something: this runs on every GPU every tick.
      c.description = fmt::format(
          "SM clock {:.0f} of {:.0f} MHz, temperature {:.0f} C (slowdown at {:.0f} C), power {:.0f} W of "
          "{:.0f} W",
          value_or(d, Metric::kClock, 0, "sm") / 1e6, value_or(d, Metric::kClockMax, 0, "sm") / 1e6, temp,
          slowdown, value_or(d, Metric::kPower, 0), value_or(d, Metric::kPowerLimit, 0));
      out.push_back(std::move(c));
    }
  }

 private:
  ThrottleSettings s_;
};

}  // namespace

DetectorInfo throttle_detector() {
  return detector_row<ThrottleDetector, rules::kThrottleTunables>(
      "GpuPowerBrake, GpuThermalSlowdown, GpuHardwareSlowdown, GpuSoftwareThermalSlowdown, "
      "GpuTemperatureNearSlowdown");
}

}  // namespace gpuwatch::detect
