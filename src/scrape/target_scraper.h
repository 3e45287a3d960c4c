// One target's scrapes, with Prometheus's semantics: the body parsed (text 0.0.4 or OpenMetrics, by its
// Content-Type, else by its `# EOF`), the target's labels added (a clash renames the scraped label to
// exported_<name> unless honor_labels), limits checked (a scrape over one fails as a whole), the series of
// the previous scrape that are gone marked stale, and the report series (up, scrape_duration_seconds,
// scrape_samples_scraped, scrape_samples_post_metric_relabeling, scrape_series_added) added.
// A failed scrape marks every series of the last good one stale. Series with their own timestamp (honoured)
// get no staleness marker, as in Prometheus.
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <set>
#include <string>

#include "core/scrape_result.h"
#include "scrape/http_fetch.h"
#include "scrape/scrape_target.h"

namespace gpuwatch::scrape {

class TargetScraper {
 public:
  // fetch: how the body is read (tests may pass another one); the default is fetch() of http_fetch.h.
  using Fetch = std::function<FetchResult(const FetchRequest&)>;
  explicit TargetScraper(ScrapeTarget target, Fetch fetch = {});

  // One scrape at t_ms (the agent's clock). Not thread-safe: one scrape of a target at a time.
  std::shared_ptr<const ScrapeResult> scrape(std::int64_t t_ms);
  // The result of a scrape made of an already fetched answer (for scrape() and the tests and fuzzing).
  std::shared_ptr<const ScrapeResult> scrape_answer(std::int64_t t_ms, const FetchResult& answer,
                                                    double duration_seconds);

  const ScrapeTarget& target() const { return target_; }

 private:
  // Parses and checks the body into result.samples; "" or why the scrape fails.
  std::string read_body(const FetchResult& answer, std::int64_t t_ms, ScrapeResult& result,
                        std::set<Labels>& series) const;

  ScrapeTarget target_;
  Fetch fetch_;
  std::uint64_t sequence_ = 0;
  std::set<Labels> previous_;  // the series (without their own timestamp) of the previous scrape
};

}  // namespace gpuwatch::scrape
