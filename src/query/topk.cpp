// topk/bottomk as Prometheus selects: per group and step a heap of at most k series, filled in input order,
// where a later series displaces the heap's weakest only when strictly better (or the weakest is NaN), then
// the heap sorted best first. Equal values therefore keep and order the same series as Prometheus.
#include <cmath>

#include "query/aggregation_groups.h"
#include "query/go_sort.h"
#include "query/query_error.h"
#include "query/result_json.h"

namespace gpuwatch::query {
namespace {

struct Candidate {
  std::size_t series;
  double value;
};

// Prometheus's k: the parameter cut to an integer, which must fit int64.
std::int64_t k_at(double param) {
  if (!(param <= 9223372036854775807.0 && param >= -9223372036854775808.0)) {
    throw execution_error("Scalar value " + format_value(param) + " overflows int64");
  }
  if (param >= 9223372036854775807.0) return INT64_MIN;  // as Go converts 2^63 on amd64
  return static_cast<std::int64_t>(param);
}

// The chosen members of one group at step `step`, best first.
std::vector<Candidate> choose(bool top, std::int64_t k, const Group& g, const std::vector<StepSeries>& in,
                              std::size_t step) {
  // The heap's order: its root is the weakest kept (the smallest for topk, the largest for bottomk), NaN
  // weakest of all.
  const auto weaker = [top](const Candidate& a, const Candidate& b) {
    return std::isnan(a.value) || (top ? a.value < b.value : a.value > b.value);
  };
  std::vector<Candidate> heap;
  for (const std::size_t i : g.members) {
    if (!in[i].present[step]) continue;
    const Candidate c{i, in[i].values[step]};
    if (heap.empty()) {
      heap.push_back(c);
      continue;
    }
    const auto size = static_cast<std::int64_t>(heap.size());
    if (size < k || weaker(heap[0], c) || std::isnan(heap[0].value)) {
      if (size == k) {
        if (k == 1) {
          heap[0] = c;
          continue;
        }
        go::heap_pop(heap, weaker);
      }
      go::heap_push(heap, c, weaker);
    }
  }
  if (heap.size() > 1) {
    // sort.Reverse of the heap's order: best first.
    go::sort(heap, [&](const Candidate& a, const Candidate& b) { return weaker(b, a); });
  }
  return heap;
}

}  // namespace

std::vector<StepSeries> select_k(const Expr& e, const std::vector<double>& param,
                                 const std::vector<StepSeries>& in, std::size_t steps) {
  const bool top = e.aggregation == Aggregation::kTopk;
  const std::vector<Group> groups = group_series(e, in);
  std::vector<StepSeries> out;
  std::vector<std::size_t> slot(in.size(), SIZE_MAX);  // input series -> its place in `out`
  for (std::size_t step = 0; step < steps; ++step) {
    const std::int64_t k = k_at(param[step]);
    if (k < 1) continue;
    for (const Group& g : groups) {
      for (const Candidate& c : choose(top, k, g, in, step)) {
        if (slot[c.series] == SIZE_MAX) {
          slot[c.series] = out.size();
          out.push_back({in[c.series].labels, std::vector<double>(steps), std::vector<std::uint8_t>(steps)});
        }
        StepSeries& s = out[slot[c.series]];
        s.values[step] = c.value;
        s.present[step] = 1;
      }
    }
  }
  return out;
}

}  // namespace gpuwatch::query
