#include "query/function_calls.h"

#include <cmath>
#include <set>

#include "query/go_sort.h"
#include "query/labels_util.h"

namespace gpuwatch::query {

Value apply_element(const FunctionDef& f, Value v, const std::vector<double>& a,
                    const std::vector<double>& b) {
  for (auto& s : v.vector) {
    drop_metric_name(s.labels);
    for (std::size_t k = 0; k < s.values.size(); ++k) {
      if (f.checks_params && b[k] < a[k])
        s.present[k] = 0;  // Prometheus: clamp's max below min gives nothing
      s.values[k] = f.element(s.values[k], a[k], b[k]);
    }
  }
  std::erase_if(v.vector, [](const StepSeries& s) { return !has_any(s); });
  merge_equal_labels(v.vector);
  return v;
}

Value scalar_of(const Value& in, std::size_t steps) {
  Value v;
  v.type = ValueType::kScalar;
  v.scalar.assign(steps, NAN);
  std::vector<int> count(steps, 0);
  for (const auto& s : in.vector) {
    for (std::size_t k = 0; k < steps; ++k) {
      if (s.present[k] && ++count[k] == 1) v.scalar[k] = s.values[k];
    }
  }
  for (std::size_t k = 0; k < steps; ++k) {
    if (count[k] != 1) v.scalar[k] = NAN;
  }
  return v;
}

namespace {

// Prometheus's labels for absent(): matchers in order, an equality matcher sets its label the first time
// its name comes, any other matcher of that name (or a second equality) removes it.
store::Labels absent_labels(const Expr& arg) {
  const Expr* x = &arg;
  while (x->kind == Expr::Kind::kParen) x = x->args[0].get();
  if (x->kind == Expr::Kind::kMatrixSelector) x = x->args[0].get();
  store::Labels labels;
  if (x->kind != Expr::Kind::kVectorSelector) return labels;
  std::set<std::string> had;
  for (const auto& m : x->matchers) {
    if (m.name() == kMetricName) continue;
    if (m.op() == store::LabelMatcher::Op::kEqual && had.insert(m.name()).second) {
      set_label(labels, m.name(), m.value());
    } else {
      set_label(labels, m.name(), "");
    }
  }
  return labels;
}

}  // namespace

Value absent_where(const std::vector<std::uint8_t>& seen, const Expr& arg) {
  const std::size_t steps = seen.size();
  StepSeries s{absent_labels(arg), std::vector<double>(steps), std::vector<std::uint8_t>(steps)};
  for (std::size_t k = 0; k < steps; ++k) {
    if (seen[k]) continue;
    s.values[k] = 1;
    s.present[k] = 1;
  }
  Value v;
  v.type = ValueType::kVector;
  if (has_any(s)) v.vector.push_back(std::move(s));
  return v;
}

void sort_by_value(std::vector<StepSeries>& series, bool descending) {
  if (series.empty() || series[0].values.size() != 1) return;
  const auto value = [](const StepSeries& s) { return s.values[0]; };
  // sort.Sort(sort.Reverse(h)) with h's Less(i, j) = "h[i] is NaN or h[i] > h[j]" (sort) or "< " (sort_desc).
  const auto less = [&](const StepSeries& a, const StepSeries& b) {
    return std::isnan(value(b)) || (descending ? value(b) < value(a) : value(b) > value(a));
  };
  go::sort(series, less);
}

}  // namespace gpuwatch::query
