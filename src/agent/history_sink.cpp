#include "agent/history_sink.h"

namespace gpuwatch {

std::shared_ptr<store::RetryingHistory> open_history(const AgentOptions& options) {
  if (!options.store) return nullptr;
  store::StoreOptions so;
  so.data_dir = options.data_dir;
  so.clock_domain = store::clock_domain_for(options.sim_scenario);
  so.sync_interval = options.store_sync_interval;
  so.retention_ms = options.retention_time.count();
  so.retention_bytes = options.retention_size;
  so.decoded_cache_bytes = static_cast<std::size_t>(options.store_cache_size);
  so.downsample_after_ms = options.downsample_after.count();
  return std::make_shared<store::RetryingHistory>(so, options.store_max_process_series);
}

void HistorySink::consume(const SnapshotPtr& snapshot) {
  if (!published_) {
    history_->append(*snapshot);
  } else {
    const PublishedFamilies published = published_->stored_families();
    history_->append(*snapshot, published.families);
  }
  trim_.maybe_trim();
}

}  // namespace gpuwatch
