#include "exposition/dcgm_metrics.h"

#include <array>
#include <cctype>
#include <cmath>

#include "exposition/native_metrics.h"

namespace gpuwatch {
namespace {

using enum FamilyType;
using enum DcgmSource;
constexpr std::optional<Metric> kNone = std::nullopt;

// The default counters of dcgm-exporter (etc/default-counters.csv up to 4.5.3-4.8.2; FB_RESERVED since
// 4.3.1-4.4.0), the two PCIe THROUGHPUT fields its list had up to 3.3.6-3.4.2 (older dashboards still chart
// them), and the DCP profiling fields it lists, which Hopper and later GPUs provide through GPM.
constexpr std::array kFields = {
    DcgmField{"DCGM_FI_DEV_SM_CLOCK", kGauge, "SM clock frequency (in MHz).", "MHz", kCatalogue,
              Metric::kClock, "sm", 1e-6, true, kNone},
    DcgmField{"DCGM_FI_DEV_MEM_CLOCK", kGauge, "Memory clock frequency (in MHz).", "MHz", kCatalogue,
              Metric::kClock, "memory", 1e-6, true, kNone},
    DcgmField{"DCGM_FI_DEV_MEMORY_TEMP", kGauge, "Memory temperature (in C).", "C", kCatalogue,
              Metric::kMemoryTemperature, "", 1, true, kNone},
    DcgmField{"DCGM_FI_DEV_GPU_TEMP", kGauge, "GPU temperature (in C).", "C", kCatalogue,
              Metric::kTemperature, "", 1, true, kNone},
    DcgmField{"DCGM_FI_DEV_POWER_USAGE", kGauge, "Power draw (in W).", "W", kCatalogue, Metric::kPower, "", 1,
              false, kNone},
    DcgmField{"DCGM_FI_DEV_TOTAL_ENERGY_CONSUMPTION", kCounter,
              "Total energy consumption since boot (in mJ).", "mJ", kCatalogue, Metric::kEnergy, "", 1e3,
              true, kNone},
    DcgmField{"DCGM_FI_DEV_PCIE_TX_THROUGHPUT", kCounter,
              "Total number of bytes transmitted through PCIe TX (in KB) via NVML.", "KiB/s", kCatalogue,
              Metric::kPcieTx, "", 1.0 / 1024, true, kNone},
    DcgmField{"DCGM_FI_DEV_PCIE_RX_THROUGHPUT", kCounter,
              "Total number of bytes received through PCIe RX (in KB) via NVML.", "KiB/s", kCatalogue,
              Metric::kPcieRx, "", 1.0 / 1024, true, kNone},
    DcgmField{"DCGM_FI_DEV_PCIE_REPLAY_COUNTER", kCounter, "Total number of PCIe retries.", "count",
              kCatalogue, Metric::kPcieReplays, "", 1, true, kNone},
    DcgmField{"DCGM_FI_DEV_GPU_UTIL", kGauge, "GPU utilization (in %).", "%", kCatalogue,
              Metric::kUtilization, "", 100, true, kNone},
    DcgmField{"DCGM_FI_DEV_MEM_COPY_UTIL", kGauge, "Memory utilization (in %).", "%", kCatalogue,
              Metric::kMemoryUtilization, "", 100, true, kNone},
    DcgmField{"DCGM_FI_DEV_ENC_UTIL", kGauge, "Encoder utilization (in %).", "%", kCatalogue,
              Metric::kEncoderUtilization, "", 100, true, kNone},
    DcgmField{"DCGM_FI_DEV_DEC_UTIL", kGauge, "Decoder utilization (in %).", "%", kCatalogue,
              Metric::kDecoderUtilization, "", 100, true, kNone},
    DcgmField{"DCGM_FI_DEV_XID_ERRORS", kGauge, "Value of the last XID error encountered.", "XID code",
              kLastXid, Metric::kXidErrors, "", 1, true, kNone},
    DcgmField{"DCGM_FI_DEV_FB_FREE", kGauge, "Framebuffer memory free (in MiB).", "MiB", kCatalogue,
              Metric::kMemoryFree, "", 1.0 / (1024 * 1024), true, kNone},
    DcgmField{"DCGM_FI_DEV_FB_USED", kGauge, "Framebuffer memory used (in MiB).", "MiB", kCatalogue,
              Metric::kMemoryUsed, "", 1.0 / (1024 * 1024), true, kNone},
    DcgmField{"DCGM_FI_DEV_FB_RESERVED", kGauge, "Framebuffer memory reserved (in MiB).", "MiB", kCatalogue,
              Metric::kMemoryReserved, "", 1.0 / (1024 * 1024), true, kNone},
    DcgmField{"DCGM_FI_DEV_NVLINK_BANDWIDTH_TOTAL", kCounter,
              "Total number of NVLink bandwidth counters for all lanes.", "bytes (tx + rx)", kCatalogue,
              Metric::kNvlinkTx, "", 1, true, Metric::kNvlinkRx},
    DcgmField{"DCGM_FI_DEV_UNCORRECTABLE_REMAPPED_ROWS", kCounter,
              "Number of remapped rows for uncorrectable errors", "rows", kCatalogue, Metric::kRemappedRows,
              "uncorrectable", 1, true, kNone},
    DcgmField{"DCGM_FI_DEV_CORRECTABLE_REMAPPED_ROWS", kCounter,
              "Number of remapped rows for correctable errors", "rows", kCatalogue, Metric::kRemappedRows,
              "correctable", 1, true, kNone},
    DcgmField{"DCGM_FI_DEV_ROW_REMAP_FAILURE", kGauge, "Whether remapping of rows has failed", "0/1",
              kCatalogue, Metric::kRemappedRowsFailure, "", 1, true, kNone},
    DcgmField{"DCGM_FI_PROF_GR_ENGINE_ACTIVE", kGauge, "Ratio of time the graphics engine is active.",
              "ratio", kCatalogue, Metric::kGraphicsActive, "", 1, false, kNone},
    DcgmField{"DCGM_FI_PROF_SM_ACTIVE", kGauge, "The ratio of cycles an SM has at least 1 warp assigned.",
              "ratio", kCatalogue, Metric::kSmActive, "", 1, false, kNone},
    DcgmField{"DCGM_FI_PROF_SM_OCCUPANCY", kGauge, "The ratio of number of warps resident on an SM.", "ratio",
              kCatalogue, Metric::kSmOccupancy, "", 1, false, kNone},
    DcgmField{"DCGM_FI_PROF_PIPE_TENSOR_ACTIVE", kGauge, "Ratio of cycles the tensor (HMMA) pipe is active.",
              "ratio", kCatalogue, Metric::kTensorActive, "", 1, false, kNone},
    DcgmField{"DCGM_FI_PROF_DRAM_ACTIVE", kGauge,
              "Ratio of cycles the device memory interface is active sending or receiving data.", "ratio",
              kCatalogue, Metric::kDramActive, "", 1, false, kNone},
    DcgmField{"DCGM_FI_PROF_PCIE_TX_BYTES", kGauge,
              "The rate of data transmitted over the PCIe bus - including both protocol headers and data "
              "payloads - "
              "in bytes per second.",
              "bytes/s", kCatalogue, Metric::kPcieTx, "", 1, false, kNone},
    DcgmField{"DCGM_FI_PROF_PCIE_RX_BYTES", kGauge,
              "The rate of data received over the PCIe bus - including both protocol headers and data "
              "payloads - in "
              "bytes per second.",
              "bytes/s", kCatalogue, Metric::kPcieRx, "", 1, false, kNone},
};

constexpr std::array kAbsent = {
    DcgmAbsentField{
        "DCGM_FI_DEV_VGPU_LICENSE_STATUS",
        "vGPU licensing exists only on virtualised GPUs; gpuwatch measures bare-metal and passthrough GPUs"},
};

std::optional<double> field_value(const DcgmField& f, const DeviceSnapshot& d) {
  if (f.source == kLastXid) return d.last_xid ? static_cast<double>(*d.last_xid) : 0.0;
  const Sample* s = d.find(f.metric, f.label0);
  if (!s) return std::nullopt;
  double v = s->value;
  if (f.also) {
    const Sample* extra = d.find(*f.also);
    if (!extra) return std::nullopt;
    v += extra->value;
  }
  return dcgm_value(f, v);
}

}  // namespace

double dcgm_value(const DcgmField& field, double native) {
  const double v = native * field.scale;
  return field.integer ? std::round(v) : v;
}

DcgmLabels dcgm_labels(const DcgmDevice& d, const DcgmOptions& options) {
  DcgmLabels labels{{"gpu", d.gpu},
                    {"UUID", d.uuid},
                    {"pci_bus_id", nvml_bus_id(d.pci_bus_id)},
                    {"device", "nvidia" + d.gpu},
                    {"modelName", d.model_name},
                    {options.hostname_label, d.hostname}};
  if (!d.gpu_instance_id.empty()) labels.emplace_back("GPU_I_ID", d.gpu_instance_id);
  labels.emplace_back("DCGM_FI_DRIVER_VERSION", d.driver_version);
  return labels;
}

std::span<const DcgmField> dcgm_fields() {
  return kFields;
}
std::span<const DcgmAbsentField> dcgm_absent_fields() {
  return kAbsent;
}

std::string nvml_bus_id(std::string_view sysfs_bus_id) {
  std::string out;
  const auto colon = sysfs_bus_id.find(':');
  // sysfs writes a 4 digit domain; NVML writes 8.
  if (colon != std::string_view::npos && colon < 8) out.assign(8 - colon, '0');
  for (char c : sysfs_bus_id) out += static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
  return out;
}

std::string render_dcgm(const Snapshot& snapshot, const DcgmOptions& options) {
  std::vector<DcgmLabels> device_labels;
  std::vector<const DeviceSnapshot*> devices;
  for (const auto& d : snapshot.devices) {
    if (d.state == DeviceState::kLost) continue;  // dcgm-exporter drops a GPU it cannot read
    const auto& id = d.identity;
    const DcgmDevice device{std::to_string(id.index),
                            id.is_mig_instance ? id.parent_uuid : id.uuid,
                            id.pci_bus_id,
                            id.name,
                            snapshot.node.hostname,
                            snapshot.node.driver_version,
                            id.is_mig_instance ? std::to_string(id.gpu_instance_id) : ""};
    device_labels.push_back(dcgm_labels(device, options));
    // dcgm-exporter's Kubernetes mapping: the pod, namespace and container the GPU is allocated to (one;
    // a GPU time-sliced between several pods names none).
    if (d.holders.size() == 1 && !d.holders[0].pod.empty()) {
      device_labels.back().emplace_back("pod", d.holders[0].pod);
      device_labels.back().emplace_back("namespace", d.holders[0].namespace_name);
      device_labels.back().emplace_back("container", d.holders[0].container);
    }
    devices.push_back(&d);
  }

  std::string out;
  out.reserve(32 * 1024);
  for (const auto& f : kFields) {
    Family family{f.name, f.type, "", f.help, {}};
    for (std::size_t i = 0; i < devices.size(); ++i) {
      if (auto v = field_value(f, *devices[i])) family.series.push_back(Series{device_labels[i], *v});
    }
    append_family(out, family, ExpositionFormat::kText004);
  }
  for (const auto& f : agent_families(snapshot)) append_family(out, f, ExpositionFormat::kText004);
  return out;
}

}  // namespace gpuwatch
