#include "remote_write/series_filter.h"

namespace gpuwatch::remote_write {

SeriesFilter::SeriesFilter(const std::vector<RemoteWriteFilter>& rules) {
  for (const auto& r : rules)
    rules_.push_back(Rule{r.action, r.source_labels, LabelMatcher("regex", MatchOp::kRegexMatch, r.regex)});
}

bool SeriesFilter::keeps(const Labels& labels) const {
  std::string joined;
  for (const auto& rule : rules_) {
    joined.clear();
    for (std::size_t i = 0; i < rule.source_labels.size(); ++i) {
      if (i > 0) joined += ';';  // Prometheus's default separator
      joined += label_value(labels, rule.source_labels[i]);
    }
    const bool matched = rule.regex.matches(joined);
    if (matched != (rule.action == RemoteWriteFilter::Action::kKeep)) return false;
  }
  return true;
}

}  // namespace gpuwatch::remote_write
