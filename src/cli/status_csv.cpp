#include "cli/status_csv.h"

#include <time.h>

#include <array>
#include <cctype>
#include <cmath>
#include <cstdio>
#include <optional>
#include <span>

#include "cli/status_table.h"
#include "core/spelling.h"
#include "rules/health.h"
#include "sources/nvml/nvml_labels.h"

namespace gpuwatch {
namespace {

using Cell = std::optional<std::string>;  // nullopt prints as kNotAvailable

struct GpuRow {
  const Snapshot& snapshot;
  const DeviceSnapshot& device;
  const Health& health;
};

struct AppRow {
  const Snapshot& snapshot;
  const DeviceSnapshot& device;
  const ProcessSample& process;
};

template <typename Row>
struct Field {
  std::string_view name;
  std::string_view alias;  // the other spelling nvidia-smi takes, or ""
  std::string_view unit;   // "[unit]" in the header, and after each value unless nounits; "" for none
  bool ours;               // gpuwatch's own field, not one of nvidia-smi's
  std::string_view help;
  Cell (*read)(const Row&);
};

Cell number(const char* format, double value) {
  std::array<char, 64> buf{};
  std::snprintf(buf.data(), buf.size(), format, value);
  return std::string(buf.data());
}

// A reading of the device; none for a lost GPU, whose last values say nothing of it now.
std::optional<double> reading(const DeviceSnapshot& d, Metric m, std::string_view label0 = {},
                              std::string_view label1 = {}) {
  if (d.state == DeviceState::kLost) return std::nullopt;
  const Sample* s = d.find(m, label0, label1);
  return s ? std::optional<double>(s->value) : std::nullopt;
}

Cell whole(std::optional<double> v) {
  return v ? number("%.0f", *v) : std::nullopt;
}
Cell percent(std::optional<double> ratio) {
  return ratio ? number("%.0f", *ratio * 100) : std::nullopt;
}
// Whole MiB, rounded down, as NVML's own MiB figures and nvidia-smi's are.
Cell mebibytes(std::optional<double> bytes) {
  return bytes ? number("%.0f", std::floor(*bytes / (1024.0 * 1024.0))) : std::nullopt;
}
Cell watts(std::optional<double> w) {
  return w ? number("%.2f", *w) : std::nullopt;
}
Cell megahertz(std::optional<double> hz) {
  return hz ? number("%.0f", *hz / 1e6) : std::nullopt;
}
Cell text(const std::string& s) {
  return s.empty() ? std::nullopt : Cell(s);
}

// nvidia-smi's local time, "2025/01/31 12:34:56.789".
Cell timestamp(const Snapshot& snap) {
  if (snap.timestamp_ms <= 0) return std::nullopt;
  const time_t seconds = static_cast<time_t>(snap.timestamp_ms / 1000);
  tm local{};
  if (localtime_r(&seconds, &local) == nullptr) return std::nullopt;
  std::array<char, 32> date{};
  std::strftime(date.data(), date.size(), "%Y/%m/%d %H:%M:%S", &local);
  std::array<char, 40> buf{};
  std::snprintf(buf.data(), buf.size(), "%s.%03d", date.data(), static_cast<int>(snap.timestamp_ms % 1000));
  return std::string(buf.data());
}

// nvidia-smi writes the bus id with an eight-digit domain in capitals: 00000000:3B:00.0.
Cell bus_id(const DeviceIdentity& id) {
  if (id.pci_bus_id.empty()) return std::nullopt;
  std::string out = id.pci_bus_id;
  if (const auto colon = out.find(':'); colon != std::string::npos && colon < 8)
    out.insert(0, 8 - colon, '0');
  for (char& c : out) c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
  return out;
}

std::string joined(const std::vector<std::string>& parts) {
  std::string out;
  for (const auto& part : parts) out += (out.empty() ? "" : "; ") + part;
  return out.empty() ? "none" : out;
}

// The reasons NVML holds the clocks down for, as NVML's bit mask and by name; none when they were not read.
std::optional<unsigned long long> clock_event_mask(const DeviceSnapshot& d) {
  if (d.state == DeviceState::kLost) return std::nullopt;
  std::optional<unsigned long long> mask;
  for (const auto& s : d.samples) {
    if (s.metric != Metric::kClockEventActive) continue;
    mask = mask.value_or(0);
    for (const auto& [bit, label] : nvml_labels::kClockEventReasons)
      if (s.value > 0 && s.labels[0] == label) *mask |= bit;
  }
  return mask;
}

Cell clock_event_names(const DeviceSnapshot& d) {
  const auto mask = clock_event_mask(d);
  if (!mask) return std::nullopt;
  std::vector<std::string> names;
  for (const auto& [bit, label] : nvml_labels::kClockEventReasons)
    if ((*mask & bit) != 0 && label != "gpu_idle") names.emplace_back(label);  // an idle GPU is not held down
  return joined(names);
}

// clang-format off
const Field<GpuRow> kGpuFields[] = {
    {"index", "", "", false, "NVML index of the GPU (display only: the UUID is its identity); a MIG instance has its GPU's",
     [](const GpuRow& r) -> Cell { return std::to_string(r.device.identity.index); }},
    {"gpu", "", "", true, "The GPU as the status table names it: its index, or index/GPU instance/compute instance of a MIG instance",
     [](const GpuRow& r) -> Cell { return gpu_label(r.device); }},
    {"uuid", "", "", false, "Globally unique identifier: GPU-... (MIG-... for a MIG instance)",
     [](const GpuRow& r) { return text(r.device.identity.uuid); }},
    {"name", "", "", false, "Product name",
     [](const GpuRow& r) { return text(r.device.identity.name); }},
    {"serial", "", "", false, "Board serial number",
     [](const GpuRow& r) { return text(r.device.identity.serial); }},
    {"pci.bus_id", "", "", false, "PCI bus id, as nvidia-smi writes it (00000000:3B:00.0)",
     [](const GpuRow& r) { return bus_id(r.device.identity); }},
    {"vbios_version", "", "", false, "Video BIOS version",
     [](const GpuRow& r) { return text(r.device.identity.vbios_version); }},
    {"driver_version", "", "", false, "Version of the loaded NVIDIA driver",
     [](const GpuRow& r) { return text(r.snapshot.node.driver_version); }},
    {"count", "", "", false, "Number of GPUs on the node (MIG instances not counted)",
     [](const GpuRow& r) -> Cell {
       std::size_t n = 0;
       for (const auto& d : r.snapshot.devices) n += d.identity.is_mig_instance ? 0 : 1;
       return std::to_string(n);
     }},
    {"timestamp", "", "", false, "When the GPUs were read, local time (2025/01/31 12:34:56.789)",
     [](const GpuRow& r) { return timestamp(r.snapshot); }},
    {"hostname", "", "", true, "Host name of the node",
     [](const GpuRow& r) { return text(r.snapshot.node.hostname); }},
    {"state", "", "", true, "ok, stale (a read missed its deadline: the values are the last ones read) or lost (fell off the bus)",
     [](const GpuRow& r) -> Cell { return device_state_name(r.device.state); }},
    {"health", "", "", true, "healthy, warning or critical, as the status table and its exit code judge the GPU",
     [](const GpuRow& r) -> Cell { return to_string(r.health.verdict); }},
    {"health.reasons", "", "", true, "Why, worst first, separated by \"; \"; none when healthy",
     [](const GpuRow& r) -> Cell { return joined(r.health.reasons); }},
    {"pstate", "", "", false, "Performance state, from P0 (fastest) to P15 (slowest)",
     [](const GpuRow& r) -> Cell {
       const auto p = reading(r.device, Metric::kPerformanceState);
       return p ? number("P%.0f", *p) : std::nullopt;
     }},
    {"temperature.gpu", "", "", false, "Core temperature, degrees C",
     [](const GpuRow& r) { return whole(reading(r.device, Metric::kTemperature)); }},
    {"temperature.memory", "", "", false, "Memory (HBM) temperature, degrees C",
     [](const GpuRow& r) { return whole(reading(r.device, Metric::kMemoryTemperature)); }},
    {"utilization.gpu", "", "%", false, "Percent of the last sample period during which a kernel ran",
     [](const GpuRow& r) { return percent(reading(r.device, Metric::kUtilization)); }},
    {"utilization.memory", "", "%", false, "Percent of the last sample period during which memory was read or written",
     [](const GpuRow& r) { return percent(reading(r.device, Metric::kMemoryUtilization)); }},
    {"utilization.encoder", "", "%", false, "Video encoder utilization",
     [](const GpuRow& r) { return percent(reading(r.device, Metric::kEncoderUtilization)); }},
    {"utilization.decoder", "", "%", false, "Video decoder utilization",
     [](const GpuRow& r) { return percent(reading(r.device, Metric::kDecoderUtilization)); }},
    {"memory.total", "", "MiB", false, "Total device memory",
     [](const GpuRow& r) { return mebibytes(reading(r.device, Metric::kMemoryTotal)); }},
    {"memory.used", "", "MiB", false, "Device memory allocated",
     [](const GpuRow& r) { return mebibytes(reading(r.device, Metric::kMemoryUsed)); }},
    {"memory.free", "", "MiB", false, "Device memory free",
     [](const GpuRow& r) { return mebibytes(reading(r.device, Metric::kMemoryFree)); }},
    {"memory.reserved", "", "MiB", false, "Device memory the driver and firmware reserve",
     [](const GpuRow& r) { return mebibytes(reading(r.device, Metric::kMemoryReserved)); }},
    {"power.draw", "", "W", false, "Power draw (averaged over 1 s by the driver on Ampere and later)",
     [](const GpuRow& r) { return watts(reading(r.device, Metric::kPower)); }},
    {"power.draw.instant", "", "W", false, "Instantaneous power draw",
     [](const GpuRow& r) { return watts(reading(r.device, Metric::kPowerInstant)); }},
    {"power.limit", "", "W", false, "Power limit: the enforced one (the only limit gpuwatch reads)",
     [](const GpuRow& r) { return watts(reading(r.device, Metric::kPowerLimit)); }},
    {"enforced.power.limit", "", "W", false, "Enforced power limit",
     [](const GpuRow& r) { return watts(reading(r.device, Metric::kPowerLimit)); }},
    {"clocks.current.graphics", "clocks.gr", "MHz", false, "Current graphics clock",
     [](const GpuRow& r) { return megahertz(reading(r.device, Metric::kClock, "graphics")); }},
    {"clocks.current.sm", "clocks.sm", "MHz", false, "Current SM clock",
     [](const GpuRow& r) { return megahertz(reading(r.device, Metric::kClock, "sm")); }},
    {"clocks.current.memory", "clocks.mem", "MHz", false, "Current memory clock",
     [](const GpuRow& r) { return megahertz(reading(r.device, Metric::kClock, "memory")); }},
    {"clocks.current.video", "clocks.video", "MHz", false, "Current video clock",
     [](const GpuRow& r) { return megahertz(reading(r.device, Metric::kClock, "video")); }},
    {"clocks.max.graphics", "clocks.max.gr", "MHz", false, "Maximum graphics clock",
     [](const GpuRow& r) { return megahertz(reading(r.device, Metric::kClockMax, "graphics")); }},
    {"clocks.max.sm", "", "MHz", false, "Maximum SM clock",
     [](const GpuRow& r) { return megahertz(reading(r.device, Metric::kClockMax, "sm")); }},
    {"clocks.max.memory", "clocks.max.mem", "MHz", false, "Maximum memory clock",
     [](const GpuRow& r) { return megahertz(reading(r.device, Metric::kClockMax, "memory")); }},
    {"clocks_event_reasons.active", "clocks_throttle_reasons.active", "", false,
     "Bit mask of the reasons the clocks are held down, as NVML gives it (0x0000000000000004: software power cap)",
     [](const GpuRow& r) -> Cell {
       const auto mask = clock_event_mask(r.device);
       if (!mask) return std::nullopt;
       std::array<char, 24> buf{};
       std::snprintf(buf.data(), buf.size(), "0x%016llx", *mask);
       return std::string(buf.data());
     }},
    {"throttle", "", "", true, "The reasons the clocks are held down, by name, separated by \"; \" (gpu_idle left out); none when none",
     [](const GpuRow& r) { return clock_event_names(r.device); }},
    {"fan.speed", "", "%", false, "Intended fan speed",
     [](const GpuRow& r) { return percent(reading(r.device, Metric::kFanSpeed)); }},
    {"pcie.link.gen.current", "", "", false, "Current PCIe generation",
     [](const GpuRow& r) { return whole(reading(r.device, Metric::kPcieLinkGeneration)); }},
    {"pcie.link.gen.max", "", "", false, "Highest PCIe generation the GPU and the system support",
     [](const GpuRow& r) { return whole(reading(r.device, Metric::kPcieLinkMaxGeneration)); }},
    {"pcie.link.width.current", "", "", false, "Current PCIe link width (lanes)",
     [](const GpuRow& r) { return whole(reading(r.device, Metric::kPcieLinkWidth)); }},
    {"pcie.link.width.max", "", "", false, "Widest PCIe link the GPU and the system support",
     [](const GpuRow& r) { return whole(reading(r.device, Metric::kPcieLinkMaxWidth)); }},
    {"ecc.errors.corrected.volatile.total", "", "", false, "Corrected ECC errors since the driver was loaded",
     [](const GpuRow& r) { return whole(reading(r.device, Metric::kEccErrors, "corrected", "volatile")); }},
    {"ecc.errors.uncorrected.volatile.total", "", "", false, "Uncorrected ECC errors since the driver was loaded",
     [](const GpuRow& r) { return whole(reading(r.device, Metric::kEccErrors, "uncorrected", "volatile")); }},
    {"ecc.errors.corrected.aggregate.total", "", "", false, "Corrected ECC errors over the GPU's life",
     [](const GpuRow& r) { return whole(reading(r.device, Metric::kEccErrors, "corrected", "aggregate")); }},
    {"ecc.errors.uncorrected.aggregate.total", "", "", false, "Uncorrected ECC errors over the GPU's life",
     [](const GpuRow& r) { return whole(reading(r.device, Metric::kEccErrors, "uncorrected", "aggregate")); }},
    {"mig.mode.current", "", "", false, "Enabled or Disabled",
     [](const GpuRow& r) -> Cell {
       const auto mig = reading(r.device, Metric::kMigMode);
       return mig ? Cell(*mig > 0 ? "Enabled" : "Disabled") : std::nullopt;
     }},
    {"processes", "", "", true, "Number of processes on the GPU",
     [](const GpuRow& r) -> Cell {
       if (r.device.state == DeviceState::kLost) return std::nullopt;
       return std::to_string(r.device.processes.size());
     }},
};

const Field<AppRow> kAppFields[] = {
    {"timestamp", "", "", false, "When the GPUs were read, local time (2025/01/31 12:34:56.789)",
     [](const AppRow& r) { return timestamp(r.snapshot); }},
    {"gpu_name", "", "", false, "Product name of the process's GPU",
     [](const AppRow& r) { return text(r.device.identity.name); }},
    {"gpu_bus_id", "", "", false, "PCI bus id of the process's GPU, as nvidia-smi writes it (00000000:3B:00.0)",
     [](const AppRow& r) { return bus_id(r.device.identity); }},
    {"gpu_serial", "", "", false, "Board serial number of the process's GPU",
     [](const AppRow& r) { return text(r.device.identity.serial); }},
    {"gpu_uuid", "", "", false, "UUID of the process's GPU (MIG-... for a MIG instance)",
     [](const AppRow& r) { return text(r.device.identity.uuid); }},
    {"gpu", "", "", true, "The GPU as the status table names it: its index, or index/GPU instance/compute instance",
     [](const AppRow& r) -> Cell { return gpu_label(r.device); }},
    {"pid", "", "", false, "Process id",
     [](const AppRow& r) -> Cell { return std::to_string(r.process.pid); }},
    {"process_name", "name", "", false, "The process's name: its comm, at most 15 bytes (nvidia-smi shows its path; see command)",
     [](const AppRow& r) { return text(r.process.name); }},
    {"used_gpu_memory", "used_memory", "MiB", false, "Device memory the process uses",
     [](const AppRow& r) { return mebibytes(r.process.used_memory_bytes); }},
    {"type", "", "", true, "compute, or compute,graphics when it holds contexts of both",
     [](const AppRow& r) { return text(r.process.type); }},
    {"uid", "", "", true, "The process's real uid",
     [](const AppRow& r) -> Cell { return r.process.uid ? Cell(std::to_string(*r.process.uid)) : std::nullopt; }},
    {"user", "", "", true, "The user the host's passwd file names for the uid, else the uid",
     [](const AppRow& r) { return text(r.process.user); }},
    {"command", "", "", true, "The process's command line, its arguments joined by spaces",
     [](const AppRow& r) { return text(r.process.command); }},
    {"sm_utilization", "", "%", true, "Percent of the last sample period the process kept the SMs busy",
     [](const AppRow& r) { return percent(r.process.sm_utilization); }},
    {"memory_utilization", "", "%", true, "Percent of the last sample period the process used the memory interface",
     [](const AppRow& r) { return percent(r.process.memory_utilization); }},
};
// clang-format on

std::string_view flag_of(StatusQueryKind kind) {
  return kind == StatusQueryKind::kGpu ? "--query-gpu" : "--query-compute-apps";
}

std::string_view trimmed(std::string_view s) {
  while (!s.empty() && std::isspace(static_cast<unsigned char>(s.front()))) s.remove_prefix(1);
  while (!s.empty() && std::isspace(static_cast<unsigned char>(s.back()))) s.remove_suffix(1);
  return s;
}

std::vector<std::string_view> split(std::string_view list) {
  std::vector<std::string_view> parts;
  for (;;) {
    const auto comma = list.find(',');
    parts.push_back(trimmed(list.substr(0, comma)));
    if (comma == std::string_view::npos) return parts;
    list.remove_prefix(comma + 1);
  }
}

// The value as a CSV field: quoted when a comma, a quote or a line break in it would split or end the row.
std::string csv_value(std::string_view v) {
  if (v.find_first_of(",\"\r\n") == std::string_view::npos) return std::string(v);
  std::string out = "\"";
  for (char c : v) out += c == '"' ? std::string("\"\"") : std::string(1, c);
  return out + "\"";
}

template <typename Row>
std::vector<std::string_view> names_of(std::span<const Field<Row>> table) {
  std::vector<std::string_view> names;
  for (const auto& f : table) names.push_back(f.name);
  for (const auto& f : table)
    if (!f.alias.empty()) names.push_back(f.alias);
  return names;
}

template <typename Row>
std::string parse_fields(std::span<const Field<Row>> table, StatusQueryKind kind, std::string_view list,
                         StatusQuery& out) {
  const std::string flag(flag_of(kind));
  if (trimmed(list).empty()) return flag + " needs at least one field";
  for (const std::string_view name : split(list)) {
    if (name.empty()) return flag + ": an empty field name in '" + std::string(list) + "'";
    std::size_t i = 0;
    while (i < table.size() && table[i].name != name && table[i].alias != name) ++i;
    if (i < table.size()) {
      out.fields.push_back(i);
      out.headers.emplace_back(name);
      continue;
    }
    const auto names = names_of(table);
    auto close = close_matches(name, names, 5);
    if (close.empty()) {  // memory.usage: the fields of the same group
      const std::string group = std::string(name.substr(0, name.find('.'))) + ".";
      for (const auto candidate : names)
        if (candidate.starts_with(group) && close.size() < 8) close.emplace_back(candidate);
    }
    std::string error = flag + ": unknown field '" + std::string(name) + "'";
    if (!close.empty()) {
      error += " (close: ";
      for (std::size_t c = 0; c < close.size(); ++c) error += (c ? ", " : "") + close[c];
      error += ")";
    }
    return error + "; gpuwatch status --help-" + flag.substr(2) + " lists every field";
  }
  return {};
}

template <typename Row>
void add_header(std::span<const Field<Row>> table, const StatusQuery& q, std::string& out) {
  for (std::size_t i = 0; i < q.fields.size(); ++i) {
    const auto& f = table[q.fields[i]];
    out += (i ? ", " : "") + csv_value(q.headers[i]);
    if (!f.unit.empty()) out += " [" + std::string(f.unit) + "]";
  }
  out += "\n";
}

template <typename Row>
void add_row(std::span<const Field<Row>> table, const StatusQuery& q, const Row& row, std::string& out) {
  for (std::size_t i = 0; i < q.fields.size(); ++i) {
    const auto& f = table[q.fields[i]];
    const Cell cell = f.read(row);
    std::string value = cell ? *cell : std::string(kNotAvailable);
    if (cell && q.units && !f.unit.empty()) value += " " + std::string(f.unit);
    out += (i ? ", " : "") + csv_value(value);
  }
  out += "\n";
}

template <typename Row>
std::string help_of(std::span<const Field<Row>> table, std::string_view intro) {
  std::string out(intro);
  for (const auto& f : table) {
    out += "  " + std::string(f.name);
    if (!f.alias.empty()) out += " or " + std::string(f.alias);
    if (!f.unit.empty()) out += " [" + std::string(f.unit) + "]";
    if (f.ours) out += "  (gpuwatch)";
    out += "\n      " + std::string(f.help) + "\n";
  }
  return out;
}

}  // namespace

bool is_field_help(std::string_view fields) {
  return trimmed(fields) == "help";
}

std::string parse_status_query(StatusQueryKind kind, std::string_view fields, std::string_view format,
                               StatusQuery& out) {
  out = StatusQuery{};
  out.kind = kind;
  bool csv = false;
  for (const std::string_view word : split(format)) {
    if (word == "csv") {
      csv = true;
    } else if (word == "noheader") {
      out.header = false;
    } else if (word == "nounits") {
      out.units = false;
    } else {
      return "--format: unknown '" + std::string(word) +
             "'; expected csv, with noheader and nounits if wanted (csv,noheader,nounits)";
    }
  }
  if (!csv) return "--format: expected csv, with noheader and nounits if wanted (csv,noheader,nounits)";
  return kind == StatusQueryKind::kGpu ? parse_fields<GpuRow>(kGpuFields, kind, fields, out)
                                       : parse_fields<AppRow>(kAppFields, kind, fields, out);
}

std::string render_status_query(const Snapshot& snapshot, const StatusQuery& query,
                                const rules::DetectorSettings& settings) {
  std::string out;
  if (query.kind == StatusQueryKind::kGpu) {
    if (query.header) add_header<GpuRow>(kGpuFields, query, out);
    for (const auto& d : snapshot.devices) {
      const Health health = assess_health(d, settings);
      add_row<GpuRow>(kGpuFields, query, GpuRow{snapshot, d, health}, out);
    }
    return out;
  }
  if (query.header) add_header<AppRow>(kAppFields, query, out);
  for (const auto& d : snapshot.devices) {
    for (const auto& p : d.processes) {
      // As nvidia-smi's compute apps: processes with a compute context.
      if (p.type.find("compute") != std::string::npos)
        add_row<AppRow>(kAppFields, query, AppRow{snapshot, d, p}, out);
    }
  }
  return out;
}

std::string status_query_help(StatusQueryKind kind) {
  if (kind == StatusQueryKind::kGpu) {
    return help_of<GpuRow>(
        kGpuFields,
        "Fields of gpuwatch status --query-gpu, one row per GPU and MIG instance, a lost GPU included:\n"
        "nvidia-smi's names where it has the field, \"(gpuwatch)\" after gpuwatch's own. A value the GPU "
        "does\n"
        "not report, and every reading of a lost GPU, prints as [N/A].\n\n");
  }
  return help_of<AppRow>(
      kAppFields,
      "Fields of gpuwatch status --query-compute-apps, one row per process with a compute context on a GPU:\n"
      "nvidia-smi's names where it has the field, \"(gpuwatch)\" after gpuwatch's own. A value not known\n"
      "prints as [N/A].\n\n");
}

std::vector<std::string_view> status_query_field_names(StatusQueryKind kind) {
  return kind == StatusQueryKind::kGpu ? names_of<GpuRow>(kGpuFields) : names_of<AppRow>(kAppFields);
}

}  // namespace gpuwatch
