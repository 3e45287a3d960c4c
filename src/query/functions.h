// The functions of gpuwatch's PromQL, one table row each (functions.cpp): argument types, result type and
// how the evaluator runs it. Window functions see the points of one series inside [t - range, t] at each
// step; element functions map one value; the rest need the evaluator (absent, histogram_quantile, ...).
#pragma once

#include <cstdint>
#include <optional>
#include <span>
#include <string_view>
#include <vector>

#include "core/series.h"
#include "query/ast.h"

namespace gpuwatch::query {

// What a window function knows besides the points (all times in milliseconds).
struct Window {
  std::int64_t range_start = 0;  // t - offset - range (t is the @ time when there is one)
  std::int64_t range_end = 0;    // t - offset
  std::int64_t eval_time = 0;    // the step's time (predict_linear's intercept), even with @
  double range_seconds = 0;
  double param = 0;   // the first scalar argument (predict_linear's seconds, quantile_over_time's quantile)
  double param2 = 0;  // the second (holt_winters's trend factor)
};

using WindowFn = std::optional<double> (*)(std::span<const store::Point> points, const Window& window);
using ElementFn = double (*)(double value, double a, double b);

enum class FunctionKind {
  kWindow,   // one range-vector argument (plus scalars), one value per series and step
  kElement,  // an instant vector (vector(time()) when left out) and scalars, value by value, __name__ dropped
  kTime,
  kPi,
  kVector,
  kScalar,
  kAbsent,
  kAbsentOverTime,
  kHistogramQuantile,
  kTimestamp,
  kSort,
  kLabelReplace,
  kLabelJoin,
};

struct FunctionDef {
  std::string_view name;
  // As Prometheus declares them: the argument types and how many more may follow (0: exactly these; n > 0:
  // the last is optional and may repeat up to n times; -1: the last may be left out or repeat at will).
  std::vector<ValueType> arg_types;
  int variadic = 0;
  ValueType returns = ValueType::kVector;
  FunctionKind kind = FunctionKind::kElement;
  WindowFn window = nullptr;
  ElementFn element = nullptr;
  int matrix_arg = 0;          // kWindow: which argument is the range vector
  bool keeps_name = false;     // last_over_time keeps __name__, like offset
  int extreme = 0;             // +1 max_over_time, -1 min_over_time: evaluated with a sliding window
  bool descending = false;     // sort_desc
  double default_param = 0;    // kElement: the first scalar when left out (round's 1)
  bool checks_params = false;  // kElement: clamp gives nothing where max < min
  // rate, increase: `window` for a window known to hold no counter reset (query/sliding_resets.h).
  WindowFn without_resets = nullptr;

  int min_args() const;
  int max_args() const;  // -1: no limit
  ValueType arg_type(std::size_t i) const;
};

// The row for a supported function, or null.
const FunctionDef* find_function(std::string_view name);
// True for functions Prometheus has that gpuwatch leaves out (so the error can say "unsupported").
bool is_prometheus_function(std::string_view name);

// Prometheus's quantile over a sample set (linear interpolation between closest ranks); sorts `values`.
double quantile_of(double q, std::span<double> values);

// Go's math.Max/Min: NaN wins, unlike std::fmax.
double go_max(double a, double b);
double go_min(double a, double b);

}  // namespace gpuwatch::query
