// Helpers shared by the files that implement the NVML entry points: the call gate and NVML's conventions
// for strings and output pointers. No exception ever leaves an entry point.
#pragma once

#include <cstring>
#include <string_view>

#include "sim/exports.h"
#include "sim/simulator.h"

namespace gpuwatch::sim {

inline Simulator& sim() {
  return Simulator::instance();
}

// NVML copies a string with its terminator or fails with INSUFFICIENT_SIZE.
inline nvmlReturn_t copy_string(std::string_view text, char* buf, unsigned len) {
  if (!buf) return NVML_ERROR_INVALID_ARGUMENT;
  if (len < text.size() + 1) return NVML_ERROR_INSUFFICIENT_SIZE;
  std::memcpy(buf, text.data(), text.size());
  buf[text.size()] = '\0';
  return NVML_SUCCESS;
}

template <typename F>
nvmlReturn_t guarded(F&& f) noexcept {
  try {
    return f();
  } catch (...) {
    return NVML_ERROR_UNKNOWN;
  }
}

// A call on a whole GPU; a MIG device handle gets NOT_SUPPORTED, as on a real card.
template <typename F>
nvmlReturn_t on_gpu(nvmlDevice_t device, F&& f) noexcept {
  return guarded([&]() -> nvmlReturn_t {
    Call call;
    if (const nvmlReturn_t r = sim().enter(device, call); r != NVML_SUCCESS) return r;
    if (call.mig >= 0) return NVML_ERROR_NOT_SUPPORTED;
    return f(call);
  });
}

// A call that accepts a GPU or a MIG device handle.
template <typename F>
nvmlReturn_t on_device(nvmlDevice_t device, F&& f) noexcept {
  return guarded([&]() -> nvmlReturn_t {
    Call call;
    if (const nvmlReturn_t r = sim().enter(device, call); r != NVML_SUCCESS) return r;
    return f(call);
  });
}

template <typename F>
nvmlReturn_t on_system(F&& f) noexcept {
  return guarded([&]() -> nvmlReturn_t {
    Call call;
    if (const nvmlReturn_t r = sim().enter_system(call); r != NVML_SUCCESS) return r;
    return f(call);
  });
}

}  // namespace gpuwatch::sim
