#include "sources/nvml/gpm_reader.h"

#include <array>
#include <utility>

namespace gpuwatch {
namespace {

constexpr std::int64_t kMinSpanMs = 100;

struct GpmMetricMap {
  unsigned gpm_id;
  Metric metric;
};
constexpr std::array kGpmMetrics = {
    GpmMetricMap{NVML_GPM_METRIC_SM_UTIL, Metric::kSmActive},
    GpmMetricMap{NVML_GPM_METRIC_SM_OCCUPANCY, Metric::kSmOccupancy},
    GpmMetricMap{NVML_GPM_METRIC_GRAPHICS_UTIL, Metric::kGraphicsActive},
    GpmMetricMap{NVML_GPM_METRIC_ANY_TENSOR_UTIL, Metric::kTensorActive},
    GpmMetricMap{NVML_GPM_METRIC_DRAM_BW_UTIL, Metric::kDramActive},
};

}  // namespace

GpmReader::GpmReader(std::shared_ptr<const NvmlLibrary> lib, nvmlDevice_t device, CallTracker& calls,
                     std::optional<unsigned> gpu_instance_id)
    : lib_(std::move(lib)), device_(device), gpu_instance_id_(gpu_instance_id) {
  const auto& fn = lib_->fn();
  if (fn.nvmlGpmSampleAlloc == nullptr || fn.nvmlGpmSampleFree == nullptr || fn.nvmlGpmMetricsGet == nullptr)
    return;
  nvmlGpmSupport_t support{NVML_GPM_SUPPORT_VERSION, 0};
  if (calls.call(NvmlSymbol::nvmlGpmQueryDeviceSupport, CallTracker::kNoVariant, fn.nvmlGpmQueryDeviceSupport,
                 device_, &support) != CallOutcome::kOk ||
      support.isSupportedDevice == 0) {
    return;
  }
  nvmlGpmSample_t a = nullptr;
  nvmlGpmSample_t b = nullptr;
  if (fn.nvmlGpmSampleAlloc(&a) != NVML_SUCCESS) return;
  if (fn.nvmlGpmSampleAlloc(&b) != NVML_SUCCESS) {
    fn.nvmlGpmSampleFree(a);
    return;
  }
  samples_[0] = a;
  samples_[1] = b;
  request_ = std::make_unique<nvmlGpmMetricsGet_t>();
}

GpmReader::~GpmReader() {
  for (auto* s : samples_) {
    if (s != nullptr) lib_->fn().nvmlGpmSampleFree(s);
  }
}

void GpmReader::read(std::int64_t now_ms, CallTracker& calls, std::vector<Sample>& last) {
  if (!active()) return;
  const auto& fn = lib_->fn();
  // Sample into the slot that is not holding the older sample.
  const int current = previous_ == 0 ? 1 : 0;
  if (previous_ >= 0 && now_ms - previous_ms_ < kMinSpanMs) return;
  const CallOutcome taken =
      gpu_instance_id_ ? calls.call(NvmlSymbol::nvmlGpmMigSampleGet, CallTracker::kNoVariant,
                                    fn.nvmlGpmMigSampleGet, device_, *gpu_instance_id_, samples_[current])
                       : calls.call(NvmlSymbol::nvmlGpmSampleGet, CallTracker::kNoVariant,
                                    fn.nvmlGpmSampleGet, device_, samples_[current]);
  if (taken != CallOutcome::kOk) return;
  if (previous_ >= 0) {
    auto& req = *request_;
    req.version = NVML_GPM_METRICS_GET_VERSION;
    req.numMetrics = static_cast<unsigned>(kGpmMetrics.size());
    req.sample1 = samples_[previous_];
    req.sample2 = samples_[current];
    for (std::size_t i = 0; i < kGpmMetrics.size(); ++i) {
      req.metrics[i].metricId = kGpmMetrics[i].gpm_id;
      req.metrics[i].nvmlReturn = NVML_SUCCESS;
      req.metrics[i].value = 0;
    }
    if (calls.call(NvmlSymbol::nvmlGpmMetricsGet, CallTracker::kNoVariant, fn.nvmlGpmMetricsGet, &req) ==
        CallOutcome::kOk) {
      last.clear();
      for (std::size_t i = 0; i < kGpmMetrics.size(); ++i) {
        if (req.metrics[i].nvmlReturn != NVML_SUCCESS) continue;
        last.emplace_back(kGpmMetrics[i].metric, req.metrics[i].value / 100.0, now_ms);
      }
    }
  }
  previous_ = current;
  previous_ms_ = now_ms;
}

}  // namespace gpuwatch
