// One sink on its own thread, fed through its own bounded queue. offer() never waits for the sink: it
// queues the snapshot (dropping by the sink's policy when the queue is full) and wakes the thread through a
// condition variable, so a sink sees a new snapshot as soon as it is published (an XID's immediate
// collection reaches detection without a poll). An exception from the sink is caught, counted and logged
// (the first at once, then at most once a minute per sink, with the number left out).
#pragma once

#include <chrono>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>

#include "agent/snapshot_sink.h"
#include "core/snapshot.h"

namespace gpuwatch {

// A sink's state for gpuwatch_sink_* on /metrics.
struct SinkStats {
  std::string name;
  // The last consume's wall time, or the running one's time so far when it has run longer (a stuck sink
  // shows a growing value). 0 before the first consume.
  double duration_seconds = 0;
  std::uint64_t consumed = 0;  // snapshots consumed, failed ones included
  std::uint64_t errors = 0;    // consumes that threw
  std::uint64_t dropped = 0;   // snapshots its full queue gave up
  std::size_t queue_length = 0;
};

class SinkRunner {
 public:
  // Starts the sink's thread. stop_grace: how long stop() waits for the sink to finish its queue.
  explicit SinkRunner(std::shared_ptr<SnapshotSink> sink,
                      std::chrono::milliseconds stop_grace = std::chrono::milliseconds(2000));
  ~SinkRunner();  // stop()
  SinkRunner(const SinkRunner&) = delete;
  SinkRunner& operator=(const SinkRunner&) = delete;

  // Queues a snapshot for the sink; never blocks on it. Thread-safe.
  void offer(const SnapshotPtr& snapshot);
  SinkStats stats() const;  // thread-safe

  // Asks the thread to end once the sink has consumed what is queued; does not wait. Later offers are
  // ignored.
  void request_stop();
  // Waits until the thread has ended, or the deadline: a sink still busy then is left behind (its thread
  // keeps the sink alive until it returns). Returns false in that case. Call after request_stop().
  bool wait_until(std::chrono::steady_clock::time_point deadline);
  // request_stop(), then waits at most the stop grace.
  bool stop();

 private:
  struct State;
  std::shared_ptr<State> state_;  // shared with the thread, so a thread left behind still has it
  std::chrono::milliseconds stop_grace_;
  bool clean_ = true;
  bool waited_ = false;
};

}  // namespace gpuwatch
