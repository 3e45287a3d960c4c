#include "slo/event_query.h"

#include <stdexcept>

#include "query/parser.h"
#include "query/query_error.h"

namespace gpuwatch::slo {
namespace {

using query::Expr;

// Sloth's template variable: any window parses; the agent's windows replace it.
std::string without_window_template(std::string_view query) {
  std::string out(query);
  for (const std::string_view var : {"{{.window}}", "{{ .window }}"}) {
    for (auto at = out.find(var); at != std::string::npos; at = out.find(var))
      out.replace(at, var.size(), "5m");
  }
  return out;
}

EventSelector selector_of(const Expr& vs, std::string_view query) {
  EventSelector s;
  s.metric = vs.text;
  for (const auto& m : vs.matchers) {
    if (m.name() == "__name__") {
      if (m.op() != MatchOp::kEqual)
        throw std::invalid_argument("the counter must be named, not matched by a regex");
      s.metric = m.value();
      continue;
    }
    s.matchers.push_back(m);
  }
  if (s.metric.empty()) throw std::invalid_argument("the counter must be named");
  s.text = std::string(query);
  return s;
}

void collect(const Expr& e, std::string_view query, std::vector<EventSelector>& out) {
  switch (e.kind) {
    case Expr::Kind::kParen:
      collect(*e.args[0], query, out);
      return;
    case Expr::Kind::kAggregate:
      if (e.aggregation != query::Aggregation::kSum)
        throw std::invalid_argument("only sum() aggregates events; other aggregations are not counts");
      collect(*e.args.back(), query, out);
      return;
    case Expr::Kind::kBinary:
      if (e.op != query::BinaryOp::kAdd) throw std::invalid_argument("only + combines event counts");
      collect(*e.args[0], query, out);
      collect(*e.args[1], query, out);
      return;
    case Expr::Kind::kCall:
      if ((e.text == "rate" || e.text == "increase") && e.args.size() == 1 &&
          e.args[0]->kind == Expr::Kind::kMatrixSelector) {
        out.push_back(selector_of(*e.args[0]->args[0], query));
        return;
      }
      throw std::invalid_argument("only rate() or increase() of a counter counts events, not " + e.text +
                                  "()");
    default:
      throw std::invalid_argument(
          "an SLI query must be a sum of rate() or increase() of counters (the agent keeps them as counts)");
  }
}

}  // namespace

std::vector<EventSelector> parse_event_query(std::string_view text) {
  query::ExprPtr expr;
  try {
    expr = query::parse_expression(without_window_template(text));
  } catch (const query::QueryError& e) {
    throw std::invalid_argument(std::string("query: ") + e.what());
  }
  std::vector<EventSelector> out;
  collect(*expr, text, out);
  return out;
}

}  // namespace gpuwatch::slo
