#include "slo/period_window.h"

namespace gpuwatch::slo {

PeriodWindow::PeriodWindow(const SloSpec& spec) {
  if (spec.calendar) {
    clock_.emplace(spec.calendar_period);
  } else {
    rolling_.emplace(spec.period);
  }
}

void PeriodWindow::roll(std::int64_t t_ms) {
  if (started_ && t_ms < current_.end_ms) return;
  const auto next = clock_->period_of(t_ms);
  current_ = next;
  started_ = true;
  sum_ = {};
}

void PeriodWindow::add(std::int64_t t_ms, EventCounts events) {
  if (rolling_) {
    rolling_->add(t_ms, events);
    return;
  }
  roll(t_ms);
  if (t_ms < current_.start_ms) return;  // late events of the period before: that budget is closed
  sum_.bad += events.bad;
  sum_.total += events.total;
}

EventCounts PeriodWindow::sum(std::int64_t t_ms) {
  if (rolling_) return rolling_->sum(t_ms);
  roll(t_ms);
  return sum_;
}

}  // namespace gpuwatch::slo
