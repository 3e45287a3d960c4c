#include "agent/running_collector.h"

#include <spdlog/spdlog.h>

#include <stop_token>
#include <utility>

#include "agent/collector_setup.h"

namespace gpuwatch {
namespace {

std::shared_ptr<Collector> make_collector(const AgentOptions& options, const SnapshotCallback& on_snapshot,
                                          const SnapshotPtr& replaced, ScrapeSource scrapes) {
  CollectorOptions copts = collector_options(options, replaced);
  copts.scrapes = std::move(scrapes);
  auto collector = std::make_shared<Collector>(std::move(copts));
  if (on_snapshot) collector->set_snapshot_callback(on_snapshot);
  return collector;
}

void log_first_collection(const Snapshot& snap) {
  if (!snap.source_error.empty()) {
    spdlog::error("no GPU could be read: {}", snap.source_error);
  } else {
    spdlog::info("first collection: {} device(s), driver {}", snap.devices.size(), snap.node.driver_version);
  }
}

}  // namespace

RunningCollector::RunningCollector(const AgentOptions& options, const SnapshotCallback& on_snapshot,
                                   const SnapshotPtr& replaced, ScrapeSource scrapes)
    : collector_(make_collector(options, on_snapshot, replaced, std::move(scrapes))),
      driver_(std::make_unique<AbandonableWorker>(
          [c = collector_](std::stop_token stop) {
            c->tick();
            log_first_collection(*c->latest());
            c->run(std::move(stop));
          },
          kStopGrace)) {
  driver_->start();
}

RunningCollector::~RunningCollector() {
  stop();
}

bool RunningCollector::stop() {
  if (stopped_) return !stuck_;
  stopped_ = true;
  driver_->request_stop();
  collector_->clock().interrupt();
  stuck_ = !driver_->wait_until(std::chrono::steady_clock::now() + kStopGrace);
  if (stuck_) spdlog::warn("a collection thread is stuck in a driver call; leaving it behind");
  return !stuck_;
}

}  // namespace gpuwatch
