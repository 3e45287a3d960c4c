// The one way the agent turns a JSON document into text. Documents carry outside strings (process names,
// label values, kernel-log text): those are made valid UTF-8 where they enter (core/utf8.h), and should one
// slip through, dumping replaces its bad bytes with U+FFFD instead of throwing (nlohmann's type_error 316)
// on the thread that serves, delivers or stores it.
#pragma once

#include <string>
#include <string_view>

#include <nlohmann/json.hpp>

namespace gpuwatch {

// `document` as JSON text: compact by default, indented by `indent` spaces when it is 0 or more.
inline std::string to_json_text(const nlohmann::json& document, int indent = -1) {
  return document.dump(indent, ' ', false, nlohmann::json::error_handler_t::replace);
}

// Appends `text` as a JSON string, quotes included, for documents written by hand where building a
// nlohmann::json would cost too much (query results: millions of label values). The only hand-written JSON
// string escaping; bytes that are not UTF-8 become U+FFFD, as to_json_text does.
void append_json_string(std::string& out, std::string_view text);

}  // namespace gpuwatch
