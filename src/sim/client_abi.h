// The part of the NVML C ABI that other NVML clients call and gpuwatch does not (nvidia-ml-py's pynvml and
// the tools built on it, nvtop, exporters without DCGM). Sizes and offsets from the NVML API 13 header,
// pinned with static_assert like the backend's declarations in sources/nvml/nvml_abi.h.
#pragma once

#include <cstddef>

#include "sources/nvml/nvml_abi.h"

extern "C" {

// nvmlInitWithFlags: NO_GPUS lets init succeed on a node without GPUs; NO_ATTACH skips attaching to them.
enum : unsigned {
  NVML_INIT_FLAG_NO_GPUS = 1,
  NVML_INIT_FLAG_NO_ATTACH = 2,
};

struct nvmlTemperature_t {  // nvmlTemperature_v1_t
  unsigned int version;
  unsigned int sensorType;  // NVML_TEMPERATURE_GPU
  int temperature;          // celsius
};
static_assert(sizeof(nvmlTemperature_t) == 12);
static_assert(offsetof(nvmlTemperature_t, temperature) == 8);
constexpr unsigned nvmlTemperature_v1 = GPUWATCH_NVML_STRUCT_VERSION(nvmlTemperature_t, 1U);
static_assert(nvmlTemperature_v1 == 0x0100000C);

struct nvmlBAR1Memory_t {
  unsigned long long bar1Total;
  unsigned long long bar1Free;
  unsigned long long bar1Used;
};
static_assert(sizeof(nvmlBAR1Memory_t) == 24);

struct nvmlConfComputeMemSizeInfo_t {
  unsigned long long protectedMemSizeKib;
  unsigned long long unprotectedMemSizeKib;
};
static_assert(sizeof(nvmlConfComputeMemSizeInfo_t) == 16);

struct nvmlProcessDetail_v1_t {
  unsigned int pid;
  unsigned long long usedGpuMemory;  // bytes
  unsigned int gpuInstanceId;
  unsigned int computeInstanceId;
  unsigned long long usedGpuCcProtectedMemory;  // bytes
};
static_assert(sizeof(nvmlProcessDetail_v1_t) == 32);
static_assert(offsetof(nvmlProcessDetail_v1_t, gpuInstanceId) == 16);
static_assert(offsetof(nvmlProcessDetail_v1_t, usedGpuCcProtectedMemory) == 24);

enum : unsigned {
  NVML_PROCESS_MODE_COMPUTE = 0,
  NVML_PROCESS_MODE_GRAPHICS = 1,
  NVML_PROCESS_MODE_MPS = 2,
};

struct nvmlProcessDetailList_t {  // nvmlProcessDetailList_v1_t
  unsigned int version;
  unsigned int mode;                 // NVML_PROCESS_MODE_*
  unsigned int numProcArrayEntries;  // in: capacity of procArray; out: processes found
  nvmlProcessDetail_v1_t* procArray;
};
static_assert(sizeof(nvmlProcessDetailList_t) == 24);
static_assert(offsetof(nvmlProcessDetailList_t, procArray) == 16);
constexpr unsigned nvmlProcessDetailList_v1 = GPUWATCH_NVML_STRUCT_VERSION(nvmlProcessDetailList_t, 1U);
static_assert(nvmlProcessDetailList_v1 == 0x01000018);

enum : unsigned {
  NVML_COMPUTEMODE_DEFAULT = 0,
  NVML_COMPUTEMODE_EXCLUSIVE_THREAD = 1,
  NVML_COMPUTEMODE_PROHIBITED = 2,
  NVML_COMPUTEMODE_EXCLUSIVE_PROCESS = 3,
};

}  // extern "C"
