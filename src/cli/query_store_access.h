// Where `gpuwatch query` reads history when no agent answers: the store under --data-dir, opened read-only.
#pragma once

#include <memory>
#include <string>

#include "core/series.h"

namespace gpuwatch {

// The store's series for querying. Throws std::runtime_error saying why it cannot be read.
std::shared_ptr<const store::SeriesSource> open_store_for_query(const std::string& data_dir);

}  // namespace gpuwatch
