// The parsed form of an expression in gpuwatch's PromQL subset. One node type with a kind keeps the
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

enum class BinaryOp { kAdd, kSub, kMul, kDiv, kMod, kPow, kEq, kNe, kGt, kLt, kGe, kLe, kAnd, kOr, kUnless };
bool is_comparison(BinaryOp op);
bool is_set_operator(BinaryOp op);
const char* binary_op_text(BinaryOp op);

enum class Aggregation { kSum, kAvg, kMin, kMax, kCount, kTopk, kBottomk, kQuantile };
const char* aggregation_name(Aggregation op);

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
    kVectorSelector,  // text = metric name ("" when absent), matchers, offset_ms
    kMatrixSelector,  // args[0] = the vector selector, range_ms
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
