#include "sources/nvml/field_batch.h"

#include <chrono>
#include <utility>

namespace gpuwatch {

FieldBatch::FieldBatch(std::vector<FieldRequest> requests) : requests_(std::move(requests)) {
  values_.resize(requests_.size());
}

double field_value_as_double(const nvmlFieldValue_t& v) {
  switch (v.valueType) {
    case NVML_VALUE_TYPE_DOUBLE:
      return v.value.dVal;
    case NVML_VALUE_TYPE_UNSIGNED_INT:
      return static_cast<double>(v.value.uiVal);
    case NVML_VALUE_TYPE_UNSIGNED_LONG:
      return static_cast<double>(v.value.ulVal);
    case NVML_VALUE_TYPE_UNSIGNED_LONG_LONG:
      return static_cast<double>(v.value.ullVal);
    case NVML_VALUE_TYPE_SIGNED_LONG_LONG:
      return static_cast<double>(v.value.sllVal);
    case NVML_VALUE_TYPE_SIGNED_INT:
      return static_cast<double>(v.value.siVal);
    case NVML_VALUE_TYPE_UNSIGNED_SHORT:
      return static_cast<double>(v.value.usVal);
  }
  return static_cast<double>(v.value.ullVal);
}

void FieldBatch::read(const NvmlFunctions& fn, nvmlDevice_t device, CallTracker& calls,
                      std::vector<Sample>& out) {
  if (requests_.empty()) return;
  for (std::size_t i = 0; i < requests_.size(); ++i) {
    values_[i] = nvmlFieldValue_t{};
    values_[i].fieldId = requests_[i].field_id;
    values_[i].scopeId = requests_[i].scope_id;
  }
  if (calls.call(NvmlSymbol::nvmlDeviceGetFieldValues, CallTracker::kNoVariant, fn.nvmlDeviceGetFieldValues,
                 device, static_cast<int>(values_.size()), values_.data()) != CallOutcome::kOk) {
    return;
  }
  std::size_t keep = 0;
  for (std::size_t i = 0; i < requests_.size(); ++i) {
    const auto& v = values_[i];
    const auto& r = requests_[i];
    bool supported = true;
    if (v.nvmlReturn == NVML_SUCCESS) {
      Sample& sample = out.emplace_back(r.metric, field_value_as_double(v) * r.scale);
      if (!r.label.empty()) sample.labels[0] = r.label;
    } else if (v.nvmlReturn == NVML_ERROR_NOT_SUPPORTED) {
      calls.record(NvmlSymbol::nvmlDeviceGetFieldValues, r.field_id, v.nvmlReturn);
      supported = false;
    } else {
      calls.record(NvmlSymbol::nvmlDeviceGetFieldValues, r.field_id, v.nvmlReturn);
    }
    if (supported) requests_[keep++] = r;
  }
  requests_.resize(keep);
  values_.resize(keep);
}

}  // namespace gpuwatch
