// A strict parser of the exposition formats for tests: it checks the grammar rules gpuwatch relies on and
// that scrapers enforce (promtool has no OpenMetrics checker), and returns the parsed families.
#pragma once

#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "exposition/exposition.h"

namespace gpuwatch::testing {

struct ParsedSample {
  std::string name;
  std::vector<std::pair<std::string, std::string>> labels;  // unescaped values
  double value = 0;
};

struct ParsedFamily {
  std::string name;  // as declared by TYPE
  std::string type;
  std::string unit;
  std::string help;  // unescaped
  std::vector<ParsedSample> samples;
};

struct ParseResult {
  std::vector<ParsedFamily> families;
  std::vector<std::string> errors;  // "line N: what", empty when the text is valid
};

ParseResult parse_exposition(std::string_view text, ExpositionFormat format);

// The sample of `family` whose labels include every pair of `match`; nullptr when none.
const ParsedSample* find_sample(const ParseResult& r, std::string_view sample_name,
                                const std::vector<std::pair<std::string, std::string>>& match = {});

}  // namespace gpuwatch::testing
