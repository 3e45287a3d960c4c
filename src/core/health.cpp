#include "core/health.h"

#include <array>
#include <cstdio>
#include <string_view>

namespace gpuwatch {
namespace {

struct Finding {
  HealthVerdict level;
  std::string text;
};

double value_or(const DeviceSnapshot& d, Metric m, double fallback, std::string_view label0 = {},
                std::string_view label1 = {}) {
  const Sample* s = d.find(m, label0, label1);
  return s ? s->value : fallback;
}

std::string format(const char* fmt, double a, double b = 0) {
  std::array<char, 160> buf{};
  std::snprintf(buf.data(), buf.size(), fmt, a, b);
  return buf.data();
}

// XIDs that DCGM treats as always serious (fail) and as a warning.
constexpr std::array kCriticalXids = {48U, 74U, 79U, 95U, 119U, 120U, 140U};
constexpr std::array kWarningXids = {94U, 63U, 64U, 92U};

void check_memory_errors(const DeviceSnapshot& d, std::vector<Finding>& out) {
  const double dbe = value_or(d, Metric::kEccErrors, 0, "uncorrected", "volatile");
  if (dbe > 0)
    out.push_back(
        {HealthVerdict::kCritical, format("%.0f uncorrectable ECC error(s) since driver load", dbe)});
  if (value_or(d, Metric::kRemappedRowsFailure, 0) > 0)
    out.push_back({HealthVerdict::kCritical, "row remapping failed: the GPU needs service"});
  if (value_or(d, Metric::kRemappedRowsPending, 0) > 0)
    out.push_back({HealthVerdict::kWarning, "row remap pending: reset the GPU when convenient"});
  if (value_or(d, Metric::kRetiredPagesPending, 0) > 0)
    out.push_back({HealthVerdict::kWarning, "page retirement pending: reset the GPU when convenient"});
  double retired = 0;
  for (const auto& s : d.samples)
    if (s.metric == Metric::kRetiredPages) retired += s.value;
  if (retired >= 63)
    out.push_back({HealthVerdict::kCritical, format("%.0f retired pages (limit 63)", retired)});
  const double unc_rows = value_or(d, Metric::kRemappedRows, 0, "uncorrectable");
  if (unc_rows >= 512)
    out.push_back({HealthVerdict::kWarning, format("%.0f rows remapped for uncorrectable errors", unc_rows)});
}

void check_throttling(const DeviceSnapshot& d, std::vector<Finding>& out) {
  // The software power cap is what a card working at its power limit does: not a finding.
  static constexpr std::array<std::pair<const char*, const char*>, 4> kSerious = {{
      {"hw_slowdown", "hardware slowdown is holding clocks down"},
      {"hw_thermal_slowdown", "hardware thermal slowdown: the GPU is too hot"},
      {"hw_power_brake_slowdown", "power brake engaged (external power supply signal)"},
      {"sw_thermal_slowdown", "software thermal slowdown"},
  }};
  for (const auto& [reason, text] : kSerious) {
    if (value_or(d, Metric::kClockEventActive, 0, reason) > 0) {
      const bool hw = std::string_view(reason).starts_with("hw_");
      out.push_back({hw ? HealthVerdict::kCritical : HealthVerdict::kWarning, text});
    }
  }
  const double temp = value_or(d, Metric::kTemperature, -1);
  const double slowdown = value_or(d, Metric::kTemperatureThreshold, -1, "slowdown");
  if (temp >= 0 && slowdown > 0 && temp >= slowdown - 5)
    out.push_back({HealthVerdict::kWarning,
                   format("temperature %.0f C is near the slowdown threshold %.0f C", temp, slowdown)});
}

void check_pcie(const DeviceSnapshot& d, std::vector<Finding>& out) {
  const double gen = value_or(d, Metric::kPcieLinkGeneration, 0),
               max_gen = value_or(d, Metric::kPcieLinkMaxGeneration, 0);
  const double width = value_or(d, Metric::kPcieLinkWidth, 0),
               max_width = value_or(d, Metric::kPcieLinkMaxWidth, 0);
  if (width > 0 && max_width > 0 && width < max_width)
    out.push_back(
        {HealthVerdict::kWarning, format("PCIe link is x%.0f, below its maximum x%.0f", width, max_width)});
  // Idle GPUs drop their link generation to save power; only a busy GPU below its generation is degraded.
  if (gen > 0 && max_gen > 0 && gen < max_gen && value_or(d, Metric::kUtilization, 0) > 0.2)
    out.push_back(
        {HealthVerdict::kWarning,
         format("PCIe link runs at gen %.0f while busy, below its maximum gen %.0f", gen, max_gen)});
}

void check_fabric(const DeviceSnapshot& d, std::vector<Finding>& out) {
  if (value_or(d, Metric::kFabricRegistrationFailed, 0) > 0)
    out.push_back({HealthVerdict::kCritical, "NVLink fabric registration failed: check the fabric manager"});
  const double state = value_or(d, Metric::kFabricState, 3);
  if (state < 3) out.push_back({HealthVerdict::kWarning, "NVLink fabric registration has not completed"});
}

void check_xids(const DeviceSnapshot& d, std::vector<Finding>& out) {
  for (const auto& [xid, count] : d.xid_counts) {
    for (unsigned c : kCriticalXids)
      if (xid == c)
        out.push_back({HealthVerdict::kCritical,
                       format("XID %.0f seen %.0f time(s)", xid, static_cast<double>(count))});
    for (unsigned w : kWarningXids)
      if (xid == w)
        out.push_back(
            {HealthVerdict::kWarning, format("XID %.0f seen %.0f time(s)", xid, static_cast<double>(count))});
  }
}

}  // namespace

Health assess_health(const DeviceSnapshot& d) {
  Health h;
  if (d.state == DeviceState::kLost) {
    h.verdict = HealthVerdict::kCritical;
    h.reasons.push_back("GPU is lost (fell off the bus): reboot the node");
    return h;
  }
  std::vector<Finding> findings;
  if (d.state == DeviceState::kStale)
    findings.push_back({HealthVerdict::kCritical, "driver calls are not returning (hung): values are stale"});
  check_memory_errors(d, findings);
  check_throttling(d, findings);
  check_pcie(d, findings);
  check_fabric(d, findings);
  check_xids(d, findings);
  for (const auto& f : findings)
    if (f.level == HealthVerdict::kCritical) h.reasons.push_back(f.text);
  for (const auto& f : findings)
    if (f.level == HealthVerdict::kWarning) h.reasons.push_back(f.text);
  for (const auto& f : findings)
    if (static_cast<int>(f.level) > static_cast<int>(h.verdict)) h.verdict = f.level;
  return h;
}

const char* to_string(HealthVerdict v) {
  switch (v) {
    case HealthVerdict::kHealthy:
      return "healthy";
    case HealthVerdict::kWarning:
      return "warning";
    case HealthVerdict::kCritical:
      return "critical";
  }
  return "unknown";
}

}  // namespace gpuwatch
