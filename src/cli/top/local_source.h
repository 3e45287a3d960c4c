// Frames from the GPUs of this host: the agent's collector runs on a thread of its own (each GPU with its own
// worker and deadline, as in the agent), and the detectors judge every new snapshot. A hung GPU is shown
// stale by the collector; a collector that publishes nothing at all (a hung nvmlInit) leaves the last frame
// standing with a problem that says for how long. Nothing here ever waits for a device.
#pragma once

#include <chrono>
#include <map>
#include <memory>
#include <string>

#include "cli/top/frame.h"
#include "cli/top/wakeup.h"
#include "collector/abandonable_worker.h"
#include "collector/collector.h"
#include "detect/detection.h"

namespace gpuwatch::top {

class LocalSource : public FrameSource {
 public:
  // `wakeup` is notified with each snapshot the collector publishes.
  LocalSource(const CollectorOptions& options, const detect::DetectionOptions& detection,
              std::shared_ptr<const Wakeup> wakeup);
  FramePtr latest() override;

 private:
  // The alerts that hold, pending until their for: duration has passed, as the agent's engine would have
  // them (top has no engine: it keeps when each condition began).
  std::vector<TopAlert> alerts_of(const std::vector<Condition>& conditions, std::int64_t now_ms);

  std::shared_ptr<Collector> collector_;
  std::unique_ptr<AbandonableWorker> worker_;  // runs collector_->run(); abandoned if stuck in the driver
  rules::DetectorSettings settings_;
  detect::Detection detection_;
  std::map<std::string, std::int64_t> condition_since_ms_;  // by alertname and labels
  std::chrono::milliseconds interval_;
  FramePtr frame_;
  std::uint64_t sequence_ = 0;
  std::string origin_;
};

}  // namespace gpuwatch::top
