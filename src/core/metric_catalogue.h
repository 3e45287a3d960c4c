// The one table of every metric gpuwatch exports. /metrics (native, OpenMetrics and dcgm naming), the JSON
// API, the history store and the docs are all driven from it: a metric added here appears everywhere.
//
// Native names follow Prometheus conventions: base units (bytes, seconds, watts, celsius, hertz, ratio 0..1),
// counters end in _total, the unit is the name's suffix (OpenMetrics requires it).
#pragma once

#include <array>
#include <cstdint>
#include <optional>
#include <string_view>

namespace gpuwatch {

enum class MetricKind : std::uint8_t { kGauge, kCounter };

// What a series is about; decides its identity labels.
//   kDevice:  gpu, uuid (+ gpu_instance_id, compute_instance_id on MIG instances)
//   kProcess: gpu, uuid, pid, process
//   kAgent:   the agent itself
enum class MetricScope : std::uint8_t { kDevice, kProcess, kAgent };

// Label values are fixed vocabularies, shared by the NVML backend, the renderers and the rules:
//   clock:     graphics | sm | memory | video
//   reason:    gpu_idle | applications_clocks_setting | sw_power_cap | hw_slowdown | sync_boost |
//              sw_thermal_slowdown | hw_thermal_slowdown | hw_power_brake_slowdown | display_clock_setting
//   threshold: shutdown | slowdown | gpu_max | memory_max
//   policy:    power | thermal
//   type (ECC): corrected | uncorrected;  counter: volatile | aggregate
//   cause:     single_bit | double_bit
//   type (remapped rows): correctable | uncorrectable
//   type (NVLink errors): crc_flit | crc_data | replay | recovery;  link: "0".."17"
//   event:     single_bit_ecc | double_bit_ecc | single_bit_ecc_storm | dram_retirement |
//   dram_retirement_failure |
//              non_fatal_poison | fatal_poison | gpu_unavailable | gpu_recovery_action
//   type (process memory): compute | graphics
//   severity (PCIe AER): correctable | nonfatal | fatal
//   kind (kernel log): xid | fallen_off_bus | aer_corrected | aer_uncorrected | driver_loaded |
//   driver_unloaded
// Values are converted to base units where they are read: MHz -> Hz, % -> ratio, mW -> W, mJ -> J,
// KB/s (NVML's KiB) -> bytes/s, ns -> s.
//
// X(Id, name, kind, scope, unit, extra label 1, 2, 3, help)
// Extra label names are "" when unused. The unit is "" where the name has no unit suffix.
// clang-format off
#define GPUWATCH_METRICS(X)                                                                                  \
  X(kUp, "gpu_up", kGauge, kDevice, "", "", "", "",                                                               \
    "1 when the GPU answered this tick, 0 when it is lost (fell off the bus) or its reads missed the deadline") \
  X(kStale, "gpu_stale", kGauge, kDevice, "", "", "", "",                                                         \
    "1 when the GPU's last read missed the collection deadline (a hung driver call); its values are old")   \
  X(kUtilization, "gpu_utilization_ratio", kGauge, kDevice, "ratio", "", "", "",                                  \
    "Fraction of the sample period (1/6 s to 1 s, by product) during which a kernel ran on the GPU")         \
  X(kMemoryUtilization, "gpu_memory_utilization_ratio", kGauge, kDevice, "ratio", "", "", "",                     \
    "Fraction of the sample period during which device memory was read or written")                           \
  X(kMemoryTotal, "gpu_memory_total_bytes", kGauge, kDevice, "bytes", "", "", "", "Total device memory")          \
  X(kMemoryUsed, "gpu_memory_used_bytes", kGauge, kDevice, "bytes", "", "", "", "Device memory allocated")        \
  X(kMemoryFree, "gpu_memory_free_bytes", kGauge, kDevice, "bytes", "", "", "", "Device memory free")             \
  X(kMemoryReserved, "gpu_memory_reserved_bytes", kGauge, kDevice, "bytes", "", "", "",                           \
    "Device memory reserved by the driver and firmware")                                                       \
  X(kTemperature, "gpu_temperature_celsius", kGauge, kDevice, "celsius", "", "", "", "GPU core temperature")      \
  X(kMemoryTemperature, "gpu_memory_temperature_celsius", kGauge, kDevice, "celsius", "", "", "",                 \
    "Device memory (HBM) temperature")                                                                         \
  X(kTemperatureThreshold, "gpu_temperature_threshold_celsius", kGauge, kDevice, "celsius", "threshold", "", "",  \
    "Temperature at which the GPU slows down, shuts down, or leaves its operating range")                    \
  X(kPower, "gpu_power_watts", kGauge, kDevice, "watts", "", "", "",                                              \
    "Power draw, averaged by the driver over 1 s on Ampere and later (GA100 excepted)")                     \
  X(kPowerInstant, "gpu_power_instant_watts", kGauge, kDevice, "watts", "", "", "", "Instantaneous power draw")   \
  X(kPowerLimit, "gpu_power_limit_watts", kGauge, kDevice, "watts", "", "", "", "Enforced power limit")           \
  X(kEnergy, "gpu_energy_joules_total", kCounter, kDevice, "joules", "", "", "",                                  \
    "Energy consumed since the driver was loaded")                                                             \
  X(kClock, "gpu_clock_hertz", kGauge, kDevice, "hertz", "clock", "", "", "Current clock frequency")              \
  X(kClockMax, "gpu_clock_max_hertz", kGauge, kDevice, "hertz", "clock", "", "", "Maximum clock frequency")       \
  X(kClockEventActive, "gpu_clock_event_active", kGauge, kDevice, "", "reason", "", "",                           \
    "1 while the reason holds clocks below their maximum (NVML clock event / throttle reasons)")             \
  X(kViolation, "gpu_throttle_violation_seconds_total", kCounter, kDevice, "seconds", "policy", "", "",           \
    "Time the GPU spent below its target clocks because of a power or thermal limit")                        \
  X(kFanSpeed, "gpu_fan_speed_ratio", kGauge, kDevice, "ratio", "", "", "", "Intended fan speed, 0..1")           \
  X(kPerformanceState, "gpu_performance_state", kGauge, kDevice, "", "", "", "",                                  \
    "Performance state: 0 (P0, fastest) to 15 (P15, slowest)")                                                 \
  X(kPcieTx, "gpu_pcie_tx_bytes_per_second", kGauge, kDevice, "bytes_per_second", "", "", "",                     \
    "PCIe transmit throughput, measured by the driver over 20 ms")                                            \
  X(kPcieRx, "gpu_pcie_rx_bytes_per_second", kGauge, kDevice, "bytes_per_second", "", "", "",                     \
    "PCIe receive throughput, measured by the driver over 20 ms")                                             \
  X(kPcieReplays, "gpu_pcie_replays_total", kCounter, kDevice, "", "", "", "",                                    \
    "PCIe replays (retransmissions after link-level errors)")                                                 \
  X(kPcieLinkGeneration, "gpu_pcie_link_generation", kGauge, kDevice, "", "", "", "", "Current PCIe generation")  \
  X(kPcieLinkWidth, "gpu_pcie_link_width", kGauge, kDevice, "", "", "", "", "Current PCIe link width (lanes)")    \
  X(kPcieLinkMaxGeneration, "gpu_pcie_link_max_generation", kGauge, kDevice, "", "", "", "",                      \
    "Maximum PCIe generation of the GPU and system")                                                          \
  X(kPcieLinkMaxWidth, "gpu_pcie_link_max_width", kGauge, kDevice, "", "", "", "", "Maximum PCIe link width")     \
  X(kPcieAerErrors, "gpu_pcie_aer_errors_total", kCounter, kDevice, "", "severity", "", "",                      \
    "PCIe Advanced Error Reporting errors of the GPU's function, from sysfs (severity=correctable|nonfatal|fatal)") \
  X(kEccErrors, "gpu_ecc_errors_total", kCounter, kDevice, "", "type", "counter", "",                             \
    "ECC errors; counter=volatile since the last driver load, aggregate over the GPU's life")               \
  X(kRetiredPages, "gpu_retired_pages", kGauge, kDevice, "", "cause", "", "", "Pages retired (pre-Ampere GPUs)")  \
  X(kRetiredPagesPending, "gpu_retired_pages_pending", kGauge, kDevice, "", "", "", "",                           \
    "1 when a page is pending retirement (takes effect at the next reset)")                                  \
  X(kRemappedRows, "gpu_remapped_rows", kGauge, kDevice, "", "type", "", "",                                      \
    "Memory rows remapped after correctable or uncorrectable errors")                                        \
  X(kRemappedRowsPending, "gpu_remapped_rows_pending", kGauge, kDevice, "", "", "", "",                           \
    "1 when a row remap is pending (takes effect at the next reset)")                                        \
  X(kRemappedRowsFailure, "gpu_remapped_rows_failure", kGauge, kDevice, "", "", "", "",                           \
    "1 when a row remap failed: the GPU needs service")                                                      \
  X(kEncoderUtilization, "gpu_encoder_utilization_ratio", kGauge, kDevice, "ratio", "", "", "",                   \
    "Video encoder utilization")                                                                              \
  X(kDecoderUtilization, "gpu_decoder_utilization_ratio", kGauge, kDevice, "ratio", "", "", "",                   \
    "Video decoder utilization")                                                                              \
  X(kNvlinkUp, "gpu_nvlink_link_up", kGauge, kDevice, "", "link", "", "", "1 when the NVLink link is active")     \
  X(kNvlinkTx, "gpu_nvlink_tx_bytes_total", kCounter, kDevice, "bytes", "", "", "",                               \
    "NVLink data transmitted, all links")                                                                     \
  X(kNvlinkRx, "gpu_nvlink_rx_bytes_total", kCounter, kDevice, "bytes", "", "", "", "NVLink data received, all links") \
  X(kNvlinkErrors, "gpu_nvlink_errors_total", kCounter, kDevice, "", "type", "", "",                              \
    "NVLink errors, all links: CRC flit, CRC data, replay, recovery")                                        \
  X(kFabricState, "gpu_fabric_state", kGauge, kDevice, "", "", "", "",                                       \
    "NVLink fabric registration (NVSwitch systems): 1 not started, 2 in progress, 3 completed")            \
  X(kFabricRegistrationFailed, "gpu_fabric_registration_failed", kGauge, kDevice, "", "", "", "",            \
    "1 when the GPU's registration with the NVLink fabric manager completed with an error")                \
  X(kMigMode, "gpu_mig_mode", kGauge, kDevice, "", "", "", "", "1 when MIG mode is enabled")                     \
  X(kSmActive, "gpu_sm_active_ratio", kGauge, kDevice, "ratio", "", "", "",                                       \
    "Fraction of cycles an SM had at least one warp assigned (GPM, Hopper and later)")                       \
  X(kSmOccupancy, "gpu_sm_occupancy_ratio", kGauge, kDevice, "ratio", "", "", "",                                 \
    "Resident warps as a fraction of the maximum (GPM)")                                                     \
  X(kGraphicsActive, "gpu_graphics_engine_active_ratio", kGauge, kDevice, "ratio", "", "", "",                    \
    "Fraction of time the graphics/compute engine was active (GPM)")                                        \
  X(kTensorActive, "gpu_tensor_active_ratio", kGauge, kDevice, "ratio", "", "", "",                               \
    "Fraction of cycles any tensor pipe was active (GPM)")                                                   \
  X(kDramActive, "gpu_dram_active_ratio", kGauge, kDevice, "ratio", "", "", "",                                   \
    "Fraction of cycles the memory interface was sending or receiving data (GPM)")                           \
  X(kXidErrors, "gpu_xid_errors_total", kCounter, kDevice, "", "xid", "", "",                                     \
    "XID errors reported by the driver, per XID code")                                                       \
  X(kCriticalEvents, "gpu_events_total", kCounter, kDevice, "", "event", "", "",                                  \
    "Critical NVML events other than XIDs (ECC, retirement, poison, unavailable, recovery action)")          \
  X(kProcessMemoryUsed, "gpu_process_memory_used_bytes", kGauge, kProcess, "bytes", "type", "", "",               \
    "Device memory used by the process (type=compute|graphics)")                                             \
  X(kProcessSmUtilization, "gpu_process_sm_utilization_ratio", kGauge, kProcess, "ratio", "", "", "",             \
    "Fraction of the last sample period the process kept the SMs busy")                                     \
  X(kProcessMemoryUtilization, "gpu_process_memory_utilization_ratio", kGauge, kProcess, "ratio", "", "", "",     \
    "Fraction of the last sample period the process used the memory interface")                             \
  X(kCollectorErrors, "gpuwatch_collector_errors_total", kCounter, kAgent, "", "gpu", "call", "code",                 \
    "NVML calls that failed with an unexpected error, by GPU, call and NVML return code")                \
  X(kCollectionSeconds, "gpuwatch_collection_duration_seconds", kGauge, kAgent, "seconds", "", "", "",            \
    "Wall time of the last collection tick")                                                                   \
  X(kTicks, "gpuwatch_ticks_total", kCounter, kAgent, "", "", "", "", "Collection ticks completed")           \
  X(kKernelLogReadable, "gpuwatch_kernel_log_readable", kGauge, kAgent, "", "", "", "",                        \
    "1 when the kernel log (--kmsg) can be read; 0 when it is absent or not permitted (CAP_SYSLOG)")        \
  X(kKernelLogRecords, "gpuwatch_kernel_log_records_total", kCounter, kAgent, "", "", "", "",                 \
    "Kernel-log records read")                                                                                 \
  X(kKernelLogEvents, "gpuwatch_kernel_log_events_total", kCounter, kAgent, "", "kind", "", "",               \
    "Kernel-log records about GPUs, by kind (xid, fallen_off_bus, aer_corrected, aer_uncorrected, ...)")     \
  X(kKernelLogOpenFailures, "gpuwatch_kernel_log_open_failures_total", kCounter, kAgent, "", "", "", "",      \
    "Failed attempts to open the kernel log")                                                                  \
  X(kKernelLogOverruns, "gpuwatch_kernel_log_overruns_total", kCounter, kAgent, "", "", "", "",               \
    "Times the kernel ring buffer overwrote records before they were read")                                   \
  X(kStoreSamplesAppended, "gpuwatch_store_samples_appended_total", kCounter, kAgent, "", "", "", "",             \
    "Samples the history store accepted")                                                                      \
  X(kStoreSamplesRejected, "gpuwatch_store_samples_rejected_total", kCounter, kAgent, "", "reason", "", "",       \
    "Samples the history store refused (reason: out_of_order, duplicate, bad_labels)")                            \
  X(kStoreSeries, "gpuwatch_store_series", kGauge, kAgent, "", "", "", "", "Series the history store knows")    \
  X(kStoreSize, "gpuwatch_store_size_bytes", kGauge, kAgent, "bytes", "", "", "",                                \
    "Bytes the history store occupies on disk (database and write-ahead log)")                                \
  X(kStoreWriteErrors, "gpuwatch_store_write_errors_total", kCounter, kAgent, "", "reason", "", "",              \
    "Failed writes or syncs of the history store (reason: no_space, io, other); samples wait in memory")         \
  X(kStoreLastSync, "gpuwatch_store_last_sync_timestamp_seconds", kGauge, kAgent, "seconds", "", "", "",          \
    "Wall time of the last successful sync of the store's write-ahead log")                                   \
  X(kStoreDroppedProcessSeries, "gpuwatch_store_dropped_process_series_total", kCounter, kAgent, "", "", "", "",  \
    "Per-process series not created because of the cap; their values are summed into pid=other aggregates")         \
  X(kStoreCorruptBlocks, "gpuwatch_store_corrupt_blocks_total", kCounter, kAgent, "", "", "", "",                \
    "Stored blocks that could not be read (a failed checksum, or the block they are coded against missing or "  \
    "damaged); they are skipped")                                                                               \
  X(kStoreCorruptWalRecords, "gpuwatch_store_corrupt_wal_records_total", kCounter, kAgent, "", "", "", "",       \
    "Damaged write-ahead log records found at start-up outside the last segment's tail")                     \
  X(kStoreWalDroppedBytes, "gpuwatch_store_wal_dropped_bytes_total", kCounter, kAgent, "bytes", "", "", "",      \
    "Write-ahead log bytes given up while the disk refused writes (their samples stayed in memory)")          \
  X(kStoreUp, "gpuwatch_store_up", kGauge, kAgent, "", "", "", "",                                                \
    "1 when the history store is open; 0 while it cannot be opened (logged, retried with backoff)")           \
  X(kStoreOpenErrors, "gpuwatch_store_open_errors_total", kCounter, kAgent, "", "reason", "", "",                \
    "Failed attempts to open the history store (reason: no_space, io, other); also in write_errors_total")           \
  X(kSourceSuccess, "gpuwatch_source_success", kGauge, kAgent, "", "source", "", "",                              \
    "1 when the source (nvml, kernel_log, pcie_aer, ...) answered this tick, 0 when it could not be read; gpuwatch_source_error_info says why") \
  X(kSourceDuration, "gpuwatch_source_duration_seconds", kGauge, kAgent, "seconds", "source", "", "",            \
    "Wall time the source took in the last tick")                                                              \
  X(kSinkDuration, "gpuwatch_sink_duration_seconds", kGauge, kAgent, "seconds", "sink", "", "",                  \
    "Wall time of the sink's last consume, or of the one running now when it has run longer")               \
  X(kSinkErrors, "gpuwatch_sink_errors_total", kCounter, kAgent, "", "sink", "", "",                             \
    "Snapshots the sink failed on (it threw); the other sinks and the collector go on")                      \
  X(kSinkDropped, "gpuwatch_sink_dropped_snapshots_total", kCounter, kAgent, "", "sink", "", "",                 \
    "Snapshots the sink never consumed because its queue was full (it fell behind)")                         \
  X(kSinkQueueLength, "gpuwatch_sink_queue_length", kGauge, kAgent, "", "sink", "", "",                          \
    "Snapshots waiting in the sink's queue")                                                                         \
  X(kRemoteWriteQueueLength, "gpuwatch_remote_write_queue_length", kGauge, kAgent, "", "remote", "", "",       \
    "Samples in the receiver's disk queue, not yet acknowledged")                                                \
  X(kRemoteWriteQueueBytes, "gpuwatch_remote_write_queue_bytes", kGauge, kAgent, "bytes", "remote", "", "",      \
    "Bytes of the receiver's disk queue (snappy-compressed requests)")                                                \
  X(kRemoteWriteLag, "gpuwatch_remote_write_lag_seconds", kGauge, kAgent, "seconds", "remote", "", "",           \
    "How far the oldest unsent request trails the newest queued sample; 0 when the receiver is up to date")     \
  X(kRemoteWriteSamplesSent, "gpuwatch_remote_write_samples_sent_total", kCounter, kAgent, "", "remote", "", "", \
    "Samples the receiver acknowledged (2xx)")                                                                   \
  X(kRemoteWriteBytesSent, "gpuwatch_remote_write_sent_bytes_total", kCounter, kAgent, "bytes", "remote", "", "",\
    "Bytes of acknowledged requests as sent (snappy-compressed protobuf)")                                       \
  X(kRemoteWriteFailures, "gpuwatch_remote_write_failures_total", kCounter, kAgent, "", "remote", "reason", "",  \
    "Sends that failed and are retried (reason: server_error for 5xx, throttled for 429, network for no answer)") \
  X(kRemoteWriteSamplesDropped, "gpuwatch_remote_write_samples_dropped_total", kCounter, kAgent, "", "remote",   \
    "reason", "",                                                                                                 \
    "Samples given up (reason: rejected, the receiver refused them for good with a 4xx; queue_full, the disk "    \
    "queue reached queue_max_size)")                                                                             \
  X(kHttpRejected, "gpuwatch_http_requests_rejected_total", kCounter, kAgent, "", "reason", "", "",                \
    "Requests and connections the HTTP server refused or cut off (reason: header_timeout, body_timeout, "         \
    "headers_too_large, body_too_large, busy, reply_too_large, connection_limit, client_connection_limit)")       \
  X(kHttpConnections, "gpuwatch_http_connections", kGauge, kAgent, "", "", "", "",                               \
    "Client connections the HTTP server holds open")                                                            \
  X(kHttpInFlight, "gpuwatch_http_requests_in_flight", kGauge, kAgent, "", "", "", "",                           \
    "Requests to the query and alerting APIs being answered by the HTTP server's worker pool")                  \
  X(kHttpQueued, "gpuwatch_http_requests_queued", kGauge, kAgent, "", "", "", "",                                \
    "Requests to the query and alerting APIs waiting for a worker")
// clang-format on

enum class Metric : std::uint16_t {
#define GPUWATCH_METRIC_ENUM(id, ...) id,
  GPUWATCH_METRICS(GPUWATCH_METRIC_ENUM)
#undef GPUWATCH_METRIC_ENUM
};

struct MetricDef {
  Metric id;
  std::string_view name;
  MetricKind kind;
  MetricScope scope;
  std::string_view unit;
  std::array<std::string_view, 3> labels;  // extra label names; "" when unused
  std::string_view help;
};

inline constexpr std::array kMetricCatalogue = {
#define GPUWATCH_METRIC_DEF(id, name, kind, scope, unit, l1, l2, l3, help) \
  MetricDef{Metric::id, name, MetricKind::kind, MetricScope::scope, unit, {l1, l2, l3}, help},
    GPUWATCH_METRICS(GPUWATCH_METRIC_DEF)
#undef GPUWATCH_METRIC_DEF
};

inline constexpr std::size_t kMetricCount = kMetricCatalogue.size();

constexpr const MetricDef& metric_def(Metric m) {
  return kMetricCatalogue[static_cast<std::size_t>(m)];
}

// Looks a metric up by its native name.
std::optional<Metric> find_metric(std::string_view name);

}  // namespace gpuwatch
