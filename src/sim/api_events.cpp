// NVML events: XIDs and ECC errors from the scenario's faults, delivered in scenario time.
#include "sim/api_support.h"

using namespace gpuwatch::sim;

namespace {

constexpr unsigned long long kSupportedEvents =
    nvmlEventTypeSingleBitEccError | nvmlEventTypeDoubleBitEccError | nvmlEventTypePState |
    nvmlEventTypeXidCriticalError | nvmlEventTypeClock | nvmlEventMigConfigChange;

}  // namespace

extern "C" {

nvmlReturn_t nvmlEventSetCreate(nvmlEventSet_t* set) {
  return guarded(
      [&]() -> nvmlReturn_t { return set ? sim().event_set_create(*set) : NVML_ERROR_INVALID_ARGUMENT; });
}

nvmlReturn_t nvmlDeviceGetSupportedEventTypes(nvmlDevice_t device, unsigned long long* types) {
  return on_gpu(device, [&](const Call&) -> nvmlReturn_t {
    if (!types) return NVML_ERROR_INVALID_ARGUMENT;
    *types = kSupportedEvents;
    return NVML_SUCCESS;
  });
}

nvmlReturn_t nvmlDeviceRegisterEvents(nvmlDevice_t device, unsigned long long types, nvmlEventSet_t set) {
  return on_gpu(device, [&](const Call& c) -> nvmlReturn_t {
    if (types & ~kSupportedEvents) return NVML_ERROR_NOT_SUPPORTED;
    return sim().event_register(set, c.gpu, types, c.t);
  });
}

nvmlReturn_t nvmlEventSetWait_v2(nvmlEventSet_t set, nvmlEventData_t* data, unsigned timeout_ms) {
  return guarded([&]() -> nvmlReturn_t {
    return data ? sim().event_wait(set, *data, timeout_ms) : NVML_ERROR_INVALID_ARGUMENT;
  });
}

nvmlReturn_t nvmlEventSetFree(nvmlEventSet_t set) {
  return guarded([&]() -> nvmlReturn_t { return sim().event_set_free(set); });
}

}  // extern "C"
