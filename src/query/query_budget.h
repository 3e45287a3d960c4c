// What one query may spend, as Prometheus bounds it: wall time (--query.timeout) and samples held in memory
// (--query.max-samples). The evaluator checks the budget while it selects and walks series, so a query
// over too much data stops with a clear error instead of running on or exhausting memory.
#pragma once

#include <chrono>
#include <cstddef>

#include "query/query_error.h"

namespace gpuwatch::query {

class QueryBudget {
 public:
  QueryBudget(std::chrono::milliseconds timeout, std::size_t max_samples)
      : deadline_(deadline_after(timeout)), max_samples_(max_samples) {}

  // Throws QueryError(timeout) once the deadline has passed.
  void check_time() const {
    if (std::chrono::steady_clock::now() >= deadline_) {
      throw timeout_error("query timed out in expression evaluation");
    }
  }
  // Counts samples loaded (points read, step values made); throws QueryError(execution) past the limit.
  // Samples are counted as loaded and never given back, so the bound is a little stricter than Prometheus's
  // (which counts those held at one time).
  void take_samples(std::size_t n) {
    samples_ += n;
    if (samples_ > max_samples_) {
      throw execution_error("query processing would load too many samples into memory in query execution");
    }
  }
  std::size_t samples() const { return samples_; }

 private:
  static std::chrono::steady_clock::time_point deadline_after(std::chrono::milliseconds timeout) {
    const auto now = std::chrono::steady_clock::now();
    // A timeout beyond any query's life (or one that would overflow the clock) means none.
    if (timeout >= std::chrono::hours(24 * 365)) return std::chrono::steady_clock::time_point::max();
    return now + timeout;
  }

  std::chrono::steady_clock::time_point deadline_;
  std::size_t max_samples_;
  std::size_t samples_ = 0;
};

}  // namespace gpuwatch::query
