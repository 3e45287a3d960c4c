// Serving and rendering costs of /metrics, per request and per sample:
//   build/tests/http/metrics_bench
// Serving a cached rendering must stay under 0.1 us of CPU per sample.
#include <benchmark/benchmark.h>

#include "exposition/dcgm_metrics.h"
#include "exposition/native_metrics.h"
#include "http/metrics_cache.h"
#include "snapshot_fixture.h"

namespace gpuwatch {
namespace {

// An eight-GPU node, the common HGX shape.
SnapshotPtr eight_gpus() {
  Snapshot s = testing::h200_node();
  s.devices.clear();
  for (unsigned i = 0; i < 8; ++i) s.devices.push_back(testing::full_h200(i));
  return std::make_shared<const Snapshot>(std::move(s));
}

std::size_t sample_lines(const std::string& text) {
  std::size_t n = 0;
  for (std::size_t pos = 0; pos < text.size(); pos = text.find('\n', pos) + 1) {
    if (text[pos] != '#') ++n;
  }
  return n;
}

void BM_ServeCached(benchmark::State& state) {
  MetricsCache cache;
  const auto snapshot = eight_gpus();
  const RenderVariant variant{ExpositionFormat::kText004, MetricNaming::kNative, state.range(0) != 0};
  const std::size_t samples = sample_lines(*cache.get(snapshot, {}).body);
  for (auto _ : state) {
    auto r = cache.get(snapshot, variant);
    benchmark::DoNotOptimize(r.body->data());
  }
  state.counters["samples"] = static_cast<double>(samples);
  state.counters["per_sample"] =
      benchmark::Counter(static_cast<double>(samples),
                         benchmark::Counter::kIsIterationInvariantRate | benchmark::Counter::kInvert);
}
BENCHMARK(BM_ServeCached)->Arg(0)->Arg(1);

void BM_RenderNative(benchmark::State& state) {
  const auto snapshot = eight_gpus();
  for (auto _ : state) benchmark::DoNotOptimize(render_native(*snapshot, ExpositionFormat::kText004));
}
BENCHMARK(BM_RenderNative);

void BM_RenderDcgm(benchmark::State& state) {
  const auto snapshot = eight_gpus();
  for (auto _ : state) benchmark::DoNotOptimize(render_dcgm(*snapshot, DcgmOptions{}));
}
BENCHMARK(BM_RenderDcgm);

}  // namespace
}  // namespace gpuwatch

BENCHMARK_MAIN();
