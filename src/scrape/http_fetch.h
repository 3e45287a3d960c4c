// One GET of a target's /metrics with a deadline for the whole exchange (connect, request, every byte of the
// body) and a cap on the body, so a target that hangs, trickles or streams without end costs only its own
// scrape. Asks for OpenMetrics first, then text 0.0.4, and for gzip; inflates it within the same cap.
#pragma once

#include <chrono>
#include <cstdint>
#include <string>

namespace gpuwatch::scrape {

struct FetchRequest {
  std::string url;  // http://host:port/path
  std::chrono::milliseconds timeout{10'000};
  std::uint64_t body_size_limit = 0;  // after inflating; 0 = no limit
};

struct FetchResult {
  bool ok = false;
  int status = 0;  // the HTTP status, 0 when none came
  std::string content_type;
  std::string body;   // inflated
  std::string error;  // why not ok: "connection refused", "timeout after 10s", "body over 16 MiB", ...
};

FetchResult fetch(const FetchRequest& request);

// The Accept header the scraper sends (Prometheus's order: OpenMetrics 1.0, then text 0.0.4).
inline constexpr const char* kScrapeAccept =
    "application/openmetrics-text;version=1.0.0;q=0.75,text/plain;version=0.0.4;q=0.5,*/*;q=0.1";

}  // namespace gpuwatch::scrape
