// The `scrape:` section of gpuwatch.yaml (and of a scenario's `gpuwatch:` section): the services' /metrics
// endpoints the agent reads beside the GPUs, and the discovery of those the GPU processes serve. The
// defaults bound what one target can cost (docs/scraping.md).
#pragma once

#include <chrono>
#include <cstddef>
#include <cstdint>
#include <string>
#include <utility>
#include <vector>

namespace gpuwatch {

struct ScrapeTargetConfig {
  std::string job;  // the job label
  std::string url;  // http://host:port/path (for discovery: filled in per socket found)
  std::chrono::milliseconds interval{15'000};
  std::chrono::milliseconds timeout{10'000};  // the whole scrape: connect, request, body; at most interval
  std::vector<std::pair<std::string, std::string>> labels;  // added to every series of the target
  // Prometheus's limits: a scrape over one fails as a whole (up 0, its series marked stale). 0 = no limit.
  std::size_t sample_limit = 50'000;
  std::size_t label_limit = 64;  // labels per series, __name__ and the target's included
  std::size_t label_name_length_limit = 256;
  std::size_t label_value_length_limit = 4096;
  std::uint64_t body_size_limit = std::uint64_t{16} << 20;  // after gzip decoding
  bool honor_timestamps = true;  // keep the timestamps the text gives (else: the scrape's time)
  bool honor_labels = false;     // on a clash keep the scraped label (else it becomes exported_<name>)
  bool operator==(const ScrapeTargetConfig&) const = default;
};

struct ScrapeDiscoveryConfig {
  bool enabled = false;
  std::string path = "/metrics";
  // Settings of every discovered target (its url is the socket's; job defaults to "gpu-services").
  ScrapeTargetConfig target = [] {
    ScrapeTargetConfig t;
    t.job = "gpu-services";
    return t;
  }();
  bool operator==(const ScrapeDiscoveryConfig&) const = default;
};

struct ScrapeConfig {
  std::vector<ScrapeTargetConfig> targets;
  ScrapeDiscoveryConfig discovery;
  bool empty() const { return targets.empty() && !discovery.enabled; }
  bool operator==(const ScrapeConfig&) const = default;
};

}  // namespace gpuwatch
