// The parsed form of a PromQL expression. One node type with a kind keeps the
// evaluator a single switch; the fields a kind uses are listed next to it.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "core/series.h"

namespace gpuwatch::query {

enum class ValueType { kScalar, kVector, kMatrix, kString };
const char* value_type_name(ValueType type);  // "scalar", "instant vector", "range vector", "string"

enum class BinaryOp {
  kAdd,
  kSub,
  kMul,
  kDiv,
  kMod,
  kPow,
  kAtan2,
  kEq,
  kNe,
  kGt,
  kLt,
  kGe,
  kLe,
  kAnd,
  kOr,
  kUnless
};
bool is_comparison(BinaryOp op);
// Whether the result drops __name__: arithmetic does, except atan2 (as in Prometheus 2.42).
bool drops_metric_name(BinaryOp op);
bool is_set_operator(BinaryOp op);
const char* binary_op_text(BinaryOp op);

enum class Aggregation {
  kSum,
  kAvg,
  kMin,
  kMax,
  kCount,
  kGroup,
  kStddev,
  kStdvar,
  kTopk,
  kBottomk,
  kQuantile,
  kCountValues
};
const char* aggregation_name(Aggregation op);
// topk, bottomk and quantile take a scalar parameter, count_values a string one.
bool takes_parameter(Aggregation op);

// The `@` modifier of a selector or subquery: none, a fixed time, or the query's start or end.
enum class AtModifier { kNone, kTime, kStart, kEnd };

// How a binary operation between two instant vectors pairs their series.
struct VectorMatching {
  enum class Card { kOneToOne, kManyToOne, kOneToMany, kManyToMany };
  Card card = Card::kOneToOne;
  bool on = false;                   // on(...) given: match on exactly these labels; else ignoring(...)
  std::vector<std::string> labels;   // the on/ignoring list
  std::vector<std::string> include;  // group_left/group_right(...) extra labels from the "one" side
};

struct FunctionDef;

struct Expr {
  enum class Kind {
    kNumber,          // number
    kString,          // text
    kVectorSelector,  // text = metric name ("" when absent), matchers, offset_ms, at, at_ms
    kMatrixSelector,  // args[0] = the vector selector (which holds offset and @), range_ms
    kSubquery,        // args[0] = an instant-vector expression, range_ms, step_ms (0: default), offset_ms, at
    kCall,            // text = function name, function, args
    kAggregate,       // aggregation, args = {expr} or {param, expr}, grouping, without
    kBinary,          // op, args = {lhs, rhs}, return_bool, matching
    kNegate,          // args[0]
    kParen,           // args[0]
  };
  Kind kind = Kind::kNumber;
  int position = 0;  // byte offset of the node's first character in the query
  ValueType type = ValueType::kScalar;

  double number = 0;
  std::string text;
  std::vector<store::LabelMatcher> matchers;
  std::int64_t offset_ms = 0;
  std::int64_t range_ms = 0;
  std::int64_t step_ms = 0;
  AtModifier at = AtModifier::kNone;
  std::int64_t at_ms = 0;  // AtModifier::kTime
  const FunctionDef* function = nullptr;
  Aggregation aggregation = Aggregation::kSum;
  std::vector<std::string> grouping;
  bool without = false;
  BinaryOp op = BinaryOp::kAdd;
  bool return_bool = false;
  VectorMatching matching;
  std::vector<std::unique_ptr<Expr>> args;
  // Levels of this subtree (1 for a leaf); the parser refuses a query deeper than kMaxExpressionDepth, so
  // the evaluator's recursion (and the tree's destruction) stays well within a thread's stack.
  int height = 1;
};

using ExprPtr = std::unique_ptr<Expr>;

// The deepest expression a query may nest: far beyond any hand-written query, far below a stack overflow.
inline constexpr int kMaxExpressionDepth = 200;

}  // namespace gpuwatch::query
