// Parses an expression of gpuwatch's PromQL subset into an AST with its types checked. Errors are
// QueryError(bad_data) with Prometheus's "line:column: parse error: ..." wording; constructs outside the
// subset (subqueries, @, label_replace, ...) say "unsupported ... at line:column".
#pragma once

#include <string_view>

#include "query/ast.h"

namespace gpuwatch::query {

ExprPtr parse_expression(std::string_view query);

}  // namespace gpuwatch::query
