// What one scrape of a service's /metrics produced, as the snapshot carries it to the sinks: the series read
// (with the target's labels: job, instance and those the target adds), the scrape's own series (up,
// scrape_duration_seconds, scrape_samples_scraped, ...) and the staleness markers of the series that went
// away, each with its timestamp. Immutable once published; shared between the snapshots and sinks.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "core/series.h"

namespace gpuwatch {

struct ScrapedSample {
  Labels labels;  // normalised, __name__ included
  std::int64_t t_ms = 0;
  double value = 0;  // stale_marker() when the series went away
};

struct ScrapeResult {
  Labels target;               // the target's labels (job, instance, and the ones it adds), sorted
  std::uint64_t sequence = 0;  // per target, from 1: the scrapes of one target in order
  std::int64_t t_ms = 0;       // the scrape's time on the agent's clock (its samples' unless they carry one)
  bool up = false;
  std::string error;  // why the scrape failed ("" when up)
  double duration_seconds = 0;
  std::uint64_t samples_scraped = 0;          // samples the body held (also when a limit failed the scrape)
  std::uint64_t samples_post_relabeling = 0;  // samples kept (0 when the scrape failed)
  std::uint64_t series_added = 0;             // series not in the target's previous scrape
  std::uint64_t stale_markers = 0;            // series of the previous scrape absent from this one
  // Every sample to store, in the target's order: the scraped ones, the staleness markers, then the
  // scrape's own series (up, scrape_duration_seconds, scrape_samples_scraped,
  // scrape_samples_post_metric_relabeling, scrape_series_added).
  std::vector<ScrapedSample> samples;
};

}  // namespace gpuwatch
