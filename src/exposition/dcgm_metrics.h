// dcgm-exporter compatibility: renders dcgm-exporter's default counters (names, units, types, help texts and
// labels as dcgm-exporter prints them) from a snapshot, so dashboards and alerts written for dcgm-exporter
// keep working. One table maps each dcgm field to a catalogue metric, a label value and a scale.
// Text format 0.0.4 only, as dcgm-exporter serves.
#pragma once

#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "core/snapshot.h"
#include "exposition/exposition.h"

namespace gpuwatch {

// Where a dcgm field's value comes from.
enum class DcgmSource {
  kCatalogue,  // metric (matching label0 when set), plus `also` when set, times scale
  kLastXid,    // the last XID code seen (dcgm's semantics), 0 when none; not kept in the history
};

struct DcgmField {
  std::string_view name;  // "DCGM_FI_DEV_SM_CLOCK"
  FamilyType type;
  std::string_view help;  // dcgm-exporter's help text, verbatim
  std::string_view unit;  // the unit dcgm reports in, for the docs ("MHz", "%", "MiB", ...)
  DcgmSource source;
  Metric metric;
  std::string_view label0;     // value of the catalogue metric's first extra label; "" for any
  double scale;                // dcgm value = native value * scale
  bool integer;                // dcgm reports an integer field: round
  std::optional<Metric> also;  // a second metric summed in (NVLink tx + rx)
};

// Every dcgm field gpuwatch renders, in dcgm-exporter's default-counters order.
std::span<const DcgmField> dcgm_fields();

// dcgm-exporter default counters gpuwatch knowingly does not render, with the reason.
// (DCGM_FI_DRIVER_VERSION, a "label" counter in dcgm-exporter's list, is rendered as the label of that name
// on every series.)
struct DcgmAbsentField {
  std::string_view name;
  std::string_view reason;
};
std::span<const DcgmAbsentField> dcgm_absent_fields();

struct DcgmOptions {
  // dcgm-exporter up to 3.x names the host label "Hostname"; newer releases name it "hostname".
  std::string_view hostname_label = "Hostname";
};

// What dcgm-exporter's labels say of one device: the renderer fills it from the snapshot, the query API's
// dcgm view from the history (gpu_info, gpu_driver_info), so both label a device alike.
struct DcgmDevice {
  std::string gpu;              // the NVML index
  std::string uuid;             // the GPU's; a MIG instance's parent's
  std::string pci_bus_id;       // sysfs form "0000:3b:00.0"; labelled in NVML's spelling
  std::string model_name;       // "NVIDIA H200"
  std::string hostname;         // the node's
  std::string driver_version;   // DCGM_FI_DRIVER_VERSION
  std::string gpu_instance_id;  // MIG instances only, "" otherwise
};
using DcgmLabels = std::vector<std::pair<std::string_view, std::string>>;
// gpu, UUID, pci_bus_id, device, modelName, the hostname label, GPU_I_ID (MIG), DCGM_FI_DRIVER_VERSION, in
// dcgm-exporter's order.
DcgmLabels dcgm_labels(const DcgmDevice& device, const DcgmOptions& options);

// A field's value from its native value (with the `also` metric's added): scaled, and rounded when dcgm
// reports an integer.
double dcgm_value(const DcgmField& field, double native);

// dcgm families for every device that is not lost, followed by the agent's own families.
std::string render_dcgm(const Snapshot& snapshot, const DcgmOptions& options);

// NVML's bus id spelling (8 hex digit domain, upper case) as dcgm-exporter shows it: "00000000:3B:00.0".
std::string nvml_bus_id(std::string_view sysfs_bus_id);

}  // namespace gpuwatch
