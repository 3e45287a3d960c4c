// Prometheus's escaping of text in the exposition formats, written once. It lives in core, not in
// src/exposition, because core's labels_to_string (used by the store's and the importer's messages) writes
// label values exactly as /metrics does.
#pragma once

#include <string>
#include <string_view>

namespace gpuwatch {

// A label value, in both formats, and HELP text in OpenMetrics: backslash, double quote and line feed become
// \\, \" and \n.
void append_escaped_label_value(std::string& out, std::string_view value);
// HELP text in text format 0.0.4: backslash and line feed escaped, double quotes kept as they are.
void append_escaped_help_text(std::string& out, std::string_view help);

}  // namespace gpuwatch
