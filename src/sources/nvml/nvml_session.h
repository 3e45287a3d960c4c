// One initialisation of NVML: nvmlInit_v2, node information, and the GPUs enumerated once by index (each
// GpuReader adds its MIG instances). Handles are valid only for the
// session's lifetime: after a GPU reset, a MIG reconfiguration or a re-initialisation, make a new session.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "core/snapshot.h"
#include "sources/nvml/call_tracker.h"
#include "sources/nvml/gpu_reader.h"
#include "sources/nvml/nvml_library.h"

namespace gpuwatch {

class NvmlSession {
 public:
  // Initialises NVML and enumerates the devices. On failure ok() is false and error() says what failed.
  // hostname: "" for the simulator's node name on libnvml-sim, else gethostname().
  NvmlSession(std::shared_ptr<const NvmlLibrary> lib, const std::string& proc_root,
              const std::string& hostname);
  // Calls nvmlShutdown unless skip_shutdown() was called.
  ~NvmlSession();
  NvmlSession(const NvmlSession&) = delete;
  NvmlSession& operator=(const NvmlSession&) = delete;

  bool ok() const { return error_.empty(); }
  const std::string& error() const { return error_; }
  // The nvmlInit_v2 answer (NVML_SUCCESS when ok()).
  nvmlReturn_t init_result() const { return init_result_; }

  const NodeInfo& node() const { return node_; }
  // The GPUs in index order. No device has been called yet: identities come with their first read.
  const std::vector<std::shared_ptr<GpuReader>>& gpus() const { return gpus_; }

  // True when the device count or a GPU's MIG mode is no longer what was enumerated: make a new session.
  // Asks NVML for the count (one cheap node-wide call); safe while the GPUs are being read.
  bool layout_changed();

  // A thread may still be inside NVML (an abandoned hung call): shutting NVML down under it is unsafe.
  void skip_shutdown() { skip_shutdown_ = true; }

  // Node-wide calls (count, versions): their errors are counted with an empty GPU.
  CallTracker& calls() { return calls_; }

 private:
  void read_node_info(const std::string& hostname);
  void enumerate(const std::string& proc_root);

  std::shared_ptr<const NvmlLibrary> lib_;
  CallTracker calls_;
  nvmlReturn_t init_result_ = NVML_ERROR_UNINITIALIZED;
  std::string error_;
  NodeInfo node_;
  std::vector<std::shared_ptr<GpuReader>> gpus_;
  unsigned device_count_ = 0;
  bool skip_shutdown_ = false;
};

// "12.4" from NVML's 12040.
std::string cuda_version_string(int version);

}  // namespace gpuwatch
