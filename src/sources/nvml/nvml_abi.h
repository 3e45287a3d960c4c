// The part of the NVML C ABI that gpuwatch uses, declared here because nvml.h is not available on build
// machines without the CUDA toolkit. Both the dlopen backend and libnvml-sim are written against these
// declarations, so a layout mistake would show up as a disagreement with the real library, not hide in both:
// every struct size and offset the code relies on is pinned with static_assert (values from NVML API 13).
#pragma once

#include <cstddef>
#include <cstdint>

extern "C" {

using nvmlReturn_t = int;
using nvmlDevice_t = struct nvmlDevice_st*;
using nvmlEventSet_t = struct nvmlEventSet_st*;
using nvmlGpmSample_t = struct nvmlGpmSample_st*;

enum : nvmlReturn_t {
  NVML_SUCCESS = 0,
  NVML_ERROR_UNINITIALIZED = 1,
  NVML_ERROR_INVALID_ARGUMENT = 2,
  NVML_ERROR_NOT_SUPPORTED = 3,
  NVML_ERROR_NO_PERMISSION = 4,
  NVML_ERROR_ALREADY_INITIALIZED = 5,
  NVML_ERROR_NOT_FOUND = 6,
  NVML_ERROR_INSUFFICIENT_SIZE = 7,
  NVML_ERROR_INSUFFICIENT_POWER = 8,
  NVML_ERROR_DRIVER_NOT_LOADED = 9,
  NVML_ERROR_TIMEOUT = 10,
  NVML_ERROR_IRQ_ISSUE = 11,
  NVML_ERROR_LIBRARY_NOT_FOUND = 12,
  NVML_ERROR_FUNCTION_NOT_FOUND = 13,
  NVML_ERROR_CORRUPTED_INFOROM = 14,
  NVML_ERROR_GPU_IS_LOST = 15,
  NVML_ERROR_RESET_REQUIRED = 16,
  NVML_ERROR_OPERATING_SYSTEM = 17,
  NVML_ERROR_LIB_RM_VERSION_MISMATCH = 18,
  NVML_ERROR_IN_USE = 19,
  NVML_ERROR_MEMORY = 20,
  NVML_ERROR_NO_DATA = 21,
  NVML_ERROR_VGPU_ECC_NOT_SUPPORTED = 22,
  NVML_ERROR_INSUFFICIENT_RESOURCES = 23,
  NVML_ERROR_FREQ_NOT_SUPPORTED = 24,
  NVML_ERROR_ARGUMENT_VERSION_MISMATCH = 25,
  NVML_ERROR_DEPRECATED = 26,
  NVML_ERROR_NOT_READY = 27,
  NVML_ERROR_GPU_NOT_FOUND = 28,
  NVML_ERROR_INVALID_STATE = 29,
  NVML_ERROR_RESET_TYPE_NOT_SUPPORTED = 30,
  NVML_ERROR_UNKNOWN = 999,
};

// NVML_STRUCT_VERSION(name, ver) = sizeof(struct) | (ver << 24)
#define GPUWATCH_NVML_STRUCT_VERSION(type, ver) (static_cast<unsigned>(sizeof(type)) | ((ver) << 24U))

constexpr unsigned long long NVML_VALUE_NOT_AVAILABLE_ULL = ~0ULL;
constexpr unsigned NVML_DEVICE_NAME_V2_BUFFER_SIZE = 96;
constexpr unsigned NVML_DEVICE_UUID_V2_BUFFER_SIZE = 96;
constexpr unsigned NVML_DEVICE_SERIAL_BUFFER_SIZE = 30;
constexpr unsigned NVML_DEVICE_VBIOS_VERSION_BUFFER_SIZE = 32;
constexpr unsigned NVML_SYSTEM_DRIVER_VERSION_BUFFER_SIZE = 80;
constexpr unsigned NVML_SYSTEM_NVML_VERSION_BUFFER_SIZE = 80;
constexpr unsigned NVML_DEVICE_PCI_BUS_ID_BUFFER_SIZE = 32;
constexpr unsigned NVML_DEVICE_PCI_BUS_ID_BUFFER_V2_SIZE = 16;

struct nvmlPciInfo_t {
  char busIdLegacy[NVML_DEVICE_PCI_BUS_ID_BUFFER_V2_SIZE];
  unsigned int domain;
  unsigned int bus;
  unsigned int device;
  unsigned int pciDeviceId;     // high 16 bits device id, low 16 bits vendor id (0x10DE)
  unsigned int pciSubSystemId;
  char busId[NVML_DEVICE_PCI_BUS_ID_BUFFER_SIZE];  // "%08X:%02X:%02X.0"
};
static_assert(sizeof(nvmlPciInfo_t) == 68);
static_assert(offsetof(nvmlPciInfo_t, domain) == 16);
static_assert(offsetof(nvmlPciInfo_t, pciDeviceId) == 28);
static_assert(offsetof(nvmlPciInfo_t, busId) == 36);

struct nvmlUtilization_t {
  unsigned int gpu;     // percent
  unsigned int memory;  // percent
};
static_assert(sizeof(nvmlUtilization_t) == 8);

struct nvmlMemory_t {
  unsigned long long total;
  unsigned long long free;
  unsigned long long used;
};
static_assert(sizeof(nvmlMemory_t) == 24);

struct nvmlMemory_v2_t {
  unsigned int version;
  unsigned long long total;
  unsigned long long reserved;
  unsigned long long free;
  unsigned long long used;
};
static_assert(sizeof(nvmlMemory_v2_t) == 40);
static_assert(offsetof(nvmlMemory_v2_t, total) == 8);
static_assert(offsetof(nvmlMemory_v2_t, reserved) == 16);
static_assert(offsetof(nvmlMemory_v2_t, free) == 24);
static_assert(offsetof(nvmlMemory_v2_t, used) == 32);
constexpr unsigned nvmlMemory_v2 = GPUWATCH_NVML_STRUCT_VERSION(nvmlMemory_v2_t, 2U);
static_assert(nvmlMemory_v2 == 0x02000028);

struct nvmlProcessInfo_t {  // the _v2/_v3 24-byte layout
  unsigned int pid;
  unsigned long long usedGpuMemory;  // bytes; NVML_VALUE_NOT_AVAILABLE_ULL when unknown
  unsigned int gpuInstanceId;        // 0xFFFFFFFF without MIG
  unsigned int computeInstanceId;
};
static_assert(sizeof(nvmlProcessInfo_t) == 24);
static_assert(offsetof(nvmlProcessInfo_t, usedGpuMemory) == 8);
static_assert(offsetof(nvmlProcessInfo_t, gpuInstanceId) == 16);
static_assert(offsetof(nvmlProcessInfo_t, computeInstanceId) == 20);

struct nvmlProcessUtilizationSample_t {
  unsigned int pid;
  unsigned long long timeStamp;  // CPU timestamp, microseconds
  unsigned int smUtil;
  unsigned int memUtil;
  unsigned int encUtil;
  unsigned int decUtil;
};
static_assert(sizeof(nvmlProcessUtilizationSample_t) == 32);
static_assert(offsetof(nvmlProcessUtilizationSample_t, timeStamp) == 8);
static_assert(offsetof(nvmlProcessUtilizationSample_t, smUtil) == 16);

struct nvmlViolationTime_t {
  unsigned long long referenceTime;  // microseconds, CPU timestamp
  unsigned long long violationTime;  // nanoseconds throttled
};
static_assert(sizeof(nvmlViolationTime_t) == 16);

enum nvmlValueType_t : int {
  NVML_VALUE_TYPE_DOUBLE = 0,
  NVML_VALUE_TYPE_UNSIGNED_INT = 1,
  NVML_VALUE_TYPE_UNSIGNED_LONG = 2,
  NVML_VALUE_TYPE_UNSIGNED_LONG_LONG = 3,
  NVML_VALUE_TYPE_SIGNED_LONG_LONG = 4,
  NVML_VALUE_TYPE_SIGNED_INT = 5,
  NVML_VALUE_TYPE_UNSIGNED_SHORT = 6,
};

union nvmlValue_t {
  double dVal;
  int siVal;
  unsigned int uiVal;
  unsigned long ulVal;
  unsigned long long ullVal;
  long long sllVal;
  unsigned short usVal;
};
static_assert(sizeof(nvmlValue_t) == 8);

struct nvmlFieldValue_t {
  unsigned int fieldId;
  unsigned int scopeId;  // NVLink id for per-link fields; UINT_MAX for all links
  long long timestamp;   // microseconds
  long long latencyUsec;
  nvmlValueType_t valueType;
  nvmlReturn_t nvmlReturn;
  nvmlValue_t value;
};
static_assert(sizeof(nvmlFieldValue_t) == 40);
static_assert(offsetof(nvmlFieldValue_t, timestamp) == 8);
static_assert(offsetof(nvmlFieldValue_t, valueType) == 24);
static_assert(offsetof(nvmlFieldValue_t, nvmlReturn) == 28);
static_assert(offsetof(nvmlFieldValue_t, value) == 32);

// Field ids (nvmlFieldValue_t::fieldId).
enum : unsigned {
  NVML_FI_DEV_ECC_CURRENT = 1,
  NVML_FI_DEV_ECC_SBE_VOL_TOTAL = 3,
  NVML_FI_DEV_ECC_DBE_VOL_TOTAL = 4,
  NVML_FI_DEV_ECC_SBE_AGG_TOTAL = 5,
  NVML_FI_DEV_ECC_DBE_AGG_TOTAL = 6,
  NVML_FI_DEV_RETIRED_SBE = 29,
  NVML_FI_DEV_RETIRED_DBE = 30,
  NVML_FI_DEV_RETIRED_PENDING = 31,
  NVML_FI_DEV_NVLINK_CRC_FLIT_ERROR_COUNT_TOTAL = 38,
  NVML_FI_DEV_NVLINK_CRC_DATA_ERROR_COUNT_TOTAL = 45,
  NVML_FI_DEV_NVLINK_REPLAY_ERROR_COUNT_TOTAL = 52,
  NVML_FI_DEV_NVLINK_RECOVERY_ERROR_COUNT_TOTAL = 59,
  NVML_FI_DEV_NVLINK_BANDWIDTH_C0_TOTAL = 66,
  NVML_FI_DEV_NVLINK_BANDWIDTH_C1_TOTAL = 73,
  NVML_FI_DEV_MEMORY_TEMP = 82,
  NVML_FI_DEV_TOTAL_ENERGY_CONSUMPTION = 83,
  NVML_FI_DEV_NVLINK_SPEED_MBPS_COMMON = 90,
  NVML_FI_DEV_NVLINK_LINK_COUNT = 91,
  NVML_FI_DEV_PCIE_REPLAY_COUNTER = 94,
  NVML_FI_DEV_NVLINK_THROUGHPUT_DATA_TX = 138,
  NVML_FI_DEV_NVLINK_THROUGHPUT_DATA_RX = 139,
  NVML_FI_DEV_NVLINK_THROUGHPUT_RAW_TX = 140,
  NVML_FI_DEV_NVLINK_THROUGHPUT_RAW_RX = 141,
  NVML_FI_DEV_REMAPPED_COR = 142,
  NVML_FI_DEV_REMAPPED_UNC = 143,
  NVML_FI_DEV_REMAPPED_PENDING = 144,
  NVML_FI_DEV_REMAPPED_FAILURE = 145,
  NVML_FI_DEV_PCIE_COUNT_CORRECTABLE_ERRORS = 173,
  NVML_FI_DEV_POWER_AVERAGE = 185,
  NVML_FI_DEV_POWER_INSTANT = 186,
  NVML_FI_DEV_POWER_CURRENT_LIMIT = 190,
  NVML_FI_DEV_ENERGY = 191,
};
constexpr unsigned NVML_NVLINK_MAX_LINKS = 18;
constexpr unsigned NVML_FIELD_SCOPE_ALL = 0xFFFFFFFFU;

enum : unsigned {  // nvmlTemperatureSensors_t
  NVML_TEMPERATURE_GPU = 0,
};
enum : unsigned {  // nvmlTemperatureThresholds_t
  NVML_TEMPERATURE_THRESHOLD_SHUTDOWN = 0,
  NVML_TEMPERATURE_THRESHOLD_SLOWDOWN = 1,
  NVML_TEMPERATURE_THRESHOLD_MEM_MAX = 2,
  NVML_TEMPERATURE_THRESHOLD_GPU_MAX = 3,
};
enum : unsigned {  // nvmlClockType_t
  NVML_CLOCK_GRAPHICS = 0,
  NVML_CLOCK_SM = 1,
  NVML_CLOCK_MEM = 2,
  NVML_CLOCK_VIDEO = 3,
};
enum : unsigned {  // nvmlPcieUtilCounter_t
  NVML_PCIE_UTIL_TX_BYTES = 0,
  NVML_PCIE_UTIL_RX_BYTES = 1,
};
enum : unsigned {  // nvmlMemoryErrorType_t / nvmlEccCounterType_t
  NVML_MEMORY_ERROR_TYPE_CORRECTED = 0,
  NVML_MEMORY_ERROR_TYPE_UNCORRECTED = 1,
  NVML_VOLATILE_ECC = 0,
  NVML_AGGREGATE_ECC = 1,
};
enum : unsigned {  // nvmlPageRetirementCause_t
  NVML_PAGE_RETIREMENT_CAUSE_MULTIPLE_SINGLE_BIT_ECC_ERRORS = 0,
  NVML_PAGE_RETIREMENT_CAUSE_DOUBLE_BIT_ECC_ERROR = 1,
};
enum : unsigned {  // nvmlPerfPolicyType_t
  NVML_PERF_POLICY_POWER = 0,
  NVML_PERF_POLICY_THERMAL = 1,
};
enum : unsigned {  // nvmlEnableState_t
  NVML_FEATURE_DISABLED = 0,
  NVML_FEATURE_ENABLED = 1,
};
enum : unsigned {  // nvmlNvLinkCapability / state
  NVML_NVLINK_STATE_INACTIVE = 0,
  NVML_NVLINK_STATE_ACTIVE = 1,
};

// Clock event ("throttle") reason bits.
enum : unsigned long long {
  nvmlClocksEventReasonGpuIdle = 0x1ULL,
  nvmlClocksEventReasonApplicationsClocksSetting = 0x2ULL,
  nvmlClocksEventReasonSwPowerCap = 0x4ULL,
  nvmlClocksThrottleReasonHwSlowdown = 0x8ULL,
  nvmlClocksEventReasonSyncBoost = 0x10ULL,
  nvmlClocksEventReasonSwThermalSlowdown = 0x20ULL,
  nvmlClocksThrottleReasonHwThermalSlowdown = 0x40ULL,
  nvmlClocksThrottleReasonHwPowerBrakeSlowdown = 0x80ULL,
  nvmlClocksEventReasonDisplayClockSetting = 0x100ULL,
};

// Event types.
enum : unsigned long long {
  nvmlEventTypeSingleBitEccError = 0x1ULL,
  nvmlEventTypeDoubleBitEccError = 0x2ULL,
  nvmlEventTypePState = 0x4ULL,
  nvmlEventTypeXidCriticalError = 0x8ULL,
  nvmlEventTypeClock = 0x10ULL,
  nvmlEventTypePowerSourceChange = 0x80ULL,
  nvmlEventMigConfigChange = 0x100ULL,
  nvmlEventTypeSingleBitEccErrorStorm = 0x200ULL,
  nvmlEventTypeDramRetirementEvent = 0x400ULL,
  nvmlEventTypeDramRetirementFailure = 0x800ULL,
  nvmlEventTypeNonFatalPoisonError = 0x1000ULL,
  nvmlEventTypeFatalPoisonError = 0x2000ULL,
  nvmlEventTypeGpuUnavailableError = 0x4000ULL,
  nvmlEventTypeGpuRecoveryAction = 0x8000ULL,
};

struct nvmlEventData_t {
  nvmlDevice_t device;
  unsigned long long eventType;
  unsigned long long eventData;  // the XID number for XID events
  unsigned int gpuInstanceId;
  unsigned int computeInstanceId;
};
static_assert(sizeof(nvmlEventData_t) == 32);
static_assert(offsetof(nvmlEventData_t, eventType) == 8);
static_assert(offsetof(nvmlEventData_t, eventData) == 16);
static_assert(offsetof(nvmlEventData_t, gpuInstanceId) == 24);

// GPM (Hopper and later).
struct nvmlGpmSupport_t {
  unsigned int version;  // NVML_GPM_SUPPORT_VERSION = 1
  unsigned int isSupportedDevice;
};
static_assert(sizeof(nvmlGpmSupport_t) == 8);
constexpr unsigned NVML_GPM_SUPPORT_VERSION = 1;

enum : unsigned {  // nvmlGpmMetricId_t
  NVML_GPM_METRIC_GRAPHICS_UTIL = 1,
  NVML_GPM_METRIC_SM_UTIL = 2,
  NVML_GPM_METRIC_SM_OCCUPANCY = 3,
  NVML_GPM_METRIC_INTEGER_UTIL = 4,
  NVML_GPM_METRIC_ANY_TENSOR_UTIL = 5,
  NVML_GPM_METRIC_DFMA_TENSOR_UTIL = 6,
  NVML_GPM_METRIC_HMMA_TENSOR_UTIL = 7,
  NVML_GPM_METRIC_IMMA_TENSOR_UTIL = 9,
  NVML_GPM_METRIC_DRAM_BW_UTIL = 10,
  NVML_GPM_METRIC_FP64_UTIL = 11,
  NVML_GPM_METRIC_FP32_UTIL = 12,
  NVML_GPM_METRIC_FP16_UTIL = 13,
  NVML_GPM_METRIC_PCIE_TX_PER_SEC = 20,
  NVML_GPM_METRIC_PCIE_RX_PER_SEC = 21,
};

struct nvmlGpmMetric_t {
  unsigned int metricId;
  nvmlReturn_t nvmlReturn;
  double value;  // percent for *_UTIL / *_OCCUPANCY, MiB/s for PCIe
  struct {
    char* shortName;
    char* longName;
    char* unit;
  } metricInfo;
};
static_assert(sizeof(nvmlGpmMetric_t) == 40);
static_assert(offsetof(nvmlGpmMetric_t, value) == 8);

// The metrics[] array grew (98 -> 210 -> 333) while the struct version stayed 1: declare the largest.
constexpr unsigned NVML_GPM_METRIC_MAX = 333;
struct nvmlGpmMetricsGet_t {
  unsigned int version;  // NVML_GPM_METRICS_GET_VERSION = 1
  unsigned int numMetrics;
  nvmlGpmSample_t sample1;
  nvmlGpmSample_t sample2;
  nvmlGpmMetric_t metrics[NVML_GPM_METRIC_MAX];
};
static_assert(offsetof(nvmlGpmMetricsGet_t, sample1) == 8);
static_assert(offsetof(nvmlGpmMetricsGet_t, metrics) == 24);
constexpr unsigned NVML_GPM_METRICS_GET_VERSION = 1;

// NVLink fabric (NVSwitch systems, Hopper and later): whether the GPU has registered with the fabric manager.
constexpr unsigned NVML_GPU_FABRIC_UUID_LEN = 16;
enum : unsigned char {
  NVML_GPU_FABRIC_STATE_NOT_SUPPORTED = 0,
  NVML_GPU_FABRIC_STATE_NOT_STARTED = 1,
  NVML_GPU_FABRIC_STATE_IN_PROGRESS = 2,
  NVML_GPU_FABRIC_STATE_COMPLETED = 3,
};
struct nvmlGpuFabricInfo_t {
  unsigned char clusterUuid[NVML_GPU_FABRIC_UUID_LEN];
  nvmlReturn_t status;  // result of the registration once state is COMPLETED
  unsigned int cliqueId;
  unsigned char state;  // NVML_GPU_FABRIC_STATE_*
};
static_assert(sizeof(nvmlGpuFabricInfo_t) == 28);
static_assert(offsetof(nvmlGpuFabricInfo_t, status) == 16);
static_assert(offsetof(nvmlGpuFabricInfo_t, state) == 24);

// MIG.
enum : unsigned {
  NVML_DEVICE_MIG_DISABLE = 0,
  NVML_DEVICE_MIG_ENABLE = 1,
};
constexpr unsigned NVML_INVALID_INSTANCE_ID = 0xFFFFFFFFU;

}  // extern "C"
