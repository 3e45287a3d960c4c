#include "sources/nvml/nvml_session.h"

#include <unistd.h>

#include <climits>

#include "sources/nvml/nvml_text.h"

#define GPUWATCH_NODE_CALL(name, ...) \
  (calls_.call(NvmlSymbol::name, CallTracker::kNoVariant, fn.name, __VA_ARGS__) == CallOutcome::kOk)

namespace gpuwatch {

std::string cuda_version_string(int version) {
  return std::to_string(version / 1000) + "." + std::to_string((version % 1000) / 10);
}

NvmlSession::NvmlSession(std::shared_ptr<const NvmlLibrary> lib, const std::string& proc_root,
                         const std::string& hostname)
    : lib_(std::move(lib)) {
  const auto& fn = lib_->fn();
  init_result_ = fn.nvmlInit_v2();
  if (init_result_ != NVML_SUCCESS) {
    const char* text = fn.nvmlErrorString(init_result_);
    error_ = "nvmlInit_v2 in " + lib_->path() + " failed: " + (text != nullptr ? text : "unknown error") +
             " (NVML error " + std::to_string(init_result_) + ")";
    return;
  }
  read_node_info(hostname);
  enumerate(proc_root);
}

NvmlSession::~NvmlSession() {
  gpus_.clear();
  if (init_result_ == NVML_SUCCESS && !skip_shutdown_) lib_->fn().nvmlShutdown();
}

void NvmlSession::read_node_info(const std::string& hostname) {
  const auto& fn = lib_->fn();
  node_.nvml_library = lib_->path();
  // The simulator names the node it simulates; a real library has no such entry point.
  using SimHostname = int (*)(char*, unsigned);
  const auto sim_hostname = reinterpret_cast<SimHostname>(lib_->optional_symbol("gpuwatchSimGetHostname"));
  char host[HOST_NAME_MAX + 1] = {};
  if (!hostname.empty()) {
    node_.hostname = hostname;  // the options' setter made it valid and bounded
  } else if (sim_hostname != nullptr && sim_hostname(host, sizeof host) == NVML_SUCCESS) {
    node_.hostname = nvml_text(host, sizeof host);
  } else if (gethostname(host, sizeof host - 1) == 0) {
    node_.hostname = nvml_text(host, sizeof host);
  }
  char buf[NVML_SYSTEM_DRIVER_VERSION_BUFFER_SIZE] = {};
  if (GPUWATCH_NODE_CALL(nvmlSystemGetDriverVersion, buf, sizeof buf))
    node_.driver_version = nvml_text(buf, sizeof buf);
  char nvml[NVML_SYSTEM_NVML_VERSION_BUFFER_SIZE] = {};
  if (GPUWATCH_NODE_CALL(nvmlSystemGetNVMLVersion, nvml, sizeof nvml))
    node_.nvml_version = nvml_text(nvml, sizeof nvml);
  int cuda = 0;
  if (GPUWATCH_NODE_CALL(nvmlSystemGetCudaDriverVersion_v2, &cuda))
    node_.cuda_driver_version = cuda_version_string(cuda);
}

void NvmlSession::enumerate(const std::string& proc_root) {
  const auto& fn = lib_->fn();
  if (!GPUWATCH_NODE_CALL(nvmlDeviceGetCount_v2, &device_count_)) {
    error_ = "nvmlDeviceGetCount_v2 failed after a successful nvmlInit_v2";
    return;
  }
  for (unsigned i = 0; i < device_count_; ++i) {
    nvmlDevice_t handle = nullptr;
    calls_.begin_read();
    const bool ok = GPUWATCH_NODE_CALL(nvmlDeviceGetHandleByIndex_v2, i, &handle);
    // A GPU that fell off the bus is still counted: it is reported lost (its UUID cannot be read any more).
    if (!ok && !calls_.lost()) continue;
    gpus_.push_back(std::make_shared<GpuReader>(lib_, handle, i, !ok, proc_root));
  }
}

bool NvmlSession::layout_changed() {
  const auto& fn = lib_->fn();
  unsigned count = 0;
  if (GPUWATCH_NODE_CALL(nvmlDeviceGetCount_v2, &count) && count != device_count_) return true;
  for (const auto& gpu : gpus_) {
    if (gpu->mig_mode_changed()) return true;
  }
  return false;
}

}  // namespace gpuwatch
