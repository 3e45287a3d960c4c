#include "http/negotiation.h"

#include <algorithm>
#include <cctype>
#include <string>

namespace gpuwatch {
namespace {

std::string_view trim(std::string_view s) {
  while (!s.empty() && (s.front() == ' ' || s.front() == '\t')) s.remove_prefix(1);
  while (!s.empty() && (s.back() == ' ' || s.back() == '\t')) s.remove_suffix(1);
  return s;
}

bool equal_ignoring_case(std::string_view a, std::string_view b) {
  return a.size() == b.size() && std::equal(a.begin(), a.end(), b.begin(), [](char x, char y) {
           return std::tolower(static_cast<unsigned char>(x)) == std::tolower(static_cast<unsigned char>(y));
         });
}

// The q parameter of one list item's parameters (";version=1.0.0;q=0.5"); 1 when absent or unreadable.
double quality(std::string_view params) {
  while (!params.empty()) {
    params.remove_prefix(1);  // the ';'
    const std::size_t next = std::min(params.find(';'), params.size());
    const std::string_view param = trim(params.substr(0, next));
    if (param.size() > 2 && (param[0] == 'q' || param[0] == 'Q') && param[1] == '=') {
      const std::string value(param.substr(2));
      char* end = nullptr;
      const double q = std::strtod(value.c_str(), &end);
      return end == value.c_str() ? 1.0 : q;
    }
    params.remove_prefix(next);
  }
  return 1.0;
}

}  // namespace

bool header_accepts(std::string_view header, std::string_view token) {
  while (!header.empty()) {
    const std::size_t comma = std::min(header.find(','), header.size());
    const std::string_view item = header.substr(0, comma);
    header.remove_prefix(std::min(comma + 1, header.size()));
    const std::size_t semi = std::min(item.find(';'), item.size());
    if (equal_ignoring_case(trim(item.substr(0, semi)), token)) return quality(item.substr(semi)) > 0;
  }
  return false;
}

}  // namespace gpuwatch
