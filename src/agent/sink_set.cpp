#include "agent/sink_set.h"

#include "core/metric_catalogue.h"
#include "exposition/catalogue_family.h"

namespace gpuwatch {
SinkSet::SinkSet(const std::vector<std::shared_ptr<SnapshotSink>>& sinks,
                 std::chrono::milliseconds stop_grace)
    : sinks_(sinks), stop_grace_(stop_grace) {
  runners_.reserve(sinks.size());
  for (const auto& sink : sinks) runners_.push_back(std::make_unique<SinkRunner>(sink, stop_grace));
}

void SinkSet::publish(const SnapshotPtr& snapshot) {
  for (auto& runner : runners_) runner->offer(snapshot);
}

std::vector<SinkStats> SinkSet::stats() const {
  std::vector<SinkStats> out;
  out.reserve(runners_.size());
  for (const auto& runner : runners_) out.push_back(runner->stats());
  return out;
}

std::vector<Family> SinkSet::families() const {
  Family duration = catalogue_family(Metric::kSinkDuration);
  Family errors = catalogue_family(Metric::kSinkErrors);
  Family dropped = catalogue_family(Metric::kSinkDropped);
  Family queued = catalogue_family(Metric::kSinkQueueLength);
  for (const auto& s : stats()) {
    duration.series.push_back(Series{{{"sink", s.name}}, s.duration_seconds});
    errors.series.push_back(Series{{{"sink", s.name}}, static_cast<double>(s.errors)});
    dropped.series.push_back(Series{{{"sink", s.name}}, static_cast<double>(s.dropped)});
    queued.series.push_back(Series{{{"sink", s.name}}, static_cast<double>(s.queue_length)});
  }
  std::vector<Family> out;
  for (Family* f : {&duration, &errors, &dropped, &queued}) out.push_back(std::move(*f));
  for (const auto& sink : sinks_)
    for (auto& f : sink->families()) out.push_back(std::move(f));
  return out;
}

void SinkSet::append_metrics(std::string& out, ExpositionFormat format) const {
  for (const auto& f : families()) append_family(out, f, format);
}

bool SinkSet::stop() {
  for (auto& runner : runners_) runner->request_stop();
  const auto deadline = std::chrono::steady_clock::now() + stop_grace_;
  bool clean = true;
  for (auto& runner : runners_) clean = runner->wait_until(deadline) && clean;
  return clean;
}

}  // namespace gpuwatch
