// Parses a PromQL expression into an AST with its types checked. Errors are QueryError(bad_data) with
// Prometheus's "line:column: parse error: ..." wording; what gpuwatch leaves out (native-histogram functions,
// those of Prometheus releases after 2.42) says "unsupported ... at line:column".
#pragma once

#include <string_view>

#include "query/ast.h"

namespace gpuwatch::query {

ExprPtr parse_expression(std::string_view query);

}  // namespace gpuwatch::query
