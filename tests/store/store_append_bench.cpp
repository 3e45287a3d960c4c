// What history costs the agent: appends an hour of 1 s samples for an 8-GPU node's worth of series (1,024:
// constant, integer-valued and noisy decimal ones, like /metrics) through the real store with its flusher,
// then prints the append cost, the head's memory and the bytes on disk. Not a ctest (timings vary).
// Usage: store_append_bench [DATA_DIR]   (default: a temporary directory, removed afterwards)
#include <chrono>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <string>

#include "store/store.h"
#include "store/store_check.h"

using namespace gpuwatch::store;

namespace {

double value(int series, std::int64_t tick) {
  switch (series % 4) {
    case 0:
    case 1:
      return 80e9 + series;  // constant (77% of the shared corpus is constant)
    case 2:
      return static_cast<double>(40 + (tick / 300 + series) % 7);  // integer steps
    default:
      return std::round((300 + 50 * std::sin(tick / 120.0 + series) + (tick * 7919 % 97) / 10.0) * 1000) /
             1000;
  }
}

}  // namespace

int main(int argc, char** argv) {
  const bool temporary = argc < 2;
  const std::string dir = temporary ? "/tmp/gpuwatch-store-bench-" + std::to_string(::getpid()) : argv[1];
  std::filesystem::remove_all(dir);
  constexpr int kSeries = 1024;
  constexpr std::int64_t kTicks = 3600;
  std::vector<Labels> labels;
  for (int i = 0; i < kSeries; ++i)
    labels.push_back({{"__name__", "metric_" + std::to_string(i % 128)}, {"gpu", std::to_string(i / 128)}});
  StoreOptions options;
  options.data_dir = dir;
  double append_seconds = 0;
  StoreHealth before_seal;
  {
    auto store = Store::open(options);
    for (std::int64_t tick = 0; tick < kTicks; ++tick) {
      const auto start = std::chrono::steady_clock::now();
      for (int i = 0; i < kSeries; ++i)
        store->append(labels[i], 1'800'000'000'000 + tick * 1000, value(i, tick));
      append_seconds += std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    }
    store->commit();
    before_seal = store->health();
    store->seal_all();
  }
  const CheckReport report = check_store(dir);
  const double samples = static_cast<double>(kSeries) * kTicks;
  std::printf("%d series x %lld ticks = %.0f samples\n", kSeries, static_cast<long long>(kTicks), samples);
  std::printf("append: %.0f ns/sample, %.0f us per tick of %d series (collector thread)\n",
              append_seconds / samples * 1e9, append_seconds / kTicks * 1e6, kSeries);
  std::printf("head after 1 h: %.2f MiB for %.0f samples (%.2f bytes/sample)\n",
              before_seal.memory_bytes / 1048576.0, static_cast<double>(before_seal.samples_in_memory),
              static_cast<double>(before_seal.memory_bytes) / before_seal.samples_in_memory);
  std::printf("sealed: %zu blocks, %llu bytes (%.3f bytes/sample); %s", report.blocks,
              static_cast<unsigned long long>(report.block_bytes), report.block_bytes / samples,
              report.summary().c_str());
  if (temporary) std::filesystem::remove_all(dir);
  return report.clean() ? 0 : 1;
}
