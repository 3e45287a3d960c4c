#include "store/retrying_history.h"

#include <spdlog/spdlog.h>

#include <algorithm>

#include "core/json_text.h"
#include "core/metric_catalogue.h"
#include "exposition/catalogue_family.h"
#include "store/store_error.h"

namespace gpuwatch::store {
namespace {

// What a store that is not open shows: every family the open store has, at zero, so that dashboards and
// alerts see the store's series throughout.
std::vector<Family> closed_families() {
  std::vector<Family> out;
  for (Metric m :
       {Metric::kStoreSamplesAppended, Metric::kStoreSamplesRejected, Metric::kStoreSeries,
        Metric::kStoreSize, Metric::kStoreWriteErrors, Metric::kStoreDroppedProcessSeries,
        Metric::kStoreCorruptBlocks, Metric::kStoreCorruptWalRecords, Metric::kStoreWalDroppedBytes}) {
    out.push_back(metric_def(m).labels[0].empty() ? single_value_family(m, 0) : catalogue_family(m));
  }
  return out;
}

void add_by_reason(Family& f, const std::map<std::string, std::uint64_t>& counts) {
  for (const auto& [reason, n] : counts) {
    // Captured by name: C++20 lambdas cannot capture a structured binding (clang refuses it).
    auto it = std::find_if(f.series.begin(), f.series.end(), [&name = reason](const Series& s) {
      return !s.labels.empty() && s.labels[0].second == name;
    });
    if (it == f.series.end())
      f.series.push_back(Series{{{"reason", reason}}, static_cast<double>(n)});
    else
      it->value += static_cast<double>(n);
  }
}

// Every reason at 0, so that each series is there to alert on before its first error.
void add_every_reason(Family& f) {
  for (const auto reason : {WriteErrorReason::kNoSpace, WriteErrorReason::kIo, WriteErrorReason::kOther})
    add_by_reason(f, {{reason_name(reason), 0}});
}

}  // namespace

RetryingHistory::RetryingHistory(StoreOptions options, std::size_t max_process_series, RetryPolicy retry,
                                 Clock now)
    : options_(std::move(options)),
      max_process_series_(max_process_series),
      retry_(retry),
      now_(std::move(now)) {
  try_open();
}

std::shared_ptr<SnapshotHistory> RetryingHistory::open_history() const {
  return std::make_shared<SnapshotHistory>(Store::open(options_), max_process_series_);
}

void RetryingHistory::try_open() {
  // Opening replays the write-ahead log, which can take a while: done without the lock, so /metrics and the
  // query API (which take it) never wait for it. Only the appending thread opens.
  std::shared_ptr<SnapshotHistory> opened;
  std::string error;
  WriteErrorReason reason = WriteErrorReason::kOther;
  try {
    opened = open_history();
  } catch (const StoreError& e) {
    error = e.what();
    reason = e.reason();
  } catch (const std::exception& e) {
    error = e.what();
  }
  std::lock_guard lock(mu_);
  if (opened) {
    if (!last_error_.empty()) {
      std::uint64_t failed = 0;
      for (const auto& [why, count] : open_errors_) failed += count;
      spdlog::info("history store: open in {} after {} failed attempt(s)", options_.data_dir, failed);
    }
    history_ = std::move(opened);
    last_error_.clear();
    backoff_ = std::chrono::milliseconds(0);
    return;
  }
  ++open_errors_[reason_name(reason)];
  backoff_ = backoff_.count() == 0 ? retry_.first_retry : std::min(backoff_ * 2, retry_.max_retry);
  next_retry_ = now_() + backoff_;
  if (error != last_error_) {  // logged when the reason changes, not on every retry
    spdlog::error(
        "history store unavailable: {}; the agent runs on without history, retrying (every {} s at most)",
        error, std::chrono::duration_cast<std::chrono::seconds>(retry_.max_retry).count());
  }
  last_error_ = std::move(error);
}

void RetryingHistory::append(const Snapshot& snapshot, std::span<const Family> published) {
  bool due = false;
  {
    std::lock_guard lock(mu_);
    due = !history_ && now_() >= next_retry_;
  }
  if (due) try_open();
  std::shared_ptr<SnapshotHistory> history;
  {
    std::lock_guard lock(mu_);
    history = history_;
  }
  if (history) history->append(snapshot, published);
}

void RetryingHistory::append_families(std::int64_t t, std::span<const Family> families) {
  std::shared_ptr<SnapshotHistory> history;
  {
    std::lock_guard lock(mu_);
    history = history_;
  }
  if (history) history->append_families(t, families);
}

std::vector<Family> RetryingHistory::health_families() const {
  std::shared_ptr<SnapshotHistory> history;
  std::map<std::string, std::uint64_t> open_errors;
  {
    std::lock_guard lock(mu_);
    history = history_;
    open_errors = open_errors_;
  }
  std::vector<Family> out = history ? history->health_families() : closed_families();
  const std::string_view write_errors = metric_def(Metric::kStoreWriteErrors).name;
  for (auto& f : out) {
    if (f.name != write_errors) continue;
    add_by_reason(f, open_errors);  // a failed open is a failed write: the store's write alerts see it
    add_every_reason(f);
  }
  out.push_back(single_value_family(Metric::kStoreUp, history ? 1 : 0));
  Family opens = catalogue_family(Metric::kStoreOpenErrors);
  add_by_reason(opens, open_errors);
  add_every_reason(opens);
  out.push_back(std::move(opens));
  return out;
}

std::shared_ptr<Store> RetryingHistory::store() const {
  std::lock_guard lock(mu_);
  return history_ ? history_->store() : nullptr;
}

std::string RetryingHistory::unavailable_reason() const {
  std::lock_guard lock(mu_);
  return history_ ? "" : last_error_;
}

void RetryingHistory::commit() {
  const auto s = store();
  if (!s) return;
  try {
    s->commit();
  } catch (const std::exception& e) {
    spdlog::error("history store: last sync failed: {}", e.what());
  }
}

std::vector<SeriesPoints> RetryingHistory::select(std::span<const LabelMatcher> matchers, std::int64_t min_t,
                                                  std::int64_t max_t) const {
  const auto s = store();
  return s ? s->select(matchers, min_t, max_t) : std::vector<SeriesPoints>{};
}

std::vector<Labels> RetryingHistory::series(std::span<const LabelMatcher> matchers, std::int64_t min_t,
                                            std::int64_t max_t) const {
  const auto s = store();
  return s ? s->series(matchers, min_t, max_t) : std::vector<Labels>{};
}

void RetryingHistory::for_each_series(
    std::span<const LabelMatcher> matchers, std::int64_t min_t, std::int64_t max_t,
    const std::function<void(const Labels&, std::span<const Point>)>& fn) const {
  if (const auto s = store()) s->for_each_series(matchers, min_t, max_t, fn);
}

void RetryingHistory::for_each_series_checked(
    std::span<const LabelMatcher> matchers, std::int64_t min_t, std::int64_t max_t,
    const std::function<void(const Labels&, std::span<const Point>)>& fn,
    const Checkpoint& checkpoint) const {
  if (const auto s = store()) {
    s->for_each_series_checked(matchers, min_t, max_t, fn, checkpoint);
  } else {
    checkpoint();
  }
}

void RetryingHistory::for_each_series_at(std::span<const LabelMatcher> matchers, std::int64_t min_t,
                                         std::int64_t max_t, const EvalTimes& times,
                                         const std::function<void(const Labels&, std::span<const Point>)>& fn,
                                         const Checkpoint& checkpoint) const {
  if (const auto s = store()) {
    s->for_each_series_at(matchers, min_t, max_t, times, fn, checkpoint);
  } else {
    checkpoint();
  }
}

std::vector<HttpRoute> unavailable_until_open(std::vector<HttpRoute> routes,
                                              std::shared_ptr<const RetryingHistory> history) {
  for (auto& route : routes) {
    route.handle = [history, handle = std::move(route.handle)](const HttpRequest& req) {
      const std::string reason = history->unavailable_reason();
      if (reason.empty()) return handle(req);
      const nlohmann::json body = {{"status", "error"},
                                   {"errorType", "unavailable"},
                                   {"error", "history store unavailable: " + reason}};
      return HttpReply{503, "application/json", to_json_text(body) + "\n", {{"Retry-After", "5"}}};
    };
  }
  return routes;
}

}  // namespace gpuwatch::store
