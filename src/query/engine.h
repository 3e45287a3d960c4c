// The query engine's entry points: an instant query at one time and a range query over evenly spaced
// steps, for an expression in gpuwatch's PromQL subset (docs/query.md). Both read from any SeriesSource.
#pragma once

#include <cstdint>
#include <string_view>

#include "core/series.h"
#include "query/evaluator.h"
#include "query/value.h"

namespace gpuwatch::query {

struct QueryResult {
  ValueType type = ValueType::kVector;  // kMatrix for every range query; any type for an instant one
  Value value;
  Steps steps;
  bool range = false;
};

// Throws QueryError: bad_data for a malformed expression or one outside the subset, execution for
// failures the data causes.
QueryResult instant_query(const store::SeriesSource& source, std::string_view query, std::int64_t time_ms,
                          const EvalOptions& options = {});
// Throws QueryError(bad_data) unless step > 0, start <= end and the steps number at most
// options.max_points_per_series, with Prometheus's words.
void check_steps(const Steps& steps, const EvalOptions& options);
// The steps are start, start + step, ... <= end (checked by check_steps). The expression must give a scalar
// or an instant vector.
QueryResult range_query(const store::SeriesSource& source, std::string_view query, const Steps& steps,
                        const EvalOptions& options = {});

}  // namespace gpuwatch::query
