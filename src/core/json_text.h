// The one way the agent turns a JSON document into text. Documents carry outside strings (process names,
// label values, kernel-log text): those are made valid UTF-8 where they enter (core/utf8.h), and should one
// slip through, dumping replaces its bad bytes with U+FFFD instead of throwing (nlohmann's type_error 316)
// on the thread that serves, delivers or stores it.
#pragma once

#include <string>

#include <nlohmann/json.hpp>

namespace gpuwatch {

// `document` as JSON text: compact by default, indented by `indent` spaces when it is 0 or more.
inline std::string to_json_text(const nlohmann::json& document, int indent = -1) {
  return document.dump(indent, ' ', false, nlohmann::json::error_handler_t::replace);
}

}  // namespace gpuwatch
