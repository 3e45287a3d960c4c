#include "cli/status_table.h"

#include <algorithm>
#include <array>
#include <cstdio>
#include <string_view>
#include <vector>

#include "cli/gpu_readings.h"
#include "cli/text_table.h"
#include "rules/health.h"

namespace gpuwatch {
namespace {

using namespace terminal_colour;

std::string fmt(const char* format, double a, double b = 0) {
  std::array<char, 64> buf{};
  std::snprintf(buf.data(), buf.size(), format, a, b);
  return buf.data();
}

std::optional<double> value(const DeviceSnapshot& d, Metric m, std::string_view label0 = {}) {
  const Sample* s = d.find(m, label0);
  return s ? std::optional<double>(s->value) : std::nullopt;
}

constexpr double kGiB = 1024.0 * 1024.0 * 1024.0;

std::string memory_cell(const DeviceSnapshot& d) {
  auto used = value(d, Metric::kMemoryUsed), total = value(d, Metric::kMemoryTotal);
  if (!used || !total) return "-";
  return fmt("%.1f/%.1f GiB", *used / kGiB, *total / kGiB);
}

std::string power_cell(const DeviceSnapshot& d) {
  auto power = value(d, Metric::kPower), limit = value(d, Metric::kPowerLimit);
  if (!power) return "-";
  return limit ? fmt("%.0f/%.0f W", *power, *limit) : fmt("%.0f W", *power);
}

std::string clock_cell(const DeviceSnapshot& d) {
  auto sm = value(d, Metric::kClock, "sm"), max = value(d, Metric::kClockMax, "sm");
  if (!sm) return "-";
  return max ? fmt("%.0f/%.0f MHz", *sm / 1e6, *max / 1e6) : fmt("%.0f MHz", *sm / 1e6);
}

std::string throttle_cell(const DeviceSnapshot& d) {
  const std::string reasons = readings_of(d).throttle;
  return reasons.empty() ? "none" : reasons;
}

std::string pcie_cell(const DeviceSnapshot& d) {
  auto gen = value(d, Metric::kPcieLinkGeneration), width = value(d, Metric::kPcieLinkWidth);
  if (!gen || !width) return "-";
  return fmt("gen%.0f x%.0f", *gen, *width);
}

std::string ecc_cell(const DeviceSnapshot& d) {
  std::optional<double> corrected, uncorrected;
  for (const auto& s : d.samples) {
    if (s.metric != Metric::kEccErrors || s.labels[1] != "volatile") continue;
    (s.labels[0] == "corrected" ? corrected : uncorrected) = s.value;
  }
  if (!corrected && !uncorrected) return "-";
  return fmt("%.0f/%.0f", corrected.value_or(0), uncorrected.value_or(0));
}

std::string util_cell(const DeviceSnapshot& d) {
  auto u = value(d, Metric::kUtilization);
  if (u) return fmt("%.0f%%", *u * 100);
  // NVML reports no utilization for MIG instances; GPM's SM activity is the nearest measure where present.
  if (auto sm = value(d, Metric::kSmActive)) return fmt("sm %.0f%%", *sm * 100);
  return d.identity.is_mig_instance ? "n/a(MIG)" : "-";
}

std::string temp_cell(const DeviceSnapshot& d) {
  auto t = value(d, Metric::kTemperature);
  return t ? fmt("%.0f C", *t) : "-";
}

std::string_view verdict_colour(HealthVerdict v) {
  switch (v) {
    case HealthVerdict::kHealthy:
      return kGreen;
    case HealthVerdict::kWarning:
      return kYellow;
    case HealthVerdict::kCritical:
      return kRed;
  }
  return {};
}

std::string size_cell(const std::optional<double>& bytes) {
  if (!bytes) return "-";
  return *bytes >= kGiB ? fmt("%.1f GiB", *bytes / kGiB) : fmt("%.0f MiB", *bytes / (1024.0 * 1024.0));
}

}  // namespace

std::string gpu_label(const DeviceSnapshot& d) {
  if (!d.identity.is_mig_instance) return std::to_string(d.identity.index);
  return std::to_string(d.identity.index) + "/" + std::to_string(d.identity.gpu_instance_id) + "/" +
         std::to_string(d.identity.compute_instance_id);
}

std::string render_status_table(const Snapshot& snap, const StatusTableStyle& style,
                                const rules::DetectorSettings& settings) {
  std::string out;
  out += "node " + (snap.node.hostname.empty() ? std::string("?") : snap.node.hostname);
  if (!snap.node.driver_version.empty()) out += "  driver " + snap.node.driver_version;
  if (!snap.node.cuda_driver_version.empty()) out += "  CUDA " + snap.node.cuda_driver_version;
  out += "  " + std::to_string(snap.devices.size()) + " device(s)\n\n";

  TextTable gpus({"GPU", "NAME", "UTIL", "MEMORY", "TEMP", "POWER", "SM CLOCK", "THROTTLE", "PCIE", "ECC c/u",
                  "HEALTH"});
  // Every reason in full, under the table: a cell would cut them or hide all but the first.
  std::string reasons;
  for (const auto& d : snap.devices) {
    const Health health = assess_health(d, settings);
    const std::string verdict = to_string(health.verdict);
    for (const auto& reason : health.reasons) {
      const std::string line = "GPU " + gpu_label(d) + " " + verdict + ": " + reason;
      const std::string_view colour = verdict_colour(health.verdict);
      reasons += style.colour && !colour.empty() ? std::string(colour) + line + std::string(kReset) : line;
      reasons += "\n";
    }
    const bool lost = d.state == DeviceState::kLost;
    gpus.add({gpu_label(d), d.identity.name, lost ? "-" : util_cell(d), lost ? "-" : memory_cell(d),
              lost ? "-" : temp_cell(d), lost ? "-" : power_cell(d), lost ? "-" : clock_cell(d),
              lost ? "-" : throttle_cell(d), lost ? "-" : pcie_cell(d), lost ? "-" : ecc_cell(d), verdict},
             verdict_colour(health.verdict));
  }
  // On a narrow terminal the columns that say least about health go first.
  static constexpr std::array<std::size_t, 6> kDropOrder = {6, 1, 8, 5, 2, 3};  // SM CLOCK, NAME, PCIE, ...
  out += gpus.render(style.colour, style.width, kDropOrder);
  if (!reasons.empty()) out += "\n" + reasons;

  // The command line last: on a narrow terminal it is cut rather than left out.
  TextTable procs({"GPU", "PID", "USER", "NAME", "TYPE", "MEMORY", "SM", "COMMAND"});
  procs.cut_last_column(16);
  std::size_t process_count = 0;
  for (const auto& d : snap.devices) {
    for (const auto& p : d.processes) {
      ++process_count;
      procs.add({gpu_label(d), std::to_string(p.pid), p.user.empty() ? "-" : p.user,
                 p.name.empty() ? "?" : p.name, p.type, size_cell(p.used_memory_bytes),
                 p.sm_utilization ? fmt("%.0f%%", *p.sm_utilization * 100) : "-",
                 p.command.empty() ? "-" : p.command});
    }
  }
  out += "\n";
  if (process_count == 0) {
    out += style.colour ? std::string(kDim) + "no processes on any GPU" + std::string(kReset) + "\n"
                        : "no processes on any GPU\n";
  } else {
    out += procs.render(style.colour, style.width);
  }
  return out;
}

std::string render_status_alerts(std::span<const alerting::Condition> conditions,
                                 const StatusTableStyle& style) {
  if (conditions.empty()) {
    return style.colour ? std::string(kDim) + "no alert conditions" + std::string(kReset) + "\n"
                        : "no alert conditions\n";
  }
  TextTable alerts({"GPU", "SEVERITY", "ALERT", "SUMMARY"});
  for (const auto& c : conditions) {
    const auto gpu = c.labels.find("gpu");
    alerts.add({gpu == c.labels.end() ? "-" : gpu->second, std::string(alerting::severity_name(c.severity)),
                c.alertname, c.summary},
               c.severity == alerting::Severity::kPage ? kRed : std::string_view{});
  }
  return alerts.render(style.colour);
}

}  // namespace gpuwatch
