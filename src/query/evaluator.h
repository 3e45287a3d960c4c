// Evaluates a parsed expression at every step of a range in one pass: each selector reads its series once
// for the whole range (start - offset - lookback or range .. end - offset) and slides over their points
// step by step, so a 24 h range query costs one read plus one walk over the points.
#pragma once

#include <cstdint>

#include "query/ast.h"
#include "query/value.h"
#include "store/series.h"

namespace gpuwatch::query {

struct EvalOptions {
  std::int64_t lookback_ms = 5 * 60 * 1000;  // how far back an instant selector looks (Prometheus's 5 m)
};

// Throws QueryError (execution) for data-dependent failures such as ambiguous vector matches.
Value evaluate(const Expr& expr, const store::SeriesSource& source, const Steps& steps,
               const EvalOptions& options = {});

}  // namespace gpuwatch::query
