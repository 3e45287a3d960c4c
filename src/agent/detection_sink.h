// Detection with alerting as a sink: the detectors' conditions and the agent's own (SourceAlerts) for each
// snapshot, handed to the alert engine at the snapshot's time. Its queue keeps the newest (drop oldest when
// full): alerts are about the present, and 4 snapshots absorb a slow evaluation (the fsync of the alert
// queue) without falling behind.
#pragma once

#include <memory>
#include <string_view>

#include "agent/snapshot_sink.h"
#include "agent/source_alerts.h"
#include "alerting/alerting_service.h"
#include "detect/detection.h"
#include "slo/slo_conditions.h"

namespace gpuwatch {

class DetectionSink final : public SnapshotSink {
 public:
  // slo_conditions: the SLO sink's latest conditions, evaluated with the detectors' (null: no SLOs).
  DetectionSink(std::shared_ptr<detect::Detection> detection,
                std::shared_ptr<alerting::AlertingService> alerts,
                std::shared_ptr<const slo::SloConditions> slo_conditions = nullptr)
      : detection_(std::move(detection)),
        alerts_(std::move(alerts)),
        slo_conditions_(std::move(slo_conditions)) {}
  std::string_view name() const override { return "detection"; }
  void consume(const SnapshotPtr& snapshot) override;
  SinkQueueOptions queue() const override { return {4, WhenFull::kDropOldest}; }

 private:
  std::shared_ptr<detect::Detection> detection_;
  std::shared_ptr<alerting::AlertingService> alerts_;
  std::shared_ptr<const slo::SloConditions> slo_conditions_;
  SourceAlerts source_alerts_;
};

}  // namespace gpuwatch
