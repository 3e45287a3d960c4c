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

#include "detect/detectors.h"
#include "detect/device_facts.h"

namespace gpuwatch::detect {
namespace {

class ThrottleDetector final : public Detector {
 public:
  explicit ThrottleDetector(ThrottleSettings s) : s_(s) {}

  void evaluate(const DetectionInput& in, std::vector<Condition>& out) override {
    for (const auto& d : in.snapshot.devices) {
      if (d.state != DeviceState::kOk || d.identity.is_mig_instance) continue;
      auto active = [&](const char* reason) { return value_or(d, Metric::kClockEventActive, 0, reason) > 0; };
      const double temp = value_or(d, Metric::kTemperature, -1);
      const double slowdown = value_or(d, Metric::kTemperatureThreshold, -1, "slowdown");
      const double sm_clock = value_or(d, Metric::kClock, 0, "sm") / 1e6;
      const double sm_max = value_or(d, Metric::kClockMax, 0, "sm") / 1e6;
      const double power = value_or(d, Metric::kPower, 0), limit = value_or(d, Metric::kPowerLimit, 0);
      const std::string measured = fmt::format(
          "SM clock {:.0f} of {:.0f} MHz, temperature {:.0f} C (slowdown at "
          "{:.0f} C), power {:.0f} W of {:.0f} W",
          sm_clock, sm_max, temp, slowdown, power, limit);
      Condition c;
      c.labels = device_labels(d);
      if (active("hw_power_brake_slowdown")) {
        c.alertname = "GpuPowerBrake";
        c.severity = Severity::kPage;
        c.summary = fmt::format("power brake is holding {} down", gpu_name(d));
        c.action = "check the node's power supplies and PDU; the brake is asserted from outside the GPU";
      } else if (active("hw_thermal_slowdown")) {
        c.alertname = "GpuThermalSlowdown";
        c.severity = Severity::kPage;
        c.summary = fmt::format("{} is too hot: hardware thermal slowdown", gpu_name(d));
        c.action =
            "check cooling (fans, airflow, inlet temperature, liquid loop); drain the GPU if it keeps "
            "climbing";
      } else if (active("hw_slowdown")) {
        c.alertname = "GpuHardwareSlowdown";
        c.severity = Severity::kPage;
        c.summary = fmt::format("hardware slowdown on {}", gpu_name(d));
        c.action = "check power and cooling; look for XIDs and the power brake on this GPU";
      } else if (active("sw_thermal_slowdown")) {
        c.alertname = "GpuSoftwareThermalSlowdown";
        c.severity = Severity::kTicket;
        c.summary = fmt::format("{} is slowed by the driver to stay cool", gpu_name(d));
        c.action = "check airflow and inlet temperature; compare with the GPU's neighbours";
        c.for_duration = s_.sw_thermal_for;
      } else if (temp >= 0 && slowdown > 0 && temp >= slowdown - s_.temperature_margin_c) {
        c.alertname = "GpuTemperatureNearSlowdown";
        c.severity = Severity::kTicket;
        c.summary = fmt::format("{} is {:.0f} C from its slowdown threshold", gpu_name(d), slowdown - temp);
        c.action = "check airflow and inlet temperature before the GPU starts slowing down";
        c.for_duration = s_.temperature_for;
      } else {
        continue;
      }
      c.description = measured;
      out.push_back(std::move(c));
    }
  }

 private:
  ThrottleSettings s_;
};

}  // namespace

std::unique_ptr<Detector> make_throttle_detector(const ThrottleSettings& s) {
  return std::make_unique<ThrottleDetector>(s);
}

}  // namespace gpuwatch::detect
