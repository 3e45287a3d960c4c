// The built-in table of GPU models a scenario can name: what a real card of that model reports through
// NVML (identity, limits, clocks, thresholds) and which NVML features it has. One row per model.
#pragma once

#include <span>
#include <string>
#include <string_view>
#include <vector>

namespace gpuwatch::sim {

struct MigProfile {
  std::string_view name;  // "3g.40gb"
  unsigned slices;        // compute slices out of 7
  unsigned memory_mib;    // what nvmlDeviceGetMemoryInfo reports for the instance
};

// CUDA compute capability: 9.0 for Hopper, 8.0 for the A100.
struct ComputeCapability {
  int major;
  int minor;
};

struct GpuModel {
  std::string_view key;   // how scenarios name it: "H200"
  std::string_view name;  // nvmlDeviceGetName: "NVIDIA H200"
  unsigned pci_device_id;
  unsigned long long memory_bytes;  // nvmlDeviceGetMemoryInfo's total: nvidia-smi's "Total" times 1 MiB
  double max_power_w;
  double idle_power_w;
  unsigned pcie_gen;
  unsigned pcie_width;
  bool gpm;
  bool fan;
  bool row_remapping;  // A100 and later remap rows instead of retiring pages
  unsigned nvlinks;
  unsigned nvlink_speed_mbps;
  unsigned max_sm_mhz;
  unsigned idle_sm_mhz;
  unsigned max_mem_mhz;
  unsigned max_video_mhz;
  unsigned temp_shutdown;
  unsigned temp_slowdown;
  unsigned temp_mem_max;
  unsigned temp_gpu_max;
  double temp_idle;  // celsius at idle power
  double temp_rise;  // celsius above idle at full power
  std::string_view vbios;
  std::span<const MigProfile> mig_profiles;  // empty: not MIG capable
  unsigned bar1_mib;                         // BAR1 aperture, nvidia-smi -q "BAR1 Memory Usage"
  ComputeCapability cuda;
};

// Case-insensitive lookup by key or by full name; nullptr when unknown.
const GpuModel* find_gpu_model(std::string_view key_or_name);
std::vector<std::string_view> gpu_model_keys();
const MigProfile* find_mig_profile(const GpuModel& model, std::string_view name);

}  // namespace gpuwatch::sim
