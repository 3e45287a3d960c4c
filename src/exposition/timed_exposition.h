// Native families of successive snapshots, written as one timestamped exposition (text 0.0.4 with
// millisecond timestamps, or OpenMetrics with second timestamps and # EOF): each family once, its series in
// the order first seen, each series' samples in time order. This is the shape `gpuwatch import`, promtool
// and VictoriaMetrics all read, so one export feeds all three identically.
#pragma once

#include <cstdint>
#include <ostream>
#include <string>
#include <unordered_map>
#include <vector>

#include "exposition/exposition.h"

namespace gpuwatch {

class TimedExposition {
 public:
  explicit TimedExposition(ExpositionFormat format) : format_(format) {}

  void add(const std::vector<Family>& families, std::int64_t t_ms);
  // Writes the samples added since the last write and forgets them (the series stay known). Returns the
  // number of samples written.
  std::size_t write(std::ostream& out);
  std::size_t series() const { return series_count_; }

 private:
  struct SeriesData {
    std::string prefix;  // name{labels} and a space
    std::vector<std::pair<std::int64_t, double>> points;
  };
  struct FamilyData {
    Family header;  // no series
    std::vector<SeriesData> series;
    std::unordered_map<std::string, std::size_t> index;  // by labels (TimedExposition::add)
  };

  ExpositionFormat format_;
  std::vector<FamilyData> families_;
  std::unordered_map<std::string_view, std::size_t> family_index_;  // names live in static tables
  std::size_t series_count_ = 0;
  std::string scratch_;
};

}  // namespace gpuwatch
