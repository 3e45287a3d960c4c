// What evaluating an expression over a set of evaluation steps gives: a scalar per step, or series with a
// value at some of the steps (an instant vector evaluated at every step), or raw points (a range vector,
// only as the result of an instant query), or a string.
#pragma once

#include <cstddef>
#include <cstdint>
#include <limits>
#include <string>
#include <vector>

#include "core/series.h"
#include "query/ast.h"

namespace gpuwatch::query {

// a - b in milliseconds, held at the ends of the int64 range instead of overflowing (a time near the end of
// what the API accepts, minus an offset or a lookback).
inline std::int64_t minus_ms(std::int64_t a, std::int64_t b) {
  std::int64_t r = 0;
  if (__builtin_sub_overflow(a, b, &r)) {
    return b > 0 ? std::numeric_limits<std::int64_t>::min() : std::numeric_limits<std::int64_t>::max();
  }
  return r;
}

// Evaluation times start, start + step, ... up to end (all milliseconds); an instant query is one step.
// Requires start <= end and step > 0; the span end - start may exceed int64 (it is computed unsigned).
struct Steps {
  std::int64_t start = 0;
  std::int64_t end = 0;
  std::int64_t step = 1;
  std::uint64_t span() const { return static_cast<std::uint64_t>(end) - static_cast<std::uint64_t>(start); }
  std::size_t count() const {
    return static_cast<std::size_t>(span() / static_cast<std::uint64_t>(step)) + 1;
  }
  // At most end, so it fits; the sum is done unsigned, where wrapping is defined.
  std::int64_t at(std::size_t k) const {
    return static_cast<std::int64_t>(static_cast<std::uint64_t>(start) +
                                     static_cast<std::uint64_t>(k) * static_cast<std::uint64_t>(step));
  }
};

struct StepSeries {
  store::Labels labels;
  std::vector<double> values;         // one per step; meaningful where present
  std::vector<std::uint8_t> present;  // 1 where the series has a value at that step
};

struct Value {
  ValueType type = ValueType::kScalar;
  std::vector<double> scalar;               // kScalar: one per step
  std::vector<StepSeries> vector;           // kVector
  std::vector<store::SeriesPoints> matrix;  // kMatrix
  std::string string;                       // kString
};

// Whether the series has a value at any step.
bool has_any(const StepSeries& s);

// Series that have come to share a label set (a function dropped __name__ or rewrote labels) become one, in
// the place of the first, as Prometheus joins them by label set from step to step. Throws QueryError
// (execution) when two have a value at the same step: "vector cannot contain metrics with the same labelset".
void merge_equal_labels(std::vector<StepSeries>& series);

// Throws QueryError (execution) when two series share a label set, whatever their steps (as Prometheus
// checks the result of a range-vector function or a unary minus).
void require_unique_labels(const std::vector<StepSeries>& series);

}  // namespace gpuwatch::query
