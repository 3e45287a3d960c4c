#include "agent/detection_sink.h"

namespace gpuwatch {

void DetectionSink::consume(const SnapshotPtr& snapshot) {
  auto conditions = detection_->evaluate(*snapshot);
  source_alerts_.evaluate(*snapshot, conditions);
  if (slo_conditions_) {
    for (auto& c : slo_conditions_->latest()) conditions.push_back(std::move(c));
  }
  for (auto& c : conditions) {
    // The hostname /metrics reports (the simulated node's on libnvml-sim), unless the rule set one.
    if (!snapshot->node.hostname.empty()) c.labels.emplace("hostname", snapshot->node.hostname);
  }
  alerts_->evaluate(conditions, snapshot->timestamp_ms);
}

}  // namespace gpuwatch
