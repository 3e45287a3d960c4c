#include "agent/source_alerts.h"

namespace gpuwatch {
namespace {

std::string_view action_for(std::string_view reason) {
  if (reason == "library_not_loaded")
    return "install the NVIDIA driver (libnvidia-ml.so.1) or point --nvml-library at it; in a container, "
           "mount the driver's libraries (NVIDIA container toolkit)";
  if (reason == "driver_not_loaded")
    return "load the kernel module (modprobe nvidia) or reinstall the driver; check the kernel log";
  if (reason == "driver_version_mismatch")
    return "the driver library and kernel module differ (an upgrade without a reboot): reboot or reload the "
           "module";
  if (reason == "no_permission")
    return "give the agent access to /dev/nvidia* (device cgroup, container privileges)";
  return "check the kernel log and `nvidia-smi`; see the runbook";
}

}  // namespace

void SourceAlerts::evaluate(const Snapshot& snapshot, std::vector<alerting::Condition>& out) {
  for (const auto& source : snapshot.sources) {
    // Only the GPUs' source pages: a host source that fails (an unreadable kernel log, a slow sysfs) leaves
    // the detectors that use it degraded, not blind, and shows as gpuwatch_source_success 0.
    if (source.name != "nvml") continue;
    if (source.success) {
      if (!ever_succeeded_.contains(source.name)) ever_succeeded_.insert(source.name);
      continue;
    }
    alerting::Condition c;
    c.alertname = "GpuMonitoringDown";
    c.severity = alerting::Severity::kPage;
    c.labels = {{"source", source.name}};
    c.summary = "gpuwatch cannot read the GPUs (" + source.name + ": " + source.reason + ")";
    c.description = source.message;
    c.action = std::string(action_for(source.reason));
    c.for_duration =
        ever_succeeded_.contains(source.name) ? for_after_success_ : std::chrono::milliseconds(0);
    out.push_back(std::move(c));
  }
}

}  // namespace gpuwatch
