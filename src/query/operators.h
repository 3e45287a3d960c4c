// Aggregations and binary operators over step-wise values (see value.h), with Prometheus's semantics:
// grouping by/without, vector matching on/ignoring with group_left/group_right, comparison filters and
// bool, and/or/unless, __name__ dropped by arithmetic.
#pragma once

#include <vector>

#include "query/ast.h"
#include "query/value.h"

namespace gpuwatch::query {

// `param` holds topk/bottomk's k or quantile's q per step (empty for the others).
Value aggregate(const Expr& expr, const std::vector<double>& param, Value input, std::size_t steps);

Value binary_operation(const Expr& expr, Value lhs, Value rhs, std::size_t steps);

}  // namespace gpuwatch::query
