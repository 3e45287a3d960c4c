// The grouping every aggregation shares (by/without, in the order groups first appear in the input, as
// Prometheus keeps them), and the aggregations that are more than a fold: topk/bottomk and count_values.
#pragma once

#include <cstddef>
#include <vector>

#include "query/ast.h"
#include "query/value.h"

namespace gpuwatch::query {

struct Group {
  store::Labels labels;
  std::vector<std::size_t> members;  // indexes into the input, in input order
};

// The groups of by (...) or without (...) (which drops __name__).
std::vector<Group> group_series(const Expr& e, const std::vector<StepSeries>& input);

// topk/bottomk: the input series chosen at each step, with their labels and values. For one step (an
// instant query) in Prometheus's order: groups as they first appear, each from its largest value down
// (topk) or smallest up (bottomk). Throws QueryError (execution) for a k beyond int64 or NaN.
std::vector<StepSeries> select_k(const Expr& e, const std::vector<double>& k,
                                 const std::vector<StepSeries>& in, std::size_t steps);

// count_values("label", v): per group, how many series have each value, the value written into "label".
// Throws QueryError (execution) when "label" is not a valid label name.
std::vector<StepSeries> count_values(const Expr& e, const std::vector<StepSeries>& in, std::size_t steps);

}  // namespace gpuwatch::query
