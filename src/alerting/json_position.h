// Where in a JSON file nlohmann stopped, as an editor counts it, for errors that name file:line:column.
#pragma once

#include <cstddef>
#include <string>

namespace gpuwatch::alerting {

// "line:column" (1-based) of a byte position as nlohmann counts it (the number of bytes read when it failed).
std::string line_column(const std::string& text, std::size_t byte);

}  // namespace gpuwatch::alerting
