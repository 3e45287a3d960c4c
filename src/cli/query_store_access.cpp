#include "cli/query_store_access.h"

#include <stdexcept>

namespace gpuwatch {

std::shared_ptr<const store::SeriesSource> open_store_for_query(const std::string& data_dir) {
  // STORE HOOK: the one call site for reading the store directly. Replace this body with the store's
  // read-only open function (src/store) once it lands; everything else in `gpuwatch query` is ready.
  throw std::runtime_error("no agent answered and this build cannot read the store in " + data_dir +
                           " directly yet; start the agent (gpuwatch agent) or pass --url of one that runs");
}

}  // namespace gpuwatch
