// The function calls that need nothing but their evaluated arguments: element functions, scalar(),
// absent()'s answer and sort()/sort_desc().
#pragma once

#include <cstdint>
#include <vector>

#include "query/functions.h"
#include "query/value.h"

namespace gpuwatch::query {

// `f` value by value with its scalar arguments per step (`a`, `b`), __name__ dropped.
Value apply_element(const FunctionDef& f, Value v, const std::vector<double>& a,
                    const std::vector<double>& b);

// The only series' value at each step, else NaN.
Value scalar_of(const Value& v, std::size_t steps);

// absent(arg) / absent_over_time(arg): 1 at the steps nothing was `seen`, labelled from the equality
// matchers of a selector argument as Prometheus labels it.
Value absent_where(const std::vector<std::uint8_t>& seen, const Expr& arg);

// sort()/sort_desc(): orders an instant query's series by value in Prometheus's order (NaN last; ties as
// Go's unstable sort leaves them). A range query's result is sorted by labels anyway, so several steps are
// left be.
void sort_by_value(std::vector<StepSeries>& series, bool descending);

}  // namespace gpuwatch::query
