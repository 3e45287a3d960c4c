// Reads one device (a whole GPU, or one MIG instance) through NVML into a DeviceSnapshot: every device- and
// process-scope metric of the catalogue the device supports, converted to base units. Each group of reads
// follows kReadSchedule; a group that is not due keeps its last values.
//
// Not thread-safe: one reader is used by one thread at a time (the collector's worker for that device).
#pragma once

#include <array>
#include <atomic>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "core/snapshot.h"
#include "sources/nvml/call_tracker.h"
#include "sources/nvml/field_batch.h"
#include "sources/nvml/gpm_reader.h"
#include "sources/nvml/process_reader.h"
#include "sources/nvml/read_schedule.h"

namespace gpuwatch {

// Where a device sits in NVML's enumeration.
struct DeviceLocation {
  nvmlDevice_t handle = nullptr;
  unsigned index = 0;
  // Set for MIG instances only.
  nvmlDevice_t parent = nullptr;
  std::string parent_uuid;
  std::string parent_bus_id;
  std::optional<unsigned> gpu_instance_id;
  std::optional<unsigned> compute_instance_id;
  // NVML answered GPU_IS_LOST for the handle: the reader reports the GPU lost without calling NVML.
  bool lost = false;
};

class DeviceReader {
 public:
  // Makes no NVML call: the identity is read by the first read(), on the thread that reads the device, so a
  // device that hangs from the start cannot stall whoever enumerates it.
  DeviceReader(std::shared_ptr<const NvmlLibrary> lib, DeviceLocation location, const std::string& proc_root);

  // Only the index (and MIG placement) until the first read() got through the identity calls.
  const DeviceIdentity& identity() const { return identity_; }
  nvmlDevice_t handle() const { return location_.handle; }
  bool is_mig_instance() const { return identity_.is_mig_instance; }
  // MIG mode as last read (kSlow group); nullopt before the first read or when unsupported.
  // Safe to call from another thread while the reader is in use.
  std::optional<unsigned> mig_mode() const {
    const int mode = mig_mode_.load(std::memory_order_relaxed);
    return mode < 0 ? std::nullopt : std::optional<unsigned>(static_cast<unsigned>(mode));
  }

  // Reads the groups due at now_ms and replaces `out` with the device's current state.
  void read(std::int64_t now_ms, DeviceSnapshot& out);

  CallTracker& calls() { return calls_; }
  const CallTracker& calls() const { return calls_; }

 private:
  void read_identity();
  void read_group(ReadGroup group, std::int64_t now_ms, std::vector<Sample>& s);
  void read_slow(std::vector<Sample>& s);
  void read_power(std::vector<Sample>& s);
  void read_utilization(std::vector<Sample>& s);
  void read_every_tick(std::vector<Sample>& s);
  void read_memory(std::vector<Sample>& s);

  std::shared_ptr<const NvmlLibrary> lib_;
  const NvmlFunctions& fn_;
  DeviceLocation location_;
  DeviceIdentity identity_;
  CallTracker calls_;
  std::atomic<int> mig_mode_{-1};
  std::vector<unsigned> nvlinks_;  // links that answered nvmlDeviceGetNvLinkState at identity time
  FieldBatch power_fields_;
  FieldBatch tick_fields_;
  ProcessReader processes_;
  std::unique_ptr<GpmReader> gpm_;
  std::vector<Sample> gpm_samples_;

  std::array<std::vector<Sample>, kReadGroupCount> group_samples_;
  std::array<std::int64_t, kReadGroupCount> last_read_ms_{};
  std::array<bool, kReadGroupCount> has_read_{};
  std::vector<ProcessSample> process_samples_;
};

// NVML's "00000000:3B:00.0" as sysfs writes it, "0000:3b:00.0"; other text is returned lower-cased.
std::string normalise_bus_id(std::string_view nvml_bus_id);

}  // namespace gpuwatch
