// Deterministic GPU-shaped test data for the query tests: counters with resets, integer and decimal gauges,
// a classic histogram with `le` buckets, gaps longer than the 5-minute lookback, a series that ends early,
// and an info series for group_left. Written as OpenMetrics for promtool and loaded into a memory source.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "core/series.h"
#include "query/memory_series_source.h"

namespace gpuwatch::test {

struct Family {
  std::string name;  // the OpenMetrics family (metric) name
  std::vector<store::SeriesPoints> series;
};

// Samples every ~15 s (with millisecond jitter) over [start_ms, start_ms + duration_ms).
std::vector<Family> make_gpu_samples(std::int64_t start_ms, std::int64_t duration_ms);

// One OpenMetrics exposition (families contiguous, samples with timestamps in seconds, "# EOF").
std::string to_openmetrics(const std::vector<Family>& families);

void load(query::MemorySeriesSource& source, const std::vector<Family>& families);

}  // namespace gpuwatch::test
