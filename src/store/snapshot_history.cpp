#include "store/snapshot_history.h"

#include <filesystem>
#include <map>

#include <spdlog/spdlog.h>

#include "core/metric_catalogue.h"
#include "core/scrape_result.h"
#include "exposition/catalogue_family.h"
#include "exposition/native_metrics.h"

namespace gpuwatch::store {
namespace {

constexpr std::int64_t kForgetProcessSeriesMs = 10 * 60 * 1000;

Family by_reason(Metric m, const std::map<std::string, std::uint64_t>& counts) {
  Family f = catalogue_family(m);
  for (const auto& [reason, n] : counts)
    f.series.push_back(Series{{{"reason", reason}}, static_cast<double>(n)});
  return f;
}

}  // namespace

SnapshotHistory::SnapshotHistory(std::shared_ptr<Store> store, std::size_t max_process_series)
    : store_(std::move(store)), cap_(max_process_series, kForgetProcessSeriesMs) {}

void SnapshotHistory::sweep(std::int64_t now_ms) {
  if (now_ms < cleared_at_ms_) {
    known_.clear();  // the clock went back: nothing known still describes the store
  } else {
    std::erase_if(known_, [this](const auto& entry) { return entry.second.seen_ms < cleared_at_ms_; });
    for (auto& [key, known] : known_) known.ask_cap = true;
  }
  cleared_at_ms_ = now_ms;
}

void SnapshotHistory::append(const Snapshot& snapshot, std::span<const Family> published) {
  const std::int64_t t = snapshot.timestamp_ms;
  std::lock_guard lock(mu_);
  if (t - cleared_at_ms_ >= kCacheMs || t < cleared_at_ms_) sweep(t);
  std::string key;
  for (const auto& family : native_families(snapshot)) append_family(family, t, key);
  for (const auto& family : published) append_family(family, t, key);
  // Each scrape once, at its own time (or the times its samples carry): a snapshot holds only the scrapes
  // that finished since the one before.
  for (const auto& scrape : snapshot.scrapes) {
    for (const auto& s : scrape->samples) {
      auto problem = store_->append(s.labels, s.t_ms, s.value);
      // A target that repeats a sample with its own timestamp is not news (Prometheus drops those too).
      if (!problem.empty() && problem.rfind("duplicate", 0) != 0) note_refusal(std::move(problem));
    }
  }
  warn_about_refusals(t);
}

void SnapshotHistory::append_families(std::int64_t t, std::span<const Family> families) {
  std::lock_guard lock(mu_);
  // No sweep here: the history sink's appends sweep by their own time, which this one's may trail.
  std::string key;
  for (const auto& family : families) append_family(family, t, key);
}

void SnapshotHistory::note_refusal(std::string problem) {
  if (refused_since_warning_++ == 0) refusal_example_ = std::move(problem);
}

void SnapshotHistory::warn_about_refusals(std::int64_t now_ms) {
  if (refused_since_warning_ == 0 || (warned_at_ms_ != INT64_MIN && now_ms - warned_at_ms_ < kCacheMs))
    return;
  spdlog::warn(
      "history: refused {} sample(s) since the last warning, e.g. {}. They are not kept; "
      "gpuwatch_store_samples_rejected_total counts them by reason (out_of_order: the store already holds "
      "newer samples of the series, as after a run whose clock was ahead of this one)",
      refused_since_warning_, refusal_example_);
  refused_since_warning_ = 0;
  refusal_example_.clear();
  warned_at_ms_ = now_ms;
}

void SnapshotHistory::append_family(const Family& family, std::int64_t t, std::string& key) {
  if (!is_stored(family.name)) return;
  std::map<Labels, double> aggregates;
  for (const auto& series : family.series) {
    series_key(family.name, series, key);
    auto [it, fresh] = known_.try_emplace(key);
    Known& known = it->second;
    // Sorted once; the store's index keeps this same label set for the series, not a copy.
    if (fresh) known.labels = std::make_shared<const Labels>(stored_labels(family.name, series));
    if (known.ask_cap) {
      known.admitted = cap_.admit(*known.labels, t);
      known.aggregate = known.admitted ? Labels{} : aggregate_labels(*known.labels);
      known.ask_cap = false;
    }
    known.seen_ms = t;
    const std::int64_t read_t = stored_time(series, t);
    if (known.admitted) {
      if (read_t <= known.stored_read_ms) continue;  // carried, not read again: already stored
      if (auto problem = store_->append_shared(known.labels, read_t, series.value); !problem.empty())
        note_refusal(std::move(problem));  // counted by the store too, by reason
      known.stored_read_ms = read_t;
    } else {
      aggregates[known.aggregate] += series.value;
    }
  }
  for (const auto& [agg, value] : aggregates)
    if (auto problem = store_->append(agg, t, value); !problem.empty()) note_refusal(std::move(problem));
}

std::vector<Family> SnapshotHistory::health_families() const {
  const StoreHealth h = store_->health();
  std::uint64_t dropped = 0;
  {
    std::lock_guard lock(mu_);
    dropped = cap_.dropped();
  }
  std::vector<Family> out;
  out.push_back(single_value_family(Metric::kStoreSamplesAppended, static_cast<double>(h.samples_appended)));
  out.push_back(by_reason(Metric::kStoreSamplesRejected, h.samples_rejected));
  out.push_back(single_value_family(Metric::kStoreSeries, static_cast<double>(h.series)));
  out.push_back(single_value_family(Metric::kStoreSize, static_cast<double>(h.bytes_on_disk)));
  Family errors = by_reason(Metric::kStoreWriteErrors, h.write_errors);
  if (errors.series.empty())
    errors.series.push_back(Series{{{"reason", "no_space"}}, 0});  // alertable from 0
  out.push_back(std::move(errors));
  if (h.last_sync_unix_ms > 0)
    out.push_back(
        single_value_family(Metric::kStoreLastSync, static_cast<double>(h.last_sync_unix_ms) / 1000.0));
  out.push_back(single_value_family(Metric::kStoreDroppedProcessSeries, static_cast<double>(dropped)));
  out.push_back(single_value_family(Metric::kStoreCorruptBlocks, static_cast<double>(h.corrupt_blocks)));
  out.push_back(
      single_value_family(Metric::kStoreCorruptWalRecords, static_cast<double>(h.corrupt_wal_records)));
  out.push_back(
      single_value_family(Metric::kStoreWalDroppedBytes, static_cast<double>(h.unwritten_bytes_dropped)));
  return out;
}

Labels stored_labels(std::string_view family, const Series& series) {
  Labels labels;
  labels.reserve(series.labels.size() + 1);
  labels.emplace_back("__name__", std::string(family));
  for (const auto& [name, value] : series.labels) labels.emplace_back(std::string(name), value);
  normalize_labels(labels);
  return labels;
}

void series_key(std::string_view family, const Series& series, std::string& key) {
  key = family;
  for (const auto& [name, value] : series.labels) {
    key += '\x1f';
    key += name;
    key += '=';
    key += value;
  }
}

std::int64_t stored_time(const Series& series, std::int64_t snapshot_ms) {
  // Never ahead of the snapshot: a read time comes from the same clock, at or before it.
  return series.read_ms > 0 ? std::min(series.read_ms, snapshot_ms) : snapshot_ms;
}

std::string clock_domain_for(const std::string& sim_scenario) {
  if (sim_scenario.empty()) return "wall";
  return "sim:" + std::filesystem::path(sim_scenario).stem().string();
}

}  // namespace gpuwatch::store
