// PromQL from a request: it parses or fails with QueryError, and what parses evaluates (instant and range)
// over a few series or fails with QueryError; nothing else escapes, nothing crashes.
#include <cstddef>
#include <cstdint>
#include <string_view>

#include "query/engine.h"
#include "query/memory_series_source.h"
#include "query/query_error.h"

namespace {

const gpuwatch::query::MemorySeriesSource& series() {
  static const auto source = [] {
    gpuwatch::query::MemorySeriesSource s;
    for (int gpu = 0; gpu < 2; ++gpu) {
      const std::string g = std::to_string(gpu);
      for (int t = 0; t <= 600; t += 15) {
        s.add({{"__name__", "gpu_utilization_ratio"}, {"gpu", g}, {"uuid", "GPU-" + g}}, t * 1000,
              0.1 * gpu + t / 1000.0);
        s.add({{"__name__", "gpu_energy_joules_total"}, {"gpu", g}}, t * 1000, 300.0 * t);
        s.add({{"__name__", "gpu_req_seconds_bucket"}, {"gpu", g}, {"le", t % 2 ? "0.5" : "+Inf"}}, t * 1000,
              t);
      }
    }
    return s;
  }();
  return source;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  if (size > 4096) return -1;  // longer queries add nothing the parser has not seen
  const std::string_view query(reinterpret_cast<const char*>(data), size);
  try {
    (void)gpuwatch::query::instant_query(series(), query, 600'000);
  } catch (const gpuwatch::query::QueryError&) {
  }
  try {
    gpuwatch::query::Steps steps;
    steps.start = 0;
    steps.end = 600'000;
    steps.step = 60'000;
    (void)gpuwatch::query::range_query(series(), query, steps);
  } catch (const gpuwatch::query::QueryError&) {
  }
  return 0;
}
