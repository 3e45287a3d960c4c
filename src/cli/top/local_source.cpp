#include "cli/top/local_source.h"

#include "core/duration.h"
#include "core/wall_clock.h"

namespace gpuwatch::top {
namespace {

std::string condition_key(const Condition& c) {
  std::string key = c.alertname;
  for (const auto& [name, value] : c.labels) key += "\x1f" + name + "=" + value;
  return key;
}

}  // namespace

LocalSource::LocalSource(const CollectorOptions& options, const detect::DetectionOptions& detection,
                         std::shared_ptr<const Wakeup> wakeup)
    : collector_(std::make_shared<Collector>(options)),
      settings_(detection.settings),
      detection_(detection),
      interval_(options.effective_interval()),
      origin_("NVML " +
              (options.nvml_library.empty() ? std::string("libnvidia-ml.so.1") : options.nvml_library)) {
  collector_->set_snapshot_callback([wakeup = std::move(wakeup)](const SnapshotPtr&) { wakeup->notify(); });
  // The job owns the collector with this source: an abandoned run (stuck in the driver) outlives neither.
  worker_ = std::make_unique<AbandonableWorker>(
      [collector = collector_](const std::stop_token& stop) { collector->run(stop); });
  worker_->start();
}

std::vector<TopAlert> LocalSource::alerts_of(const std::vector<Condition>& conditions, std::int64_t now_ms) {
  std::map<std::string, std::int64_t> since;
  std::vector<TopAlert> alerts;
  for (const auto& c : conditions) {
    if (c.alertname == "Watchdog") continue;  // the always-firing liveness alert says nothing on a screen
    const std::string key = condition_key(c);
    const auto it = condition_since_ms_.find(key);
    const std::int64_t began = it == condition_since_ms_.end() ? now_ms : it->second;
    since[key] = began;
    const auto gpu = c.labels.find("gpu");
    alerts.push_back({now_ms - began >= c.for_duration.count() ? "firing" : "pending",
                      std::string(severity_name(c.severity)), c.alertname,
                      gpu == c.labels.end() ? std::string() : gpu->second, began, c.summary});
  }
  condition_since_ms_ = std::move(since);
  sort_alerts(alerts);
  return alerts;
}

FramePtr LocalSource::latest() {
  const SnapshotPtr snap = collector_->latest();
  const std::int64_t now = wall_unix_ms();
  if (snap && snap->sequence != sequence_) {
    sequence_ = snap->sequence;
    auto frame = std::make_shared<TopFrame>();
    frame->snapshot = snap;
    for (const auto& d : snap->devices) frame->health.push_back(assess_health(d, settings_));
    frame->alerts = alerts_of(detection_.evaluate(*snap), now);
    frame->origin = origin_;
    frame->received_ms = now;
    frame_ = std::move(frame);
  } else if (frame_ && now - frame_->received_ms > 3 * interval_.count() + 1000) {
    // Nothing new for three intervals: the whole collection waits in the driver. Say so on the last frame.
    auto stale = std::make_shared<TopFrame>(*frame_);
    stale->problem = "no new reading from NVML for " +
                     format_duration(std::chrono::milliseconds(now - frame_->received_ms)) +
                     " (a hung driver call?)";
    return stale;
  }
  return frame_;
}

}  // namespace gpuwatch::top
