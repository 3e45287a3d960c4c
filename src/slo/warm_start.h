// A restarted agent's SLOs start where the stopped one left them: the history holds every scrape at its own
// timestamp, so the SLO sink reads back the stored series its SLOs select, from the longest window ago (the
// period, at least 3 days) up to its first live scrape, and replays them through the engine in time order,
// one scrape per target and timestamp, as they came. Its windows then hold what they would have held had the
// agent never stopped, but for the scrapes the stop missed: their increase counts at the first live scrape,
// as a never-stopped agent counts a missed scrape's.
#pragma once

#include <cstdint>

#include "core/series.h"
#include "slo/slo_engine.h"

namespace gpuwatch::slo {

struct WarmStartResult {
  std::size_t series = 0;   // stored series replayed
  std::size_t samples = 0;  // their samples
};

// Replays the history's samples in [until_ms - lookback, until_ms) into `engine` (before any live scrape).
WarmStartResult warm_start(SloEngine& engine, const SeriesSource& history, std::int64_t until_ms);

}  // namespace gpuwatch::slo
