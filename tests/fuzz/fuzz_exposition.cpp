// Imported exposition files (Prometheus text 0.0.4, OpenMetrics 1.0): every byte sequence is either samples
// or errors at file:line:column, never a crash.
#include <cstddef>
#include <cstdint>
#include <string_view>

#include "ingest/exposition_parser.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  for (const auto format :
       {gpuwatch::ingest::InputFormat::kPrometheus, gpuwatch::ingest::InputFormat::kOpenMetrics}) {
    gpuwatch::ingest::ExpositionParser parser(
        text, "fuzz.prom", format, [](const gpuwatch::ingest::ParseError& e) { (void)e.to_string(); });
    gpuwatch::ingest::Sample sample;
    while (parser.next(sample)) {
      if (sample.labels == nullptr) __builtin_trap();  // every sample names its series
    }
  }
  return 0;
}
