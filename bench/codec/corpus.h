#pragma once
// Reads the shared benchmark corpus (Prometheus text with millisecond timestamps, as written by
// gen_gpu_openmetrics.py --format prom-ms) into one column pair per series.
#include <cstdint>
#include <string>
#include <vector>

namespace gpuwatch::bench {

struct CorpusSeries {
  std::string name;  // metric name with labels, as in the file
  std::vector<std::int64_t> timestamps_ms;
  std::vector<double> values;
};

// Throws std::runtime_error naming file:line on a line it cannot read.
std::vector<CorpusSeries> load_prometheus_text(const std::string& path);

}  // namespace gpuwatch::bench
