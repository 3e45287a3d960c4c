// The clock-throttle reasons that matter, most specific first: the throttle detector raises the first one
// active on a GPU as its alert, and the health verdict judges the same reasons at the same level. The
// software power cap is missing on purpose: it is what a card working at its power limit does all day.
#pragma once

#include <array>

#include "rules/throttle_settings.h"
#include "rules/verdict.h"

namespace gpuwatch::rules {

struct ThrottleReason {
  const char* reason;  // NVML clock event reason, the gpu_clock_event_active label
  const char* alertname;
  HealthVerdict level;
  const char* summary;  // {} is the GPU's name
  const char* finding;  // the health verdict's reason
  const char* action;
  milliseconds ThrottleSettings::*for_duration;  // null: at once
};

inline constexpr std::array<ThrottleReason, 4> kThrottleReasons = {{
    {"hw_power_brake_slowdown", "GpuPowerBrake", HealthVerdict::kCritical, "power brake is holding {} down",
     "power brake engaged (external power supply signal)",
     "check the node's power supplies and PDU; the brake is asserted from outside the GPU", nullptr},
    {"hw_thermal_slowdown", "GpuThermalSlowdown", HealthVerdict::kCritical,
     "{} is too hot: hardware thermal slowdown", "hardware thermal slowdown: the GPU is too hot",
     "check cooling (fans, airflow, inlet temperature, liquid loop); drain the GPU if it keeps climbing",
     nullptr},
    {"hw_slowdown", "GpuHardwareSlowdown", HealthVerdict::kCritical, "hardware slowdown on {}",
     "hardware slowdown is holding clocks down",
     "check power and cooling; look for XIDs and the power brake on this GPU", nullptr},
    {"sw_thermal_slowdown", "GpuSoftwareThermalSlowdown", HealthVerdict::kWarning,
     "{} is slowed by the driver to stay cool", "software thermal slowdown",
     "check airflow and inlet temperature; compare with the GPU's neighbours",
     &ThrottleSettings::sw_thermal_for},
}};

}  // namespace gpuwatch::rules
