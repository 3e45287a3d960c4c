#include "query/value.h"

#include <algorithm>
#include <unordered_map>
#include <unordered_set>

#include "query/labels_util.h"
#include "query/query_error.h"

namespace gpuwatch::query {
namespace {

[[noreturn]] void same_labelset() {
  throw execution_error("vector cannot contain metrics with the same labelset");
}

}  // namespace

bool has_any(const StepSeries& s) {
  return std::find(s.present.begin(), s.present.end(), 1) != s.present.end();
}

void merge_equal_labels(std::vector<StepSeries>& series) {
  std::unordered_map<std::string, std::size_t> first;
  std::vector<StepSeries> merged;
  merged.reserve(series.size());
  for (auto& s : series) {
    const auto [it, inserted] = first.try_emplace(labels_key(s.labels), merged.size());
    if (inserted) {
      merged.push_back(std::move(s));
      continue;
    }
    StepSeries& into = merged[it->second];
    for (std::size_t k = 0; k < s.present.size(); ++k) {
      if (!s.present[k]) continue;
      if (into.present[k]) same_labelset();
      into.values[k] = s.values[k];
      into.present[k] = 1;
    }
  }
  series = std::move(merged);
}

void require_unique_labels(const std::vector<StepSeries>& series) {
  std::unordered_set<std::string> seen;
  for (const auto& s : series) {
    if (!seen.insert(labels_key(s.labels)).second) same_labelset();
  }
}

}  // namespace gpuwatch::query
