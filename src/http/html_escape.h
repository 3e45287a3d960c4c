// Text in HTML (the index page lists route patterns and descriptions): the one HTML escaper.
#pragma once

#include <string>
#include <string_view>

namespace gpuwatch {

// `text` with <, >, & and " as entities, fit for element content and double-quoted attribute values.
inline std::string html_escaped(std::string_view text) {
  std::string out;
  out.reserve(text.size());
  for (const char c : text) {
    switch (c) {
      case '<':
        out += "&lt;";
        break;
      case '>':
        out += "&gt;";
        break;
      case '&':
        out += "&amp;";
        break;
      case '"':
        out += "&quot;";
        break;
      default:
        out += c;
    }
  }
  return out;
}

}  // namespace gpuwatch
