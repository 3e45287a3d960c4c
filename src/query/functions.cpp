#include "query/functions.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <numbers>
#include <set>
#include <string>

#include "query/date_functions.h"
#include "query/window_functions.h"

namespace gpuwatch::query {
namespace {

using V = ValueType;
constexpr V kS = V::kScalar;
constexpr V kV = V::kVector;
constexpr V kM = V::kMatrix;
constexpr V kStr = V::kString;

FunctionDef window_fn(std::string_view name, WindowFn fn, bool keeps_name = false) {
  FunctionDef d{name, {kM}, 0, kV, FunctionKind::kWindow};
  d.window = fn;
  d.keeps_name = keeps_name;
  return d;
}
FunctionDef extreme_fn(std::string_view name, WindowFn fn, int extreme) {
  FunctionDef d = window_fn(name, fn);
  d.extreme = extreme;
  return d;
}
// rate and increase: windows without a counter reset (SlidingResets) skip the walk that adds them back.
FunctionDef counter_fn(std::string_view name, WindowFn fn, WindowFn without_resets) {
  FunctionDef d = window_fn(name, fn);
  d.without_resets = without_resets;
  return d;
}

// A window function with scalar parameters before (quantile_over_time) or after the range.
FunctionDef window_fn_params(std::string_view name, WindowFn fn, std::vector<ValueType> types) {
  FunctionDef d = window_fn(name, fn);
  d.arg_types = std::move(types);
  d.matrix_arg =
      static_cast<int>(std::find(d.arg_types.begin(), d.arg_types.end(), kM) - d.arg_types.begin());
  return d;
}
// An element function of an instant vector and `scalars` more scalars (`variadic` of them optional).
FunctionDef element_fn(std::string_view name, ElementFn fn, int scalars = 0, int variadic = 0) {
  FunctionDef d{name, {kV}, variadic, kV, FunctionKind::kElement};
  d.arg_types.insert(d.arg_types.end(), static_cast<std::size_t>(scalars), kS);
  d.element = fn;
  return d;
}
// hour(), month(), ...: of an instant vector, or of the evaluation time when it is left out.
FunctionDef date_fn(std::string_view name, ElementFn fn) {
  return element_fn(name, fn, 0, 1);
}
FunctionDef other_fn(std::string_view name, std::vector<ValueType> types, ValueType returns,
                     FunctionKind kind, int variadic = 0) {
  return {name, std::move(types), variadic, returns, kind};
}

FunctionDef with_default(FunctionDef d, double param) {
  d.default_param = param;
  return d;
}
FunctionDef checking_params(FunctionDef d) {
  d.checks_params = true;
  return d;
}
FunctionDef descending(FunctionDef d) {
  d.descending = true;
  return d;
}

double round_to(double v, double nearest, double) {
  // As Prometheus: the inverse is multiplied (fewer rounding surprises), ties round up.
  const double inverse = 1.0 / nearest;
  return std::floor(v * inverse + 0.5) / inverse;
}

double sgn(double v, double, double) {
  if (v < 0) return -1;
  if (v > 0) return 1;
  return v;  // 0, -0 and NaN as they are
}

#define GPUWATCH_MATH_FN(name, expression) \
  element_fn(#name, [](double v, double, double) { return expression; })

const std::vector<FunctionDef>& table() {
  static const std::vector<FunctionDef> kTable = {
      counter_fn("rate", window::rate, window::rate_without_resets),
      counter_fn("increase", window::increase, window::increase_without_resets),
      window_fn("delta", window::delta),
      window_fn("irate", window::irate),
      window_fn("idelta", window::idelta),
      window_fn("deriv", window::deriv),
      window_fn_params("predict_linear", window::predict_linear, {kM, kS}),
      window_fn_params("holt_winters", window::holt_winters, {kM, kS, kS}),
      window_fn("changes", window::changes),
      window_fn("resets", window::resets),
      window_fn("avg_over_time", window::avg_over_time),
      extreme_fn("min_over_time", window::min_over_time, -1),
      extreme_fn("max_over_time", window::max_over_time, +1),
      window_fn("sum_over_time", window::sum_over_time),
      window_fn("count_over_time", window::count_over_time),
      window_fn("last_over_time", window::last_over_time, true),
      window_fn("present_over_time", window::present_over_time),
      window_fn("stddev_over_time", window::stddev_over_time),
      window_fn("stdvar_over_time", window::stdvar_over_time),
      window_fn_params("quantile_over_time", window::quantile_over_time, {kS, kM}),
      GPUWATCH_MATH_FN(abs, std::fabs(v)),
      GPUWATCH_MATH_FN(ceil, std::ceil(v)),
      GPUWATCH_MATH_FN(floor, std::floor(v)),
      GPUWATCH_MATH_FN(exp, std::exp(v)),
      GPUWATCH_MATH_FN(ln, std::log(v)),
      GPUWATCH_MATH_FN(log2, std::log2(v)),
      GPUWATCH_MATH_FN(log10, std::log10(v)),
      GPUWATCH_MATH_FN(sqrt, std::sqrt(v)),
      GPUWATCH_MATH_FN(sin, std::sin(v)),
      GPUWATCH_MATH_FN(cos, std::cos(v)),
      GPUWATCH_MATH_FN(tan, std::tan(v)),
      GPUWATCH_MATH_FN(asin, std::asin(v)),
      GPUWATCH_MATH_FN(acos, std::acos(v)),
      GPUWATCH_MATH_FN(atan, std::atan(v)),
      GPUWATCH_MATH_FN(sinh, std::sinh(v)),
      GPUWATCH_MATH_FN(cosh, std::cosh(v)),
      GPUWATCH_MATH_FN(tanh, std::tanh(v)),
      GPUWATCH_MATH_FN(asinh, std::asinh(v)),
      GPUWATCH_MATH_FN(acosh, std::acosh(v)),
      GPUWATCH_MATH_FN(atanh, std::atanh(v)),
      GPUWATCH_MATH_FN(deg, v * 180 / std::numbers::pi),
      GPUWATCH_MATH_FN(rad, v * std::numbers::pi / 180),
      element_fn("sgn", sgn),
      with_default(element_fn("round", round_to, 1, 1), 1),
      element_fn(
          "clamp_min", [](double v, double lo, double) { return go_max(lo, v); }, 1),
      element_fn(
          "clamp_max", [](double v, double hi, double) { return go_min(hi, v); }, 1),
      checking_params(element_fn(
          "clamp", [](double v, double lo, double hi) { return go_max(lo, go_min(hi, v)); }, 2)),
      date_fn("minute", date::minute),
      date_fn("hour", date::hour),
      date_fn("day_of_week", date::day_of_week),
      date_fn("day_of_month", date::day_of_month),
      date_fn("day_of_year", date::day_of_year),
      date_fn("days_in_month", date::days_in_month),
      date_fn("month", date::month),
      date_fn("year", date::year),
      other_fn("time", {}, kS, FunctionKind::kTime),
      other_fn("pi", {}, kS, FunctionKind::kPi),
      other_fn("vector", {kS}, kV, FunctionKind::kVector),
      other_fn("scalar", {kV}, kS, FunctionKind::kScalar),
      other_fn("absent", {kV}, kV, FunctionKind::kAbsent),
      other_fn("absent_over_time", {kM}, kV, FunctionKind::kAbsentOverTime),
      other_fn("histogram_quantile", {kS, kV}, kV, FunctionKind::kHistogramQuantile),
      other_fn("timestamp", {kV}, kV, FunctionKind::kTimestamp),
      other_fn("sort", {kV}, kV, FunctionKind::kSort),
      descending(other_fn("sort_desc", {kV}, kV, FunctionKind::kSort)),
      other_fn("label_replace", {kV, kStr, kStr, kStr, kStr}, kV, FunctionKind::kLabelReplace),
      other_fn("label_join", {kV, kStr, kStr, kStr}, kV, FunctionKind::kLabelJoin, -1),
  };
  return kTable;
}

#undef GPUWATCH_MATH_FN

}  // namespace

int FunctionDef::min_args() const {
  const int n = static_cast<int>(arg_types.size());
  return variadic == 0 ? n : n - 1;
}

int FunctionDef::max_args() const {
  const int n = static_cast<int>(arg_types.size());
  if (variadic < 0) return -1;
  return variadic == 0 ? n : n - 1 + variadic;
}

ValueType FunctionDef::arg_type(std::size_t i) const {
  return arg_types[std::min(i, arg_types.size() - 1)];
}

const FunctionDef* find_function(std::string_view name) {
  for (const auto& f : table()) {
    if (f.name == name) return &f;
  }
  return nullptr;
}

bool is_prometheus_function(std::string_view name) {
  // Prometheus 2.42's native-histogram functions, and those of later releases.
  static const std::set<std::string_view> kLeftOut = {"histogram_count",
                                                      "histogram_sum",
                                                      "histogram_fraction",
                                                      "histogram_avg",
                                                      "histogram_stddev",
                                                      "histogram_stdvar",
                                                      "histogram_quantiles",
                                                      "double_exponential_smoothing",
                                                      "mad_over_time",
                                                      "first_over_time",
                                                      "ts_of_first_over_time",
                                                      "ts_of_last_over_time",
                                                      "ts_of_max_over_time",
                                                      "ts_of_min_over_time",
                                                      "sort_by_label",
                                                      "sort_by_label_desc",
                                                      "info",
                                                      "max_of",
                                                      "min_of",
                                                      "start_timestamp",
                                                      "limitk",
                                                      "limit_ratio"};
  return kLeftOut.count(name) > 0;
}

double quantile_of(double q, std::span<double> values) {
  if (values.empty() || std::isnan(q)) return std::numeric_limits<double>::quiet_NaN();
  if (q < 0) return -std::numeric_limits<double>::infinity();
  if (q > 1) return std::numeric_limits<double>::infinity();
  std::sort(values.begin(), values.end(),
            [](double a, double b) { return a < b || (std::isnan(a) && !std::isnan(b)); });
  const double n = static_cast<double>(values.size());
  const double rank = q * (n - 1);
  const double lower = std::max(0.0, std::floor(rank));
  const double upper = std::min(n - 1, lower + 1);
  const double weight = rank - std::floor(rank);
  return values[static_cast<std::size_t>(lower)] * (1 - weight) +
         values[static_cast<std::size_t>(upper)] * weight;
}

double go_max(double a, double b) {
  if (std::isinf(a) && a > 0) return a;
  if (std::isinf(b) && b > 0) return b;
  if (std::isnan(a) || std::isnan(b)) return std::numeric_limits<double>::quiet_NaN();
  return a > b ? a : b;
}

double go_min(double a, double b) {
  if (std::isinf(a) && a < 0) return a;
  if (std::isinf(b) && b < 0) return b;
  if (std::isnan(a) || std::isnan(b)) return std::numeric_limits<double>::quiet_NaN();
  return a < b ? a : b;
}

}  // namespace gpuwatch::query
