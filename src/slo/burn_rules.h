// The multiwindow, multi-burn-rate alerts of the Google SRE workbook ("Alerting on SLOs") for a 30-day
// period: an alert needs both windows of a pair over the factor (AND); any pair raises its severity (OR).
#pragma once

#include <chrono>
#include <string>
#include <vector>

#include "core/condition.h"

namespace gpuwatch::slo {

struct BurnRule {
  Severity severity = Severity::kPage;
  std::chrono::milliseconds long_window{0};
  std::chrono::milliseconds short_window{0};
  double factor = 0;
};

// page: 14.4x over 1h and 5m, 6x over 6h and 30m; ticket: 3x over 1d and 2h, 1x over 3d and 6h.
const std::vector<BurnRule>& workbook_burn_rules();

// The windows the SLO sink keeps besides the period: 5m, 30m, 1h, 2h, 6h, 1d, 3d.
const std::vector<std::chrono::milliseconds>& slo_windows();

// A window as Sloth names it in its rules and labels: whole days in days ("30d", not "4w2d"), else the
// shortest duration ("5m", "1h").
std::string window_name(std::chrono::milliseconds window);

}  // namespace gpuwatch::slo
