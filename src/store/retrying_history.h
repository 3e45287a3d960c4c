// The history store as the agent holds it: a store that cannot be opened (disk full, a data dir that is not
// a directory or not writable, another agent holding its LOCK) degrades the history only. The agent keeps
// collecting, alerting and serving; the failure is logged, counted and shown as gpuwatch_store_up 0; opening
// is retried with backoff on the next appends, and the history comes up by itself once the cause is gone.
// Meanwhile the query API answers 503 "history store unavailable: <reason>" instead of disappearing.
#pragma once

#include <chrono>
#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <span>
#include <string>
#include <vector>

#include "core/step_sampled_source.h"
#include "exposition/exposition.h"
#include "http/http_route.h"
#include "store/snapshot_history.h"
#include "store/store.h"

namespace gpuwatch::store {

struct RetryPolicy {
  std::chrono::milliseconds first_retry{std::chrono::seconds(1)};  // after the first failure
  std::chrono::milliseconds max_retry{std::chrono::seconds(30)};   // the backoff doubles up to this
};

class RetryingHistory final : public SeriesSource, public StepSampledSource {
 public:
  using Clock = std::function<std::chrono::steady_clock::time_point()>;

  // Tries to open the store at once (the agent's start); on failure, again on appends when a retry is due.
  RetryingHistory(StoreOptions options, std::size_t max_process_series, RetryPolicy retry = {},
                  Clock now = std::chrono::steady_clock::now);

  // Appends the snapshot when the store is open; else opens it first when a retry is due (on this thread:
  // with a large write-ahead log, that opening call replays it).
  void append(const Snapshot& snapshot, std::span<const Family> published = {});
  // Appends a sink's families at a snapshot's time (SnapshotHistory::append_families) when the store is
  // open; never opens it (that is the history sink's thread's).
  void append_families(std::int64_t t, std::span<const Family> families);
  // The gpuwatch_store_* families, present whether or not the store is open.
  std::vector<Family> health_families() const;
  // The open store, or null while it cannot be opened.
  std::shared_ptr<Store> store() const;
  // Why the store is not open ("" when it is).
  std::string unavailable_reason() const;
  // Syncs the open store (at shutdown); logs a failure.
  void commit();

  std::vector<SeriesPoints> select(std::span<const LabelMatcher> matchers, std::int64_t min_t,
                                   std::int64_t max_t) const override;
  std::vector<Labels> series(std::span<const LabelMatcher> matchers, std::int64_t min_t,
                             std::int64_t max_t) const override;
  void for_each_series(std::span<const LabelMatcher> matchers, std::int64_t min_t, std::int64_t max_t,
                       const std::function<void(const Labels&, std::span<const Point>)>& fn) const override;
  // Forwarded as it is: the store checks the query's deadline between series and streams their points.
  void for_each_series_checked(std::span<const LabelMatcher> matchers, std::int64_t min_t, std::int64_t max_t,
                               const std::function<void(const Labels&, std::span<const Point>)>& fn,
                               const Checkpoint& checkpoint) const override;
  void for_each_series_at(std::span<const LabelMatcher> matchers, std::int64_t min_t, std::int64_t max_t,
                          const EvalTimes& times,
                          const std::function<void(const Labels&, std::span<const Point>)>& fn,
                          const Checkpoint& checkpoint) const override;

 private:
  void try_open();  // on the appending thread only; takes mu_ itself
  std::shared_ptr<SnapshotHistory> open_history() const;

  StoreOptions options_;
  std::size_t max_process_series_;
  RetryPolicy retry_;
  Clock now_;

  mutable std::mutex mu_;
  std::shared_ptr<SnapshotHistory> history_;
  std::string last_error_;
  std::map<std::string, std::uint64_t> open_errors_;  // failed attempts, by write-error reason
  std::chrono::milliseconds backoff_{0};
  std::chrono::steady_clock::time_point next_retry_{};
};

// `routes` (the query API over a RetryingHistory) answering 503 "history store unavailable: <reason>", in
// Prometheus's error shape, until the history is open.
std::vector<HttpRoute> unavailable_until_open(std::vector<HttpRoute> routes,
                                              std::shared_ptr<const RetryingHistory> history);

}  // namespace gpuwatch::store
