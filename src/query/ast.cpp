#include "query/ast.h"

namespace gpuwatch::query {

const char* value_type_name(ValueType type) {
  switch (type) {
    case ValueType::kScalar:
      return "scalar";
    case ValueType::kVector:
      return "instant vector";
    case ValueType::kMatrix:
      return "range vector";
    case ValueType::kString:
      return "string";
  }
  return "?";
}

bool is_comparison(BinaryOp op) {
  return op == BinaryOp::kEq || op == BinaryOp::kNe || op == BinaryOp::kGt || op == BinaryOp::kLt ||
         op == BinaryOp::kGe || op == BinaryOp::kLe;
}

bool is_set_operator(BinaryOp op) {
  return op == BinaryOp::kAnd || op == BinaryOp::kOr || op == BinaryOp::kUnless;
}

const char* binary_op_text(BinaryOp op) {
  static constexpr const char* kText[] = {
      "+", "-", "*", "/", "%", "^", "==", "!=", ">", "<", ">=", "<=", "and", "or", "unless"};
  return kText[static_cast<int>(op)];
}

const char* aggregation_name(Aggregation op) {
  static constexpr const char* kNames[] = {"sum",   "avg",  "min",     "max",
                                           "count", "topk", "bottomk", "quantile"};
  return kNames[static_cast<int>(op)];
}

}  // namespace gpuwatch::query
