#include "query/parser.h"

#include <algorithm>
#include <cmath>
#include <set>
#include <string>

#include "query/functions.h"
#include "query/lexer.h"
#include "query/query_error.h"

namespace gpuwatch::query {
namespace {

using K = Token::Kind;

struct BinaryOpInfo {
  std::string_view text;
  BinaryOp op;
  int precedence;
};
// Lowest to highest: or; and unless; comparisons; + -; * / %; ^ (right-associative).
constexpr BinaryOpInfo kBinaryOps[] = {
    {"or", BinaryOp::kOr, 1}, {"and", BinaryOp::kAnd, 2}, {"unless", BinaryOp::kUnless, 2},
    {"==", BinaryOp::kEq, 3}, {"!=", BinaryOp::kNe, 3},   {">", BinaryOp::kGt, 3},
    {"<", BinaryOp::kLt, 3},  {">=", BinaryOp::kGe, 3},   {"<=", BinaryOp::kLe, 3},
    {"+", BinaryOp::kAdd, 4}, {"-", BinaryOp::kSub, 4},   {"*", BinaryOp::kMul, 5},
    {"/", BinaryOp::kDiv, 5}, {"%", BinaryOp::kMod, 5},   {"atan2", BinaryOp::kAtan2, 5},
    {"^", BinaryOp::kPow, 6},
};
constexpr int kPowPrecedence = 6;

struct AggregationName {
  std::string_view name;
  Aggregation op;
};
constexpr AggregationName kAggregations[] = {
    {"sum", Aggregation::kSum},           {"avg", Aggregation::kAvg},
    {"min", Aggregation::kMin},           {"max", Aggregation::kMax},
    {"count", Aggregation::kCount},       {"group", Aggregation::kGroup},
    {"stddev", Aggregation::kStddev},     {"stdvar", Aggregation::kStdvar},
    {"topk", Aggregation::kTopk},         {"bottomk", Aggregation::kBottomk},
    {"quantile", Aggregation::kQuantile}, {"count_values", Aggregation::kCountValues},
};
// Aggregations of Prometheus releases after 2.42.
const std::set<std::string_view> kUnsupportedAggregations = {"limitk", "limit_ratio"};

class Parser {
 public:
  explicit Parser(std::string_view q) : q_(q), tokens_(tokenize(q)) {}

  ExprPtr run() {
    ExprPtr e = expression(1);
    if (peek().kind != K::kEnd) fail(peek().position, "unexpected " + describe(peek()));
    return e;
  }

 private:
  const Token& peek(int ahead = 0) const {
    const std::size_t i = std::min(pos_ + ahead, tokens_.size() - 1);
    return tokens_[i];
  }
  const Token& next() { return tokens_[std::min(pos_++, tokens_.size() - 1)]; }
  bool at(K kind, std::string_view text = {}) const {
    return peek().kind == kind && (text.empty() || peek().text == text);
  }
  const Token& expect(K kind, const std::string& what) {
    if (peek().kind != kind) fail(peek().position, "unexpected " + describe(peek()) + ", expected " + what);
    return next();
  }
  static std::string describe(const Token& t) {
    if (t.kind == K::kEnd) return "end of input";
    if (t.kind == K::kString) return "string \"" + t.text + "\"";
    return "\"" + t.text + "\"";
  }
  [[noreturn]] void fail(int at, const std::string& what) const {
    throw bad_data(position_text(q_, at) + ": parse error: " + what);
  }
  [[noreturn]] void unsupported(int at, const std::string& what) const {
    throw bad_data("unsupported " + what + " at " + position_text(q_, at) +
                   " (gpuwatch implements a PromQL subset; see docs/query.md)");
  }

  const BinaryOpInfo* binary_op_here() const {
    const Token& t = peek();
    if (t.kind != K::kOperator && t.kind != K::kIdentifier) return nullptr;
    for (const auto& info : kBinaryOps) {
      if (t.text == info.text) return &info;
    }
    return nullptr;
  }

  // Counts the parser's own nesting while it descends, so that "((((..." is refused before the stack runs
  // out.
  class Nesting {
   public:
    explicit Nesting(Parser& p) : p_(p) {
      if (++p_.depth_ > kMaxExpressionDepth) p_.too_deep(p_.peek().position);
    }
    ~Nesting() { --p_.depth_; }
    Nesting(const Nesting&) = delete;
    Nesting& operator=(const Nesting&) = delete;

   private:
    Parser& p_;
  };

  [[noreturn]] void too_deep(int at) const {
    fail(at, "expression nests deeper than the limit of " + std::to_string(kMaxExpressionDepth) + " levels");
  }

  // Sets a new node's height from its children's, refusing a tree deeper than the limit (a long chain such
  // as 1+1+...+1 is built in a loop, so the nesting count alone does not bound it).
  void grown(Expr& e) const {
    int below = 0;
    for (const auto& a : e.args) below = std::max(below, a->height);
    e.height = below + 1;
    if (e.height > kMaxExpressionDepth) too_deep(e.position);
  }

  ExprPtr expression(int min_precedence) {
    const Nesting nesting(*this);
    ExprPtr lhs = unary();
    while (const BinaryOpInfo* info = binary_op_here()) {
      if (info->precedence < min_precedence) break;
      const int position = next().position;
      auto e = std::make_unique<Expr>();
      e->kind = Expr::Kind::kBinary;
      e->op = info->op;
      e->position = lhs->position;
      binary_modifiers(*e);
      const int next_min = info->op == BinaryOp::kPow ? info->precedence : info->precedence + 1;
      ExprPtr rhs = expression(next_min);
      e->args.push_back(std::move(lhs));
      e->args.push_back(std::move(rhs));
      grown(*e);
      check_binary(*e, position);
      lhs = std::move(e);
    }
    return lhs;
  }

  void binary_modifiers(Expr& e) {
    if (at(K::kIdentifier, "bool")) {
      if (!is_comparison(e.op))
        fail(peek().position, "bool modifier can only be used on comparison operators");
      next();
      e.return_bool = true;
    }
    if (at(K::kIdentifier, "on") || at(K::kIdentifier, "ignoring")) {
      e.matching.on = next().text == "on";
      e.matching.labels = label_list();
    }
    if (at(K::kIdentifier, "group_left") || at(K::kIdentifier, "group_right")) {
      const Token& t = next();
      if (is_set_operator(e.op))
        fail(t.position, std::string("no grouping allowed for \"") + binary_op_text(e.op) + "\" operation");
      e.matching.card =
          t.text == "group_left" ? VectorMatching::Card::kManyToOne : VectorMatching::Card::kOneToMany;
      if (at(K::kLeftParen)) e.matching.include = label_list();
    }
    if (is_set_operator(e.op)) e.matching.card = VectorMatching::Card::kManyToMany;
  }

  void check_binary(Expr& e, int op_position) {
    const Expr& l = *e.args[0];
    const Expr& r = *e.args[1];
    const auto ok_type = [](ValueType t) { return t == ValueType::kScalar || t == ValueType::kVector; };
    if (!ok_type(l.type) || !ok_type(r.type)) {
      fail(op_position, "binary expression must contain only scalar and instant vector types");
    }
    const bool scalars = l.type == ValueType::kScalar && r.type == ValueType::kScalar;
    if (scalars && is_comparison(e.op) && !e.return_bool) {
      fail(op_position, "comparisons between scalars must use BOOL modifier");
    }
    if (is_set_operator(e.op) && (l.type == ValueType::kScalar || r.type == ValueType::kScalar)) {
      fail(op_position, std::string("set operator \"") + binary_op_text(e.op) +
                            "\" not allowed in binary scalar expression");
    }
    const bool has_matching = e.matching.on || !e.matching.labels.empty() ||
                              e.matching.card == VectorMatching::Card::kManyToOne ||
                              e.matching.card == VectorMatching::Card::kOneToMany;
    if (has_matching && (l.type != ValueType::kVector || r.type != ValueType::kVector)) {
      fail(op_position, "vector matching only allowed between instant vectors");
    }
    e.type = scalars ? ValueType::kScalar : ValueType::kVector;
  }

  std::vector<std::string> label_list() {
    expect(K::kLeftParen, "\"(\"");
    std::vector<std::string> names;
    while (!at(K::kRightParen)) {
      const Token& t = expect(K::kIdentifier, "label name");
      names.push_back(t.text);
      if (!at(K::kComma)) break;
      next();
    }
    expect(K::kRightParen, "\")\" or label name");
    return names;
  }

  ExprPtr unary() {
    if (at(K::kOperator, "-") || at(K::kOperator, "+")) {
      const Token& t = next();
      ExprPtr operand = expression(kPowPrecedence);
      if (t.text == "+") return operand;
      if (operand->type != ValueType::kScalar && operand->type != ValueType::kVector) {
        fail(t.position, "unary expression only allowed on expressions of type scalar or instant vector");
      }
      if (operand->kind == Expr::Kind::kNumber) {
        operand->number = -operand->number;
        operand->position = t.position;
        return operand;
      }
      auto e = std::make_unique<Expr>();
      e->kind = Expr::Kind::kNegate;
      e->position = t.position;
      e->type = operand->type;
      e->args.push_back(std::move(operand));
      grown(*e);
      return e;
    }
    return postfix(primary());
  }

  // Ranges, subqueries, offset and @ after a primary expression, in any order Prometheus accepts.
  ExprPtr postfix(ExprPtr e) {
    while (true) {
      if (at(K::kLeftBracket)) {
        e = range_or_subquery(std::move(e));
      } else if (at(K::kIdentifier, "offset")) {
        offset_modifier(*e);
      } else if (at(K::kAt)) {
        at_modifier(*e);
      } else {
        return e;
      }
    }
  }

  std::int64_t positive_duration(const std::string& what) {
    const Token& d = expect(K::kDuration, what);
    if (d.duration_ms <= 0) fail(d.position, "duration must be greater than 0");
    return d.duration_ms;
  }

  ExprPtr range_or_subquery(ExprPtr e) {
    const int position = next().position;
    const std::int64_t range = positive_duration("duration");
    auto m = std::make_unique<Expr>();
    m->position = e->position;
    m->type = ValueType::kMatrix;
    m->range_ms = range;
    if (at(K::kColon)) {
      next();
      if (at(K::kDuration)) m->step_ms = positive_duration("duration");
      expect(K::kRightBracket, "\"]\"");
      if (e->type != ValueType::kVector) {
        fail(position, std::string("subquery is only allowed on instant vector, got ") +
                           value_type_name(e->type) + " instead");
      }
      m->kind = Expr::Kind::kSubquery;
    } else {
      expect(K::kRightBracket, "\":\" or \"]\"");
      if (e->kind != Expr::Kind::kVectorSelector) fail(position, "ranges only allowed for vector selectors");
      if (e->offset_ms != 0) fail(position, "no offset modifiers allowed before range");
      if (e->at != AtModifier::kNone) fail(position, "no @ modifiers allowed before range");
      m->kind = Expr::Kind::kMatrixSelector;
    }
    m->args.push_back(std::move(e));
    grown(*m);
    return m;
  }

  // The node an offset or @ belongs to: a selector (a range selector's vector selector) or a subquery.
  Expr* modified(Expr& e, int position, const char* what) {
    if (e.kind == Expr::Kind::kVectorSelector || e.kind == Expr::Kind::kSubquery) return &e;
    if (e.kind == Expr::Kind::kMatrixSelector) return e.args[0].get();
    fail(position,
         std::string(what) +
             " modifier must be preceded by an instant vector selector or range vector selector or a "
             "subquery");
  }

  void offset_modifier(Expr& e) {
    const int position = next().position;
    bool negative = false;
    if (at(K::kOperator, "-")) {
      next();
      negative = true;
    }
    const std::int64_t d = positive_duration("duration after offset");
    Expr* target = modified(e, position, "offset");
    if (target->offset_ms != 0) fail(position, "offset may not be set multiple times");
    target->offset_ms = negative ? -d : d;
  }

  void at_modifier(Expr& e) {
    const int position = next().position;
    AtModifier at_kind = AtModifier::kTime;
    std::int64_t at_ms = 0;
    if (at(K::kIdentifier, "start") || at(K::kIdentifier, "end")) {
      at_kind = next().text == "start" ? AtModifier::kStart : AtModifier::kEnd;
      expect(K::kLeftParen, "\"(\"");
      expect(K::kRightParen, "\")\"");
    } else {
      bool negative = false;
      if (at(K::kOperator, "-") || at(K::kOperator, "+")) negative = next().text == "-";
      const Token& t = expect(K::kNumber, "timestamp");
      const double seconds = negative ? -t.number : t.number;
      // Prometheus refuses what is not a time; beyond about 292 million years its milliseconds overflow.
      if (!(std::fabs(seconds) < 9.2e15)) {
        fail(t.position, "timestamp out of bounds for @ modifier: " + std::string(t.text));
      }
      at_ms = static_cast<std::int64_t>(std::round(seconds * 1000));
    }
    Expr* target = modified(e, position, "@");
    if (target->at != AtModifier::kNone) fail(position, "@ <timestamp> may not be set multiple times");
    target->at = at_kind;
    target->at_ms = at_ms;
  }

  ExprPtr primary() {
    const Token& t = peek();
    switch (t.kind) {
      case K::kNumber: {
        next();
        auto e = std::make_unique<Expr>();
        e->kind = Expr::Kind::kNumber;
        e->number = t.number;
        e->position = t.position;
        return e;
      }
      case K::kString: {
        next();
        auto e = std::make_unique<Expr>();
        e->kind = Expr::Kind::kString;
        e->type = ValueType::kString;
        e->text = t.text;
        e->position = t.position;
        return e;
      }
      case K::kLeftParen: {
        next();
        auto e = std::make_unique<Expr>();
        e->kind = Expr::Kind::kParen;
        e->position = t.position;
        e->args.push_back(expression(1));
        grown(*e);
        e->type = e->args[0]->type;
        expect(K::kRightParen, "\")\"");
        return e;
      }
      case K::kLeftBrace:
        return selector("", t.position);
      case K::kIdentifier:
        return identifier();
      case K::kDuration:
        fail(t.position, "unexpected duration \"" + t.text + "\"");
      default:
        fail(t.position, "unexpected " + describe(t));
    }
  }

  ExprPtr identifier() {
    const Token& t = next();
    for (const auto& a : kAggregations) {
      if (t.text == a.name &&
          (at(K::kLeftParen) || at(K::kIdentifier, "by") || at(K::kIdentifier, "without"))) {
        return aggregate(a.op, t.position);
      }
    }
    if (at(K::kLeftParen)) {
      if (kUnsupportedAggregations.count(t.text)) unsupported(t.position, "aggregation '" + t.text + "'");
      return call(t);
    }
    if (kUnsupportedAggregations.count(t.text) &&
        (at(K::kIdentifier, "by") || at(K::kIdentifier, "without"))) {
      unsupported(t.position, "aggregation '" + t.text + "'");
    }
    return selector(t.text, t.position);
  }

  ExprPtr aggregate(Aggregation op, int position) {
    auto e = std::make_unique<Expr>();
    e->kind = Expr::Kind::kAggregate;
    e->aggregation = op;
    e->position = position;
    e->type = ValueType::kVector;
    bool grouped = false;
    if (at(K::kIdentifier, "by") || at(K::kIdentifier, "without")) {
      e->without = next().text == "without";
      e->grouping = label_list();
      grouped = true;
    }
    expect(K::kLeftParen, "\"(\"");
    std::vector<ExprPtr> args;
    while (!at(K::kRightParen)) {
      args.push_back(expression(1));
      if (!at(K::kComma)) break;
      next();
    }
    expect(K::kRightParen, "\")\"");
    if (!grouped && (at(K::kIdentifier, "by") || at(K::kIdentifier, "without"))) {
      e->without = next().text == "without";
      e->grouping = label_list();
    }
    const bool takes_param = takes_parameter(op);
    const std::size_t want = takes_param ? 2 : 1;
    if (args.size() != want) {
      fail(position, std::string("wrong number of arguments for aggregate expression provided, expected ") +
                         std::to_string(want) + ", got " + std::to_string(args.size()));
    }
    const ValueType param_type = op == Aggregation::kCountValues ? ValueType::kString : ValueType::kScalar;
    if (takes_param && args[0]->type != param_type) {
      fail(args[0]->position, std::string("expected type ") + value_type_name(param_type) +
                                  " in aggregation parameter, got " + value_type_name(args[0]->type));
    }
    if (args.back()->type != ValueType::kVector) {
      fail(args.back()->position,
           std::string("expected type instant vector in aggregation expression, got ") +
               value_type_name(args.back()->type));
    }
    e->args = std::move(args);
    grown(*e);
    return e;
  }

  ExprPtr call(const Token& name) {
    const FunctionDef* def = find_function(name.text);
    if (!def) {
      if (is_prometheus_function(name.text)) unsupported(name.position, "function '" + name.text + "'");
      fail(name.position, "unknown function with name \"" + name.text + "\"");
    }
    auto e = std::make_unique<Expr>();
    e->kind = Expr::Kind::kCall;
    e->function = def;
    e->text = name.text;
    e->position = name.position;
    e->type = def->returns;
    expect(K::kLeftParen, "\"(\"");
    while (!at(K::kRightParen)) {
      e->args.push_back(expression(1));
      if (!at(K::kComma)) break;
      next();
    }
    expect(K::kRightParen, "\")\"");
    grown(*e);
    check_call(*def, name, e->args);
    return e;
  }

  // Prometheus's argument checks: how many, then each one's type (the last declared type for the rest).
  void check_call(const FunctionDef& def, const Token& name, const std::vector<ExprPtr>& args) const {
    const int n = static_cast<int>(args.size());
    const std::string quoted = "\"" + name.text + "\", got " + std::to_string(n);
    if (def.variadic == 0 && n != def.min_args()) {
      fail(name.position, "expected " + std::to_string(def.min_args()) + " argument(s) in call to " + quoted);
    }
    if (n < def.min_args()) {
      fail(name.position,
           "expected at least " + std::to_string(def.min_args()) + " argument(s) in call to " + quoted);
    }
    if (def.max_args() >= 0 && n > def.max_args()) {
      fail(name.position,
           "expected at most " + std::to_string(def.max_args()) + " argument(s) in call to " + quoted);
    }
    for (int i = 0; i < n; ++i) {
      const Expr& arg = *args[i];
      const ValueType want = def.arg_type(static_cast<std::size_t>(i));
      if (arg.type != want) {
        fail(arg.position, std::string("expected type ") + value_type_name(want) + " in call to function \"" +
                               name.text + "\", got " + value_type_name(arg.type));
      }
    }
  }

  ExprPtr selector(const std::string& name, int position) {
    auto e = std::make_unique<Expr>();
    e->kind = Expr::Kind::kVectorSelector;
    e->type = ValueType::kVector;
    e->text = name;
    e->position = position;
    if (!name.empty()) e->matchers.push_back({"__name__", store::LabelMatcher::Op::kEqual, name});
    if (at(K::kLeftBrace)) {
      next();
      while (!at(K::kRightBrace)) {
        const Token& label = expect(K::kIdentifier, "label matching");
        const Token& op = expect(K::kOperator, "label matching operator");
        store::LabelMatcher::Op match_op = store::LabelMatcher::Op::kEqual;
        if (op.text == "=")
          match_op = store::LabelMatcher::Op::kEqual;
        else if (op.text == "!=")
          match_op = store::LabelMatcher::Op::kNotEqual;
        else if (op.text == "=~")
          match_op = store::LabelMatcher::Op::kRegexMatch;
        else if (op.text == "!~")
          match_op = store::LabelMatcher::Op::kRegexNoMatch;
        else
          fail(op.position, "unexpected \"" + op.text + "\" in label matching, expected =, !=, =~ or !~");
        const Token& value = expect(K::kString, "label value string");
        if (label.text == "__name__" && !name.empty()) {
          fail(label.position,
               "metric name must not be set twice: \"" + name + "\" or \"" + value.text + "\"");
        }
        // The regex is compiled here, once for the whole query; evaluation and the store reuse it.
        store::LabelMatcher m;
        try {
          m = store::LabelMatcher(label.text, match_op, value.text);
        } catch (const InvalidRegex& e) {
          throw bad_data(e.what());
        }
        e->matchers.push_back(std::move(m));
        if (!at(K::kComma)) break;
        next();
      }
      expect(K::kRightBrace, "\"}\" or \",\"");
    }
    if (e->matchers.empty()) fail(position, "vector selector must contain at least one non-empty matcher");
    if (!has_non_empty_matcher(e->matchers)) {
      fail(position, "vector selector must contain at least one non-empty matcher");
    }
    return e;
  }

  // Prometheus refuses selectors whose every matcher also matches the empty string (they would select
  // every series).
  bool has_non_empty_matcher(const std::vector<store::LabelMatcher>& ms) const {
    for (const auto& m : ms) {
      if (!matches_empty(m)) return true;
    }
    return false;
  }

  static bool matches_empty(const store::LabelMatcher& m) { return m.matches(""); }

  std::string_view q_;
  std::vector<Token> tokens_;
  std::size_t pos_ = 0;
  int depth_ = 0;  // expression() calls in progress
};

}  // namespace

ExprPtr parse_expression(std::string_view query) {
  if (query.find_first_not_of(" \t\r\n") == std::string_view::npos) throw bad_data("empty query");
  return Parser(query).run();
}

}  // namespace gpuwatch::query
