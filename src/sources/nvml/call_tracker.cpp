#include "sources/nvml/call_tracker.h"

namespace gpuwatch {

void CallTracker::mark_unsupported(NvmlSymbol sym, unsigned variant) {
  // Variants from 32 on (field ids) share a bit; their callers drop the item themselves, so name each one.
  auto& mask = unsupported_mask_[static_cast<std::size_t>(sym)];
  if (variant < 32) {
    if ((mask & bit(variant)) != 0) return;
    mask |= bit(variant);
  }
  std::string name(nvml_symbol_name(sym));
  if (variant != kNoVariant) {
    // Appended piecewise: "(" + std::to_string(...) trips GCC 12's -Wrestrict false positive at -O3.
    name += '(';
    name += std::to_string(variant);
    name += ')';
  }
  unsupported_names_.push_back(std::move(name));
}

CallOutcome CallTracker::record(NvmlSymbol sym, unsigned variant, nvmlReturn_t rc) {
  switch (rc) {
    case NVML_SUCCESS:
      return CallOutcome::kOk;
    case NVML_ERROR_INSUFFICIENT_SIZE:
      return CallOutcome::kInsufficientSize;
    case NVML_ERROR_NOT_FOUND:
      return CallOutcome::kNotFound;
    case NVML_ERROR_NOT_SUPPORTED:
      mark_unsupported(sym, variant);
      return CallOutcome::kFailed;
    case NVML_ERROR_GPU_IS_LOST:
      lost_ = true;
      return CallOutcome::kFailed;
    default:
      break;
  }
  if (gpuwatch::needs_reinit(rc)) needs_reinit_ = true;
  for (auto& e : errors_) {
    if (e.call == sym && e.code == rc) {
      ++e.count;
      return CallOutcome::kFailed;
    }
  }
  errors_.push_back({sym, rc, 1});
  return CallOutcome::kFailed;
}

}  // namespace gpuwatch
