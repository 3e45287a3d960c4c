#include "slo/warm_start.h"

#include <algorithm>
#include <chrono>
#include <map>
#include <set>
#include <string>

namespace gpuwatch::slo {
namespace {

// The labels that name the target a stored sample came from (the scrape adds them to each series).
Labels target_of(const Labels& labels) {
  Labels out;
  for (const auto& [k, v] : labels) {
    if (k == "job" || k == "instance") out.emplace_back(k, v);
  }
  return out;
}

}  // namespace

WarmStartResult warm_start(SloEngine& engine, const SeriesSource& history, std::int64_t until_ms) {
  std::chrono::milliseconds lookback = std::chrono::hours(72);
  std::set<std::string> metrics;
  for (const auto& spec : engine.specs()) {
    // A calendar period from the start of the one that holds now, as its window counts it (a nominal length,
    // a month as 30 days, would fall short of a year's or a quarter's real days).
    const std::chrono::milliseconds period =
        spec.calendar ? std::chrono::milliseconds(
                            until_ms - CalendarClock(spec.calendar_period).period_of(until_ms).start_ms)
                      : spec.period;
    lookback = std::max(lookback, period);
    for (const auto* side : {&spec.events, &spec.total}) {
      for (const auto& s : *side) metrics.insert(s.metric);
    }
  }
  // One read per metric name, whatever the selectors: the engine matches each sample as it does live.
  std::vector<SeriesPoints> stored;
  for (const auto& metric : metrics) {
    const LabelMatcher name("__name__", MatchOp::kEqual, metric);
    for (auto& s : history.select(std::span(&name, 1), until_ms - lookback.count(), until_ms - 1))
      stored.push_back(std::move(s));
  }
  // Scrapes again: by timestamp, then target, each with the samples of its series at that time.
  std::map<std::pair<std::int64_t, Labels>, ScrapeResult> scrapes;
  WarmStartResult out;
  for (const auto& s : stored) {
    ++out.series;
    const Labels target = target_of(s.labels);
    for (const auto& p : s.points) {
      ScrapeResult& r = scrapes[{p.t_ms, target}];
      r.target = target;
      r.t_ms = p.t_ms;
      r.up = true;
      r.samples.push_back({s.labels, p.t_ms, p.value});
      ++out.samples;
    }
  }
  for (const auto& [key, scrape] : scrapes) engine.consume(scrape);
  return out;
}

}  // namespace gpuwatch::slo
