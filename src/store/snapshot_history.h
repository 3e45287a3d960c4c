// The agent's side of the history store: appends every series /metrics exposes for a snapshot (the same
// names and labels: native_families and what the agent published with it, less kNotStoredFamilies), stamped
// with the time its value was read, and renders the store's health as gpuwatch_store_* families for /metrics.
// A value carried into a snapshot without being read again (a group read every 30 s, a stale GPU) is not
// stored again: history holds what was read, when it was read.
#pragma once

#include <cstdint>
#include <memory>
#include <mutex>
#include <span>
#include <string>
#include <unordered_map>
#include <vector>

#include "core/snapshot.h"
#include "exposition/exposition.h"
#include "store/process_cap.h"
#include "store/store.h"

namespace gpuwatch::store {

class SnapshotHistory {
 public:
  // max_process_series: the per-process series cap (see ProcessSeriesCap).
  SnapshotHistory(std::shared_ptr<Store> store, std::size_t max_process_series);

  // Appends one snapshot and the families published with it (alerts, the store's and the sinks' health),
  // at the snapshot's time; quick (memory only). Called on the history sink's thread, one at a time.
  void append(const Snapshot& snapshot, std::span<const Family> published = {});
  // Appends families a sink computed from a snapshot (accounting's counters) at that snapshot's time, from
  // the sink's own thread: their values belong to that snapshot, whenever the history sink stores it.
  void append_families(std::int64_t t, std::span<const Family> families);
  // The gpuwatch_store_* families; thread-safe.
  std::vector<Family> health_families() const;
  const std::shared_ptr<Store>& store() const { return store_; }

 private:
  // What a rendered series becomes: its store labels, built and sorted once, the cap's verdict and the read
  // time of the value last stored. Swept every minute of snapshot time: series not seen for a minute go (so
  // exited processes do not pile up) and the cap is asked again about the rest (so it sees live series well
  // within its forget time).
  struct Known {
    std::shared_ptr<const Labels> labels;  // the store's own copy once stored
    bool admitted = true;
    bool ask_cap = true;  // the cap's verdict is due
    Labels aggregate;     // where its value goes when not admitted
    std::int64_t seen_ms = 0;
    std::int64_t stored_read_ms = INT64_MIN;
  };
  static constexpr std::int64_t kCacheMs = 60'000;
  void sweep(std::int64_t now_ms);                                             // under mu_
  void append_family(const Family& family, std::int64_t t, std::string& key);  // under mu_

  std::shared_ptr<Store> store_;
  mutable std::mutex mu_;
  ProcessSeriesCap cap_;
  std::unordered_map<std::string, Known> known_;
  std::int64_t cleared_at_ms_ = 0;
  // Refusals are said in the log (at most once a minute, with how many and one example), never only counted.
  std::uint64_t refused_since_warning_ = 0;
  std::string refusal_example_;
  std::int64_t warned_at_ms_ = INT64_MIN;
  void note_refusal(std::string problem);         // under mu_
  void warn_about_refusals(std::int64_t now_ms);  // under mu_
};

// How history keeps a series /metrics serves: the family's name as __name__ beside the series' labels,
// sorted, empty values dropped; and the time of its value: when it was read, never after the snapshot, or
// the snapshot's time when the series does not say.
Labels stored_labels(std::string_view family, const Series& series);
std::int64_t stored_time(const Series& series, std::int64_t snapshot_ms);
// A rendered series' identity, cheap to build for each snapshot: the family name and the labels as rendered,
// separated by characters no name or value holds. Written into `key` (reused between calls).
void series_key(std::string_view family, const Series& series, std::string& key);

// The clock domain recorded with history: "wall", or "sim:<scenario file name without .yaml>".
std::string clock_domain_for(const std::string& sim_scenario);

}  // namespace gpuwatch::store
