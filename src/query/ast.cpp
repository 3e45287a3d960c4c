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

bool drops_metric_name(BinaryOp op) {
  return op == BinaryOp::kAdd || op == BinaryOp::kSub || op == BinaryOp::kMul || op == BinaryOp::kDiv ||
         op == BinaryOp::kMod || op == BinaryOp::kPow;
}

bool is_set_operator(BinaryOp op) {
  return op == BinaryOp::kAnd || op == BinaryOp::kOr || op == BinaryOp::kUnless;
}

const char* binary_op_text(BinaryOp op) {
  static constexpr const char* kText[] = {
      "+", "-", "*", "/", "%", "^", "atan2", "==", "!=", ">", "<", ">=", "<=", "and", "or", "unless"};
  return kText[static_cast<int>(op)];
}

const char* aggregation_name(Aggregation op) {
  static constexpr const char* kNames[] = {"sum",    "avg",    "min",  "max",     "count",    "group",
                                           "stddev", "stdvar", "topk", "bottomk", "quantile", "count_values"};
  return kNames[static_cast<int>(op)];
}

bool takes_parameter(Aggregation op) {
  return op == Aggregation::kTopk || op == Aggregation::kBottomk || op == Aggregation::kQuantile ||
         op == Aggregation::kCountValues;
}

}  // namespace gpuwatch::query
