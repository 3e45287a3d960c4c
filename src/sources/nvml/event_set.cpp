#include "sources/nvml/event_set.h"

#include <chrono>
#include <thread>
#include <utility>

#include "sources/nvml/nvml_labels.h"

namespace gpuwatch {

unsigned long long NvmlEventSet::wanted_types() {
  unsigned long long types = nvmlEventTypeXidCriticalError | nvmlEventMigConfigChange;
  for (const auto& e : nvml_labels::kCriticalEvents) types |= e.bit;
  return types;
}

NvmlEventSet::NvmlEventSet(std::shared_ptr<const NvmlLibrary> lib, std::vector<WatchedDevice> devices)
    : lib_(std::move(lib)), devices_(std::move(devices)) {
  const auto& fn = lib_->fn();
  if (fn.nvmlEventSetCreate == nullptr || fn.nvmlEventSetWait_v2 == nullptr ||
      fn.nvmlEventSetFree == nullptr || fn.nvmlDeviceRegisterEvents == nullptr) {
    return;
  }
  if (fn.nvmlEventSetCreate(&set_) != NVML_SUCCESS) {
    set_ = nullptr;
    return;
  }
  for (const auto& d : devices_) {
    unsigned long long supported = wanted_types();
    if (fn.nvmlDeviceGetSupportedEventTypes != nullptr &&
        fn.nvmlDeviceGetSupportedEventTypes(d.handle, &supported) != NVML_SUCCESS) {
      continue;
    }
    const unsigned long long types = supported & wanted_types();
    if (types != 0 && fn.nvmlDeviceRegisterEvents(d.handle, types, set_) == NVML_SUCCESS) ++registered_;
  }
}

NvmlEventSet::~NvmlEventSet() {
  if (set_ != nullptr) lib_->fn().nvmlEventSetFree(set_);
}

std::optional<NvmlEvent> NvmlEventSet::wait(unsigned timeout_ms) {
  nvmlEventData_t data{};
  const auto start = std::chrono::steady_clock::now();
  const nvmlReturn_t rc = lib_->fn().nvmlEventSetWait_v2(set_, &data, timeout_ms);
  if (rc == NVML_SUCCESS) {
    for (const auto& d : devices_) {
      if (d.handle == data.device) return NvmlEvent{&d.uuid, data.eventType, data.eventData};
    }
    return std::nullopt;  // a device registered by someone else; not ours to count
  }
  if (rc != NVML_ERROR_TIMEOUT) {
    // Keep the loop's pace when the driver answers at once with an error (a lost GPU, a driver reload).
    std::this_thread::sleep_until(start + std::chrono::milliseconds(timeout_ms));
  }
  return std::nullopt;
}

}  // namespace gpuwatch
