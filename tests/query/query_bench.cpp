// The three range queries of the store benchmark (docs/benchmarks.md), on a memory source shaped like the
// shared corpus: 8 GPUs x 30 series, 24 h of 1 s samples (240 series x 86400 points). Each iteration parses,
// evaluates and encodes the JSON answer, as /api/v1/query_range does. Not a ctest: timings vary.
//   build/tests/query/query_bench --benchmark_repetitions=5 --benchmark_report_aggregates_only=true
#include <benchmark/benchmark.h>

#include <cmath>
#include <memory>
#include <string>

#include "query/engine.h"
#include "query/memory_series_source.h"
#include "query/result_json.h"

namespace {

using gpuwatch::query::MemorySeriesSource;

constexpr std::int64_t kStart = 1'700'000'000'000;
constexpr std::int64_t kDay = 86'400'000;

const MemorySeriesSource& corpus() {
  static const std::unique_ptr<MemorySeriesSource> source = [] {
    auto s = std::make_unique<MemorySeriesSource>();
    std::uint64_t state = 7;
    const auto noise = [&] {
      state = state * 6364136223846793005ULL + 1442695040888963407ULL;
      return static_cast<double>(state >> 11) / 9007199254740992.0;
    };
    for (int gpu = 0; gpu < 8; ++gpu) {
      for (int metric = 0; metric < 30; ++metric) {
        std::string name = metric == 0   ? "gpu_temperature_celsius"
                           : metric == 1 ? "gpu_utilization_ratio"
                           : metric == 2 ? "gpu_memory_used_bytes"
                                         : "gpu_other_" + std::to_string(metric);
        std::vector<gpuwatch::store::Point> points(86'400);
        double v = 40;
        for (std::int64_t i = 0; i < 86'400; ++i) {
          v = metric == 1 ? std::round(noise() * 100) / 100 : v + std::round(noise() * 3) - 1;
          points[static_cast<std::size_t>(i)] = {kStart + i * 1000, v};
        }
        s->add_series(
            {{"__name__", name}, {"gpu", std::to_string(gpu)}, {"uuid", "GPU-" + std::to_string(gpu)}},
            std::move(points));
      }
    }
    return s;
  }();
  return *source;
}

void run(benchmark::State& state, const char* query, std::int64_t step_ms) {
  const MemorySeriesSource& source = corpus();
  const gpuwatch::query::Steps steps{kStart, kStart + kDay - 1000, step_ms};
  std::size_t bytes = 0;
  for (auto _ : state) {
    const auto result = gpuwatch::query::range_query(source, query, steps);
    const std::string json = gpuwatch::query::result_to_json(result);
    bytes = json.size();
    benchmark::DoNotOptimize(json.data());
  }
  state.counters["response_bytes"] = static_cast<double>(bytes);
}

void BM_OneSeries24hStep10s(benchmark::State& state) {
  run(state, "gpu_temperature_celsius{gpu=\"3\"}", 10'000);
}
void BM_AvgByGpu24hStep60s(benchmark::State& state) {
  run(state, "avg by (gpu) (gpu_utilization_ratio)", 60'000);
}
void BM_MaxOverTime5m24hStep60s(benchmark::State& state) {
  run(state, "max_over_time(gpu_memory_used_bytes[5m])", 60'000);
}

BENCHMARK(BM_OneSeries24hStep10s)->Unit(benchmark::kMillisecond);
BENCHMARK(BM_AvgByGpu24hStep60s)->Unit(benchmark::kMillisecond);
BENCHMARK(BM_MaxOverTime5m24hStep60s)->Unit(benchmark::kMillisecond);

}  // namespace

BENCHMARK_MAIN();
