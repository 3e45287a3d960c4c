// Load-driven telemetry: utilization, temperature, power, energy, clocks, throttling, PCIe, NVLink.
#include <cmath>

#include "sim/api_support.h"
#include "sim/client_abi.h"

using namespace gpuwatch::sim;

namespace {

template <typename T>
nvmlReturn_t put(T* out, T value) {
  if (!out) return NVML_ERROR_INVALID_ARGUMENT;
  *out = value;
  return NVML_SUCCESS;
}

unsigned rounded(double v) {
  return static_cast<unsigned>(std::lround(std::max(0.0, v)));
}

// Both temperature calls: the GPU's one sensor.
nvmlReturn_t gpu_temperature(const Call& c, unsigned sensor, unsigned* temp) {
  if (sensor != NVML_TEMPERATURE_GPU) return NVML_ERROR_INVALID_ARGUMENT;
  return put(temp, rounded(c.reading().counters.temp_c));
}

}  // namespace

extern "C" {

nvmlReturn_t nvmlDeviceGetUtilizationRates(nvmlDevice_t device, nvmlUtilization_t* util) {
  return on_device(device, [&](const Call& c) -> nvmlReturn_t {
    if (!util) return NVML_ERROR_INVALID_ARGUMENT;
    if (c.mig >= 0 || c.device().mig_enabled) return NVML_ERROR_NOT_SUPPORTED;
    const GpuReading r = c.reading();
    *util = nvmlUtilization_t{rounded(r.util), rounded(r.mem_util)};
    return NVML_SUCCESS;
  });
}

nvmlReturn_t nvmlDeviceGetTemperature(nvmlDevice_t device, unsigned sensor, unsigned* temp) {
  return on_gpu(device, [&](const Call& c) -> nvmlReturn_t { return gpu_temperature(c, sensor, temp); });
}

// The versioned form nvidia-ml-py prefers: the caller names the struct version and the sensor.
nvmlReturn_t nvmlDeviceGetTemperatureV(nvmlDevice_t device, nvmlTemperature_t* temperature) {
  return on_gpu(device, [&](const Call& c) -> nvmlReturn_t {
    if (!temperature) return NVML_ERROR_INVALID_ARGUMENT;
    if (temperature->version != nvmlTemperature_v1) return NVML_ERROR_ARGUMENT_VERSION_MISMATCH;
    unsigned celsius = 0;
    const nvmlReturn_t r = gpu_temperature(c, temperature->sensorType, &celsius);
    if (r == NVML_SUCCESS) temperature->temperature = static_cast<int>(celsius);
    return r;
  });
}

nvmlReturn_t nvmlDeviceGetTemperatureThreshold(nvmlDevice_t device, unsigned type, unsigned* temp) {
  return on_gpu(device, [&](const Call& c) -> nvmlReturn_t {
    const GpuModel& m = *c.device().model;
    switch (type) {
      case NVML_TEMPERATURE_THRESHOLD_SHUTDOWN:
        return put(temp, m.temp_shutdown);
      case NVML_TEMPERATURE_THRESHOLD_SLOWDOWN:
        return put(temp, m.temp_slowdown);
      case NVML_TEMPERATURE_THRESHOLD_MEM_MAX:
        return put(temp, m.temp_mem_max);
      case NVML_TEMPERATURE_THRESHOLD_GPU_MAX:
        return put(temp, m.temp_gpu_max);
      default:
        return temp ? NVML_ERROR_NOT_SUPPORTED : NVML_ERROR_INVALID_ARGUMENT;
    }
  });
}

nvmlReturn_t nvmlDeviceGetPowerUsage(nvmlDevice_t device, unsigned* milliwatts) {
  return on_gpu(device, [&](const Call& c) -> nvmlReturn_t {
    return put(milliwatts, rounded(c.reading().power_w * 1000));
  });
}

// The limit the administrator set (the scenario's power_limit); the enforced limit can sit below it while
// something outside the card caps it (a power_cap fault).
nvmlReturn_t nvmlDeviceGetPowerManagementLimit(nvmlDevice_t device, unsigned* milliwatts) {
  return on_gpu(device, [&](const Call& c) -> nvmlReturn_t {
    return put(milliwatts, rounded(c.device().power_limit_w * 1000));
  });
}

nvmlReturn_t nvmlDeviceGetPowerManagementDefaultLimit(nvmlDevice_t device, unsigned* milliwatts) {
  return on_gpu(device, [&](const Call& c) -> nvmlReturn_t {
    return put(milliwatts, rounded(c.device().model->max_power_w * 1000));
  });
}

nvmlReturn_t nvmlDeviceGetEnforcedPowerLimit(nvmlDevice_t device, unsigned* milliwatts) {
  return on_gpu(device, [&](const Call& c) -> nvmlReturn_t {
    return put(milliwatts, rounded(c.reading().power_limit_w * 1000));
  });
}

nvmlReturn_t nvmlDeviceGetTotalEnergyConsumption(nvmlDevice_t device, unsigned long long* millijoules) {
  return on_gpu(device, [&](const Call& c) -> nvmlReturn_t {
    return put(millijoules, static_cast<unsigned long long>(c.reading().counters.energy_mj));
  });
}

nvmlReturn_t nvmlDeviceGetClockInfo(nvmlDevice_t device, unsigned type, unsigned* mhz) {
  return on_gpu(device, [&](const Call& c) -> nvmlReturn_t {
    const GpuReading r = c.reading();
    const GpuModel& m = *c.device().model;
    switch (type) {
      case NVML_CLOCK_GRAPHICS:
      case NVML_CLOCK_SM:
        return put(mhz, r.sm_mhz);
      case NVML_CLOCK_MEM:
        return put(mhz, r.mem_mhz);
      case NVML_CLOCK_VIDEO:
        return put(mhz, rounded(m.max_video_mhz * static_cast<double>(r.sm_mhz) / m.max_sm_mhz));
      default:
        return NVML_ERROR_INVALID_ARGUMENT;
    }
  });
}

nvmlReturn_t nvmlDeviceGetMaxClockInfo(nvmlDevice_t device, unsigned type, unsigned* mhz) {
  return on_gpu(device, [&](const Call& c) -> nvmlReturn_t {
    const GpuModel& m = *c.device().model;
    switch (type) {
      case NVML_CLOCK_GRAPHICS:
      case NVML_CLOCK_SM:
        return put(mhz, m.max_sm_mhz);
      case NVML_CLOCK_MEM:
        return put(mhz, m.max_mem_mhz);
      case NVML_CLOCK_VIDEO:
        return put(mhz, m.max_video_mhz);
      default:
        return NVML_ERROR_INVALID_ARGUMENT;
    }
  });
}

nvmlReturn_t nvmlDeviceGetCurrentClocksEventReasons(nvmlDevice_t device, unsigned long long* reasons) {
  return on_gpu(device, [&](const Call& c) -> nvmlReturn_t { return put(reasons, c.reading().reasons); });
}

nvmlReturn_t nvmlDeviceGetCurrentClocksThrottleReasons(nvmlDevice_t device, unsigned long long* reasons) {
  return nvmlDeviceGetCurrentClocksEventReasons(device, reasons);
}

nvmlReturn_t nvmlDeviceGetViolationStatus(nvmlDevice_t device, unsigned policy,
                                          nvmlViolationTime_t* violation) {
  return on_gpu(device, [&](const Call& c) -> nvmlReturn_t {
    if (!violation) return NVML_ERROR_INVALID_ARGUMENT;
    const Counters k = c.reading().counters;
    double ns = 0;
    if (policy == NVML_PERF_POLICY_POWER)
      ns = k.violation_power_ns;
    else if (policy == NVML_PERF_POLICY_THERMAL)
      ns = k.violation_thermal_ns;
    else
      return NVML_ERROR_NOT_SUPPORTED;
    *violation =
        nvmlViolationTime_t{static_cast<unsigned long long>(c.micros()), static_cast<unsigned long long>(ns)};
    return NVML_SUCCESS;
  });
}

nvmlReturn_t nvmlDeviceGetFanSpeed(nvmlDevice_t device, unsigned* speed) {
  return on_gpu(device, [&](const Call& c) -> nvmlReturn_t {
    if (!c.device().model->fan) return NVML_ERROR_NOT_SUPPORTED;
    return put(speed, 30 + rounded(c.reading().util * 0.5));
  });
}

nvmlReturn_t nvmlDeviceGetPerformanceState(nvmlDevice_t device, int* state) {
  return on_gpu(device,
                [&](const Call& c) -> nvmlReturn_t { return put(state, c.reading().util >= 1 ? 0 : 8); });
}

nvmlReturn_t nvmlDeviceGetPcieThroughput(nvmlDevice_t device, unsigned counter, unsigned* kbs) {
  return on_gpu(device, [&](const Call& c) -> nvmlReturn_t {
    const GpuReading r = c.reading();
    if (counter == NVML_PCIE_UTIL_TX_BYTES) return put(kbs, rounded(r.pcie_tx_kbs));
    if (counter == NVML_PCIE_UTIL_RX_BYTES) return put(kbs, rounded(r.pcie_rx_kbs));
    return NVML_ERROR_INVALID_ARGUMENT;
  });
}

nvmlReturn_t nvmlDeviceGetCurrPcieLinkGeneration(nvmlDevice_t device, unsigned* gen) {
  return on_gpu(device, [&](const Call& c) -> nvmlReturn_t {
    return put(gen, c.node->faults.link_gen(c.gpu, c.t, c.device().pcie_gen));
  });
}

nvmlReturn_t nvmlDeviceGetCurrPcieLinkWidth(nvmlDevice_t device, unsigned* width) {
  return on_gpu(device, [&](const Call& c) -> nvmlReturn_t {
    return put(width, c.node->faults.link_width(c.gpu, c.t, c.device().pcie_width));
  });
}

nvmlReturn_t nvmlDeviceGetMaxPcieLinkGeneration(nvmlDevice_t device, unsigned* gen) {
  return on_gpu(device, [&](const Call& c) -> nvmlReturn_t { return put(gen, c.device().pcie_gen); });
}

nvmlReturn_t nvmlDeviceGetMaxPcieLinkWidth(nvmlDevice_t device, unsigned* width) {
  return on_gpu(device, [&](const Call& c) -> nvmlReturn_t { return put(width, c.device().pcie_width); });
}

nvmlReturn_t nvmlDeviceGetEncoderUtilization(nvmlDevice_t device, unsigned* util, unsigned* period_us) {
  return on_gpu(device, [&](const Call&) -> nvmlReturn_t {
    if (!util || !period_us) return NVML_ERROR_INVALID_ARGUMENT;
    *util = 0;
    *period_us = 167000;
    return NVML_SUCCESS;
  });
}

nvmlReturn_t nvmlDeviceGetDecoderUtilization(nvmlDevice_t device, unsigned* util, unsigned* period_us) {
  return nvmlDeviceGetEncoderUtilization(device, util, period_us);
}

nvmlReturn_t nvmlDeviceGetNvLinkState(nvmlDevice_t device, unsigned link, unsigned* active) {
  return on_gpu(device, [&](const Call& c) -> nvmlReturn_t {
    if (c.device().model->nvlinks == 0) return NVML_ERROR_NOT_SUPPORTED;
    if (link >= c.device().model->nvlinks) return NVML_ERROR_INVALID_ARGUMENT;
    return put(active, static_cast<unsigned>(NVML_NVLINK_STATE_ACTIVE));
  });
}

}  // extern "C"
