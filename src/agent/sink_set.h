// Every sink of the agent, each on its own SinkRunner: the collector hands each published snapshot to
// publish(), which queues it for every sink and returns without waiting for any of them.
#pragma once

#include <chrono>
#include <memory>
#include <string>
#include <vector>

#include "agent/sink_runner.h"
#include "agent/snapshot_sink.h"
#include "core/snapshot.h"
#include "exposition/exposition.h"

namespace gpuwatch {

class SinkSet {
 public:
  // Starts one runner per sink, in this order.
  explicit SinkSet(const std::vector<std::shared_ptr<SnapshotSink>>& sinks,
                   std::chrono::milliseconds stop_grace = std::chrono::milliseconds(2000));

  // Queues the snapshot for every sink (a pointer copy each). Called on the collector's thread.
  void publish(const SnapshotPtr& snapshot);
  std::vector<SinkStats> stats() const;  // in the order of the sinks; thread-safe
  // gpuwatch_sink_duration_seconds, _errors_total, _dropped_snapshots_total and _queue_length. Thread-safe.
  void append_metrics(std::string& out, ExpositionFormat format) const;
  std::vector<Family> families() const;  // the same families, then each sink's own; thread-safe
  // Stops every runner at once and waits at most the stop grace for all of them to finish their queues.
  // False when a sink was left behind stuck in a consume.
  bool stop();

 private:
  std::vector<std::unique_ptr<SinkRunner>> runners_;
  std::vector<std::shared_ptr<SnapshotSink>> sinks_;  // for their own families
  std::chrono::milliseconds stop_grace_;
};

}  // namespace gpuwatch
