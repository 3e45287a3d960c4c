#include "slo/slo_sink.h"

namespace gpuwatch::slo {

void SloSink::consume(const SnapshotPtr& snapshot) {
  for (const auto& scrape : snapshot->scrapes) engine_->consume(*scrape);
  measured_.observe(*snapshot);
  auto alerts = alerts_ ? alerts_() : std::vector<alerting::Alert>{};
  for (auto& m : measured_.current()) alerts.push_back(std::move(m));
  conditions_->post(engine_->evaluate(snapshot->timestamp_ms, alerts));
}

}  // namespace gpuwatch::slo
