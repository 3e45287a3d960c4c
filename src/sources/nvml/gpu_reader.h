// One physical GPU and, in MIG mode, its MIG instances, each reported as a device of its own. They are read
// together, on one thread, because a GPU that hangs takes its instances with it. The instances are
// enumerated on the first read that sees MIG mode enabled (slots 0..max-1; an empty slot is NOT_FOUND).
//
// Not thread-safe: one thread reads; others may call only mig_mode_changed().
#pragma once

#include <atomic>
#include <memory>
#include <string>
#include <vector>

#include "sources/nvml/device_reader.h"

namespace gpuwatch {

class GpuReader {
 public:
  // lost: NVML answered GPU_IS_LOST for the handle; the GPU is reported lost without further calls.
  GpuReader(std::shared_ptr<const NvmlLibrary> lib, nvmlDevice_t handle, unsigned index, bool lost,
            std::string proc_root);

  // Replaces `out` with the GPU's snapshot followed by one per MIG instance.
  void read(std::int64_t now_ms, std::vector<DeviceSnapshot>& out);

  // The whole GPU's reader, and every reader (GPU first, then instances) for harvesting call book-keeping.
  DeviceReader& gpu() { return *readers_.front(); }
  const std::vector<std::unique_ptr<DeviceReader>>& readers() const { return readers_; }
  nvmlDevice_t handle() const { return handle_; }
  // Time spent inside NVML by all of this GPU's readers.
  std::chrono::steady_clock::duration nvml_time() const;

  // True when the GPU's MIG mode is no longer the one its instances were enumerated for (a MIG
  // reconfiguration): the handles are stale, make a new session. Safe from any thread.
  bool mig_mode_changed() const;

 private:
  void enumerate_instances();

  std::shared_ptr<const NvmlLibrary> lib_;
  nvmlDevice_t handle_;
  std::string proc_root_;
  std::vector<std::unique_ptr<DeviceReader>> readers_;
  std::atomic<int> enumerated_mig_mode_{-1};  // -1 until the first read saw the mode
};

}  // namespace gpuwatch
