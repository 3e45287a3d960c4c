#include "query/functions.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <set>
#include <string>

#include "query/window_functions.h"

namespace gpuwatch::query {
namespace {

using V = ValueType;
constexpr V kS = V::kScalar;
constexpr V kV = V::kVector;
constexpr V kM = V::kMatrix;

FunctionDef window_fn(std::string_view name, WindowFn fn, bool keeps_name = false) {
  return {name, {kM, kS, kS}, 1, 1, kV, FunctionKind::kWindow, fn, nullptr, 0, keeps_name};
}
FunctionDef extreme_fn(std::string_view name, WindowFn fn, int extreme) {
  FunctionDef d = window_fn(name, fn);
  d.extreme = extreme;
  return d;
}
// A window function with a scalar parameter, before (quantile_over_time) or after (predict_linear) the range.
FunctionDef window_fn_param(std::string_view name, WindowFn fn, bool param_first) {
  FunctionDef d{name, {kM, kS, kS}, 2, 2, kV, FunctionKind::kWindow, fn, nullptr, 0, false};
  if (param_first) {
    d.arg_types = {kS, kM, kS};
    d.matrix_arg = 1;
  }
  return d;
}
FunctionDef element_fn(std::string_view name, ElementFn fn, int scalars = 0, int optional_scalars = 0) {
  return {name,        {kV, kS, kS},
          1 + scalars, 1 + scalars + optional_scalars,
          kV,          FunctionKind::kElement,
          nullptr,     fn,
          0,           false};
}

double round_to(double v, double nearest, double) {
  const double inverse = 1.0 / nearest;
  return std::floor(v * inverse + 0.5) / inverse;
}

const std::vector<FunctionDef>& table() {
  static const std::vector<FunctionDef> kTable = {
      window_fn("rate", window::rate),
      window_fn("increase", window::increase),
      window_fn("delta", window::delta),
      window_fn("irate", window::irate),
      window_fn("idelta", window::idelta),
      window_fn("deriv", window::deriv),
      window_fn_param("predict_linear", window::predict_linear, false),
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
      window_fn_param("quantile_over_time", window::quantile_over_time, true),
      element_fn("abs", [](double v, double, double) { return std::fabs(v); }),
      element_fn("ceil", [](double v, double, double) { return std::ceil(v); }),
      element_fn("floor", [](double v, double, double) { return std::floor(v); }),
      element_fn("exp", [](double v, double, double) { return std::exp(v); }),
      element_fn("ln", [](double v, double, double) { return std::log(v); }),
      element_fn("log2", [](double v, double, double) { return std::log2(v); }),
      element_fn("log10", [](double v, double, double) { return std::log10(v); }),
      element_fn("sqrt", [](double v, double, double) { return std::sqrt(v); }),
      element_fn("round", round_to, 0, 1),
      element_fn(
          "clamp_min", [](double v, double lo, double) { return go_max(lo, v); }, 1),
      element_fn(
          "clamp_max", [](double v, double hi, double) { return go_min(hi, v); }, 1),
      element_fn(
          "clamp", [](double v, double lo, double hi) { return go_max(lo, go_min(hi, v)); }, 2),
      {"time", {kS, kS, kS}, 0, 0, kS, FunctionKind::kTime},
      {"vector", {kS, kS, kS}, 1, 1, kV, FunctionKind::kVector},
      {"scalar", {kV, kS, kS}, 1, 1, kS, FunctionKind::kScalar},
      {"absent", {kV, kS, kS}, 1, 1, kV, FunctionKind::kAbsent},
      {"absent_over_time", {kM, kS, kS}, 1, 1, kV, FunctionKind::kAbsentOverTime},
      {"histogram_quantile", {kS, kV, kS}, 2, 2, kV, FunctionKind::kHistogramQuantile},
      {"timestamp", {kV, kS, kS}, 1, 1, kV, FunctionKind::kTimestamp},
  };
  return kTable;
}

}  // namespace

const FunctionDef* find_function(std::string_view name) {
  for (const auto& f : table()) {
    if (f.name == name) return &f;
  }
  return nullptr;
}

bool is_prometheus_function(std::string_view name) {
  static const std::set<std::string_view> kAll = {"acos",
                                                  "acosh",
                                                  "asin",
                                                  "asinh",
                                                  "atan",
                                                  "atanh",
                                                  "cos",
                                                  "cosh",
                                                  "sin",
                                                  "sinh",
                                                  "tan",
                                                  "tanh",
                                                  "deg",
                                                  "rad",
                                                  "pi",
                                                  "sgn",
                                                  "day_of_month",
                                                  "day_of_week",
                                                  "day_of_year",
                                                  "days_in_month",
                                                  "hour",
                                                  "minute",
                                                  "month",
                                                  "year",
                                                  "holt_winters",
                                                  "label_join",
                                                  "label_replace",
                                                  "sort",
                                                  "sort_desc",
                                                  "mad_over_time",
                                                  "histogram_count",
                                                  "histogram_sum",
                                                  "histogram_fraction",
                                                  "histogram_stddev",
                                                  "histogram_stdvar",
                                                  "double_exponential_smoothing",
                                                  "info",
                                                  "sort_by_label",
                                                  "sort_by_label_desc",
                                                  "limitk",
                                                  "limit_ratio"};
  return kAll.count(name) > 0;
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
