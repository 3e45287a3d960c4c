// NVML enumerations mapped to the label vocabularies of core/metric_catalogue.h, indexed by the NVML value.
#pragma once

#include <array>
#include <string_view>

#include "sources/nvml/nvml_abi.h"

namespace gpuwatch::nvml_labels {

// nvmlClockType_t 0..3
inline constexpr std::array<std::string_view, 4> kClock = {"graphics", "sm", "memory", "video"};
// nvmlTemperatureThresholds_t 0..3
inline constexpr std::array<std::string_view, 4> kThreshold = {"shutdown", "slowdown", "memory_max",
                                                               "gpu_max"};
// nvmlPerfPolicyType_t 0..1
inline constexpr std::array<std::string_view, 2> kPolicy = {"power", "thermal"};
// nvmlMemoryErrorType_t 0..1 and nvmlEccCounterType_t 0..1
inline constexpr std::array<std::string_view, 2> kEccType = {"corrected", "uncorrected"};
inline constexpr std::array<std::string_view, 2> kEccCounter = {"volatile", "aggregate"};
// nvmlPageRetirementCause_t 0..1
inline constexpr std::array<std::string_view, 2> kRetirementCause = {"single_bit", "double_bit"};
inline constexpr std::array<std::string_view, 2> kRemappedType = {"correctable", "uncorrectable"};
inline constexpr std::array<std::string_view, 18> kLink = {
    "0", "1", "2", "3", "4", "5", "6", "7", "8", "9", "10", "11", "12", "13", "14", "15", "16", "17"};

struct BitLabel {
  unsigned long long bit;
  std::string_view label;
};

// Clock event ("throttle") reason bits.
inline constexpr std::array kClockEventReasons = {
    BitLabel{nvmlClocksEventReasonGpuIdle, "gpu_idle"},
    BitLabel{nvmlClocksEventReasonApplicationsClocksSetting, "applications_clocks_setting"},
    BitLabel{nvmlClocksEventReasonSwPowerCap, "sw_power_cap"},
    BitLabel{nvmlClocksThrottleReasonHwSlowdown, "hw_slowdown"},
    BitLabel{nvmlClocksEventReasonSyncBoost, "sync_boost"},
    BitLabel{nvmlClocksEventReasonSwThermalSlowdown, "sw_thermal_slowdown"},
    BitLabel{nvmlClocksThrottleReasonHwThermalSlowdown, "hw_thermal_slowdown"},
    BitLabel{nvmlClocksThrottleReasonHwPowerBrakeSlowdown, "hw_power_brake_slowdown"},
    BitLabel{nvmlClocksEventReasonDisplayClockSetting, "display_clock_setting"},
};

// Critical events other than XIDs (gpu_events_total{event}).
inline constexpr std::array kCriticalEvents = {
    BitLabel{nvmlEventTypeSingleBitEccError, "single_bit_ecc"},
    BitLabel{nvmlEventTypeDoubleBitEccError, "double_bit_ecc"},
    BitLabel{nvmlEventTypeSingleBitEccErrorStorm, "single_bit_ecc_storm"},
    BitLabel{nvmlEventTypeDramRetirementEvent, "dram_retirement"},
    BitLabel{nvmlEventTypeDramRetirementFailure, "dram_retirement_failure"},
    BitLabel{nvmlEventTypeNonFatalPoisonError, "non_fatal_poison"},
    BitLabel{nvmlEventTypeFatalPoisonError, "fatal_poison"},
    BitLabel{nvmlEventTypeGpuUnavailableError, "gpu_unavailable"},
    BitLabel{nvmlEventTypeGpuRecoveryAction, "gpu_recovery_action"},
};

}  // namespace gpuwatch::nvml_labels
