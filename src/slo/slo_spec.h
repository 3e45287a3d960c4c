// An SLO as the agent evaluates it, whatever file it came from (Sloth prometheus/v1, OpenSLO v1, a server
// template). Its SLI is a ratio of events, each side a sum of counter increases over the scraped series a
// selector matches: what sum(rate(<counter>{...}[w])) says in PromQL, kept incrementally by the SLO sink.
#pragma once

#include <chrono>
#include <string>
#include <vector>

#include "core/label_matcher.h"
#include "slo/calendar_period.h"

namespace gpuwatch::slo {

// One counter (or histogram bucket, or _count) and the labels it must have.
struct EventSelector {
  std::string metric;                  // __name__
  std::vector<LabelMatcher> matchers;  // besides the name
  std::string text;                    // as written, for messages and generated rules
};

// Which side of the ratio the file gave: Sloth's error_query, OpenSLO's bad or good, always with a total.
enum class EventKind { kBad, kGood };

struct SloSpec {
  std::string service;
  std::string name;          // the slo label
  std::string description;   // "" when none
  double objective = 0.999;  // ratio 0..1 (Sloth's 99.9 is read as 0.999)
  std::chrono::milliseconds period{std::chrono::hours(24 * 30)};
  bool calendar = false;  // calendar-aligned period (OpenSLO timeWindow.calendar), else rolling
  // When calendar: the period's length, time zone and start (checked when read); `period` is then its nominal
  // length (a month as 30 days), for the rules written for Prometheus.
  CalendarPeriod calendar_period;
  EventKind kind = EventKind::kBad;
  std::vector<EventSelector> events;  // the bad or good side, summed
  std::vector<EventSelector> total;   // the total side, summed
  // The alert's name; SloErrorBudgetBurn unless the file names one (Sloth's alerting.name).
  std::string alertname = "SloErrorBudgetBurn";
  bool page_enabled = true;
  bool ticket_enabled = true;
  // GPUs stated in the file (indexes as in the gpu label); empty: the GPUs on the matched series' gpu label.
  std::vector<std::string> gpus;
  std::string origin;  // "file:line" of its definition
  std::string note;    // what the SLI means where the metric needs it said (a bucket bound, a mean)
};

}  // namespace gpuwatch::slo
