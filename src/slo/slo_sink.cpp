#include "slo/slo_sink.h"

#include <spdlog/spdlog.h>

#include <algorithm>

#include "slo/slo_families.h"
#include "slo/warm_start.h"

namespace gpuwatch::slo {

void SloSink::consume(const SnapshotPtr& snapshot) {
  if (!warmed_) {
    warmed_ = true;
    // Up to the first live sample: what the history sink stores of this snapshot is read live.
    std::int64_t until = snapshot->timestamp_ms;
    for (const auto& scrape : snapshot->scrapes) {
      for (const auto& s : scrape->samples) until = std::min(until, s.t_ms);
    }
    if (history_) {
      try {
        const auto r = warm_start(*engine_, *history_, until);
        spdlog::info("slo: warm start from the history: {} series, {} samples", r.series, r.samples);
      } catch (const std::exception& e) {
        // A history that cannot be read costs the past only: the SLOs count from now.
        spdlog::warn("slo: no warm start from the history ({}); the windows start empty", e.what());
      }
    }
  }
  for (const auto& scrape : snapshot->scrapes) engine_->consume(*scrape);
  measured_.observe(*snapshot);
  auto alerts = alerts_ ? alerts_() : std::vector<alerting::Alert>{};
  for (auto& m : measured_.current()) alerts.push_back(std::move(m));
  conditions_->post(engine_->evaluate(snapshot->timestamp_ms, alerts));
}

std::vector<Family> SloSink::families() const {
  const auto status = engine_->status();
  return slo_families(status);
}

}  // namespace gpuwatch::slo
