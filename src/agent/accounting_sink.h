// Accounting as a sink: every snapshot charged to the ledger (accounting/ledger.h), and its counters
// appended to the history at that snapshot's time by this sink itself, so that the history holds exactly
// what the ledger charged whichever sink runs first; /metrics serves the counters of the last snapshot
// charged. Its queue keeps what it holds (drop newest, 1,024 snapshots: a consume costs tens of microseconds,
// so only a stall of the sink's thread fills it, and a lockstep run's snapshots come as fast as the machine
// makes them): a dropped snapshot's time is charged to the one before it, which is right unless the GPU
// changed state in between. The queue holds pointers to snapshots the other sinks hold too.
#pragma once

#include <memory>
#include <mutex>
#include <string_view>
#include <vector>

#include "accounting/ledger.h"
#include "agent/snapshot_sink.h"
#include "exposition/exposition.h"
#include "store/retrying_history.h"

namespace gpuwatch {

class AccountingSink final : public SnapshotSink {
 public:
  // history: where the counters are kept, or null without history.
  AccountingSink(accounting::LedgerOptions options, std::shared_ptr<store::RetryingHistory> history)
      : ledger_(std::move(options)), history_(std::move(history)) {}
  std::string_view name() const override { return "accounting"; }
  void consume(const SnapshotPtr& snapshot) override;
  SinkQueueOptions queue() const override { return {1024, WhenFull::kDropNewest}; }

  // The counters as of the last snapshot charged; thread-safe. Not SnapshotSink::families(): the sink writes
  // them into the history itself, at each snapshot's time, and the agent serves them through PublishedState.
  std::vector<Family> counters() const;
  void set_settings(AccountingSettings settings);  // a reload; thread-safe

 private:
  mutable std::mutex mu_;      // families_ and settings_
  accounting::Ledger ledger_;  // the sink's thread only
  std::shared_ptr<store::RetryingHistory> history_;
  std::shared_ptr<const std::vector<Family>> families_ = std::make_shared<const std::vector<Family>>();
  std::shared_ptr<const AccountingSettings> settings_;  // set by a reload, taken by the next consume
};

}  // namespace gpuwatch
