#include "query/engine.h"

#include <algorithm>
#include <string>

#include "query/functions.h"
#include "query/parser.h"
#include "query/query_error.h"

namespace gpuwatch::query {
namespace {

// Sorts by labels and merges series with equal labels (`a or b` where both sides have the same series
// at different steps): a range query answers one series per label set, as Prometheus does.
void sort_series(Value& v) {
  std::stable_sort(v.vector.begin(), v.vector.end(),
                   [](const auto& a, const auto& b) { return a.labels < b.labels; });
  std::vector<StepSeries> merged;
  for (auto& s : v.vector) {
    if (!merged.empty() && merged.back().labels == s.labels) {
      StepSeries& m = merged.back();
      for (std::size_t k = 0; k < s.present.size(); ++k) {
        if (s.present[k] && !m.present[k]) {
          m.values[k] = s.values[k];
          m.present[k] = 1;
        }
      }
    } else {
      merged.push_back(std::move(s));
    }
  }
  v.vector = std::move(merged);
  std::sort(v.matrix.begin(), v.matrix.end(),
            [](const auto& a, const auto& b) { return a.labels < b.labels; });
}

// Whether an instant query's series come in an order of their own, which Prometheus keeps: the outermost
// operation that orders them is sort(), sort_desc(), topk or bottomk, reached only through operations that
// keep the order of their operand (element functions, label_replace/label_join, unary minus, arithmetic
// and comparisons with a scalar). Any other result is sorted by labels.
bool ordered_by_value(const Expr& e) {
  switch (e.kind) {
    case Expr::Kind::kParen:
    case Expr::Kind::kNegate:
      return ordered_by_value(*e.args[0]);
    case Expr::Kind::kAggregate:
      return e.aggregation == Aggregation::kTopk || e.aggregation == Aggregation::kBottomk;
    case Expr::Kind::kCall: {
      const FunctionKind kind = e.function->kind;
      if (kind == FunctionKind::kSort) return true;
      const bool keeps = kind == FunctionKind::kElement || kind == FunctionKind::kLabelReplace ||
                         kind == FunctionKind::kLabelJoin;
      return keeps && !e.args.empty() && ordered_by_value(*e.args[0]);
    }
    case Expr::Kind::kBinary:
      if (e.args[0]->type == ValueType::kScalar) return ordered_by_value(*e.args[1]);
      if (e.args[1]->type == ValueType::kScalar) return ordered_by_value(*e.args[0]);
      return false;
    default:
      return false;
  }
}

}  // namespace

void check_steps(const Steps& steps, const EvalOptions& options) {
  if (steps.end < steps.start) throw bad_data("end timestamp must not be before start time");
  if (steps.step <= 0) {
    throw bad_data("zero or negative query resolution step widths are not accepted. Try a positive integer");
  }
  // The span is unsigned: end - start of two valid times can exceed int64.
  if (steps.span() / static_cast<std::uint64_t>(steps.step) >= options.max_points_per_series) {
    throw bad_data("exceeded maximum resolution of " + std::to_string(options.max_points_per_series) +
                   " points per timeseries. Try decreasing the query resolution (?step=XX)");
  }
}

QueryResult instant_query(const store::SeriesSource& source, std::string_view query, std::int64_t time_ms,
                          const EvalOptions& options) {
  const ExprPtr expr = parse_expression(query);
  QueryResult r;
  r.steps = {time_ms, time_ms, 1};
  r.value = evaluate(*expr, source, r.steps, options);
  r.type = r.value.type;
  if (!ordered_by_value(*expr)) sort_series(r.value);
  return r;
}

QueryResult range_query(const store::SeriesSource& source, std::string_view query, const Steps& steps,
                        const EvalOptions& options) {
  const ExprPtr expr = parse_expression(query);
  if (expr->type != ValueType::kScalar && expr->type != ValueType::kVector) {
    throw bad_data(std::string("invalid expression type \"") + value_type_name(expr->type) +
                   "\" for range query, must be Scalar or instant Vector");
  }
  check_steps(steps, options);
  QueryResult r;
  r.steps = steps;
  r.range = true;
  r.value = evaluate(*expr, source, steps, options);
  r.type = ValueType::kMatrix;
  sort_series(r.value);
  return r;
}

}  // namespace gpuwatch::query
