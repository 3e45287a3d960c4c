// Evaluates a parsed expression at every step of a range in one pass: each selector reads its series once
// for the whole range (start - offset - lookback or range .. end - offset, or around its @ time) and slides
// over their points step by step, so a 24 h range query costs one read plus one walk over the points. A
// subquery evaluates its expression once over its own steps (multiples of its step, as in Prometheus) and
// slides over the results the same way.
#pragma once

#include <chrono>
#include <cstddef>
#include <cstdint>

#include "core/series.h"
#include "query/ast.h"
#include "query/value.h"

namespace gpuwatch::query {

struct EvalOptions {
  std::int64_t lookback_ms = 5 * 60 * 1000;  // how far back an instant selector looks (Prometheus's 5 m)
  // Prometheus's --query.timeout: a query still evaluating after this fails with QueryError(timeout).
  std::chrono::milliseconds timeout{2 * 60 * 1000};
  // Prometheus's --query.max-samples: a query that would load more samples (points read plus step values
  // made) fails with QueryError(execution).
  std::size_t max_samples = 50'000'000;
  // Prometheus's limit on the steps of a range query (its resolution).
  std::size_t max_points_per_series = 11'000;
  // The step of a subquery written without one (`x[1h:]`): Prometheus's global evaluation_interval, whose
  // default is 1 m.
  std::int64_t subquery_step_ms = 60'000;
};

// Throws QueryError: execution for data-dependent failures such as ambiguous vector matches or too many
// samples, timeout past options.timeout.
Value evaluate(const Expr& expr, const store::SeriesSource& source, const Steps& steps,
               const EvalOptions& options = {});

}  // namespace gpuwatch::query
