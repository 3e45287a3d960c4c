#include "sources/nvml/nvml_library.h"

#include <dlfcn.h>

#include <utility>

namespace gpuwatch {

// NVML is never unloaded. A thread abandoned inside a hung driver call can return at any moment, even while
// exit() runs the libraries' destructors, and drop the last reference there; unloading then would race exit's
// own unloading (or unmap code under another thread) and crash. Keeping the library mapped costs nothing: a
// process loads it once, and dlopen of the same path returns the same handle on re-initialisation.
void NvmlLibrary::DlHandleCloser::operator()(void* /*handle*/) const {}

namespace {

// dlerror() starts with the path it was given; the message names the path once.
std::string dlopen_reason(const std::string& path, const std::string& why) {
  const std::string prefix = path + ": ";
  return why.starts_with(prefix) ? why.substr(prefix.size()) : why;
}

}  // namespace

NvmlLibrary::NvmlLibrary(std::unique_ptr<void, DlHandleCloser> handle, std::string path)
    : handle_(std::move(handle)), path_(std::move(path)) {}

NvmlLibrary::~NvmlLibrary() = default;

void* NvmlLibrary::optional_symbol(const char* name) const {
  return dlsym(handle_.get(), name);
}

NvmlOpenResult NvmlLibrary::open(const std::string& path) {
  std::vector<std::string> candidates;
  if (path.empty()) {
    candidates.assign(kDefaultNames.begin(), kDefaultNames.end());
  } else {
    candidates.push_back(path);
  }

  std::string tried, last_reason;
  for (const auto& candidate : candidates) {
    dlerror();
    std::unique_ptr<void, DlHandleCloser> handle(dlopen(candidate.c_str(), RTLD_NOW | RTLD_LOCAL));
    if (!handle) {
      const char* why = dlerror();
      last_reason = why != nullptr ? why : "cannot be loaded";
      tried += "\n  " + candidate + ": " + last_reason;
      continue;
    }
    std::shared_ptr<NvmlLibrary> lib(new NvmlLibrary(std::move(handle), candidate));
    std::string missing_required;
#define GPUWATCH_NVML_RESOLVE(name, required, ret, params)                           \
  lib->fn_.name = reinterpret_cast<ret(*) params>(dlsym(lib->handle_.get(), #name)); \
  if (lib->fn_.name == nullptr) {                                                    \
    if (required) {                                                                  \
      missing_required += missing_required.empty() ? #name : ", " #name;             \
    } else {                                                                         \
      lib->missing_.push_back(#name);                                                \
    }                                                                                \
  }
    GPUWATCH_NVML_SYMBOLS(GPUWATCH_NVML_RESOLVE)
#undef GPUWATCH_NVML_RESOLVE
    if (!missing_required.empty()) {
      return {nullptr, "NVML library " + candidate + " lacks required symbol(s) " + missing_required +
                           ": it is too old or not NVML; point --nvml-lib at the driver's libnvidia-ml.so.1"};
    }

    // Same signature under an older name: use it when the newer one is absent.
    auto& f = lib->fn_;
    if (f.nvmlDeviceGetCurrentClocksEventReasons == nullptr) {
      f.nvmlDeviceGetCurrentClocksEventReasons = f.nvmlDeviceGetCurrentClocksThrottleReasons;
    }
    if (f.nvmlSystemGetCudaDriverVersion_v2 == nullptr) {
      f.nvmlSystemGetCudaDriverVersion_v2 = f.nvmlSystemGetCudaDriverVersion;
    }
    if (f.nvmlDeviceGetComputeRunningProcesses_v3 == nullptr) {
      f.nvmlDeviceGetComputeRunningProcesses_v3 = f.nvmlDeviceGetComputeRunningProcesses_v2;
    }
    if (f.nvmlDeviceGetGraphicsRunningProcesses_v3 == nullptr) {
      f.nvmlDeviceGetGraphicsRunningProcesses_v3 = f.nvmlDeviceGetGraphicsRunningProcesses_v2;
    }

    // nvml-abi.md, Traps 2: early R535 drivers wrote 32-byte process entries. They are recognisable by
    // exporting the confidential-computing query but not yet the detail-list call that replaced it.
    const bool has_cc = lib->optional_symbol("nvmlDeviceGetConfComputeMemSizeInfo") != nullptr;
    const bool has_detail_list = lib->optional_symbol("nvmlDeviceGetRunningProcessDetailList") != nullptr;
    if (has_cc && !has_detail_list && f.nvmlDeviceGetComputeRunningProcesses_v3 != nullptr &&
        lib->optional_symbol("nvmlDeviceGetComputeRunningProcesses_v3") != nullptr) {
      lib->process_info_size_ = 32;
    }
    return {std::move(lib), {}};
  }
  if (!path.empty()) {
    // A library named by the user: what is wrong is that path, not a missing driver.
    return {nullptr,
            "cannot load the NVML library " + path + ": " + dlopen_reason(path, last_reason) +
                "\nCheck the path given with --nvml-lib (or GPUWATCH_NVML_LIB); the driver's library "
                "is libnvidia-ml.so.1"};
  }
  return {nullptr, "cannot load the NVML library; tried:" + tried +
                       "\nInstall the NVIDIA driver, or point --nvml-lib (or GPUWATCH_NVML_LIB) at its "
                       "libnvidia-ml.so.1"};
}

}  // namespace gpuwatch
