// The SLO sink's evaluation cost (docs/benchmarks.md, "SLO evaluation"): N SLOs (10, 100, 1,000), each the
// availability of its own Triton-shaped service (bad = failures, total = successes + failures), fed one
// scrape per service every 5 s and evaluated after each round, as the sink does per snapshot. Reports the
// time per scraped sample (consume) and per SLO evaluation (windows read, burn rates, the workbook's table).
#include <benchmark/benchmark.h>

#include <string>
#include <vector>

#include "slo/slo_engine.h"
#include "slo/spec_files.h"

namespace gpuwatch::slo {
namespace {

std::vector<SloSpec> specs(int n) {
  std::vector<SloSpec> out;
  for (int i = 0; i < n; ++i) {
    const std::string m = "m" + std::to_string(i);
    const std::string doc =
        "version: \"prometheus/v1\"\nservice: \"" + m +
        "\"\nslos:\n  - name: availability\n    objective: 99.9\n    sli:\n      events:\n"
        "        error_query: sum(rate(nv_inference_request_failure{model=\"" +
        m + "\"}[{{.window}}]))\n        total_query: sum(rate(nv_inference_request_success{model=\"" + m +
        "\"}[{{.window}}])) + sum(rate(nv_inference_request_failure{model=\"" + m + "\"}[{{.window}}]))\n";
    for (auto& s : parse_slo_text(doc, "bench.yaml")) out.push_back(std::move(s));
  }
  return out;
}

std::vector<ScrapeResult> scrapes(int n, std::int64_t t_ms, double count) {
  std::vector<ScrapeResult> out(static_cast<std::size_t>(n));
  for (int i = 0; i < n; ++i) {
    auto& r = out[static_cast<std::size_t>(i)];
    r.t_ms = t_ms;
    r.up = true;
    r.target = {{"instance", "127.0.0.1:" + std::to_string(20000 + i)}, {"job", "triton"}};
    const std::string m = "m" + std::to_string(i);
    r.samples.push_back(
        {{{"__name__", "nv_inference_request_success"}, {"gpu", "0"}, {"model", m}}, t_ms, count});
    r.samples.push_back(
        {{{"__name__", "nv_inference_request_failure"}, {"gpu", "0"}, {"model", m}}, t_ms, count / 500});
    r.samples.push_back({{{"__name__", "nv_inference_count"}, {"gpu", "0"}, {"model", m}}, t_ms, count});
  }
  return out;
}

void BM_ConsumeAndEvaluate(benchmark::State& state) {
  const int n = static_cast<int>(state.range(0));
  SloEngine engine(specs(n));
  std::int64_t t = 0;
  double count = 0;
  std::size_t samples = 0;
  for (auto _ : state) {
    state.PauseTiming();
    t += 5000;
    count += 100;
    auto round = scrapes(n, t, count);
    state.ResumeTiming();
    for (const auto& r : round) {
      engine.consume(r);
      samples += r.samples.size();
    }
    benchmark::DoNotOptimize(engine.evaluate(t, {}));
  }
  state.counters["ns_per_sample"] = benchmark::Counter(
      static_cast<double>(samples), benchmark::Counter::kIsRate | benchmark::Counter::kInvert);
  state.counters["slos"] = n;
}
BENCHMARK(BM_ConsumeAndEvaluate)->Arg(10)->Arg(100)->Arg(1000)->Unit(benchmark::kMicrosecond);

void BM_EvaluateOnly(benchmark::State& state) {
  const int n = static_cast<int>(state.range(0));
  SloEngine engine(specs(n));
  std::int64_t t = 0;
  for (auto _ : state) {
    t += 5000;
    benchmark::DoNotOptimize(engine.evaluate(t, {}));
  }
  state.counters["ns_per_slo"] = benchmark::Counter(
      static_cast<double>(state.iterations()) * n, benchmark::Counter::kIsRate | benchmark::Counter::kInvert);
}
BENCHMARK(BM_EvaluateOnly)->Arg(10)->Arg(100)->Arg(1000)->Unit(benchmark::kMicrosecond);

}  // namespace
}  // namespace gpuwatch::slo

BENCHMARK_MAIN();
