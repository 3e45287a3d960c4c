// Aggregations: series are put into groups once (their labels do not change across steps), then each
// group is folded step by step, in the same order and with the same arithmetic as Prometheus.
#include <algorithm>
#include <cmath>
#include <unordered_map>

#include "query/aggregation_groups.h"
#include "query/functions.h"
#include "query/labels_util.h"
#include "query/operators.h"

namespace gpuwatch::query {
namespace {

// quantile: every member's value at a step is needed at once, so the group is folded step by step.
void fold_quantile(const Group& g, const std::vector<StepSeries>& in, const std::vector<double>& param,
                   StepSeries& out) {
  std::vector<double> values;
  for (std::size_t k = 0; k < out.values.size(); ++k) {
    values.clear();
    for (const std::size_t i : g.members) {
      if (in[i].present[k]) values.push_back(in[i].values[k]);
    }
    if (values.empty()) continue;
    out.present[k] = 1;
    out.values[k] = quantile_of(param[k], values);
  }
}

// sum, avg, min, max, count, group, stddev, stdvar, quantile: one output series per group. Member by member,
// each step's running value kept apart: every input series is read once, in order (a group of a thousand
// series read step by step jumped between a thousand arrays at every step), and each step still folds its
// members in input order with the same arithmetic, so the results are the same to the bit.
StepSeries fold(Aggregation op, const Group& g, const std::vector<StepSeries>& in,
                const std::vector<double>& param, std::size_t steps) {
  StepSeries out{g.labels, std::vector<double>(steps), std::vector<std::uint8_t>(steps)};
  if (op == Aggregation::kQuantile) {
    fold_quantile(g, in, param, out);
    return out;
  }
  std::vector<double> value(steps), mean(steps), count(steps);
  for (const std::size_t i : g.members) {
    const StepSeries& member = in[i];
    for (std::size_t k = 0; k < steps; ++k) {
      if (!member.present[k]) continue;
      const double v = member.values[k];
      const double n = ++count[k];
      if (n == 1) {
        value[k] = op == Aggregation::kStddev || op == Aggregation::kStdvar ? 0 : v;
        mean[k] = v;
        continue;
      }
      switch (op) {
        case Aggregation::kSum:
          value[k] += v;
          break;
        case Aggregation::kAvg:
          if (std::isinf(mean[k])) {
            if (std::isinf(v) && (mean[k] > 0) == (v > 0)) break;
            if (!std::isinf(v) && !std::isnan(v)) break;
          }
          // Dividing both sides keeps large values from overflowing.
          mean[k] += v / n - mean[k] / n;
          break;
        case Aggregation::kMin:
          if (value[k] > v || std::isnan(value[k])) value[k] = v;
          break;
        case Aggregation::kMax:
          if (value[k] < v || std::isnan(value[k])) value[k] = v;
          break;
        case Aggregation::kStddev:
        case Aggregation::kStdvar: {
          // Welford's running variance, as Prometheus folds it.
          const double delta = v - mean[k];
          mean[k] += delta / n;
          value[k] += delta * (v - mean[k]);
          break;
        }
        default:
          break;
      }
    }
  }
  for (std::size_t k = 0; k < steps; ++k) {
    if (count[k] == 0) continue;
    out.present[k] = 1;
    switch (op) {
      case Aggregation::kAvg:
        out.values[k] = mean[k];
        break;
      case Aggregation::kCount:
        out.values[k] = count[k];
        break;
      case Aggregation::kGroup:
        out.values[k] = 1;
        break;
      case Aggregation::kStdvar:
        out.values[k] = value[k] / count[k];
        break;
      case Aggregation::kStddev:
        out.values[k] = std::sqrt(value[k] / count[k]);
        break;
      default:
        out.values[k] = value[k];
        break;
    }
  }
  return out;
}

store::Labels group_labels(const Expr& e, const store::Labels& labels) {
  return e.without ? remove_labels(labels, e.grouping) : keep_labels(labels, e.grouping);
}

}  // namespace

std::vector<Group> group_series(const Expr& e, const std::vector<StepSeries>& input) {
  std::vector<Group> groups;
  std::unordered_map<std::string, std::size_t> index;
  for (std::size_t i = 0; i < input.size(); ++i) {
    store::Labels labels = group_labels(e, input[i].labels);
    const auto [it, inserted] = index.try_emplace(labels_key(labels), groups.size());
    if (inserted) groups.push_back({std::move(labels), {}});
    groups[it->second].members.push_back(i);
  }
  return groups;
}

Value aggregate(const Expr& e, const std::vector<double>& param, Value input, std::size_t steps) {
  Value v;
  v.type = ValueType::kVector;
  if (e.aggregation == Aggregation::kTopk || e.aggregation == Aggregation::kBottomk) {
    v.vector = select_k(e, param, input.vector, steps);
    return v;
  }
  if (e.aggregation == Aggregation::kCountValues) {
    v.vector = count_values(e, input.vector, steps);
    return v;
  }
  for (const Group& g : group_series(e, input.vector)) {
    StepSeries s = fold(e.aggregation, g, input.vector, param, steps);
    if (has_any(s)) v.vector.push_back(std::move(s));
  }
  return v;
}

}  // namespace gpuwatch::query
