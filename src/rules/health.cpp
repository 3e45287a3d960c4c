#include "rules/health.h"

#include <array>
#include <cstdio>

#include "rules/slowdown_margin.h"
#include "rules/throttle_reasons.h"
#include "rules/xid_catalogue.h"

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

// Each check mirrors one detector's rules; the alert each finding stands for is named beside it.
void check_memory_errors(const DeviceSnapshot& d, const rules::EccSettings& s, std::vector<Finding>& out) {
  const double dbe = value_or(d, Metric::kEccErrors, 0, "uncorrected", "volatile");
  if (dbe > 0)  // GpuEccUncorrectable
    out.push_back(
        {HealthVerdict::kCritical, format("%.0f uncorrectable ECC error(s) since driver load", dbe)});
  if (value_or(d, Metric::kRemappedRowsFailure, 0) > 0)  // GpuRowRemapFailed
    out.push_back({HealthVerdict::kCritical, "row remapping failed: the GPU needs service"});
  if (value_or(d, Metric::kRemappedRowsPending, 0) > 0)  // GpuMemoryRepairPending
    out.push_back({HealthVerdict::kWarning, "row remap pending: reset the GPU when convenient"});
  if (value_or(d, Metric::kRetiredPagesPending, 0) > 0)  // GpuMemoryRepairPending
    out.push_back({HealthVerdict::kWarning, "page retirement pending: reset the GPU when convenient"});
  double retired = 0;
  for (const auto& sample : d.samples)
    if (sample.metric == Metric::kRetiredPages) retired += sample.value;
  if (retired >= s.retired_pages_limit)  // GpuMemoryRepairExhausted
    out.push_back(
        {HealthVerdict::kWarning, format("%.0f retired pages (limit %.0f)", retired, s.retired_pages_limit)});
  const double unc_rows = value_or(d, Metric::kRemappedRows, 0, "uncorrectable");
  if (unc_rows >= s.uncorrectable_remapped_rows_limit)  // GpuMemoryRepairExhausted
    out.push_back({HealthVerdict::kWarning, format("%.0f rows remapped for uncorrectable errors (limit %.0f)",
                                                   unc_rows, s.uncorrectable_remapped_rows_limit)});
}

void check_throttling(const DeviceSnapshot& d, const rules::ThrottleSettings& s, std::vector<Finding>& out) {
  // As the detector: the most specific active reason, else the temperature near its slowdown threshold.
  for (const auto& r : rules::kThrottleReasons) {
    if (value_or(d, Metric::kClockEventActive, 0, r.reason) > 0) {
      out.push_back({r.level, r.finding});
      return;
    }
  }
  const double temp = value_or(d, Metric::kTemperature, -1);
  const double slowdown = value_or(d, Metric::kTemperatureThreshold, -1, "slowdown");
  if (temp >= 0 && slowdown > 0 && temp >= slowdown - s.temperature_margin_c) {  // GpuTemperatureNearSlowdown
    const std::string text = "temperature %.0f C is " +
                             std::string(rules::slowdown_relation(temp, slowdown)) +
                             " the slowdown threshold %.0f C";
    out.push_back({HealthVerdict::kWarning, format(text.c_str(), temp, slowdown)});
  }
}

void check_pcie(const DeviceSnapshot& d, const rules::PcieSettings& s, std::vector<Finding>& out) {
  const double gen = value_or(d, Metric::kPcieLinkGeneration, 0),
               max_gen = value_or(d, Metric::kPcieLinkMaxGeneration, 0);
  const double width = value_or(d, Metric::kPcieLinkWidth, 0),
               max_width = value_or(d, Metric::kPcieLinkMaxWidth, 0);
  // Idle GPUs lower their link to save power; only a busy GPU below its maximum is degraded.
  if (value_or(d, Metric::kUtilization, 0) < s.busy_utilization) return;
  if (width > 0 && max_width > 0 && width < max_width)  // GpuPcieLinkDegraded
    out.push_back(
        {HealthVerdict::kWarning, format("PCIe link is x%.0f, below its maximum x%.0f", width, max_width)});
  if (gen > 0 && max_gen > 0 && gen < max_gen)  // GpuPcieLinkDegraded
    out.push_back(
        {HealthVerdict::kWarning,
         format("PCIe link runs at gen %.0f while busy, below its maximum gen %.0f", gen, max_gen)});
}

void check_fabric(const DeviceSnapshot& d, std::vector<Finding>& out) {
  if (value_or(d, Metric::kFabricRegistrationFailed, 0) > 0) {  // GpuFabricRegistrationFailed
    out.push_back({HealthVerdict::kCritical, "NVLink fabric registration failed: check the fabric manager"});
    return;  // as the detector: a failed registration is not also an unfinished one
  }
  const double state = value_or(d, Metric::kFabricState, 3);
  if (state < 3)  // GpuFabricNotRegistered
    out.push_back({HealthVerdict::kWarning, "NVLink fabric registration has not completed"});
}

void check_xids(const DeviceSnapshot& d, std::vector<Finding>& out) {
  // GpuXidCritical, GpuXidHardware, GpuXidApplication: the catalogue's class of each code seen.
  for (const auto& [xid, count] : d.xid_counts) {
    const rules::XidInfo info = rules::xid_info_or_generic(xid);
    const HealthVerdict level = rules::xid_verdict(info.cls);
    if (level == HealthVerdict::kHealthy) continue;
    std::string text = format("XID %.0f seen %.0f time(s): ", xid, static_cast<double>(count));
    out.push_back({level, text + std::string(info.meaning)});
  }
}

constexpr std::array<std::string_view, 17> kHealthAlerts = {
    "GpuLost",
    "GpuStale",
    "GpuXidCritical",
    "GpuXidHardware",
    "GpuXidApplication",
    "GpuPowerBrake",
    "GpuThermalSlowdown",
    "GpuHardwareSlowdown",
    "GpuSoftwareThermalSlowdown",
    "GpuTemperatureNearSlowdown",
    "GpuEccUncorrectable",
    "GpuRowRemapFailed",
    "GpuMemoryRepairPending",
    "GpuMemoryRepairExhausted",
    "GpuPcieLinkDegraded",
    "GpuFabricRegistrationFailed",
    "GpuFabricNotRegistered",
};

}  // namespace

Health assess_health(const DeviceSnapshot& d, const rules::DetectorSettings& settings) {
  Health h;
  if (d.state == DeviceState::kLost) {  // GpuLost
    h.verdict = HealthVerdict::kCritical;
    h.reasons.push_back("GPU is lost (fell off the bus): reboot the node");
    return h;
  }
  std::vector<Finding> findings;
  if (d.state == DeviceState::kStale)  // GpuStale
    findings.push_back({HealthVerdict::kCritical, "driver calls are not returning (hung): values are stale"});
  check_memory_errors(d, settings.ecc(), findings);
  check_throttling(d, settings.throttle(), findings);
  check_pcie(d, settings.pcie(), findings);
  check_fabric(d, findings);
  check_xids(d, findings);
  for (const auto level : {HealthVerdict::kCritical, HealthVerdict::kWarning})
    for (const auto& f : findings)
      if (f.level == level) h.reasons.push_back(f.text);
  for (const auto& f : findings) h.verdict = worse(h.verdict, f.level);
  return h;
}

std::span<const std::string_view> health_alerts() {
  return kHealthAlerts;
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
