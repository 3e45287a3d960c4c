#include "core/exposition_escaping.h"

namespace gpuwatch {
namespace {

void append_escaped(std::string& out, std::string_view text, std::string_view special) {
  // Most values need no escape: copy them whole.
  if (text.find_first_of(special) == std::string_view::npos) {
    out += text;
    return;
  }
  for (const char c : text) {
    switch (c) {
      case '\\':
        out += "\\\\";
        break;
      case '\n':
        out += "\\n";
        break;
      case '"':
        out += special.find('"') == std::string_view::npos ? "\"" : "\\\"";
        break;
      default:
        out += c;
    }
  }
}

}  // namespace

void append_escaped_label_value(std::string& out, std::string_view value) {
  append_escaped(out, value, "\\\"\n");
}

void append_escaped_help_text(std::string& out, std::string_view help) {
  append_escaped(out, help, "\\\n");
}

}  // namespace gpuwatch
