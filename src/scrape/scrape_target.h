// A target as the scraper runs it: its settings (config/scrape_config.h) and the labels every series it
// yields gets: job, instance (host:port of the url) and the configured or discovered ones (pid, gpu, UUID,
// container, pod, slurm_job for a server found on a GPU).
#pragma once

#include <string>

#include "config/scrape_config.h"
#include "core/series.h"

namespace gpuwatch::scrape {

struct ScrapeTarget {
  ScrapeTargetConfig config;
  Labels labels;  // sorted: job, instance and the target's own
  // A stable name for the target (its url and labels): a target rediscovered with the same ones is the
  // same target, and keeps its staleness state.
  std::string key;
};

// The target for a config: labels built and checked. Throws std::invalid_argument naming the problem.
ScrapeTarget make_target(ScrapeTargetConfig config, const Labels& extra = {});

// "host:port" of an http url, as Prometheus's instance label says it.
std::string instance_of(const std::string& url);

}  // namespace gpuwatch::scrape
