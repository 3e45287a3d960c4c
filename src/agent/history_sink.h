// History as a sink: every snapshot appended to the store. Its queue keeps what it holds (drop newest when
// full): the queued snapshots are written in order, and a stall loses one contiguous stretch of newer ones
// rather than holes all over; 32 snapshots ride out a slow sync or a long query holding the store. The
// history frees the most memory in the middle of the heap, so its thread also gives free pages back
// (heap_trim.h).
#pragma once

#include <memory>
#include <string_view>

#include "agent/heap_trim.h"
#include "agent/published_families.h"
#include "agent/snapshot_sink.h"
#include "config/agent_options.h"
#include "store/retrying_history.h"

namespace gpuwatch {

// The history store the options ask for, or null when it is off. One that cannot open degrades the history
// only: it is retried with backoff (store/retrying_history.h).
std::shared_ptr<store::RetryingHistory> open_history(const AgentOptions& options);

class HistorySink final : public SnapshotSink {
 public:
  // published: what the agent serves beside the snapshot (alerts, store, sinks), stored with each snapshot
  // as /metrics serves it; null to store the snapshot's families only.
  HistorySink(std::shared_ptr<store::RetryingHistory> history,
              std::shared_ptr<const PublishedState> published)
      : history_(std::move(history)), published_(std::move(published)) {}
  std::string_view name() const override { return "history"; }
  void consume(const SnapshotPtr& snapshot) override;
  SinkQueueOptions queue() const override { return {32, WhenFull::kDropNewest}; }

 private:
  std::shared_ptr<store::RetryingHistory> history_;
  std::shared_ptr<const PublishedState> published_;
  HeapTrim trim_;
};

}  // namespace gpuwatch
