// The scraping source: every target (configured, or discovered on the GPU processes' listening sockets) has
// its own worker thread and its own deadline (the target's timeout), so a target that hangs, answers garbage
// or grows without bound costs only its own scrape. The collector calls collect() once a tick, on its thread:
// it starts the scrapes that are due on the collector's clock and takes the ones that finished, without
// waiting for any (in lockstep it waits for the scrapes it started until the tick's deadline, so the result
// does not depend on scheduling). A target still inside a scrape is not started again.
//
// Discovery (opt-in) looks at the snapshot's GPU processes every 10 s of clock time; a socket becomes a
// target once a scrape of its /metrics succeeded (probes that fail are retried every minute and publish
// nothing), labelled with the process's pid, name, GPUs (gpu, uuid) and workload (container_id, pod_uid,
// slurm_job). A target whose process left the GPUs is dropped, its series marked stale.
#pragma once

#include <chrono>
#include <cstdint>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "config/scrape_config.h"
#include "core/scrape_result.h"
#include "core/snapshot.h"

namespace gpuwatch::scrape {

class Scraper {
 public:
  Scraper(ScrapeConfig config, std::string proc_root);
  ~Scraper();
  Scraper(const Scraper&) = delete;
  Scraper& operator=(const Scraper&) = delete;

  // On the collector's thread: the scrapes finished since the last call, oldest first per target.
  // wait_until: how long to wait for the scrapes started now (the tick's deadline in lockstep, else now).
  std::vector<std::shared_ptr<const ScrapeResult>> collect(std::int64_t now_ms, const Snapshot& snapshot,
                                                           std::chrono::steady_clock::time_point wait_until);
  std::size_t target_count() const { return slots_.size(); }

 private:
  struct Job;
  struct Slot;
  void discover(std::int64_t now_ms, const Snapshot& snapshot,
                std::vector<std::shared_ptr<const ScrapeResult>>& out);
  void add_slot(std::string key, std::shared_ptr<Slot> slot);

  ScrapeConfig config_;
  std::string proc_root_;
  std::map<std::string, std::shared_ptr<Slot>> slots_;  // by target key
  std::int64_t next_discovery_ms_ = 0;
};

}  // namespace gpuwatch::scrape
