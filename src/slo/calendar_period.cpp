#include "slo/calendar_period.h"

#include <charconv>
#include <stdexcept>

#include "core/optional_module.h"

namespace gpuwatch::slo {
namespace {}  // namespace

std::optional<CalendarPeriod> parse_calendar_duration(std::string_view text) {
  if (text.size() < 2) return std::nullopt;
  int count = 0;
  const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size() - 1, count);
  if (ec != std::errc() || end != text.data() + text.size() - 1 || count <= 0) return std::nullopt;
  CalendarPeriod p;
  p.count = count;
  switch (text.back()) {
    case 'm':
      p.unit = CalendarUnit::kMinute;
      break;
    case 'h':
      p.unit = CalendarUnit::kHour;
      break;
    case 'd':
      p.unit = CalendarUnit::kDay;
      break;
    case 'w':
      p.unit = CalendarUnit::kWeek;
      break;
    case 'M':
      p.unit = CalendarUnit::kMonth;
      break;
    case 'Q':
      p.unit = CalendarUnit::kQuarter;
      break;
    case 'Y':
      p.unit = CalendarUnit::kYear;
      break;
    default:
      return std::nullopt;
  }
  return p;
}

std::string describe(const CalendarPeriod& p) {
  static constexpr char kUnits[] = {'m', 'h', 'd', 'w', 'M', 'Q', 'Y'};
  return "calendar " + std::to_string(p.count) + kUnits[static_cast<int>(p.unit)] +
         (p.start_time.empty() ? "" : " from " + p.start_time) + " " + p.time_zone;
}

std::chrono::milliseconds nominal_length(const CalendarPeriod& p) {
  using std::chrono::hours;
  using std::chrono::minutes;
  switch (p.unit) {
    case CalendarUnit::kMinute:
      return minutes(p.count);
    case CalendarUnit::kHour:
      return hours(p.count);
    case CalendarUnit::kDay:
      return hours(24 * p.count);
    case CalendarUnit::kWeek:
      return hours(24 * 7 * p.count);
    default:
      break;
  }
  return hours(24 * 30 * months_of(p));
}

CalendarClock::CalendarClock(const CalendarPeriod& period, const std::string& module_path)
    : calendar_(make_with_module<CivilCalendar, std::invalid_argument, OpenCivilCalendar>(
          module_path, kCalendarModuleFileName, kOpenCivilCalendarSymbol, "calendar", period)) {}

}  // namespace gpuwatch::slo
