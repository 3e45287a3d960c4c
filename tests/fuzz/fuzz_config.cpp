// gpuwatch.yaml: any text gives settings or errors at file:line:column, never a crash.
#include <sys/mman.h>
#include <unistd.h>

#include <cstddef>
#include <cstdint>
#include <string>

#include "config/agent_options.h"
#include "config/config_file.h"
#include "core/unique_fd.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  // The loader reads a path, as the agent does: hand it an in-memory file.
  const gpuwatch::UniqueFd fd(::memfd_create("gpuwatch-fuzz.yaml", MFD_CLOEXEC));
  if (fd.get() < 0 || ::write(fd.get(), data, size) != static_cast<ssize_t>(size)) return 0;
  gpuwatch::AgentOptions options;
  for (const auto& error :
       gpuwatch::apply_config_file("/proc/self/fd/" + std::to_string(fd.get()), options)) {
    if (error.to_string().empty()) __builtin_trap();
  }
  return 0;
}
