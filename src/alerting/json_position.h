// The JSON files the alerting keeps (silences, alert state): read whole, and where nlohmann stopped, as an
// editor counts it, for errors that name file:line:column.
#pragma once

#include <cstddef>
#include <optional>
#include <string>

#include <nlohmann/json.hpp>

namespace gpuwatch::alerting {

// "line:column" (1-based) of a byte position as nlohmann counts it (the number of bytes read when it failed).
std::string line_column(const std::string& text, std::size_t byte);

// The document in `path`, or nullopt with `error` saying why ("path:line:column: invalid JSON: ..." or the
// read's own error). A file that does not exist is nullopt with `error` empty when `missing_is_empty`.
std::optional<nlohmann::json> read_json_file(const std::string& path, bool missing_is_empty,
                                             std::string& error);

}  // namespace gpuwatch::alerting
