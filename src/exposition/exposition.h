// The pieces of the Prometheus exposition formats that every renderer shares: a family model (name, type,
// unit, help, series) and the writer that prints it as text 0.0.4 or OpenMetrics 1.0. The renderers build
// families from a snapshot; only this file knows the grammar (escaping, number spelling, comment order).
#pragma once

#include <cstdint>
#include <functional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace gpuwatch {

enum class ExpositionFormat { kText004, kOpenMetrics };

// The Content-Type each format is served with.
std::string_view content_type(ExpositionFormat format);

enum class FamilyType { kGauge, kCounter, kInfo };

struct Series {
  std::vector<std::pair<std::string_view, std::string>> labels;  // label names live in static tables
  double value = 0;
  std::int64_t read_ms =
      0;  // when the value was read (Sample::read_ms); 0: at the snapshot's time. Not rendered
};

// A metric family named as the text 0.0.4 sample name: counters end in _total, info families in _info.
// The OpenMetrics writer derives the family name from it (drops the suffix) and adds it back on samples.
struct Family {
  std::string_view name;
  FamilyType type = FamilyType::kGauge;
  std::string_view unit;  // "" when the name carries no unit
  std::string_view help;
  std::vector<Series> series;
};

// A sample's name and its series' labels as both formats write them: name{a="x",b="y"}, or the name alone.
void append_series_name(std::string& out, std::string_view sample_name, const Series& series);

// The word a TYPE line gives the family: text 0.0.4 has no info type and says gauge.
std::string_view type_word(FamilyType type, ExpositionFormat format);

// Shortest text that parses back to the same double; +Inf, -Inf and NaN spelled as Prometheus does.
void append_value(std::string& out, double value);

// Appends a family's comment lines only (HELP and TYPE; OpenMetrics: TYPE, UNIT, HELP under the family name
// without its _total or _info suffix), for writers that print the samples themselves (with timestamps).
void append_family_header(std::string& out, const Family& family, ExpositionFormat format);

// Appends one family (comments, then its series). A family with no series is skipped: an empty family
// says nothing and some parsers reject it.
void append_family(std::string& out, const Family& family, ExpositionFormat format);

// Families that other parts of the agent add to /metrics (the alerts): appended to a rendering after the
// catalogue's families and before the end marker. Called on a server thread; must be thread-safe.
using ExtraFamilies = std::function<void(std::string& out, ExpositionFormat format)>;

// Appends what closes an exposition: "# EOF" for OpenMetrics, nothing for text 0.0.4.
void append_end(std::string& out, ExpositionFormat format);

}  // namespace gpuwatch
