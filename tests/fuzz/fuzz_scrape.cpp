// A target's answer (any bytes, either format by its content type) through a scrape: up or down with a
// reason, within its limits, never a crash; what the previous answer had and this one lacks is marked stale.
#include <cstddef>
#include <cstdint>
#include <string_view>

#include "core/stale_marker.h"
#include "scrape/target_scraper.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  using namespace gpuwatch;
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  ScrapeTargetConfig c;
  c.job = "fuzz";
  c.url = "http://127.0.0.1:9/metrics";
  c.sample_limit = 200;
  c.label_limit = 12;
  c.label_value_length_limit = 64;
  scrape::TargetScraper target(scrape::make_target(c));
  for (const char* type : {"text/plain; version=0.0.4", "application/openmetrics-text; version=1.0.0"}) {
    scrape::FetchResult answer;
    answer.ok = true;
    answer.status = 200;
    answer.content_type = type;
    // The first half, then the whole: the second scrape marks what the first had and it lacks.
    answer.body = std::string(text.substr(0, text.size() / 2));
    const auto first = target.scrape_answer(1000, answer, 0);
    answer.body = std::string(text);
    const auto second = target.scrape_answer(2000, answer, 0);
    for (const auto* r : {first.get(), second.get()}) {
      if (r->up != r->error.empty()) __builtin_trap();
      if (r->up && r->samples_scraped > c.sample_limit) __builtin_trap();
      for (const auto& s : r->samples) {
        if (s.labels.size() > c.label_limit + 1) __builtin_trap();  // the report series are the target's
      }
    }
  }
  return 0;
}
