#include "agent/history_sink.h"

#include <spdlog/spdlog.h>

#include <exception>

namespace gpuwatch {

std::shared_ptr<store::SnapshotHistory> open_history(const AgentOptions& options) {
  if (!options.store) return nullptr;
  store::StoreOptions so;
  so.data_dir = options.data_dir;
  so.clock_domain = store::clock_domain_for(options.sim_scenario);
  so.sync_interval = options.store_sync_interval;
  so.retention_ms = options.retention_time.count();
  so.retention_bytes = options.retention_size;
  so.downsample_after_ms = options.downsample_after.count();
  try {
    return std::make_shared<store::SnapshotHistory>(store::Store::open(so), options.store_max_process_series);
  } catch (const std::exception& e) {
    spdlog::error("history store disabled: {}", e.what());
    return nullptr;
  }
}

void HistorySink::consume(const SnapshotPtr& snapshot) {
  if (!published_) {
    history_->append(*snapshot);
    return;
  }
  const PublishedFamilies published = published_->families();
  history_->append(*snapshot, published.families);
}

}  // namespace gpuwatch
