#include "slo/burn_rules.h"

#include "core/duration.h"

namespace gpuwatch::slo {

using std::chrono::hours;
using std::chrono::minutes;

const std::vector<BurnRule>& workbook_burn_rules() {
  static const std::vector<BurnRule> k = {
      {Severity::kPage, hours(1), minutes(5), 14.4},
      {Severity::kPage, hours(6), minutes(30), 6},
      {Severity::kTicket, hours(24), hours(2), 3},
      {Severity::kTicket, hours(72), hours(6), 1},
  };
  return k;
}

const std::vector<std::chrono::milliseconds>& slo_windows() {
  static const std::vector<std::chrono::milliseconds> k = {minutes(5), minutes(30), hours(1), hours(2),
                                                           hours(6),   hours(24),   hours(72)};
  return k;
}

std::string window_name(std::chrono::milliseconds window) {
  constexpr std::int64_t kDayMs = 86'400'000;
  if (window.count() > 0 && window.count() % kDayMs == 0)
    return std::to_string(window.count() / kDayMs) + "d";
  return format_duration(window);
}

}  // namespace gpuwatch::slo
