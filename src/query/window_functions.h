// The range-vector functions (rate, increase, *_over_time, ...): each computes one value from the points of
// one series inside a window, exactly as Prometheus 2.x does (same extrapolation, same order of floating
// point operations), or nothing when the window has too few points.
#pragma once

#include "query/functions.h"

namespace gpuwatch::query::window {

std::optional<double> rate(std::span<const store::Point> p, const Window& w);
std::optional<double> increase(std::span<const store::Point> p, const Window& w);
// rate and increase of a window known to hold no counter reset (FunctionDef::without_resets).
std::optional<double> rate_without_resets(std::span<const store::Point> p, const Window& w);
std::optional<double> increase_without_resets(std::span<const store::Point> p, const Window& w);
std::optional<double> delta(std::span<const store::Point> p, const Window& w);
std::optional<double> irate(std::span<const store::Point> p, const Window& w);
std::optional<double> idelta(std::span<const store::Point> p, const Window& w);
std::optional<double> deriv(std::span<const store::Point> p, const Window& w);
std::optional<double> predict_linear(std::span<const store::Point> p, const Window& w);
// Throws QueryError (execution) for factors outside (0, 1), as Prometheus does for a window with points.
std::optional<double> holt_winters(std::span<const store::Point> p, const Window& w);
std::optional<double> changes(std::span<const store::Point> p, const Window& w);
std::optional<double> resets(std::span<const store::Point> p, const Window& w);
std::optional<double> avg_over_time(std::span<const store::Point> p, const Window& w);
std::optional<double> min_over_time(std::span<const store::Point> p, const Window& w);
std::optional<double> max_over_time(std::span<const store::Point> p, const Window& w);
std::optional<double> sum_over_time(std::span<const store::Point> p, const Window& w);
std::optional<double> count_over_time(std::span<const store::Point> p, const Window& w);
std::optional<double> last_over_time(std::span<const store::Point> p, const Window& w);
std::optional<double> quantile_over_time(std::span<const store::Point> p, const Window& w);
std::optional<double> stddev_over_time(std::span<const store::Point> p, const Window& w);
std::optional<double> stdvar_over_time(std::span<const store::Point> p, const Window& w);
std::optional<double> present_over_time(std::span<const store::Point> p, const Window& w);

}  // namespace gpuwatch::query::window
