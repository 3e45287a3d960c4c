#include "cli/query_store_access.h"

#include <filesystem>
#include <stdexcept>

#include "store/store.h"

namespace gpuwatch {

std::shared_ptr<const store::SeriesSource> open_store_for_query(const std::string& data_dir) {
  if (!std::filesystem::exists(data_dir + "/store.db")) {
    throw std::runtime_error(
        "no agent answered and there is no history in " + data_dir +
        "; start the agent (gpuwatch agent), pass --url of one that runs, or --data-dir");
  }
  store::StoreOptions options;
  options.data_dir = data_dir;
  options.clock_domain = "";           // whatever the history was recorded in
  options.background_flusher = false;  // a reader: nothing to flush but the replayed WAL on close
  options.downsample_after_ms = 0;
  try {
    return store::Store::open(options);
  } catch (const std::exception& e) {
    throw std::runtime_error(std::string("no agent answered and the history in ") + data_dir +
                             " cannot be read: " + e.what());
  }
}

}  // namespace gpuwatch
