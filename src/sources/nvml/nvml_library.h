// The NVML shared library, loaded at run time with dlopen so that one gpuwatch binary runs on hosts with any
// driver version, or none. Every entry point of GPUWATCH_NVML_SYMBOLS is resolved once, before nvmlInit_v2;
// a missing optional entry point is a null pointer and the metrics it serves are simply unsupported.
//
// Held through std::shared_ptr: a thread that may still be inside an NVML call (a hung driver call that was
// abandoned at shutdown) keeps its own reference, so the code it runs is never unmapped under it.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "sources/nvml/nvml_symbols.h"

namespace gpuwatch {

// One pointer per entry point of GPUWATCH_NVML_SYMBOLS, null when the library does not export it.
struct NvmlFunctions {
#define GPUWATCH_NVML_FN_MEMBER(name, required, ret, params) ret(*name) params = nullptr;
  GPUWATCH_NVML_SYMBOLS(GPUWATCH_NVML_FN_MEMBER)
#undef GPUWATCH_NVML_FN_MEMBER
};

// Index of an entry point in GPUWATCH_NVML_SYMBOLS (used to remember per-call state cheaply).
enum class NvmlSymbol : std::uint16_t {
#define GPUWATCH_NVML_SYM_ENUM(name, ...) name,
  GPUWATCH_NVML_SYMBOLS(GPUWATCH_NVML_SYM_ENUM)
#undef GPUWATCH_NVML_SYM_ENUM
};

inline constexpr std::array kNvmlSymbolNames = {
#define GPUWATCH_NVML_SYM_NAME(name, ...) std::string_view(#name),
    GPUWATCH_NVML_SYMBOLS(GPUWATCH_NVML_SYM_NAME)
#undef GPUWATCH_NVML_SYM_NAME
};
inline constexpr std::size_t kNvmlSymbolCount = kNvmlSymbolNames.size();

constexpr std::string_view nvml_symbol_name(NvmlSymbol s) {
  return kNvmlSymbolNames[static_cast<std::size_t>(s)];
}

class NvmlLibrary;

struct NvmlOpenResult {
  std::shared_ptr<NvmlLibrary> library;  // null on failure
  std::string error;                     // what was tried and what to do; empty on success
};

class NvmlLibrary {
 public:
  // The names tried, in order, when no path is given.
  static constexpr std::array<const char*, 2> kDefaultNames = {"libnvidia-ml.so.1", "libnvidia-ml.so"};

  // Loads `path`, or the default names when it is empty, and resolves every symbol. Never calls nvmlInit.
  // Fails (library null, error set) when no candidate loads or a required symbol is missing.
  static NvmlOpenResult open(const std::string& path = {});

  ~NvmlLibrary();
  NvmlLibrary(const NvmlLibrary&) = delete;
  NvmlLibrary& operator=(const NvmlLibrary&) = delete;

  // The resolved table. Where an older name serves the same signature, the newer member is filled from it
  // (ClocksEventReasons <- ClocksThrottleReasons, CudaDriverVersion_v2 <- plain, process lists _v3 <- _v2);
  // nvmlDeviceGetMemoryInfo_v2 has its own struct, so callers fall back to nvmlDeviceGetMemoryInfo
  // themselves.
  const NvmlFunctions& fn() const { return fn_; }

  // The path that was loaded (as given to dlopen).
  const std::string& path() const { return path_; }

  // Size of one nvmlProcessInfo_t element the library writes: 24, or 32 for the early R535 drivers whose _v3
  // lists carried usedGpuCcProtectedMemory (decided from exported symbols, as nvitop does).
  std::size_t process_info_size() const { return process_info_size_; }

  // Any other symbol (the simulator's gpuwatchSim* entry points); null when absent.
  void* optional_symbol(const char* name) const;

  // Symbols that were absent (optional ones only; a missing required one fails open()).
  const std::vector<std::string_view>& missing_symbols() const { return missing_; }

 private:
  struct DlHandleCloser {
    void operator()(void* handle) const;
  };
  NvmlLibrary(std::unique_ptr<void, DlHandleCloser> handle, std::string path);

  std::unique_ptr<void, DlHandleCloser> handle_;
  std::string path_;
  NvmlFunctions fn_;
  std::size_t process_info_size_ = sizeof(nvmlProcessInfo_t);
  std::vector<std::string_view> missing_;
};

}  // namespace gpuwatch
