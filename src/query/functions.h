// The functions of gpuwatch's PromQL subset, one table row each: argument types, result type and how the
// evaluator runs it. Window functions see the points of one series inside [t - range, t] at each step;
// element functions map one value; the rest need the evaluator (absent, histogram_quantile, ...).
#pragma once

#include <array>
#include <cstdint>
#include <optional>
#include <span>
#include <string_view>

#include "core/series.h"
#include "query/ast.h"

namespace gpuwatch::query {

// What a window function knows besides the points (all times in milliseconds).
struct Window {
  std::int64_t range_start = 0;  // t - offset - range
  std::int64_t range_end = 0;    // t - offset
  std::int64_t eval_time = 0;    // t
  double range_seconds = 0;
  double param = 0;  // the scalar argument (predict_linear's seconds, quantile_over_time's quantile)
};

using WindowFn = std::optional<double> (*)(std::span<const store::Point> points, const Window& window);
using ElementFn = double (*)(double value, double a, double b);

enum class FunctionKind {
  kWindow,   // one range-vector argument (plus an optional scalar), one value per series and step
  kElement,  // an instant vector and optional scalars, value by value, __name__ dropped
  kTime,
  kVector,
  kScalar,
  kAbsent,
  kAbsentOverTime,
  kHistogramQuantile,
  kTimestamp,
};

struct FunctionDef {
  std::string_view name;
  std::array<ValueType, 3> arg_types;
  int min_args;
  int max_args;
  ValueType returns;
  FunctionKind kind;
  WindowFn window = nullptr;
  ElementFn element = nullptr;
  int matrix_arg = 0;       // kWindow: which argument is the range vector
  bool keeps_name = false;  // last_over_time keeps __name__, like offset
  int extreme = 0;          // +1 max_over_time, -1 min_over_time: evaluated with a sliding window
};

// The row for a supported function, or null.
const FunctionDef* find_function(std::string_view name);
// True for functions Prometheus has that the subset leaves out (so the error can say "unsupported").
bool is_prometheus_function(std::string_view name);

// Prometheus's quantile over a sample set (linear interpolation between closest ranks); sorts `values`.
double quantile_of(double q, std::span<double> values);

// Go's math.Max/Min: NaN wins, unlike std::fmax.
double go_max(double a, double b);
double go_min(double a, double b);

}  // namespace gpuwatch::query
