// The oracle's samples in the real history store, laid out so that every read path holds part of them:
// sealed SQLite blocks for the older samples, the head for the newer ones, and the head rebuilt by
// replaying the WAL on a reopen.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "gpu_samples.h"
#include "store/store.h"

namespace gpuwatch::test {

// Opens a store in data_dir (which must exist and be empty), appends every sample older than seal_before_ms
// in time order per series, seals them into blocks, appends the rest into the head, commits the WAL, closes
// the store and opens it again. Throws std::runtime_error when the store refuses a sample or when either
// read path ends up without samples.
std::shared_ptr<store::Store> load_into_store(const std::string& data_dir,
                                              const std::vector<Family>& families,
                                              std::int64_t seal_before_ms);

}  // namespace gpuwatch::test
