#include "slo/slo_sink.h"

namespace gpuwatch::slo {

void SloSink::consume(const SnapshotPtr& snapshot) {
  for (const auto& scrape : snapshot->scrapes) engine_->consume(*scrape);
  const auto alerts = alerts_ ? alerts_() : std::vector<alerting::Alert>{};
  conditions_->post(engine_->evaluate(snapshot->timestamp_ms, alerts));
}

}  // namespace gpuwatch::slo
