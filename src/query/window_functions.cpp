#include "query/window_functions.h"

#include <cmath>
#include <cstdio>
#include <limits>
#include <string>
#include <vector>

#include "query/query_error.h"

namespace gpuwatch::query::window {
namespace {

using Points = std::span<const store::Point>;

// Go's %f: six decimals, NaN and infinities by name.
std::string go_fixed(double v) {
  if (std::isnan(v)) return "NaN";
  if (std::isinf(v)) return v > 0 ? "+Inf" : "-Inf";
  char buf[400];
  std::snprintf(buf, sizeof buf, "%f", v);
  return buf;
}

// Kahan-Neumaier step, as Prometheus's kahanSumInc.
void kahan_add(double inc, double& sum, double& c) {
  const double t = sum + inc;
  if (std::fabs(sum) >= std::fabs(inc)) {
    c += (sum - t) + inc;
  } else {
    c += (inc - t) + sum;
  }
  sum = t;
}

// Prometheus's extrapolatedRate: the change over the window, counter resets added back for counters,
// extrapolated to the window's edges when the first/last points are near them (within 1.1 average
// intervals), else by half an interval; never extrapolated below zero for counters.
// `may_reset` false: the caller knows the window holds no counter reset (SlidingResets).
std::optional<double> extrapolated(Points p, const Window& w, bool counter, bool per_second,
                                   bool may_reset = true) {
  if (p.size() < 2) return std::nullopt;
  double result = p.back().value - p.front().value;
  // The resets added back in Prometheus's order, to match its sum. Only windows SlidingResets found a reset
  // in get here (the evaluator's step loop), so there is no cheaper pass to try first.
  if (counter && may_reset) {
    double last = 0;
    for (const auto& s : p) {
      if (s.value < last) result += last;
      last = s.value;
    }
  }
  double to_start = static_cast<double>(p.front().t_ms - w.range_start) / 1000;
  const double to_end = static_cast<double>(w.range_end - p.back().t_ms) / 1000;
  const double sampled = static_cast<double>(p.back().t_ms - p.front().t_ms) / 1000;
  const double average = sampled / static_cast<double>(p.size() - 1);
  if (counter && result > 0 && p.front().value >= 0) {
    const double to_zero = sampled * (p.front().value / result);
    if (to_zero < to_start) to_start = to_zero;
  }
  const double threshold = average * 1.1;
  double interval = sampled;
  interval += to_start < threshold ? to_start : average / 2;
  interval += to_end < threshold ? to_end : average / 2;
  result = result * (interval / sampled);
  if (per_second) result = result / w.range_seconds;
  return result;
}

std::optional<double> instant(Points p, bool per_second) {
  if (p.size() < 2) return std::nullopt;
  const auto& last = p[p.size() - 1];
  const auto& previous = p[p.size() - 2];
  double result = per_second && last.value < previous.value ? last.value : last.value - previous.value;
  const std::int64_t interval = last.t_ms - previous.t_ms;
  if (interval == 0) return std::nullopt;
  if (per_second) result /= static_cast<double>(interval) / 1000;
  return result;
}

// Least squares fit of value over seconds since `intercept_ms`, as Prometheus's linearRegression.
std::pair<double, double> linear_regression(Points p, std::int64_t intercept_ms) {
  double n = 0, sum_x = 0, cx = 0, sum_y = 0, cy = 0, sum_xy = 0, cxy = 0, sum_x2 = 0, cx2 = 0;
  const double init_y = p[0].value;
  bool const_y = true;
  for (std::size_t i = 0; i < p.size(); ++i) {
    if (const_y && i > 0 && p[i].value != init_y) const_y = false;
    n += 1.0;
    const double x = static_cast<double>(p[i].t_ms - intercept_ms) / 1e3;
    kahan_add(x, sum_x, cx);
    kahan_add(p[i].value, sum_y, cy);
    kahan_add(x * p[i].value, sum_xy, cxy);
    kahan_add(x * x, sum_x2, cx2);
  }
  if (const_y) {
    if (std::isinf(init_y)) return {NAN, NAN};
    return {0, init_y};
  }
  sum_x += cx;
  sum_y += cy;
  sum_xy += cxy;
  sum_x2 += cx2;
  const double cov_xy = sum_xy - sum_x * sum_y / n;
  const double var_x = sum_x2 - sum_x * sum_x / n;
  const double slope = cov_xy / var_x;
  const double intercept = sum_y / n - slope * sum_x / n;
  return {slope, intercept};
}

double variance(Points p) {
  double count = 0, mean = 0, cmean = 0, aux = 0, caux = 0;
  for (const auto& s : p) {
    count++;
    const double delta = s.value - (mean + cmean);
    kahan_add(delta / count, mean, cmean);
    kahan_add(delta * (s.value - (mean + cmean)), aux, caux);
  }
  return (aux + caux) / count;
}

}  // namespace

std::optional<double> rate(Points p, const Window& w) {
  return extrapolated(p, w, true, true);
}
std::optional<double> rate_without_resets(Points p, const Window& w) {
  return extrapolated(p, w, true, true, false);
}
std::optional<double> increase(Points p, const Window& w) {
  return extrapolated(p, w, true, false);
}
std::optional<double> increase_without_resets(Points p, const Window& w) {
  return extrapolated(p, w, true, false, false);
}
std::optional<double> delta(Points p, const Window& w) {
  return extrapolated(p, w, false, false);
}
std::optional<double> irate(Points p, const Window&) {
  return instant(p, true);
}
std::optional<double> idelta(Points p, const Window&) {
  return instant(p, false);
}

std::optional<double> deriv(Points p, const Window&) {
  if (p.size() < 2) return std::nullopt;
  // An intercept time near the points keeps the sums small (Prometheus issue 2674).
  return linear_regression(p, p[0].t_ms).first;
}

std::optional<double> predict_linear(Points p, const Window& w) {
  if (p.size() < 2) return std::nullopt;
  const auto [slope, intercept] = linear_regression(p, w.eval_time);
  return slope * w.param + intercept;
}

// Double exponential smoothing over the window, as Prometheus computes it.
std::optional<double> holt_winters(Points p, const Window& w) {
  const double sf = w.param;
  const double tf = w.param2;
  if (sf <= 0 || sf >= 1) {  // NaN passes, as in Prometheus
    throw execution_error("invalid smoothing factor. Expected: 0 < sf < 1, got: " + go_fixed(sf));
  }
  if (tf <= 0 || tf >= 1) {
    throw execution_error("invalid trend factor. Expected: 0 < tf < 1, got: " + go_fixed(tf));
  }
  if (p.size() < 2) return std::nullopt;
  double s0 = 0;
  double s1 = p[0].value;
  double trend = p[1].value - p[0].value;
  for (std::size_t i = 1; i < p.size(); ++i) {
    const double x = sf * p[i].value;
    if (i > 1) trend = tf * (s1 - s0) + (1 - tf) * trend;
    const double y = (1 - sf) * (s1 + trend);
    s0 = s1;
    s1 = x + y;
  }
  return s1;
}

std::optional<double> changes(Points p, const Window&) {
  if (p.empty()) return std::nullopt;
  int n = 0;
  double previous = p[0].value;
  for (std::size_t i = 1; i < p.size(); ++i) {
    const double current = p[i].value;
    if (current != previous && !(std::isnan(current) && std::isnan(previous))) ++n;
    previous = current;
  }
  return n;
}

std::optional<double> resets(Points p, const Window&) {
  if (p.empty()) return std::nullopt;
  int n = 0;
  double previous = p[0].value;
  for (std::size_t i = 1; i < p.size(); ++i) {
    if (p[i].value < previous) ++n;
    previous = p[i].value;
  }
  return n;
}

std::optional<double> avg_over_time(Points p, const Window&) {
  if (p.empty()) return std::nullopt;
  double mean = 0, count = 0, c = 0;
  for (const auto& s : p) {
    count++;
    if (std::isinf(mean)) {
      if (std::isinf(s.value) && (mean > 0) == (s.value > 0)) continue;
      if (!std::isinf(s.value) && !std::isnan(s.value)) continue;
    }
    kahan_add(s.value / count - mean / count, mean, c);
  }
  if (std::isinf(mean)) return mean;
  return mean + c;
}

// Prometheus keeps the first value and replaces it when a later one is smaller/larger or the kept one is
// NaN: that is the extreme of the non-NaN values, or NaN when all are NaN. This runs once per point of
// every window, so it is written without branches on the data and with four independent accumulators
// (one comparison chain would wait on each previous result).
template <typename Better>
std::optional<double> extreme(Points p, double start, Better better) {
  if (p.empty()) return std::nullopt;
  double m[4] = {start, start, start, start};
  bool number = false;
  std::size_t i = 0;
  for (; i + 4 <= p.size(); i += 4) {
    for (int j = 0; j < 4; ++j) {
      const double v = p[i + j].value;
      m[j] = better(v, m[j]) ? v : m[j];
      number |= v == v;
    }
  }
  for (; i < p.size(); ++i) {
    const double v = p[i].value;
    m[0] = better(v, m[0]) ? v : m[0];
    number |= v == v;
  }
  for (int j = 1; j < 4; ++j) m[0] = better(m[j], m[0]) ? m[j] : m[0];
  return number ? m[0] : std::numeric_limits<double>::quiet_NaN();
}

std::optional<double> min_over_time(Points p, const Window&) {
  return extreme(p, std::numeric_limits<double>::infinity(), [](double a, double b) { return a < b; });
}

std::optional<double> max_over_time(Points p, const Window&) {
  return extreme(p, -std::numeric_limits<double>::infinity(), [](double a, double b) { return a > b; });
}

std::optional<double> sum_over_time(Points p, const Window&) {
  if (p.empty()) return std::nullopt;
  double sum = 0, c = 0;
  for (const auto& s : p) kahan_add(s.value, sum, c);
  if (std::isinf(sum)) return sum;
  return sum + c;
}

std::optional<double> count_over_time(Points p, const Window&) {
  if (p.empty()) return std::nullopt;
  return static_cast<double>(p.size());
}

std::optional<double> last_over_time(Points p, const Window&) {
  if (p.empty()) return std::nullopt;
  return p.back().value;
}

std::optional<double> present_over_time(Points p, const Window&) {
  if (p.empty()) return std::nullopt;
  return 1.0;
}

std::optional<double> quantile_over_time(Points p, const Window& w) {
  if (p.empty()) return std::nullopt;
  std::vector<double> values;
  values.reserve(p.size());
  for (const auto& s : p) values.push_back(s.value);
  return quantile_of(w.param, values);
}

std::optional<double> stddev_over_time(Points p, const Window&) {
  if (p.empty()) return std::nullopt;
  return std::sqrt(variance(p));
}

std::optional<double> stdvar_over_time(Points p, const Window&) {
  if (p.empty()) return std::nullopt;
  return variance(p);
}

}  // namespace gpuwatch::query::window
