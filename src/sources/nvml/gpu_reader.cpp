#include "sources/nvml/gpu_reader.h"

#include <utility>

namespace gpuwatch {

GpuReader::GpuReader(std::shared_ptr<const NvmlLibrary> lib, nvmlDevice_t handle, unsigned index, bool lost,
                     std::string proc_root)
    : lib_(std::move(lib)), handle_(handle), proc_root_(std::move(proc_root)) {
  DeviceLocation location;
  location.handle = handle;
  location.index = index;
  location.lost = lost;
  readers_.push_back(std::make_unique<DeviceReader>(lib_, std::move(location), proc_root_));
}

std::chrono::steady_clock::duration GpuReader::nvml_time() const {
  std::chrono::steady_clock::duration total{};
  for (const auto& r : readers_) total += r->calls().nvml_time();
  return total;
}

bool GpuReader::mig_mode_changed() const {
  const int enumerated = enumerated_mig_mode_.load();
  const auto now = readers_.front()->mig_mode();
  return enumerated >= 0 && now && static_cast<int>(*now) != enumerated;
}

void GpuReader::enumerate_instances() {
  const auto& fn = lib_->fn();
  const auto mode = gpu().mig_mode();
  if (!mode) return;  // MIG not supported (or not read yet): nothing to enumerate
  enumerated_mig_mode_.store(static_cast<int>(*mode));
  unsigned max_instances = 0;
  if (*mode != NVML_DEVICE_MIG_ENABLE || fn.nvmlDeviceGetMaxMigDeviceCount == nullptr ||
      fn.nvmlDeviceGetMigDeviceHandleByIndex == nullptr ||
      fn.nvmlDeviceGetMaxMigDeviceCount(handle_, &max_instances) != NVML_SUCCESS) {
    return;
  }
  const auto& parent = gpu().identity();
  for (unsigned slot = 0; slot < max_instances; ++slot) {
    nvmlDevice_t mig = nullptr;
    if (fn.nvmlDeviceGetMigDeviceHandleByIndex(handle_, slot, &mig) != NVML_SUCCESS) continue;  // empty slot
    DeviceLocation location{mig, slot, handle_, parent.uuid, parent.pci_bus_id, {}, {}};
    unsigned id = 0;
    if (fn.nvmlDeviceGetGpuInstanceId != nullptr && fn.nvmlDeviceGetGpuInstanceId(mig, &id) == NVML_SUCCESS) {
      location.gpu_instance_id = id;
    }
    if (fn.nvmlDeviceGetComputeInstanceId != nullptr &&
        fn.nvmlDeviceGetComputeInstanceId(mig, &id) == NVML_SUCCESS) {
      location.compute_instance_id = id;
    }
    readers_.push_back(std::make_unique<DeviceReader>(lib_, std::move(location), proc_root_));
  }
}

void GpuReader::read(std::int64_t now_ms, std::vector<DeviceSnapshot>& out) {
  out.resize(1);
  auto& whole = gpu();
  whole.read(now_ms, out[0]);
  if (out[0].state == DeviceState::kLost) return;  // its instances are gone with it
  if (enumerated_mig_mode_.load() < 0) enumerate_instances();
  out.resize(readers_.size());
  for (std::size_t i = 1; i < readers_.size(); ++i) readers_[i]->read(now_ms, out[i]);
}

}  // namespace gpuwatch
