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

// sum, avg, min, max, count, group, stddev, stdvar, quantile: one output series per group.
StepSeries fold(Aggregation op, const Group& g, const std::vector<StepSeries>& in,
                const std::vector<double>& param, std::size_t steps) {
  StepSeries out{g.labels, std::vector<double>(steps), std::vector<std::uint8_t>(steps)};
  std::vector<double> values;
  for (std::size_t k = 0; k < steps; ++k) {
    double value = 0;
    double mean = 0;
    double count = 0;
    values.clear();
    for (const std::size_t i : g.members) {
      if (!in[i].present[k]) continue;
      const double v = in[i].values[k];
      count++;
      if (count == 1) {
        value = op == Aggregation::kStddev || op == Aggregation::kStdvar ? 0 : v;
        mean = v;
        values.push_back(v);
        continue;
      }
      switch (op) {
        case Aggregation::kSum:
          value += v;
          break;
        case Aggregation::kAvg:
          if (std::isinf(mean)) {
            if (std::isinf(v) && (mean > 0) == (v > 0)) break;
            if (!std::isinf(v) && !std::isnan(v)) break;
          }
          // Dividing both sides keeps large values from overflowing.
          mean += v / count - mean / count;
          break;
        case Aggregation::kMin:
          if (value > v || std::isnan(value)) value = v;
          break;
        case Aggregation::kMax:
          if (value < v || std::isnan(value)) value = v;
          break;
        case Aggregation::kStddev:
        case Aggregation::kStdvar: {
          // Welford's running variance, as Prometheus folds it.
          const double delta = v - mean;
          mean += delta / count;
          value += delta * (v - mean);
          break;
        }
        case Aggregation::kQuantile:
          values.push_back(v);
          break;
        default:
          break;
      }
    }
    if (count == 0) continue;
    out.present[k] = 1;
    switch (op) {
      case Aggregation::kAvg:
        out.values[k] = mean;
        break;
      case Aggregation::kCount:
        out.values[k] = count;
        break;
      case Aggregation::kGroup:
        out.values[k] = 1;
        break;
      case Aggregation::kStdvar:
        out.values[k] = value / count;
        break;
      case Aggregation::kStddev:
        out.values[k] = std::sqrt(value / count);
        break;
      case Aggregation::kQuantile:
        out.values[k] = quantile_of(param[k], values);
        break;
      default:
        out.values[k] = value;
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
