// A consumer of snapshots: history, detection with alerting, and any later one (SLOs, accounting, remote
// write). The agent gives each sink its own thread and its own bounded queue (SinkRunner), so a sink that is
// slow, stuck or throwing costs only itself: the collector keeps its interval and the other sinks go on.
#pragma once

#include <cstddef>
#include <string_view>

#include <vector>

#include "core/snapshot.h"
#include "exposition/exposition.h"

namespace gpuwatch {

// What a full queue gives up when one more snapshot arrives.
enum class WhenFull {
  kDropOldest,  // the newest snapshot matters most (detection: act on the present)
  kDropNewest,  // what is queued is kept and written in order; the gap is one stretch (history)
};

struct SinkQueueOptions {
  std::size_t capacity = 4;  // snapshots waiting; at least 1
  WhenFull when_full = WhenFull::kDropOldest;
};

class SnapshotSink {
 public:
  virtual ~SnapshotSink() = default;
  // The `sink` label of its gpuwatch_sink_* metrics and its name in the log: lower case, stable.
  virtual std::string_view name() const = 0;
  // Called on the sink's own thread, one snapshot at a time, in publication order (with gaps where the queue
  // dropped some). May throw: the error is counted and logged, and the next snapshot comes as usual.
  virtual void consume(const SnapshotPtr& snapshot) = 0;
  // How its queue behaves; read once, when the sink starts.
  virtual SinkQueueOptions queue() const { return {}; }
  // Its own families for /metrics and history beside gpuwatch_sink_* (remote write's queues); thread-safe.
  virtual std::vector<Family> families() const { return {}; }
};

}  // namespace gpuwatch
