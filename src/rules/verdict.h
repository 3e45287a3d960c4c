// How bad a finding is, in the rule book's one scale: a critical finding pages, a warning is a ticket.
// The health verdict (`gpuwatch status`, /api/v1/gpus) and the detectors' alert severities both read it.
#pragma once

namespace gpuwatch {

enum class HealthVerdict { kHealthy, kWarning, kCritical };

const char* to_string(HealthVerdict v);

inline HealthVerdict worse(HealthVerdict a, HealthVerdict b) {
  return static_cast<int>(a) >= static_cast<int>(b) ? a : b;
}

}  // namespace gpuwatch
