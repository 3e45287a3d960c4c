// A collector and the thread that drives it; replaced as a whole when a reload changes how to collect.
// The driving thread may be stuck in a driver call that never returns (nvmlInit on a hung driver): stopping
// waits a moment for it and then walks away, so shutdown and reloads never hang.
#pragma once

#include <chrono>
#include <memory>

#include "collector/abandonable_worker.h"
#include "collector/collector.h"
#include "config/agent_options.h"

namespace gpuwatch {

class RunningCollector {
 public:
  // Starts collecting at once; every snapshot goes to on_snapshot (set before the first tick, so a sink
  // misses none). `replaced`: the last snapshot of the collector this one replaces (see collector_options).
  // scrapes: the agent's scraper, which outlives collectors (a reload keeps its targets' state).
  RunningCollector(const AgentOptions& options, const SnapshotCallback& on_snapshot,
                   const SnapshotPtr& replaced = nullptr, ScrapeSource scrapes = {});
  ~RunningCollector();  // stop()
  RunningCollector(const RunningCollector&) = delete;
  RunningCollector& operator=(const RunningCollector&) = delete;

  // Stops collecting. Returns false when the driving thread had to be left behind in a driver call.
  bool stop();
  const std::shared_ptr<Collector>& collector() const { return collector_; }

 private:
  static constexpr std::chrono::milliseconds kStopGrace{2000};

  std::shared_ptr<Collector> collector_;
  std::unique_ptr<AbandonableWorker> driver_;
  bool stopped_ = false;
  bool stuck_ = false;
};

}  // namespace gpuwatch
