// GPU Performance Monitoring (Hopper and later): SM activity, occupancy, tensor and DRAM activity, computed
// by NVML from two samples taken more than 100 ms apart. The two samples are allocated once and swapped; on a
// MIG instance they are taken through the parent GPU for that GPU instance.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <vector>

#include "core/snapshot.h"
#include "sources/nvml/call_tracker.h"

namespace gpuwatch {

class GpmReader {
 public:
  // Queries support and allocates the samples; inactive when unsupported. For a MIG instance pass the
  // parent's handle and the GPU instance id; otherwise `device` itself and no instance.
  GpmReader(std::shared_ptr<const NvmlLibrary> lib, nvmlDevice_t device, CallTracker& calls,
            std::optional<unsigned> gpu_instance_id = std::nullopt);
  ~GpmReader();
  GpmReader(const GpmReader&) = delete;
  GpmReader& operator=(const GpmReader&) = delete;

  bool active() const { return samples_[0] != nullptr; }

  // Takes a sample; once the previous one is at least 100 ms older, replaces `last` with the metrics of the
  // span between them. Until then `last` keeps its values.
  void read(std::int64_t now_ms, CallTracker& calls, std::vector<Sample>& last);

 private:
  std::shared_ptr<const NvmlLibrary> lib_;
  nvmlDevice_t device_;
  std::optional<unsigned> gpu_instance_id_;
  nvmlGpmSample_t samples_[2] = {nullptr, nullptr};
  int previous_ = -1;  // index of the older sample, -1 before the first
  std::int64_t previous_ms_ = 0;
  std::unique_ptr<nvmlGpmMetricsGet_t> request_;
};

}  // namespace gpuwatch
