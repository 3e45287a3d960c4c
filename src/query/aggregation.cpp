// Aggregations: series are put into groups once (their labels do not change across steps), then each
// group is folded step by step, in the same order and with the same arithmetic as Prometheus.
#include <algorithm>
#include <cmath>
#include <limits>
#include <unordered_map>

#include "query/functions.h"
#include "query/labels_util.h"
#include "query/operators.h"

namespace gpuwatch::query {
namespace {

struct Group {
  store::Labels labels;
  std::vector<std::size_t> members;  // indexes into the input, in input order
};

std::vector<Group> group_series(const Expr& e, const std::vector<StepSeries>& input) {
  std::vector<Group> groups;
  std::unordered_map<std::string, std::size_t> index;
  for (std::size_t i = 0; i < input.size(); ++i) {
    store::Labels labels =
        e.without ? remove_labels(input[i].labels, e.grouping) : keep_labels(input[i].labels, e.grouping);
    const auto [it, inserted] = index.try_emplace(labels_key(labels), groups.size());
    if (inserted) groups.push_back({std::move(labels), {}});
    groups[it->second].members.push_back(i);
  }
  return groups;
}

// sum, avg, min, max, count, quantile: one output series per group.
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
        value = v;
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

// topk/bottomk: the chosen input series keep their labels and values at the steps they are chosen.
void select_k(bool top, const Group& g, const std::vector<StepSeries>& in, const std::vector<double>& param,
              std::vector<StepSeries>& out, std::size_t steps) {
  std::vector<std::size_t> chosen;
  for (std::size_t k = 0; k < steps; ++k) {
    const double kf = param[k];
    if (!(kf >= 1)) continue;  // k < 1 (or NaN) selects nothing
    const auto want = static_cast<std::size_t>(std::min(kf, static_cast<double>(g.members.size())));
    chosen.clear();
    for (const std::size_t i : g.members) {
      if (in[i].present[k]) chosen.push_back(i);
    }
    // NaN ranks below every number for topk and bottomk alike.
    const auto better = [&](std::size_t a, std::size_t b) {
      const double x = in[a].values[k];
      const double y = in[b].values[k];
      if (std::isnan(x)) return false;
      if (std::isnan(y)) return true;
      return top ? x > y : x < y;
    };
    const std::size_t n = std::min(want, chosen.size());
    std::partial_sort(chosen.begin(), chosen.begin() + static_cast<std::ptrdiff_t>(n), chosen.end(), better);
    for (std::size_t j = 0; j < n; ++j) {
      out[chosen[j]].values[k] = in[chosen[j]].values[k];
      out[chosen[j]].present[k] = 1;
    }
  }
}

}  // namespace

Value aggregate(const Expr& e, const std::vector<double>& param, Value input, std::size_t steps) {
  const std::vector<Group> groups = group_series(e, input.vector);
  Value v;
  v.type = ValueType::kVector;
  if (e.aggregation == Aggregation::kTopk || e.aggregation == Aggregation::kBottomk) {
    std::vector<StepSeries> out;
    for (const auto& s : input.vector) {
      out.push_back({s.labels, std::vector<double>(steps), std::vector<std::uint8_t>(steps)});
    }
    for (const Group& g : groups)
      select_k(e.aggregation == Aggregation::kTopk, g, input.vector, param, out, steps);
    for (auto& s : out) {
      if (std::find(s.present.begin(), s.present.end(), 1) != s.present.end())
        v.vector.push_back(std::move(s));
    }
    return v;
  }
  for (const Group& g : groups) {
    StepSeries s = fold(e.aggregation, g, input.vector, param, steps);
    if (std::find(s.present.begin(), s.present.end(), 1) != s.present.end()) v.vector.push_back(std::move(s));
  }
  std::sort(v.vector.begin(), v.vector.end(),
            [](const auto& a, const auto& b) { return a.labels < b.labels; });
  return v;
}

}  // namespace gpuwatch::query
