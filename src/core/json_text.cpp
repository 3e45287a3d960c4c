#include "core/json_text.h"

#include <cstdio>

#include "core/utf8.h"

namespace gpuwatch {

void append_json_string(std::string& out, std::string_view s) {
  // Query text and label values are quoted back as they came, repaired so the document stays JSON.
  std::string repaired;
  if (!is_valid_utf8(s)) {
    repaired = to_valid_utf8(s, s.size() * 3);
    s = repaired;
  }
  out += '"';
  for (const char c : s) {
    switch (c) {
      case '"':
        out += "\\\"";
        break;
      case '\\':
        out += "\\\\";
        break;
      case '\n':
        out += "\\n";
        break;
      case '\r':
        out += "\\r";
        break;
      case '\t':
        out += "\\t";
        break;
      default:
        if (static_cast<unsigned char>(c) < 0x20) {
          char buf[8];
          std::snprintf(buf, sizeof buf, "\\u%04x", c);
          out += buf;
        } else {
          out += c;
        }
    }
  }
  out += '"';
}

}  // namespace gpuwatch
