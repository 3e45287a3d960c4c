// The events of an SLO's period, for its budget: over the last `period` (a RollingWindow) or, for a calendar
// period, since the current period began (slo/calendar_period.h): the count starts again from zero at each
// period's start, as the budget does.
#pragma once

#include <cstdint>
#include <optional>

#include "slo/calendar_period.h"
#include "slo/rolling_window.h"
#include "slo/slo_spec.h"

namespace gpuwatch::slo {

class PeriodWindow {
 public:
  explicit PeriodWindow(const SloSpec& spec);

  void add(std::int64_t t_ms, EventCounts events);
  // The sum over the period at t_ms; moves the window to t_ms.
  EventCounts sum(std::int64_t t_ms);

 private:
  void roll(std::int64_t t_ms);  // a calendar period: into the period that holds t_ms when it is later

  std::optional<RollingWindow> rolling_;  // a rolling period
  std::optional<CalendarClock> clock_;    // a calendar period
  CalendarClock::Bounds current_{};       // the calendar period counted
  bool started_ = false;
  EventCounts sum_{};
};

}  // namespace gpuwatch::slo
