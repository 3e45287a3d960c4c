// What evaluating an expression over a set of evaluation steps gives: a scalar per step, or series with a
// value at some of the steps (an instant vector evaluated at every step), or raw points (a range vector,
// only as the result of an instant query), or a string.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "query/ast.h"
#include "store/series.h"

namespace gpuwatch::query {

// Evaluation times start, start + step, ... up to end (all milliseconds); an instant query is one step.
struct Steps {
  std::int64_t start = 0;
  std::int64_t end = 0;
  std::int64_t step = 1;
  std::size_t count() const { return static_cast<std::size_t>((end - start) / step) + 1; }
  std::int64_t at(std::size_t k) const { return start + static_cast<std::int64_t>(k) * step; }
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

}  // namespace gpuwatch::query
