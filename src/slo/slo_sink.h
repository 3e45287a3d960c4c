// SLOs as an isolated consumer of the pipeline: the scrapes each snapshot carries update the SLOs' windows on
// the sink's own thread, then the SLOs are evaluated at the snapshot's time against the alert engine's
// current alerts (for the GPU cause), and their conditions posted for the alert engine. Keeps the newest
// snapshots (drop oldest) like detection, but a dropped snapshot loses its scrapes' events only until the
// next scrape of the same series: counters are cumulative, so the increase is counted then. With a history,
// the first snapshot first warm-starts the windows from the stored scrapes before it (slo/warm_start.h).
#pragma once

#include <functional>
#include <memory>
#include <string_view>
#include <vector>

#include "agent/snapshot_sink.h"
#include "alerting/alert.h"
#include "core/series.h"
#include "slo/measured_degradations.h"
#include "slo/slo_conditions.h"
#include "slo/slo_engine.h"

namespace gpuwatch::slo {

class SloSink final : public SnapshotSink {
 public:
  // history: where the scrapes are kept (null: none, the SLOs start empty).
  SloSink(std::shared_ptr<SloEngine> engine, std::shared_ptr<SloConditions> conditions,
          std::function<std::vector<alerting::Alert>()> alerts,
          std::shared_ptr<const SeriesSource> history = nullptr)
      : engine_(std::move(engine)),
        conditions_(std::move(conditions)),
        alerts_(std::move(alerts)),
        history_(std::move(history)) {}
  std::string_view name() const override { return "slo"; }
  void consume(const SnapshotPtr& snapshot) override;
  SinkQueueOptions queue() const override { return {16, WhenFull::kDropOldest}; }
  // The figures of the last evaluation (slo/slo_families.h); thread-safe.
  std::vector<Family> families() const override;

 private:
  std::shared_ptr<SloEngine> engine_;
  std::shared_ptr<SloConditions> conditions_;
  std::function<std::vector<alerting::Alert>()> alerts_;
  std::shared_ptr<const SeriesSource> history_;
  bool warmed_ = false;
  MeasuredDegradations measured_;
};

}  // namespace gpuwatch::slo
