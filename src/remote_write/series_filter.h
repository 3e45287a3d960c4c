// A receiver's write_relabel_configs of the keep and drop kinds, compiled once: a series is sent when every
// rule lets it through, in order, as Prometheus applies them.
#pragma once

#include <vector>

#include "config/remote_write_target.h"
#include "core/label_matcher.h"
#include "core/series.h"

namespace gpuwatch::remote_write {

class SeriesFilter {
 public:
  // Throws InvalidRegex (the config check already reported it with file:line).
  explicit SeriesFilter(const std::vector<RemoteWriteFilter>& rules);
  bool keeps(const Labels& labels) const;
  bool empty() const { return rules_.empty(); }

 private:
  struct Rule {
    RemoteWriteFilter::Action action;
    std::vector<std::string> source_labels;
    LabelMatcher regex;  // anchored, as Prometheus anchors relabel regexes
  };
  std::vector<Rule> rules_;
};

}  // namespace gpuwatch::remote_write
