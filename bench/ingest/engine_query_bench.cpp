// The query engine's share of a range query, on the data of exposition files: imports them into memory
// (the importer over a MemorySeriesSource), then times the three range queries of the store benchmark as the
// agent answers them (evaluation plus the JSON body), without HTTP and without the store's block decoding.
// One warm-up and RUNS timed runs each; prints JSON with the medians in ms.
//
//   engine_query_bench --start UNIX_S --end UNIX_S [--runs 5] FILE...
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <string>
#include <vector>

#include "ingest/importer.h"
#include "query/engine.h"
#include "query/memory_series_source.h"
#include "query/result_json.h"

namespace {

// What import writes to: the in-memory source, with its own ordering check.
class MemoryAppender : public gpuwatch::store::SeriesAppender {
 public:
  explicit MemoryAppender(gpuwatch::query::MemorySeriesSource& source) : source_(source) {}
  std::string append(const gpuwatch::store::Labels& labels, std::int64_t t_ms, double value) override {
    return source_.add(labels, t_ms, value);
  }
  void commit() override {}

 private:
  gpuwatch::query::MemorySeriesSource& source_;
};

}  // namespace

int main(int argc, char** argv) {
  using namespace gpuwatch;
  std::vector<std::string> files;
  std::int64_t start = 0, end = 0;
  int runs = 5;
  for (int i = 1; i < argc; ++i) {
    const std::string a = argv[i];
    if (a == "--start" && i + 1 < argc) {
      start = std::stoll(argv[++i]);
    } else if (a == "--end" && i + 1 < argc) {
      end = std::stoll(argv[++i]);
    } else if (a == "--runs" && i + 1 < argc) {
      runs = std::max(1, std::stoi(argv[++i]));
    } else {
      files.push_back(a);
    }
  }
  if (files.empty() || end <= start) {
    std::fprintf(stderr, "usage: engine_query_bench --start UNIX_S --end UNIX_S [--runs 5] FILE...\n");
    return 2;
  }
  query::MemorySeriesSource source;
  MemoryAppender appender(source);
  ingest::Importer importer(appender, files, {}, [](const ingest::ParseError& e) {
    std::fprintf(stderr, "%s\n", e.to_string().c_str());
  });
  const ingest::ImportSummary imported = importer.run();
  struct Case {
    const char* name;
    const char* query;
    std::int64_t step_s;
  };
  const Case cases[] = {{"a", "gpu_temperature_celsius{gpu=\"3\"}", 10},
                        {"b", "avg by (gpu) (gpu_utilization_ratio)", 60},
                        {"c", "max_over_time(gpu_memory_used_bytes[5m])", 60}};
  std::printf("{\"samples\": %zu, \"series\": %zu, \"import_seconds\": %.3f", imported.samples_imported,
              imported.series, imported.seconds);
  for (const Case& c : cases) {
    const query::Steps steps{start * 1000, end * 1000, c.step_s * 1000};
    std::vector<double> ms;
    std::size_t bytes = 0;
    for (int r = 0; r <= runs; ++r) {
      const auto t0 = std::chrono::steady_clock::now();
      const std::string body = query::result_to_json(query::range_query(source, c.query, steps));
      const double took =
          std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
      bytes = body.size();
      if (r > 0) ms.push_back(took);
    }
    std::sort(ms.begin(), ms.end());
    std::printf(", \"q_%s_ms\": %.2f, \"q_%s_bytes\": %zu", c.name, ms[ms.size() / 2], c.name, bytes);
  }
  std::printf("}\n");
  return 0;
}
