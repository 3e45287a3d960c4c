// Book-keeping of the NVML calls made for one device: time spent inside NVML, calls answered NOT_SUPPORTED
// (never made again for this device), GPU_IS_LOST, errors that need the session re-initialised, and counts of
// every other failure. One tracker belongs to one device reader and is used by one thread at a time.
#pragma once

#include <array>
#include <chrono>
#include <cstdint>
#include <string>
#include <vector>

#include "sources/nvml/nvml_library.h"

namespace gpuwatch {

enum class CallOutcome : std::uint8_t {
  kOk,                // NVML_SUCCESS
  kInsufficientSize,  // a list call wants a larger buffer; the count argument says how large
  kNotFound,          // no such item (empty MIG slot, no new utilization sample)
  kFailed,            // anything else; already recorded
};

struct CallError {
  NvmlSymbol call;
  int code;
  std::uint64_t count;
};

class CallTracker {
 public:
  // Variants distinguish calls whose answer depends on an argument (clock type, threshold, link):
  // NOT_SUPPORTED for one variant leaves the others callable. Variants >= 32 are never blocked here.
  static constexpr unsigned kNoVariant = 0;

  // Calls fn(args...) unless fn is null or was answered NOT_SUPPORTED before, timing it.
  template <typename R, typename... P, typename... A>
  CallOutcome call(NvmlSymbol sym, unsigned variant, R (*fn)(P...), A&&... args) {
    if (fn == nullptr) {
      mark_unsupported(sym, variant);
      return CallOutcome::kFailed;
    }
    if (!callable(sym, variant)) return CallOutcome::kFailed;
    ++call_counts_[static_cast<std::size_t>(sym)];
    const auto start = std::chrono::steady_clock::now();
    const nvmlReturn_t rc = fn(std::forward<A>(args)...);
    nvml_time_ += std::chrono::steady_clock::now() - start;
    // The usual answer, without the out-of-line book-keeping.
    if (rc == NVML_SUCCESS) return CallOutcome::kOk;
    return record(sym, variant, rc);
  }

  bool callable(NvmlSymbol sym, unsigned variant) const {
    return variant >= 32 || (unsupported_mask_[static_cast<std::size_t>(sym)] & bit(variant)) == 0;
  }
  // Records the answer of a call made outside call() (e.g. per-field answers of nvmlDeviceGetFieldValues).
  CallOutcome record(NvmlSymbol sym, unsigned variant, nvmlReturn_t rc);
  void mark_unsupported(NvmlSymbol sym, unsigned variant);
  // Adds time measured around a call made outside call().
  void add_nvml_time(std::chrono::steady_clock::duration d) { nvml_time_ += d; }

  // GPU_IS_LOST was answered since the last begin_read().
  bool lost() const { return lost_; }
  // LIB_RM_VERSION_MISMATCH, DRIVER_NOT_LOADED or UNINITIALIZED was answered: the session must be re-created.
  bool needs_reinit() const { return needs_reinit_; }
  void begin_read() { lost_ = false; }

  // "nvmlDeviceGetClockInfo(3)" style names, in the order NVML first answered NOT_SUPPORTED.
  const std::vector<std::string>& unsupported() const { return unsupported_names_; }
  // Failures not yet harvested; the caller merges them into its cumulative counts and clears the vector.
  std::vector<CallError>& errors() { return errors_; }
  std::chrono::steady_clock::duration nvml_time() const { return nvml_time_; }
  // How many times call() reached NVML for this entry point (all variants).
  std::uint32_t call_count(NvmlSymbol sym) const { return call_counts_[static_cast<std::size_t>(sym)]; }

 private:
  static constexpr std::uint32_t bit(unsigned variant) { return 1U << (variant < 32 ? variant : 31); }

  std::array<std::uint32_t, kNvmlSymbolCount> unsupported_mask_{};
  std::array<std::uint32_t, kNvmlSymbolCount> call_counts_{};
  std::vector<std::string> unsupported_names_;
  std::vector<CallError> errors_;
  std::chrono::steady_clock::duration nvml_time_{};
  bool lost_ = false;
  bool needs_reinit_ = false;
};

// True for the answers after which NVML must be shut down and initialised again (nvml-abi.md, Traps 7).
constexpr bool needs_reinit(nvmlReturn_t rc) {
  return rc == NVML_ERROR_LIB_RM_VERSION_MISMATCH || rc == NVML_ERROR_DRIVER_NOT_LOADED ||
         rc == NVML_ERROR_UNINITIALIZED;
}

}  // namespace gpuwatch
