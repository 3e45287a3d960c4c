// Bounds per-process series (those with a pid label), which churn without bound on a busy node. Up to `cap`
// distinct per-process series are stored as they are; a series first seen while the cap is full is not
// created: its values are summed into an aggregate series instead, so totals stay right.
//
// The aggregate has the same name and labels minus pid and process, plus pid="other". Labels that say where a
// process belongs (container, pod, job, ...) are kept, so totals stay per container or job; with nothing
// else known they are per GPU. A series not seen for `forget_after_ms` frees its place under the cap.
#pragma once

#include <cstdint>
#include <string>
#include <unordered_map>

#include "core/series.h"

namespace gpuwatch::store {

class ProcessSeriesCap {
 public:
  ProcessSeriesCap(std::size_t cap, std::int64_t forget_after_ms)
      : cap_(cap), forget_after_ms_(forget_after_ms) {}
  // True when the series is not per-process or has (or gets) a place under the cap.
  bool admit(const Labels& labels, std::int64_t now_ms);
  // Distinct per-process series refused so far.
  std::uint64_t dropped() const { return dropped_; }
  std::size_t admitted() const { return admitted_.size(); }

 private:
  void forget_idle(std::int64_t now_ms);
  std::size_t cap_;
  std::int64_t forget_after_ms_;
  std::unordered_map<std::string, std::int64_t> admitted_;  // series key -> last seen
  std::unordered_map<std::string, std::int64_t> refused_;   // so a refused series is counted once
  std::int64_t last_sweep_ms_ = 0;
  std::uint64_t dropped_ = 0;
};

// The aggregate series a refused per-process series is summed into.
Labels aggregate_labels(const Labels& labels);

}  // namespace gpuwatch::store
