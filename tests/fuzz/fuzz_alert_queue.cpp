// The alert delivery queue a previous run left in the data dir: any file content is loaded as a queued alert
// or set aside as *.bad; the agent always starts.
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <string>

#include "alerting/delivery_queue.h"

namespace {

const std::filesystem::path& queue_dir() {
  static const std::filesystem::path dir = [] {
    std::string pattern = (std::filesystem::temp_directory_path() / "gpuwatch-fuzz-queue-XXXXXX").string();
    if (::mkdtemp(pattern.data()) == nullptr) std::abort();
    return std::filesystem::path(pattern);
  }();
  return dir;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const auto& dir = queue_dir();
  {
    std::ofstream out(dir / "left-behind.json", std::ios::binary | std::ios::trunc);
    out.write(reinterpret_cast<const char*>(data), static_cast<std::streamsize>(size));
  }
  {
    gpuwatch::alerting::DeliveryQueue queue(dir.string());
    if (queue.size() > 1) __builtin_trap();  // one file holds one alert at most
  }
  for (const auto& entry : std::filesystem::directory_iterator(dir)) std::filesystem::remove(entry.path());
  return 0;
}
