#include "detect/detection.h"

namespace gpuwatch::detect {

DetectionOptions detection_options(const AgentOptions& options) {
  DetectionOptions d;
  d.sources.kmsg = options.kmsg;
  d.sources.sysfs_root = options.sysfs_root;
  d.sources.proc_root = options.proc_root;
  d.settings.oom_forecast.horizon = options.oom_forecast_horizon;
  d.settings.node_contention.power_budget_watts = options.node_power_budget_watts;
  return d;
}

Detection::Detection(DetectionOptions options)
    : sources_(std::move(options.sources)), detectors_(options.settings) {}

std::vector<Condition> Detection::evaluate(const Snapshot& snapshot) {
  auto conditions = detectors_.evaluate(sources_.gather(snapshot));
  if (const auto* status = sources_.kmsg_status()) {
    std::lock_guard lock(status_mutex_);
    kmsg_status_ = *status;
  }
  return conditions;
}

std::optional<kernel::KmsgStatus> Detection::kmsg_status() const {
  std::lock_guard lock(status_mutex_);
  return kmsg_status_;
}

void Detection::append_metrics(std::string& out, ExpositionFormat format) const {
  const auto status = kmsg_status();
  if (!status) return;
  auto one = [](double v) { return std::vector<Series>{{{}, v}}; };
  append_family(
      out,
      {"gpuwatch_kernel_log_readable", FamilyType::kGauge, "",
       "1 when the kernel log (--kmsg) can be read; 0 when it is absent or not permitted (CAP_SYSLOG)",
       one(status->readable ? 1 : 0)},
      format);
  append_family(out,
                {"gpuwatch_kernel_log_records_total", FamilyType::kCounter, "", "Kernel-log records read",
                 one(static_cast<double>(status->records))},
                format);
  append_family(out,
                {"gpuwatch_kernel_log_open_failures_total", FamilyType::kCounter, "",
                 "Failed attempts to open the kernel log", one(static_cast<double>(status->open_failures))},
                format);
  append_family(out,
                {"gpuwatch_kernel_log_overruns_total", FamilyType::kCounter, "",
                 "Times the kernel ring buffer overwrote records before they were read",
                 one(static_cast<double>(status->overruns))},
                format);
}

}  // namespace gpuwatch::detect
