// GPM (Hopper and later): samples record the GPU's activity counters at a scenario time; metrics are the
// averages between two samples.
#include <array>

#include "sim/api_support.h"

using namespace gpuwatch::sim;

namespace {

constexpr double kMinSampleGap = 0.1;  // seconds of scenario time, as NVML requires
constexpr double kMiB = 1024.0 * 1024.0;

struct MetricInfo {
  unsigned id;
  const char* short_name;
  const char* long_name;
  const char* unit;
};
constexpr std::array<MetricInfo, 14> kMetricInfo = {{
    {NVML_GPM_METRIC_GRAPHICS_UTIL, "gr_util", "graphics utilization", "%"},
    {NVML_GPM_METRIC_SM_UTIL, "sm_util", "SM utilization", "%"},
    {NVML_GPM_METRIC_SM_OCCUPANCY, "sm_occupancy", "SM occupancy", "%"},
    {NVML_GPM_METRIC_INTEGER_UTIL, "integer_util", "integer pipe utilization", "%"},
    {NVML_GPM_METRIC_ANY_TENSOR_UTIL, "any_tensor_util", "tensor pipe utilization", "%"},
    {NVML_GPM_METRIC_DFMA_TENSOR_UTIL, "dfma_tensor_util", "DFMA tensor utilization", "%"},
    {NVML_GPM_METRIC_HMMA_TENSOR_UTIL, "hmma_tensor_util", "HMMA tensor utilization", "%"},
    {NVML_GPM_METRIC_IMMA_TENSOR_UTIL, "imma_tensor_util", "IMMA tensor utilization", "%"},
    {NVML_GPM_METRIC_DRAM_BW_UTIL, "dram_bw_util", "DRAM bandwidth utilization", "%"},
    {NVML_GPM_METRIC_FP64_UTIL, "fp64_util", "FP64 pipe utilization", "%"},
    {NVML_GPM_METRIC_FP32_UTIL, "fp32_util", "FP32 pipe utilization", "%"},
    {NVML_GPM_METRIC_FP16_UTIL, "fp16_util", "FP16 pipe utilization", "%"},
    {NVML_GPM_METRIC_PCIE_TX_PER_SEC, "pcie_tx", "PCIe transmit rate", "MiB/s"},
    {NVML_GPM_METRIC_PCIE_RX_PER_SEC, "pcie_rx", "PCIe receive rate", "MiB/s"},
}};

// The share of the GPU's work done by one MIG instance's processes at t.
double instance_share(const Node& node, unsigned gpu, int inst, double t) {
  const ProcessModel& pm = node.processes;
  double all = 0, mine = 0;
  for (std::size_t i : pm.on_gpu(gpu)) {
    const double sm = pm.sm_util(i, t);
    all += sm;
    if (pm.spec(i).mig == inst) mine += sm;
  }
  return all > 0 ? mine / all : 0;
}

void compute(nvmlGpmMetric_t& metric, const Counters& a, const Counters& b, double dt, double share) {
  const auto avg = [&](double Counters::*field) { return (b.*field - a.*field) / dt * share; };
  metric.nvmlReturn = NVML_SUCCESS;
  switch (metric.metricId) {
    case NVML_GPM_METRIC_GRAPHICS_UTIL:
    case NVML_GPM_METRIC_SM_UTIL:
      metric.value = avg(&Counters::sm_pct_s);
      break;
    case NVML_GPM_METRIC_SM_OCCUPANCY:
      metric.value = avg(&Counters::occupancy_pct_s);
      break;
    case NVML_GPM_METRIC_INTEGER_UTIL:
      metric.value = avg(&Counters::sm_pct_s) * 0.2;
      break;
    case NVML_GPM_METRIC_ANY_TENSOR_UTIL:
      metric.value = avg(&Counters::tensor_pct_s);
      break;
    case NVML_GPM_METRIC_HMMA_TENSOR_UTIL:
      metric.value = avg(&Counters::tensor_pct_s) * 0.9;
      break;
    case NVML_GPM_METRIC_DFMA_TENSOR_UTIL:
    case NVML_GPM_METRIC_IMMA_TENSOR_UTIL:
    case NVML_GPM_METRIC_FP64_UTIL:
      metric.value = 0;
      break;
    case NVML_GPM_METRIC_DRAM_BW_UTIL:
      metric.value = avg(&Counters::dram_pct_s);
      break;
    case NVML_GPM_METRIC_FP32_UTIL:
      metric.value = avg(&Counters::sm_pct_s) * 0.4;
      break;
    case NVML_GPM_METRIC_FP16_UTIL:
      metric.value = avg(&Counters::tensor_pct_s) * 0.3;
      break;
    case NVML_GPM_METRIC_PCIE_TX_PER_SEC:
      metric.value = avg(&Counters::pcie_tx_bytes) / kMiB;
      break;
    case NVML_GPM_METRIC_PCIE_RX_PER_SEC:
      metric.value = avg(&Counters::pcie_rx_bytes) / kMiB;
      break;
    default:
      metric.nvmlReturn = NVML_ERROR_NOT_SUPPORTED;
      metric.value = 0;
      break;
  }
  metric.metricInfo = {};
  for (const auto& info : kMetricInfo) {
    if (info.id != metric.metricId) continue;
    // NVML's struct has non-const pointers; callers only read these static strings.
    metric.metricInfo.shortName = const_cast<char*>(info.short_name);
    metric.metricInfo.longName = const_cast<char*>(info.long_name);
    metric.metricInfo.unit = const_cast<char*>(info.unit);
  }
}

nvmlReturn_t take_sample(nvmlDevice_t device, int gpu_instance_id, nvmlGpmSample_t sample) {
  return on_gpu(device, [&](const Call& c) -> nvmlReturn_t {
    if (!c.device().model->gpm) return NVML_ERROR_NOT_SUPPORTED;
    GpmSampleState state{true, c.gpu, -1, c.t, c.unix, c.reading().counters};
    if (gpu_instance_id >= 0) {
      if (!c.device().mig_enabled) return NVML_ERROR_NOT_SUPPORTED;
      for (std::size_t i = 0; i < c.instances().size(); ++i)
        if (c.instances()[i].gpu_instance_id == static_cast<unsigned>(gpu_instance_id))
          state.gpu_instance = static_cast<int>(i);
      if (state.gpu_instance < 0) return NVML_ERROR_INVALID_ARGUMENT;
    }
    return sim().gpm_store(sample, state);
  });
}

}  // namespace

extern "C" {

nvmlReturn_t nvmlGpmQueryDeviceSupport(nvmlDevice_t device, nvmlGpmSupport_t* support) {
  return on_gpu(device, [&](const Call& c) -> nvmlReturn_t {
    if (!support) return NVML_ERROR_INVALID_ARGUMENT;
    if (support->version != NVML_GPM_SUPPORT_VERSION) return NVML_ERROR_ARGUMENT_VERSION_MISMATCH;
    support->isSupportedDevice = c.device().model->gpm ? 1 : 0;
    return NVML_SUCCESS;
  });
}

nvmlReturn_t nvmlGpmSampleAlloc(nvmlGpmSample_t* sample) {
  return guarded(
      [&]() -> nvmlReturn_t { return sample ? sim().gpm_alloc(*sample) : NVML_ERROR_INVALID_ARGUMENT; });
}

nvmlReturn_t nvmlGpmSampleFree(nvmlGpmSample_t sample) {
  return guarded([&]() -> nvmlReturn_t { return sim().gpm_free(sample); });
}

nvmlReturn_t nvmlGpmSampleGet(nvmlDevice_t device, nvmlGpmSample_t sample) {
  return take_sample(device, -1, sample);
}

nvmlReturn_t nvmlGpmMigSampleGet(nvmlDevice_t device, unsigned gpu_instance_id, nvmlGpmSample_t sample) {
  return take_sample(device, static_cast<int>(gpu_instance_id), sample);
}

nvmlReturn_t nvmlGpmMetricsGet(nvmlGpmMetricsGet_t* request) {
  return guarded([&]() -> nvmlReturn_t {
    if (!request) return NVML_ERROR_INVALID_ARGUMENT;
    if (request->version != NVML_GPM_METRICS_GET_VERSION) return NVML_ERROR_ARGUMENT_VERSION_MISMATCH;
    if (request->numMetrics > NVML_GPM_METRIC_MAX) return NVML_ERROR_INVALID_ARGUMENT;
    GpmSampleState first, second;
    if (const nvmlReturn_t r = sim().gpm_load(request->sample1, first); r != NVML_SUCCESS) return r;
    if (const nvmlReturn_t r = sim().gpm_load(request->sample2, second); r != NVML_SUCCESS) return r;
    if (!first.taken || !second.taken || first.gpu != second.gpu || first.gpu_instance != second.gpu_instance)
      return NVML_ERROR_INVALID_ARGUMENT;
    const double dt = second.unix - first.unix;
    if (dt < kMinSampleGap) return NVML_ERROR_INVALID_ARGUMENT;
    const auto node = sim().node();
    if (!node) return NVML_ERROR_UNINITIALIZED;
    const double share =
        second.gpu_instance < 0 ? 1 : instance_share(*node, second.gpu, second.gpu_instance, second.t);
    for (unsigned i = 0; i < request->numMetrics; ++i)
      compute(request->metrics[i], first.counters, second.counters, dt, share);
    return NVML_SUCCESS;
  });
}

}  // extern "C"
