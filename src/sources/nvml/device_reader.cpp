#include "sources/nvml/device_reader.h"

#include <cctype>
#include <iterator>
#include <utility>

#include "sources/nvml/nvml_labels.h"
#include "sources/nvml/nvml_text.h"

// One NVML call through the tracker: the symbol names both the table entry and the book-keeping slot.
#define GPUWATCH_CALL(name, variant, ...) \
  (calls_.call(NvmlSymbol::name, variant, fn_.name, __VA_ARGS__) == CallOutcome::kOk)

namespace gpuwatch {
namespace {

constexpr unsigned kNoVariant = CallTracker::kNoVariant;
constexpr double kKiB = 1024.0;

// Built in place, labels assigned only when present: this runs for every sample of every tick.
void emit(std::vector<Sample>& s, Metric m, double value, std::string_view l0 = {},
          std::string_view l1 = {}) {
  Sample& sample = s.emplace_back(m, value);
  if (!l0.empty()) sample.labels[0] = l0;
  if (!l1.empty()) sample.labels[1] = l1;
}

// Appends copies of `from`, assigning only the labels in use: cheaper than Sample's copy constructor, which
// copies all three strings, for the cached groups copied into every snapshot.
void append_copies(std::vector<Sample>& out, const std::vector<Sample>& from) {
  for (const auto& f : from) {
    Sample& sample = out.emplace_back(f.metric, f.value, f.read_ms);
    for (std::size_t i = 0; i < f.labels.size(); ++i) {
      if (!f.labels[i].empty()) sample.labels[i] = f.labels[i];
    }
  }
}

std::string read_string(CallTracker& calls, NvmlSymbol sym, nvmlReturn_t (*fn)(nvmlDevice_t, char*, unsigned),
                        nvmlDevice_t device, unsigned size) {
  char buf[NVML_DEVICE_NAME_V2_BUFFER_SIZE] = {};
  if (size > sizeof buf) size = sizeof buf;
  if (calls.call(sym, kNoVariant, fn, device, buf, size) != CallOutcome::kOk) return {};
  return nvml_text(buf, size);
}

}  // namespace

std::string normalise_bus_id(std::string_view id) {
  std::string out;
  // "00000000:3B:00.0": the domain has 8 hex digits in NVML, 4 in sysfs.
  const auto colon = id.find(':');
  if (colon == 8 && id.substr(0, 4) == "0000") id.remove_prefix(4);
  out.reserve(id.size());
  for (char c : id) out.push_back(static_cast<char>(std::tolower(static_cast<unsigned char>(c))));
  return out;
}

DeviceReader::DeviceReader(std::shared_ptr<const NvmlLibrary> lib, DeviceLocation location,
                           const std::string& proc_root)
    : lib_(std::move(lib)),
      fn_(lib_->fn()),
      location_(std::move(location)),
      processes_(proc_root, lib_->process_info_size(), location_.parent == nullptr) {
  identity_.index = location_.index;
  if (location_.parent != nullptr) {
    identity_.is_mig_instance = true;
    identity_.parent_uuid = location_.parent_uuid;
    identity_.pci_bus_id = location_.parent_bus_id;
    identity_.gpu_instance_id = location_.gpu_instance_id.value_or(0);
    identity_.compute_instance_id = location_.compute_instance_id.value_or(0);
  }
}

void DeviceReader::read_identity() {
  const auto dev = location_.handle;
  identity_.name = read_string(calls_, NvmlSymbol::nvmlDeviceGetName, fn_.nvmlDeviceGetName, dev,
                               NVML_DEVICE_NAME_V2_BUFFER_SIZE);
  identity_.uuid = read_string(calls_, NvmlSymbol::nvmlDeviceGetUUID, fn_.nvmlDeviceGetUUID, dev,
                               NVML_DEVICE_UUID_V2_BUFFER_SIZE);
  if (location_.parent != nullptr) {
    // A MIG instance has no serial, bus or VBIOS of its own; NVML gives no utilization rates for it either,
    // so those metrics are absent for instances rather than copied or estimated from the parent.
    gpm_ = std::make_unique<GpmReader>(lib_, location_.parent, calls_, location_.gpu_instance_id);
    return;
  }
  identity_.serial = read_string(calls_, NvmlSymbol::nvmlDeviceGetSerial, fn_.nvmlDeviceGetSerial, dev,
                                 NVML_DEVICE_SERIAL_BUFFER_SIZE);
  identity_.vbios_version =
      read_string(calls_, NvmlSymbol::nvmlDeviceGetVbiosVersion, fn_.nvmlDeviceGetVbiosVersion, dev,
                  NVML_DEVICE_VBIOS_VERSION_BUFFER_SIZE);
  nvmlPciInfo_t pci{};
  if (GPUWATCH_CALL(nvmlDeviceGetPciInfo_v3, kNoVariant, dev, &pci)) {
    identity_.pci_bus_id = normalise_bus_id(nvml_text(pci.busId, sizeof pci.busId));
  }

  // Probe the NVLink links once: a GPU without NVLink answers NOT_SUPPORTED (or INVALID_ARGUMENT past its
  // last link), and that is not an error worth counting every tick.
  if (fn_.nvmlDeviceGetNvLinkState != nullptr) {
    for (unsigned link = 0; link < NVML_NVLINK_MAX_LINKS; ++link) {
      unsigned active = 0;
      const auto start = std::chrono::steady_clock::now();
      const nvmlReturn_t rc = fn_.nvmlDeviceGetNvLinkState(dev, link, &active);
      calls_.add_nvml_time(std::chrono::steady_clock::now() - start);
      if (rc == NVML_SUCCESS) nvlinks_.push_back(link);
    }
  }
  if (nvlinks_.empty()) calls_.mark_unsupported(NvmlSymbol::nvmlDeviceGetNvLinkState, kNoVariant);

  power_fields_ = FieldBatch({{NVML_FI_DEV_POWER_INSTANT, 0, Metric::kPowerInstant, {}, 1e-3}});
  std::vector<FieldRequest> tick{{NVML_FI_DEV_MEMORY_TEMP, 0, Metric::kMemoryTemperature, {}, 1.0}};
  if (!nvlinks_.empty()) {
    const std::vector<FieldRequest> nvlink{
        {NVML_FI_DEV_NVLINK_THROUGHPUT_DATA_TX, NVML_FIELD_SCOPE_ALL, Metric::kNvlinkTx, {}, kKiB},
        {NVML_FI_DEV_NVLINK_THROUGHPUT_DATA_RX, NVML_FIELD_SCOPE_ALL, Metric::kNvlinkRx, {}, kKiB},
        {NVML_FI_DEV_NVLINK_CRC_FLIT_ERROR_COUNT_TOTAL, 0, Metric::kNvlinkErrors, "crc_flit", 1.0},
        {NVML_FI_DEV_NVLINK_CRC_DATA_ERROR_COUNT_TOTAL, 0, Metric::kNvlinkErrors, "crc_data", 1.0},
        {NVML_FI_DEV_NVLINK_REPLAY_ERROR_COUNT_TOTAL, 0, Metric::kNvlinkErrors, "replay", 1.0},
        {NVML_FI_DEV_NVLINK_RECOVERY_ERROR_COUNT_TOTAL, 0, Metric::kNvlinkErrors, "recovery", 1.0},
    };
    tick.insert(tick.end(), nvlink.begin(), nvlink.end());
  }
  tick_fields_ = FieldBatch(std::move(tick));
  gpm_ = std::make_unique<GpmReader>(lib_, dev, calls_);
}

void DeviceReader::read_slow(std::vector<Sample>& s) {
  const auto dev = location_.handle;
  for (unsigned t = 0; t < nvml_labels::kThreshold.size(); ++t) {
    unsigned c = 0;
    if (GPUWATCH_CALL(nvmlDeviceGetTemperatureThreshold, t, dev, t, &c)) {
      emit(s, Metric::kTemperatureThreshold, c, nvml_labels::kThreshold[t]);
    }
  }
  for (unsigned c = 0; c < nvml_labels::kClock.size(); ++c) {
    unsigned mhz = 0;
    if (GPUWATCH_CALL(nvmlDeviceGetMaxClockInfo, c, dev, c, &mhz)) {
      emit(s, Metric::kClockMax, mhz * 1e6, nvml_labels::kClock[c]);
    }
  }
  unsigned v = 0;
  if (GPUWATCH_CALL(nvmlDeviceGetMaxPcieLinkGeneration, kNoVariant, dev, &v))
    emit(s, Metric::kPcieLinkMaxGeneration, v);
  if (GPUWATCH_CALL(nvmlDeviceGetMaxPcieLinkWidth, kNoVariant, dev, &v))
    emit(s, Metric::kPcieLinkMaxWidth, v);
  unsigned current = 0;
  unsigned pending = 0;
  if (GPUWATCH_CALL(nvmlDeviceGetMigMode, kNoVariant, dev, &current, &pending)) {
    mig_mode_.store(static_cast<int>(current), std::memory_order_relaxed);
    emit(s, Metric::kMigMode, current == NVML_DEVICE_MIG_ENABLE ? 1 : 0);
  }
  for (unsigned type = 0; type < 2; ++type) {
    unsigned long long count = 0;
    if (GPUWATCH_CALL(nvmlDeviceGetTotalEccErrors, 2 + type, dev, type, NVML_AGGREGATE_ECC, &count)) {
      emit(s, Metric::kEccErrors, static_cast<double>(count), nvml_labels::kEccType[type], "aggregate");
    }
  }
  for (unsigned cause = 0; cause < 2; ++cause) {
    unsigned count = 0;  // size 0 and no buffer: NVML answers with the count only
    const auto outcome = calls_.call(NvmlSymbol::nvmlDeviceGetRetiredPages, cause,
                                     fn_.nvmlDeviceGetRetiredPages, dev, cause, &count, nullptr);
    if (outcome == CallOutcome::kOk || outcome == CallOutcome::kInsufficientSize) {
      emit(s, Metric::kRetiredPages, count, nvml_labels::kRetirementCause[cause]);
    }
  }
  if (GPUWATCH_CALL(nvmlDeviceGetRetiredPagesPendingStatus, kNoVariant, dev, &v)) {
    emit(s, Metric::kRetiredPagesPending, v == NVML_FEATURE_ENABLED ? 1 : 0);
  }
  unsigned corr = 0, unc = 0, is_pending = 0, failure = 0;
  if (GPUWATCH_CALL(nvmlDeviceGetRemappedRows, kNoVariant, dev, &corr, &unc, &is_pending, &failure)) {
    emit(s, Metric::kRemappedRows, corr, nvml_labels::kRemappedType[0]);
    emit(s, Metric::kRemappedRows, unc, nvml_labels::kRemappedType[1]);
    emit(s, Metric::kRemappedRowsPending, is_pending != 0 ? 1 : 0);
    emit(s, Metric::kRemappedRowsFailure, failure != 0 ? 1 : 0);
  }
  // NVSwitch systems: a GPU that has not (successfully) registered with the fabric manager cannot use NVLink.
  nvmlGpuFabricInfo_t fabric{};
  if (GPUWATCH_CALL(nvmlDeviceGetGpuFabricInfo, kNoVariant, dev, &fabric) &&
      fabric.state != NVML_GPU_FABRIC_STATE_NOT_SUPPORTED) {
    emit(s, Metric::kFabricState, fabric.state);
    const bool failed = fabric.state == NVML_GPU_FABRIC_STATE_COMPLETED && fabric.status != NVML_SUCCESS;
    emit(s, Metric::kFabricRegistrationFailed, failed ? 1 : 0);
  }
}

void DeviceReader::read_power(std::vector<Sample>& s) {
  const auto dev = location_.handle;
  unsigned mw = 0;
  if (GPUWATCH_CALL(nvmlDeviceGetPowerUsage, kNoVariant, dev, &mw)) emit(s, Metric::kPower, mw * 1e-3);
  if (GPUWATCH_CALL(nvmlDeviceGetEnforcedPowerLimit, kNoVariant, dev, &mw))
    emit(s, Metric::kPowerLimit, mw * 1e-3);
  unsigned long long mj = 0;
  if (GPUWATCH_CALL(nvmlDeviceGetTotalEnergyConsumption, kNoVariant, dev, &mj)) {
    emit(s, Metric::kEnergy, static_cast<double>(mj) * 1e-3);
  }
  power_fields_.read(fn_, dev, calls_, s);
  for (unsigned link : nvlinks_) {
    unsigned active = 0;
    if (GPUWATCH_CALL(nvmlDeviceGetNvLinkState, link, dev, link, &active)) {
      emit(s, Metric::kNvlinkUp, active == NVML_NVLINK_STATE_ACTIVE ? 1 : 0, nvml_labels::kLink[link]);
    }
  }
}

void DeviceReader::read_utilization(std::vector<Sample>& s) {
  const auto dev = location_.handle;
  nvmlUtilization_t u{};
  if (GPUWATCH_CALL(nvmlDeviceGetUtilizationRates, kNoVariant, dev, &u)) {
    emit(s, Metric::kUtilization, u.gpu / 100.0);
    emit(s, Metric::kMemoryUtilization, u.memory / 100.0);
  }
  unsigned util = 0, period_us = 0;
  if (GPUWATCH_CALL(nvmlDeviceGetEncoderUtilization, kNoVariant, dev, &util, &period_us)) {
    emit(s, Metric::kEncoderUtilization, util / 100.0);
  }
  if (GPUWATCH_CALL(nvmlDeviceGetDecoderUtilization, kNoVariant, dev, &util, &period_us)) {
    emit(s, Metric::kDecoderUtilization, util / 100.0);
  }
}

void DeviceReader::read_memory(std::vector<Sample>& s) {
  const auto dev = location_.handle;
  if (calls_.callable(NvmlSymbol::nvmlDeviceGetMemoryInfo_v2, kNoVariant) && fn_.nvmlDeviceGetMemoryInfo_v2) {
    nvmlMemory_v2_t m{};
    m.version = nvmlMemory_v2;
    const auto start = std::chrono::steady_clock::now();
    const nvmlReturn_t rc = fn_.nvmlDeviceGetMemoryInfo_v2(dev, &m);
    calls_.add_nvml_time(std::chrono::steady_clock::now() - start);
    if (rc == NVML_SUCCESS) {
      emit(s, Metric::kMemoryTotal, static_cast<double>(m.total));
      emit(s, Metric::kMemoryUsed, static_cast<double>(m.used));
      emit(s, Metric::kMemoryFree, static_cast<double>(m.free));
      emit(s, Metric::kMemoryReserved, static_cast<double>(m.reserved));
      return;
    }
    // A driver that knows the name but not this struct version: use the plain call from now on.
    calls_.record(NvmlSymbol::nvmlDeviceGetMemoryInfo_v2, kNoVariant,
                  rc == NVML_ERROR_ARGUMENT_VERSION_MISMATCH ? NVML_ERROR_NOT_SUPPORTED : rc);
    if (rc != NVML_ERROR_NOT_SUPPORTED && rc != NVML_ERROR_ARGUMENT_VERSION_MISMATCH) return;
  }
  nvmlMemory_t m{};
  if (GPUWATCH_CALL(nvmlDeviceGetMemoryInfo, kNoVariant, dev, &m)) {
    emit(s, Metric::kMemoryTotal, static_cast<double>(m.total));
    emit(s, Metric::kMemoryUsed, static_cast<double>(m.used));
    emit(s, Metric::kMemoryFree, static_cast<double>(m.free));
  }
}

void DeviceReader::read_every_tick(std::vector<Sample>& s) {
  const auto dev = location_.handle;
  read_memory(s);
  if (identity_.is_mig_instance || calls_.lost()) return;
  unsigned v = 0;
  if (GPUWATCH_CALL(nvmlDeviceGetTemperature, kNoVariant, dev, NVML_TEMPERATURE_GPU, &v)) {
    emit(s, Metric::kTemperature, v);
  }
  for (unsigned c = 0; c < nvml_labels::kClock.size(); ++c) {
    unsigned mhz = 0;
    if (GPUWATCH_CALL(nvmlDeviceGetClockInfo, c, dev, c, &mhz))
      emit(s, Metric::kClock, mhz * 1e6, nvml_labels::kClock[c]);
  }
  unsigned long long reasons = 0;
  if (GPUWATCH_CALL(nvmlDeviceGetCurrentClocksEventReasons, kNoVariant, dev, &reasons)) {
    for (const auto& r : nvml_labels::kClockEventReasons) {
      emit(s, Metric::kClockEventActive, (reasons & r.bit) != 0 ? 1 : 0, r.label);
    }
  }
  for (unsigned p = 0; p < nvml_labels::kPolicy.size(); ++p) {
    nvmlViolationTime_t t{};
    if (GPUWATCH_CALL(nvmlDeviceGetViolationStatus, p, dev, p, &t)) {
      emit(s, Metric::kViolation, static_cast<double>(t.violationTime) * 1e-9, nvml_labels::kPolicy[p]);
    }
  }
  if (GPUWATCH_CALL(nvmlDeviceGetFanSpeed, kNoVariant, dev, &v)) emit(s, Metric::kFanSpeed, v / 100.0);
  int pstate = 0;
  if (GPUWATCH_CALL(nvmlDeviceGetPerformanceState, kNoVariant, dev, &pstate) && pstate >= 0 && pstate <= 15) {
    emit(s, Metric::kPerformanceState, pstate);
  }
  if (GPUWATCH_CALL(nvmlDeviceGetPcieThroughput, NVML_PCIE_UTIL_TX_BYTES, dev, NVML_PCIE_UTIL_TX_BYTES, &v)) {
    emit(s, Metric::kPcieTx, v * kKiB);
  }
  if (GPUWATCH_CALL(nvmlDeviceGetPcieThroughput, NVML_PCIE_UTIL_RX_BYTES, dev, NVML_PCIE_UTIL_RX_BYTES, &v)) {
    emit(s, Metric::kPcieRx, v * kKiB);
  }
  if (GPUWATCH_CALL(nvmlDeviceGetPcieReplayCounter, kNoVariant, dev, &v)) emit(s, Metric::kPcieReplays, v);
  if (GPUWATCH_CALL(nvmlDeviceGetCurrPcieLinkGeneration, kNoVariant, dev, &v))
    emit(s, Metric::kPcieLinkGeneration, v);
  if (GPUWATCH_CALL(nvmlDeviceGetCurrPcieLinkWidth, kNoVariant, dev, &v)) emit(s, Metric::kPcieLinkWidth, v);
  for (unsigned type = 0; type < 2; ++type) {
    unsigned long long count = 0;
    if (GPUWATCH_CALL(nvmlDeviceGetTotalEccErrors, type, dev, type, NVML_VOLATILE_ECC, &count)) {
      emit(s, Metric::kEccErrors, static_cast<double>(count), nvml_labels::kEccType[type], "volatile");
    }
  }
  tick_fields_.read(fn_, dev, calls_, s);
}

void DeviceReader::read_group(ReadGroup group, std::int64_t now_ms, std::vector<Sample>& s) {
  const bool whole_gpu = !identity_.is_mig_instance;
  switch (group) {
    case ReadGroup::kIdentity:
      read_identity();  // once: a re-initialisation creates new readers
      break;
    case ReadGroup::kSlow:
      if (whole_gpu) read_slow(s);
      break;
    case ReadGroup::kPower:
      if (whole_gpu) read_power(s);
      break;
    case ReadGroup::kUtilization:
      if (whole_gpu) read_utilization(s);
      break;
    case ReadGroup::kEveryTick:
      read_every_tick(s);
      if (gpm_ && !calls_.lost()) gpm_->read(now_ms, calls_, gpm_samples_);
      break;
    case ReadGroup::kProcesses:
      processes_.read(fn_, location_.handle, calls_, process_samples_);
      break;
  }
}

void DeviceReader::read(std::int64_t now_ms, DeviceSnapshot& out) {
  calls_.begin_read();
  for (const auto& schedule : kReadSchedule) {
    if (location_.lost) break;
    const auto g = static_cast<std::size_t>(schedule.group);
    if (!read_due(schedule.group, has_read_[g], last_read_ms_[g], now_ms)) continue;
    group_samples_[g].clear();
    read_group(schedule.group, now_ms, group_samples_[g]);
    for (Sample& s : group_samples_[g]) s.read_ms = now_ms;  // carried with the value until the next read
    if (calls_.lost()) break;
    has_read_[g] = true;
    last_read_ms_[g] = now_ms;
  }

  out.identity = identity_;
  out.last_read_ms = now_ms;
  out.unsupported = calls_.unsupported();
  out.samples.clear();
  if (calls_.lost() || location_.lost) {
    // The GPU fell off the bus: nothing it reported before describes it now.
    out.state = DeviceState::kLost;
    out.processes.clear();
    emit(out.samples, Metric::kUp, 0);
    emit(out.samples, Metric::kStale, 0);
    return;
  }
  out.state = DeviceState::kOk;
  // Room for the collector's critical event counts too, so appending them does not move every sample.
  std::size_t total = 2 + gpm_samples_.size() + nvml_labels::kCriticalEvents.size();
  for (const auto& g : group_samples_) total += g.size();
  out.samples.reserve(total);
  emit(out.samples, Metric::kUp, 1);
  emit(out.samples, Metric::kStale, 0);
  for (const auto& schedule : kReadSchedule) {
    auto& g = group_samples_[static_cast<std::size_t>(schedule.group)];
    if (schedule.min_interval_ms == 0) {
      // An every-tick group is read at every read anyway: its samples move instead of being copied, and
      // has_read_ = false makes sure the next read refills it (even if the clock stepped back).
      out.samples.insert(out.samples.end(), std::make_move_iterator(g.begin()),
                         std::make_move_iterator(g.end()));
      g.clear();
      has_read_[static_cast<std::size_t>(schedule.group)] = false;
    } else {
      append_copies(out.samples, g);
    }
  }
  append_copies(out.samples, gpm_samples_);
  // The process list is an every-tick group too (its has_read_ was reset above), replaced whole by each read.
  static_assert(kReadSchedule[static_cast<std::size_t>(ReadGroup::kProcesses)].min_interval_ms == 0);
  out.processes = std::move(process_samples_);
  process_samples_.clear();
}

}  // namespace gpuwatch
