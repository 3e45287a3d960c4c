// A fixed set of NVML field values read with one nvmlDeviceGetFieldValues call and turned into catalogue
// samples. A field the device answers NOT_SUPPORTED for is dropped from the batch for good.
#pragma once

#include <string_view>
#include <vector>

#include "core/snapshot.h"
#include "sources/nvml/call_tracker.h"

namespace gpuwatch {

struct FieldRequest {
  unsigned field_id;
  unsigned scope_id;  // NVLink id, or NVML_FIELD_SCOPE_ALL / 0 for device-wide fields
  Metric metric;
  std::string_view label;  // first extra label value, "" when the metric has none
  double scale;            // multiplies NVML's unit into the catalogue's base unit
};

class FieldBatch {
 public:
  FieldBatch() = default;
  explicit FieldBatch(std::vector<FieldRequest> requests);

  bool empty() const { return requests_.empty(); }

  // Appends one sample per field that NVML answered.
  void read(const NvmlFunctions& fn, nvmlDevice_t device, CallTracker& calls, std::vector<Sample>& out);

 private:
  std::vector<FieldRequest> requests_;
  std::vector<nvmlFieldValue_t> values_;
};

// The value of a field as a double, whatever its NVML value type.
double field_value_as_double(const nvmlFieldValue_t& v);

}  // namespace gpuwatch
