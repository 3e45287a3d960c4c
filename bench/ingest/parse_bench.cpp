// Parse-only speed of the import parser on one core: reads each file (mapped) and counts samples, with no
// store behind it. `gpuwatch import --dry-run` measures the import path end to end.
//
//   parse_bench FILE... [--format auto|openmetrics|prometheus]
#include <sys/resource.h>

#include <chrono>
#include <cstdio>
#include <string>
#include <vector>

#include "ingest/exposition_parser.h"
#include "ingest/mapped_file.h"

int main(int argc, char** argv) {
  using namespace gpuwatch::ingest;
  std::vector<std::string> files;
  InputFormat format = InputFormat::kAuto;
  for (int i = 1; i < argc; ++i) {
    const std::string a = argv[i];
    if (a == "--format" && i + 1 < argc) {
      const std::string f = argv[++i];
      format = f == "openmetrics"  ? InputFormat::kOpenMetrics
               : f == "prometheus" ? InputFormat::kPrometheus
                                   : InputFormat::kAuto;
    } else {
      files.push_back(a);
    }
  }
  if (files.empty()) {
    std::fprintf(stderr, "usage: parse_bench FILE... [--format auto|openmetrics|prometheus]\n");
    return 2;
  }
  std::size_t samples = 0, bytes = 0, bad = 0;
  double checksum = 0;
  const auto t0 = std::chrono::steady_clock::now();
  for (const auto& path : files) {
    MappedFile file(path);
    ExpositionParser parser(file.text(), path, format,
                            [](const ParseError& e) { std::fprintf(stderr, "%s\n", e.to_string().c_str()); });
    Sample s;
    while (parser.next(s)) {
      ++samples;
      checksum += s.value;
    }
    bytes += file.text().size();
    bad += parser.bad_lines();
  }
  const double secs = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  // CPU time as well: on a shared machine the wall clock measures the neighbours too.
  rusage ru{};
  ::getrusage(RUSAGE_SELF, &ru);
  const double cpu = static_cast<double>(ru.ru_utime.tv_sec + ru.ru_stime.tv_sec) +
                     static_cast<double>(ru.ru_utime.tv_usec + ru.ru_stime.tv_usec) / 1e6;
  std::printf(
      "{\"files\": %zu, \"bytes\": %zu, \"samples\": %zu, \"bad_lines\": %zu, \"seconds\": %.3f, "
      "\"samples_per_s\": %.0f, \"cpu_seconds\": %.3f, \"samples_per_cpu_s\": %.0f, \"mb_per_s\": %.1f, "
      "\"checksum\": %.6g}\n",
      files.size(), bytes, samples, bad, secs, static_cast<double>(samples) / secs, cpu,
      static_cast<double>(samples) / cpu, static_cast<double>(bytes) / secs / 1e6, checksum);
  return bad == 0 ? 0 : 1;
}
