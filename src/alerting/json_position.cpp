#include "alerting/json_position.h"

#include <algorithm>
#include <filesystem>

#include "core/file_io.h"
#include "core/utf8.h"

namespace gpuwatch::alerting {

std::string line_column(const std::string& text, std::size_t byte) {
  const std::size_t end = std::min(byte > 0 ? byte - 1 : 0, text.size());
  const std::size_t line = 1 + static_cast<std::size_t>(std::count(text.begin(), text.begin() + end, '\n'));
  const std::size_t line_start = text.rfind('\n', end == 0 ? 0 : end - 1);
  const std::size_t column = line_start == std::string::npos || end == 0 ? end + 1 : end - line_start;
  return std::to_string(line) + ":" + std::to_string(column);
}

std::optional<nlohmann::json> read_json_file(const std::string& path, bool missing_is_empty,
                                             std::string& error) {
  error.clear();
  std::error_code missing;
  if (missing_is_empty && !std::filesystem::exists(path, missing) && !missing) return std::nullopt;
  const auto text = read_file(path, &error);
  if (!text) return std::nullopt;
  try {
    return nlohmann::json::parse(*text);
  } catch (const nlohmann::json::parse_error& e) {
    // nlohmann's message repeats the position as a byte offset; the line and column say it for an editor.
    std::string what = e.what();
    if (const auto at = what.find("syntax error"); at != std::string::npos) what = what.substr(at);
    error = path + ":" + line_column(*text, e.byte) + ": invalid JSON: " + to_valid_utf8(what);
    return std::nullopt;
  }
}

}  // namespace gpuwatch::alerting
