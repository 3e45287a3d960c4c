// Processes on a GPU: the running-process lists (with NVML's INSUFFICIENT_SIZE protocol) and per-process
// utilization samples.
#include <cmath>
#include <optional>
#include <vector>

#include "sim/api_support.h"
#include "sim/client_abi.h"

using namespace gpuwatch::sim;

namespace {

// The processes of `type` on the device the call names, in the _v3 layout.
std::vector<nvmlProcessInfo_t> running_on(const Call& c, ProcessType type) {
  const ProcessModel& pm = c.node->processes;
  std::vector<nvmlProcessInfo_t> found;
  for (std::size_t i : pm.on_gpu(c.gpu)) {
    const ProcessSpec& p = pm.spec(i);
    if (p.type != type || !pm.alive(i, c.t) || (c.mig >= 0 && p.mig != c.mig)) continue;
    nvmlProcessInfo_t info{p.pid, static_cast<unsigned long long>(pm.memory(i, c.t)),
                           NVML_INVALID_INSTANCE_ID, NVML_INVALID_INSTANCE_ID};
    if (p.mig >= 0) {
      info.gpuInstanceId = c.device().mig[static_cast<std::size_t>(p.mig)].gpu_instance_id;
      info.computeInstanceId = 0;
    }
    found.push_back(info);
  }
  return found;
}

// NVML's list protocol: the caller's capacity in, the number found out, INSUFFICIENT_SIZE when it is short.
template <typename Out, typename Convert>
nvmlReturn_t fill(const std::vector<nvmlProcessInfo_t>& found, unsigned& count, Out* out, Convert convert) {
  const unsigned capacity = count;
  count = static_cast<unsigned>(found.size());
  if (capacity < found.size()) return NVML_ERROR_INSUFFICIENT_SIZE;
  for (std::size_t i = 0; i < found.size(); ++i) out[i] = convert(found[i]);
  return NVML_SUCCESS;
}

// A running-process list of `type`; without one, the MPS list, which is empty: the simulated nodes run no
// MPS server.
nvmlReturn_t running(nvmlDevice_t device, unsigned* count, nvmlProcessInfo_t* infos,
                     std::optional<ProcessType> type) {
  return on_device(device, [&](const Call& c) -> nvmlReturn_t {
    if (!count || (!infos && *count > 0)) return NVML_ERROR_INVALID_ARGUMENT;
    const auto found = type ? running_on(c, *type) : std::vector<nvmlProcessInfo_t>{};
    return fill(found, *count, infos, [](const nvmlProcessInfo_t& p) { return p; });
  });
}

}  // namespace

extern "C" {

nvmlReturn_t nvmlDeviceGetComputeRunningProcesses_v3(nvmlDevice_t device, unsigned* count,
                                                     nvmlProcessInfo_t* infos) {
  return running(device, count, infos, ProcessType::kCompute);
}

nvmlReturn_t nvmlDeviceGetGraphicsRunningProcesses_v3(nvmlDevice_t device, unsigned* count,
                                                      nvmlProcessInfo_t* infos) {
  return running(device, count, infos, ProcessType::kGraphics);
}

nvmlReturn_t nvmlDeviceGetComputeRunningProcesses_v2(nvmlDevice_t device, unsigned* count,
                                                     nvmlProcessInfo_t* infos) {
  return running(device, count, infos, ProcessType::kCompute);
}

nvmlReturn_t nvmlDeviceGetGraphicsRunningProcesses_v2(nvmlDevice_t device, unsigned* count,
                                                      nvmlProcessInfo_t* infos) {
  return running(device, count, infos, ProcessType::kGraphics);
}

nvmlReturn_t nvmlDeviceGetMPSComputeRunningProcesses_v3(nvmlDevice_t device, unsigned* count,
                                                        nvmlProcessInfo_t* infos) {
  return running(device, count, infos, std::nullopt);
}

// The list the confidential-computing era added (R550): one call for any mode, each entry with the
// protected memory it holds (none: the simulated cards run with confidential computing off).
nvmlReturn_t nvmlDeviceGetRunningProcessDetailList(nvmlDevice_t device, nvmlProcessDetailList_t* list) {
  return on_device(device, [&](const Call& c) -> nvmlReturn_t {
    if (!list) return NVML_ERROR_INVALID_ARGUMENT;
    if (list->version != nvmlProcessDetailList_v1) return NVML_ERROR_ARGUMENT_VERSION_MISMATCH;
    if (!list->procArray && list->numProcArrayEntries > 0) return NVML_ERROR_INVALID_ARGUMENT;
    std::vector<nvmlProcessInfo_t> found;
    if (list->mode == NVML_PROCESS_MODE_COMPUTE)
      found = running_on(c, ProcessType::kCompute);
    else if (list->mode == NVML_PROCESS_MODE_GRAPHICS)
      found = running_on(c, ProcessType::kGraphics);
    else if (list->mode != NVML_PROCESS_MODE_MPS)
      return NVML_ERROR_INVALID_ARGUMENT;
    return fill(found, list->numProcArrayEntries, list->procArray, [](const nvmlProcessInfo_t& p) {
      return nvmlProcessDetail_v1_t{p.pid, p.usedGpuMemory, p.gpuInstanceId, p.computeInstanceId, 0};
    });
  });
}

// One sample per running process, taken at the last whole second of scenario time; samples not newer
// than last_seen (microseconds) are left out, and NOT_FOUND says none is.
nvmlReturn_t nvmlDeviceGetProcessUtilization(nvmlDevice_t device, nvmlProcessUtilizationSample_t* samples,
                                             unsigned* count, unsigned long long last_seen) {
  return on_device(device, [&](const Call& c) -> nvmlReturn_t {
    if (!count) return NVML_ERROR_INVALID_ARGUMENT;
    if (c.mig >= 0 || c.device().mig_enabled) return NVML_ERROR_NOT_SUPPORTED;
    const ProcessModel& pm = c.node->processes;
    const double sample_t = std::floor(c.t);
    const auto stamp = static_cast<unsigned long long>(std::llround(c.unix_at(sample_t) * 1e6));
    std::vector<nvmlProcessUtilizationSample_t> found;
    if (stamp > last_seen) {
      const GpuReading r = c.node->gpus[c.gpu]->read(sample_t);
      for (std::size_t i : pm.on_gpu(c.gpu)) {
        if (!pm.alive(i, sample_t)) continue;
        const double sm = pm.sm_util(i, sample_t);
        const double mem = r.util > 0 ? r.mem_util * sm / r.util : 0;
        found.push_back({pm.spec(i).pid, stamp, static_cast<unsigned>(std::lround(sm)),
                         static_cast<unsigned>(std::lround(std::min(100.0, mem))), 0, 0});
      }
    }
    if (found.empty()) return NVML_ERROR_NOT_FOUND;
    const unsigned capacity = samples ? *count : 0;
    *count = static_cast<unsigned>(found.size());
    if (capacity < found.size()) return NVML_ERROR_INSUFFICIENT_SIZE;
    for (std::size_t i = 0; i < found.size(); ++i) samples[i] = found[i];
    return NVML_SUCCESS;
  });
}

}  // extern "C"
