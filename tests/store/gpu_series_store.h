#pragma once
// A store of a few GPUs' series for the store's tests: the labels of one GPU's series, a store whose blocks
// are cut every `samples` samples and that writes only when the test says (maintain, seal_all), and one
// series read back whole.
#include <cstdint>
#include <string>
#include <vector>

#include "store/store.h"

namespace gpuwatch::store::testing {

inline Labels gpu_labels(const char* name, int gpu) {
  return {{"__name__", name}, {"gpu", std::to_string(gpu)}};
}

inline StoreOptions blocks_of_samples(const std::string& dir, std::size_t samples) {
  StoreOptions o;
  o.data_dir = dir;
  o.background_flusher = false;
  o.block_window_ms = 1'000'000'000;  // blocks are cut at block_max_samples
  o.block_max_samples = samples;
  return o;
}

// Every point of `name` on GPU `gpu`; none when the store has no such series.
inline std::vector<Point> read_gpu_series(const Store& store, const char* name, int gpu) {
  const std::vector<LabelMatcher> m{{"__name__", LabelMatcher::Op::kEqual, name},
                                    {"gpu", LabelMatcher::Op::kEqual, std::to_string(gpu)}};
  const auto got = store.select(m, INT64_MIN, INT64_MAX);
  return got.empty() ? std::vector<Point>{} : got[0].points;
}

}  // namespace gpuwatch::store::testing
