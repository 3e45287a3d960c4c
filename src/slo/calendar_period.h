// Calendar-aligned SLO periods (OpenSLO's timeWindow with a calendar, or isRolling false): the budget
// resets at each period's start, a civil time in the spec's time zone (UTC unless it names one), counted in
// whole periods from the calendar's startTime. So "1M" from 2026-01-01 00:00:00 Europe/Berlin starts every
// month at local midnight of the 1st, whatever the month's length or a DST change. Without a startTime the
// periods count from 1970-01-01 00:00:00 (weeks from Monday 1970-01-05): days start at midnight, weeks on
// Monday, months on the 1st, quarters in January, April, July and October, years on 1 January.
#pragma once

#include <chrono>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>

#include "slo/civil_calendar.h"

namespace gpuwatch::slo {

enum class CalendarUnit { kMinute, kHour, kDay, kWeek, kMonth, kQuarter, kYear };

struct CalendarPeriod {
  int count = 1;
  CalendarUnit unit = CalendarUnit::kMonth;
  std::string time_zone = "UTC";  // an IANA name (tzdata)
  std::string start_time;         // civil time in time_zone; "" for the calendar's own (above)
};

// OpenSLO's duration with its calendar units: 1m, 2h, 1d, 1w, 1M, 1Q, 1Y; nullopt when it is none of them.
std::optional<CalendarPeriod> parse_calendar_duration(std::string_view text);

// "calendar 1M from 2026-01-01 00:00:00 Europe/Berlin": how `slo check` and the status say it.
std::string describe(const CalendarPeriod& p);

// About how long one period lasts (a month as 30 days), for what needs a fixed length: the rules written for
// Prometheus, which has no calendar.
std::chrono::milliseconds nominal_length(const CalendarPeriod& p);

// Months in one period of a calendar counted in months (a month, quarter or year).
inline std::int64_t months_of(const CalendarPeriod& p) {
  return p.count * (p.unit == CalendarUnit::kMonth ? 1 : p.unit == CalendarUnit::kQuarter ? 3 : 12);
}

// The periods of a calendar, from the calendar module (slo/civil_calendar.h), loaded when the first clock is
// made.
class CalendarClock {
 public:
  // Throws std::invalid_argument when the time zone is unknown, the start time not "YYYY-MM-DD hh:mm:ss", or
  // the calendar module cannot be loaded ("module_missing: " and the path). module_path: "" = the module next
  // to the binary, else the installed one.
  explicit CalendarClock(const CalendarPeriod& period, const std::string& module_path = "");
  using Bounds = CalendarBounds;
  // The period that holds t_ms.
  Bounds period_of(std::int64_t t_ms) const { return calendar_->period_of(t_ms); }

 private:
  std::shared_ptr<const CivilCalendar> calendar_;  // never null; holds the module loaded
};

}  // namespace gpuwatch::slo
