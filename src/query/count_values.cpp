// count_values("label", v): the value becomes a label (written as Prometheus writes values), and each group
// of the result counts the series that had it. The groups depend on the values, so they are made step by
// step, in the order they first appear.
#include <unordered_map>

#include "query/aggregation_groups.h"
#include "query/labels_util.h"
#include "query/query_error.h"
#include "query/result_json.h"

namespace gpuwatch::query {
namespace {

const std::string& value_label(const Expr& e) {
  const Expr* p = e.args[0].get();
  while (p->kind == Expr::Kind::kParen) p = p->args[0].get();
  return p->text;
}

}  // namespace

std::vector<StepSeries> count_values(const Expr& e, const std::vector<StepSeries>& in, std::size_t steps) {
  const std::string& label = value_label(e);
  if (!is_label_name(label)) throw execution_error("invalid label name \"" + label + "\"");
  std::vector<std::string> grouping = e.grouping;
  if (!e.without) grouping.push_back(label);
  std::vector<StepSeries> out;
  std::unordered_map<std::string, std::size_t> index;
  for (std::size_t k = 0; k < steps; ++k) {
    for (const auto& s : in) {
      if (!s.present[k]) continue;
      store::Labels labels = s.labels;
      set_label(labels, label, format_value(s.values[k]));
      labels = e.without ? remove_labels(labels, grouping) : keep_labels(labels, grouping);
      const auto [it, inserted] = index.try_emplace(labels_key(labels), out.size());
      if (inserted)
        out.push_back({std::move(labels), std::vector<double>(steps), std::vector<std::uint8_t>(steps)});
      StepSeries& group = out[it->second];
      group.values[k] += 1;
      group.present[k] = 1;
    }
  }
  return out;
}

}  // namespace gpuwatch::query
