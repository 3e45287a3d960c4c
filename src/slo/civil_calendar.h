// The boundary between gpuwatch and the calendar module (gpuwatch-calendar.so: abseil's civil time and time
// zones, with tzdata): where a calendar SLO period starts and ends. Abseil lives only behind it, so that the
// agent without a calendar SLO and every one-shot command map none of abseil's libraries. The entry point's
// name carries this interface's version.
#pragma once

#include <cstdint>
#include <memory>
#include <string>

namespace gpuwatch::slo {

struct CalendarPeriod;

struct CalendarBounds {
  std::int64_t start_ms = 0;  // the period's first millisecond (ms since the epoch)
  std::int64_t end_ms = 0;    // the next period's first
};

class CivilCalendar {
 public:
  virtual ~CivilCalendar() = default;
  // The period that holds t_ms.
  virtual CalendarBounds period_of(std::int64_t t_ms) const = 0;
};

// The module's entry point: sets *out to the calendar of `period`, or *error to why there is none (an unknown
// time zone, a start time not "YYYY-MM-DD hh:mm:ss").
using OpenCivilCalendar = void(const CalendarPeriod& period, std::unique_ptr<CivilCalendar>* out,
                               std::string* error);
inline constexpr const char* kOpenCivilCalendarSymbol = "gpuwatch_calendar_open_v1";
inline constexpr const char* kCalendarModuleFileName = "gpuwatch-calendar.so";

}  // namespace gpuwatch::slo
